package topicconfig

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// MetadataPartition is the KRaft metadata log's partition directory name.
const MetadataPartition = "__cluster_metadata-0"

// Metadata record api keys (Kafka's metadata/src/main/resources/common/metadata/*.json).
const (
	apiKeyTopicRecord       = 2
	apiKeyConfigRecord      = 4
	apiKeyRemoveTopicRecord = 9
)

// ConfigRecord resource types (Kafka's ConfigResource.Type).
const (
	resourceTopic  = 2
	resourceBroker = 4
)

// metadataFrameVersion is the only frame version Kafka's
// AbstractApiMessageSerde writes and reads.
const metadataFrameVersion = 1

// MetadataRecord is one decoded TopicRecord, ConfigRecord or
// RemoveTopicRecord of the metadata log.
type MetadataRecord struct {
	// Offset of the record in the metadata log (or snapshot).
	Offset record.Offset
	APIKey int
	// Topic and TopicID of a TopicRecord; TopicID of a RemoveTopicRecord.
	Topic   string
	TopicID [16]byte
	// ResourceType, ResourceName, Name, Value and Null (a deleted config)
	// of a ConfigRecord.
	ResourceType int8
	ResourceName string
	Name, Value  string
	Null         bool
}

// ReadMetadata decodes the KRaft metadata log in dir (a
// __cluster_metadata-0 directory), read-only: the latest snapshot
// (<end offset>-<epoch>.checkpoint, the same record-batch framing) and then
// the records of its .log segments from the snapshot's end offset on. Each
// record's value is a metadata record frame: frame version, api key and
// version as unsigned varints, then the record in the flexible encoding
// (compact strings, UUIDs as 16 bytes, tagged fields at the end) that the
// records on disk use. Only TopicRecord, ConfigRecord and RemoveTopicRecord
// are returned; others are skipped, as are control batches. Errors name the
// file and the record's offset.
func ReadMetadata(dir string) ([]MetadataRecord, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("topicconfig: %w", err)
	}
	var snapshot string
	var snapEnd int64 = -1
	type seg struct {
		base int64
		path string
	}
	var logs []seg
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".checkpoint") && len(name) == len("00000000000000000000-0000000000.checkpoint") {
			end, err := strconv.ParseInt(name[:20], 10, 64)
			if err == nil && end > snapEnd {
				snapEnd, snapshot = end, filepath.Join(dir, name)
			}
		}
		if strings.HasSuffix(name, ".log") && len(name) == 24 {
			if base, err := strconv.ParseInt(name[:20], 10, 64); err == nil {
				logs = append(logs, seg{base, filepath.Join(dir, name)})
			}
		}
	}
	sort.Slice(logs, func(i, j int) bool { return logs[i].base < logs[j].base })
	var out []MetadataRecord
	if snapshot != "" {
		recs, err := decodeMetadataFile(snapshot, -1)
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	for _, s := range logs {
		recs, err := decodeMetadataFile(s.path, record.Offset(snapEnd))
		if err != nil {
			return nil, err
		}
		out = append(out, recs...)
	}
	return out, nil
}

// decodeMetadataFile decodes the records of one file with offset >= from.
func decodeMetadataFile(path string, from record.Offset) ([]MetadataRecord, error) {
	var out []MetadataRecord
	var d record.Decoder
	err := engine.ScanFile(nil, path, 0, func(pos engine.FilePos, batch []byte) error {
		if _, magic, err := record.PeekBatch(batch); err != nil || magic != 2 {
			return fmt.Errorf("batch at byte %d is not a v2 record batch", pos)
		}
		if err := record.VerifyCRC(batch); err != nil {
			return fmt.Errorf("batch at byte %d: %w", pos, err)
		}
		h, it, err := d.Records(batch)
		if err != nil {
			return fmt.Errorf("batch at byte %d: %w", pos, err)
		}
		if h.Attributes.Control() {
			return nil
		}
		var r record.Record
		for {
			ok, err := it.Next(&r)
			if err != nil {
				return fmt.Errorf("batch at byte %d: %w", pos, err)
			}
			if !ok {
				return nil
			}
			off := r.Offset(&h)
			if off < from {
				continue
			}
			mr, keep, err := decodeMetadataRecord(r.Value)
			if err != nil {
				return fmt.Errorf("record at offset %d: %w", off, err)
			}
			if keep {
				mr.Offset = off
				out = append(out, mr)
			}
		}
	})
	if err != nil {
		return nil, fmt.Errorf("topicconfig: %s: %w", path, err)
	}
	return out, nil
}

var errShort = errors.New("metadata record ends early")

// reader decodes the flexible encoding of Kafka's generated messages.
type reader struct {
	b   []byte
	err error
}

func (r *reader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errShort
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes(n int) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > len(r.b) {
		r.err = errShort
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// compactString reads an unsigned varint length+1 (0 = null) and the bytes.
func (r *reader) compactString() (string, bool) {
	n := r.uvarint()
	if r.err != nil || n == 0 {
		return "", true
	}
	if n-1 > uint64(len(r.b)) {
		r.err = errShort
		return "", false
	}
	return string(r.bytes(int(n - 1))), false
}

// taggedFields skips the tagged fields section.
func (r *reader) taggedFields() {
	n := r.uvarint()
	for i := uint64(0); i < n && r.err == nil; i++ {
		r.uvarint() // tag
		size := r.uvarint()
		if size > uint64(len(r.b)) {
			r.err = errShort
			return
		}
		r.bytes(int(size))
	}
}

// decodeMetadataRecord decodes one record value; keep is false for record
// types the lab does not use.
func decodeMetadataRecord(v []byte) (MetadataRecord, bool, error) {
	if v == nil {
		return MetadataRecord{}, false, errors.New("metadata record with a null value")
	}
	r := &reader{b: v}
	frame := r.uvarint()
	apiKey := r.uvarint()
	version := r.uvarint()
	if r.err != nil {
		return MetadataRecord{}, false, fmt.Errorf("frame: %w", r.err)
	}
	if frame != metadataFrameVersion {
		return MetadataRecord{}, false, fmt.Errorf("frame version %d, want %d", frame, metadataFrameVersion)
	}
	m := MetadataRecord{APIKey: int(apiKey)}
	switch apiKey {
	case apiKeyTopicRecord:
		if version != 0 {
			return m, false, fmt.Errorf("TopicRecord version %d: only version 0 is known", version)
		}
		name, null := r.compactString()
		if null && r.err == nil {
			return m, false, errors.New("TopicRecord with a null name")
		}
		m.Topic = name
		copy(m.TopicID[:], r.bytes(16))
	case apiKeyConfigRecord:
		if version != 0 {
			return m, false, fmt.Errorf("ConfigRecord version %d: only version 0 is known", version)
		}
		rt := r.bytes(1)
		if len(rt) == 1 {
			m.ResourceType = int8(rt[0])
		}
		m.ResourceName, _ = r.compactString()
		m.Name, _ = r.compactString()
		m.Value, m.Null = r.compactString()
	case apiKeyRemoveTopicRecord:
		if version > 1 {
			return m, false, fmt.Errorf("RemoveTopicRecord version %d: only versions 0-1 are known", version)
		}
		copy(m.TopicID[:], r.bytes(16))
	default:
		return m, false, nil
	}
	r.taggedFields()
	if r.err != nil {
		return m, false, fmt.Errorf("api key %d version %d: %w", apiKey, version, r.err)
	}
	if len(r.b) != 0 {
		return m, false, fmt.Errorf("api key %d version %d: %d bytes after the record", apiKey, version, len(r.b))
	}
	return m, true, nil
}

// AddMetadata applies the records of ReadMetadata(dir) in order: topics
// created and removed, topic configs set and deleted (SourceMetadata), and
// cluster-wide dynamic broker configs (SourceDynamicDefault). Configs of one
// broker (ResourceName a node id) are not applied, with a warning, since
// which broker wrote this data directory is not known here.
func (s *Set) AddMetadata(dir string) error {
	recs, err := ReadMetadata(dir)
	if err != nil {
		return err
	}
	if s.metaTopics == nil {
		s.metaTopics = map[string]bool{}
	}
	byID := map[[16]byte]string{}
	perBroker := 0
	for _, m := range recs {
		where := fmt.Sprintf("%s offset %d", dir, m.Offset)
		switch m.APIKey {
		case apiKeyTopicRecord:
			byID[m.TopicID] = m.Topic
			s.metaTopics[m.Topic] = true
		case apiKeyRemoveTopicRecord:
			if t, ok := byID[m.TopicID]; ok {
				delete(s.metaTopics, t)
				delete(s.topics, t)
			}
		case apiKeyConfigRecord:
			switch m.ResourceType {
			case resourceTopic:
				if m.Null {
					s.removeTopicOverride(m.ResourceName, m.Name)
					continue
				}
				if err := s.AddTopicOverride(m.ResourceName, m.Name, m.Value, SourceMetadata, where); err != nil {
					return fmt.Errorf("topicconfig: %w", err)
				}
			case resourceBroker:
				if m.ResourceName != "" {
					perBroker++
					continue
				}
				if err := s.addBrokerDefault(m.Name, m.Value, where, m.Null); err != nil {
					return fmt.Errorf("topicconfig: %w", err)
				}
			}
		}
	}
	if perBroker > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: %d per-broker dynamic configs not applied (which broker wrote this directory is not known)", dir, perBroker))
	}
	return nil
}

// TopicIDString formats a topic id in hex, for messages.
func TopicIDString(id [16]byte) string { return hex.EncodeToString(id[:]) }
