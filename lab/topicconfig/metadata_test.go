package topicconfig

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

const kraftFixture = "../../testdata/kafka-real/cp-kraft-ksql-txn"

func requireFixture(t *testing.T, dir string) {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("real-Kafka fixture %s missing (it is in the repository): %v", dir, err)
	}
}

// TestMetadataFixture decodes the KRaft snapshot of cp-kraft-ksql-txn. The
// expected values do not come from this decoder: the topics are those whose
// partitions PROVENANCE.md lists (their directories are beside the
// metadata log), and the configs are those Kafka and Confluent create these
// topics with (offsets.topic.segment.bytes and
// transaction.state.log.segment.bytes default to 104857600; Schema
// Registry and Connect create compacted topics). The TopicRecord count is
// counted in the test from the raw (uncompressed) snapshot bytes.
func TestMetadataFixture(t *testing.T) {
	requireFixture(t, kraftFixture)
	meta := filepath.Join(kraftFixture, MetadataPartition)
	s, err := Load(LoadOptions{LogDir: kraftFixture})
	if err != nil {
		t.Fatal(err)
	}
	topics := map[string]bool{}
	for _, tpc := range s.MetadataTopics() {
		topics[tpc] = true
	}
	for _, want := range []string{"__consumer_offsets", "__transaction_state", "_confluent-ksql-default__command_topic", "_schemas", "docker-connect-configs"} {
		if !topics[want] {
			t.Errorf("metadata topics %v lack %s", s.MetadataTopics(), want)
		}
	}

	// Independent count: TopicRecord frames (frame 1, api key 2, version 0,
	// then a compact string of printable bytes and a 16-byte id).
	raw, err := os.ReadFile(filepath.Join(meta, "00000000000000060500-0000000025.checkpoint"))
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	for i := 0; i+4 < len(raw); i++ {
		if raw[i] != 1 || raw[i+1] != 2 || raw[i+2] != 0 {
			continue
		}
		n := int(raw[i+3]) - 1
		if n <= 0 || i+4+n+16 > len(raw) {
			continue
		}
		name := raw[i+4 : i+4+n]
		printable := true
		for _, c := range name {
			if c < 0x21 || c > 0x7e {
				printable = false
			}
		}
		if printable {
			count++
		}
	}
	if count == 0 || len(s.MetadataTopics()) != count {
		t.Errorf("decoded %d topics %v, the raw bytes hold %d TopicRecord frames", len(s.MetadataTopics()), s.MetadataTopics(), count)
	}
	// A ConfigRecord built by hand from ConfigRecord.json: frame 1, key 4,
	// version 0, resource type 2 (topic), compact strings (length+1).
	hand := []byte{1, 4, 0, 2, 9}
	hand = append(hand, "_schemas"...)
	hand = append(hand, 15)
	hand = append(hand, "cleanup.policy"...)
	hand = append(hand, 8)
	hand = append(hand, "compact"...)
	hand = append(hand, 0)
	if !bytes.Contains(raw, hand) {
		t.Fatalf("the snapshot does not hold the hand-built ConfigRecord % x", hand)
	}

	for topic, want := range map[string]map[string]string{
		"__consumer_offsets":     {"cleanup.policy": "compact", "segment.bytes": "104857600"},
		"__transaction_state":    {"cleanup.policy": "compact", "segment.bytes": "104857600"},
		"_schemas":               {"cleanup.policy": "compact"},
		"docker-connect-configs": {"cleanup.policy": "compact"},
	} {
		r, err := s.For(topic)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range want {
			got := r.Configs[k]
			if got.Value != v || got.Source != SourceMetadata {
				t.Errorf("%s %s = %+v, want %s from the metadata log", topic, k, got, v)
			}
		}
		if !r.Compact() || r.Delete() || r.PolicySource != SourceMetadata {
			t.Errorf("%s policy %q from %s, want compact from the metadata log", topic, r.Policy, r.PolicySource)
		}
		if strings.Contains(r.Configs["cleanup.policy"].Where, "offset") == false {
			t.Errorf("%s: where %q lacks the record offset", topic, r.Configs["cleanup.policy"].Where)
		}
	}
	if r, _ := s.For("__consumer_offsets"); r.Log.SegmentBytes != 104857600 {
		t.Errorf("__consumer_offsets LogConfig.SegmentBytes = %d", r.Log.SegmentBytes)
	}
}

// TestMetadataBadRecord: a record with an unknown frame version names the
// file and the record's offset; a record cut short too.
func TestMetadataBadRecord(t *testing.T) {
	for name, value := range map[string][]byte{
		"frame version 2": {2, 2, 0, 2, 'a'},
		"ends early":      {1, 4, 0, 2, 9, 'x'},
	} {
		dir := filepath.Join(t.TempDir(), MetadataPartition)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := record.BuildBatch(nil, record.BatchHeader{BaseOffset: 7, ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, PartitionLeaderEpoch: -1},
			[]record.Record{{Value: value}})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "00000000000000000000.log")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = ReadMetadata(dir)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "offset 7") || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v, want the file, offset 7 and %q", name, err, name)
		}
	}
}

// TestMetadataRecordsInOrder: a topic config set, a cluster-wide broker
// default, a deleted config and a removed topic, in a hand-built log.
func TestMetadataRecordsInOrder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, MetadataPartition)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cs := func(s string) []byte { return append([]byte{byte(len(s) + 1)}, s...) }
	topic := func(name string, id byte) []byte {
		v := append([]byte{1, 2, 0}, cs(name)...)
		v = append(v, bytes.Repeat([]byte{id}, 16)...)
		return append(v, 0)
	}
	config := func(rt byte, res, key string, val *string) []byte {
		v := append([]byte{1, 4, 0, rt}, cs(res)...)
		v = append(v, cs(key)...)
		if val == nil {
			v = append(v, 0)
		} else {
			v = append(v, cs(*val)...)
		}
		return append(v, 0)
	}
	str := func(s string) *string { return &s }
	remove := append(append([]byte{1, 9, 0}, bytes.Repeat([]byte{2}, 16)...), 0)
	values := [][]byte{
		topic("orders", 1),
		topic("gone", 2),
		config(2, "orders", "cleanup.policy", str("compact")),
		config(2, "orders", "min.cleanable.dirty.ratio", str("0.1")),
		config(2, "orders", "min.cleanable.dirty.ratio", nil), // deleted again
		config(2, "gone", "cleanup.policy", str("compact")),
		remove,
		config(4, "", "log.cleaner.threads", str("3")),
		config(4, "1", "log.cleaner.threads", str("9")), // one broker: not applied
		{1, 3, 0, 0}, // PartitionRecord: skipped, not decoded
	}
	var recs []record.Record
	for i, v := range values {
		recs = append(recs, record.Record{OffsetDelta: int32(i), Value: v})
	}
	b, err := record.BuildBatch(nil, record.BatchHeader{LastOffsetDelta: int32(len(recs) - 1), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, PartitionLeaderEpoch: -1}, recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "00000000000000000000.log"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(LoadOptions{LogDir: root})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.MetadataTopics(), ","); got != "orders" {
		t.Errorf("topics %q, want orders (gone was removed)", got)
	}
	r, err := s.For("orders")
	if err != nil {
		t.Fatal(err)
	}
	if r.Policy != "compact" || r.Configs["min.cleanable.dirty.ratio"].Value != "0.5" {
		t.Errorf("orders: policy %q ratio %+v, want compact and the default 0.5 after the delete", r.Policy, r.Configs["min.cleanable.dirty.ratio"])
	}
	c, _, err := s.CleanerConfig(defaultCleaner())
	if err != nil {
		t.Fatal(err)
	}
	if c.Threads != 3 {
		t.Errorf("threads %d, want 3 from the cluster-wide dynamic default", c.Threads)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "1 per-broker") {
		t.Errorf("warnings %q", s.Warnings)
	}
}
