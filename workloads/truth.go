package workloads

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// GroundTruth is what one generated partition must hold after any number of
// cleans: for every key of the partition the offset of its latest visible
// write (a committed or non-transactional one) and whether that write is a
// tombstone, and the offsets of aborted transactional records, which are
// never a key's latest value. Keys are numbered locally: local index j is
// key id j x stride + residue (the key ids i with i mod Partitions == p).
// It keeps 8 bytes and 1 bit per key, in slices: no map, whatever the key
// count, plus 16 bytes per aborted batch.
type GroundTruth struct {
	// Topic and Partition name the partition directory Topic-Partition.
	Topic     string
	Partition int
	// FirstDirtyOffset is the first offset of the dirty head, where the
	// generator put the cleaner checkpoint.
	FirstDirtyOffset int64
	// LogEndOffset is the offset after the last generated record.
	LogEndOffset int64

	seed      uint64 // Spec.Seed: key sizes
	keySize   sizer
	valueSize sizer
	valueSeed uint64
	stride    uint64   // Spec.Partitions
	residue   uint64   // the partition
	latest    []int64  // by local index: offset of the latest visible write, -1 if never written
	tombstone []uint64 // bitmap by local index: the latest write is a tombstone
	// txn says the partition holds transactional batches and markers.
	txn bool
	// aborted are the offset ranges of aborted transactions' data batches,
	// in increasing order, [first, last] each.
	aborted []offsetRange
}

// offsetRange is the offsets first..last, inclusive.
type offsetRange struct{ first, last int64 }

func newGroundTruth(s *Spec, p int) *GroundTruth {
	n := s.partitionKeys(p)
	t := &GroundTruth{
		Topic: s.Topic, Partition: p,
		seed: s.Seed, keySize: s.keySizer(), valueSize: s.valueSizer(), valueSeed: valueSeed(s.Seed, p),
		stride: uint64(s.Partitions), residue: uint64(p),
		latest:    make([]int64, n),
		tombstone: make([]uint64, (n+63)/64),
		txn:       s.Txn.Ratio > 0,
	}
	for i := range t.latest {
		t.latest[i] = -1
	}
	return t
}

// set records a write of local key j at offset.
func (t *GroundTruth) set(j uint64, offset int64, tombstone bool) {
	t.latest[j] = offset
	if tombstone {
		t.tombstone[j>>6] |= 1 << (j & 63)
	} else {
		t.tombstone[j>>6] &^= 1 << (j & 63)
	}
}

// setIfNewer records a write of local key j at offset unless the key has a
// later one: a committed transaction's records become visible at its
// marker, after later writes of other producers may have been recorded.
func (t *GroundTruth) setIfNewer(j uint64, offset int64, tombstone bool) {
	if offset > t.latest[j] {
		t.set(j, offset, tombstone)
	}
}

// abort records the offsets of an aborted transaction's data batch.
func (t *GroundTruth) abort(first, last int64) {
	t.aborted = append(t.aborted, offsetRange{first, last})
}

// sortAborted puts the aborted ranges in offset order (transactions of
// several producers end in another order than they began).
func (t *GroundTruth) sortAborted() {
	sort.Slice(t.aborted, func(a, b int) bool { return t.aborted[a].first < t.aborted[b].first })
}

// IsAborted says whether the record at offset belongs to an aborted
// transaction.
func (t *GroundTruth) IsAborted(offset int64) bool {
	i := sort.Search(len(t.aborted), func(i int) bool { return t.aborted[i].last >= offset })
	return i < len(t.aborted) && t.aborted[i].first <= offset
}

// AbortedRanges returns the number of aborted data batches.
func (t *GroundTruth) AbortedRanges() int { return len(t.aborted) }

// KeySize is the size in bytes of the key with topic-wide id.
func (t *GroundTruth) KeySize(id int64) int { return t.keySize.size(t.seed, uint64(id)) }

// ValueSize is the size in bytes of a non-null value at offset.
func (t *GroundTruth) ValueSize(offset int64) int {
	return t.valueSize.size(t.valueSeed, uint64(offset))
}

// Keys is the number of keys of the partition (local indexes 0 .. Keys-1).
func (t *GroundTruth) Keys() int64 { return int64(len(t.latest)) }

// KeyID is the topic-wide key id of local index j.
func (t *GroundTruth) KeyID(j int64) int64 { return j*int64(t.stride) + int64(t.residue) }

// Latest returns the offset of the latest write of local key j (-1 when the
// key was never written) and whether that write is a tombstone.
func (t *GroundTruth) Latest(j int64) (offset int64, tombstone bool) {
	return t.latest[j], t.tombstone[j>>6]&(1<<(j&63)) != 0
}

// WrittenKeys counts the keys written at least once, and of those the keys
// whose latest write is a tombstone.
func (t *GroundTruth) WrittenKeys() (written, tombstones int64) {
	for j, off := range t.latest {
		if off >= 0 {
			written++
			if t.tombstone[j>>6]&(1<<(j&63)) != 0 {
				tombstones++
			}
		}
	}
	return written, tombstones
}

// AppendKey appends the key bytes of local key j to dst.
func (t *GroundTruth) AppendKey(dst []byte, j int64) []byte {
	id := t.KeyID(j)
	n := len(dst)
	dst = append(dst, make([]byte, t.KeySize(id))...)
	fillKey(dst[n:], uint64(id))
	return dst
}

// AppendValue appends the value bytes every non-tombstone record at offset
// has in this partition.
func (t *GroundTruth) AppendValue(dst []byte, offset int64) []byte {
	n := len(dst)
	dst = append(dst, make([]byte, t.ValueSize(offset))...)
	fillValue(dst[n:], t.valueSeed, offset)
	return dst
}

// localIndex maps a key's bytes to its local index, or false when the key is
// not one of this partition's (or not of the size its id has).
func (t *GroundTruth) localIndex(key []byte) (uint64, bool) {
	id, ok := parseKeyID(key)
	if !ok || id%t.stride != t.residue {
		return 0, false
	}
	j := id / t.stride
	if j >= uint64(len(t.latest)) || len(key) != t.KeySize(int64(id)) {
		return 0, false
	}
	return j, true
}

// VerifyStats are the figures Verify counts while reading a log.
type VerifyStats struct {
	Batches      int64 // batches read, empty ones included
	EmptyBatches int64 // batches with no record (kept by the cleaner for their offsets)
	Records      int64 // records read
	Bytes        int64 // .log bytes read
	DistinctKeys int64 // keys with at least one record in the log
	// LatestRecords counts keys whose latest write is present, tombstones included.
	LatestRecords int64
	// Tombstones counts tombstone records present (latest or not).
	Tombstones int64
	// TombstonesKept counts keys whose latest write, a tombstone, is present.
	TombstonesKept int64
	// TombstonesRemoved counts keys whose latest write, a tombstone, is gone
	// together with every older record of the key (past its delete horizon).
	TombstonesRemoved int64
	// StaleRecords counts records older than their key's latest write; they
	// are allowed only at or above the checkpoint (not yet cleaned).
	StaleRecords int64
	// AbortedRecords counts records of aborted transactions still present:
	// Kafka's cleaner removes them, but they are no problem as long as none
	// is taken for a key's latest value.
	AbortedRecords int64
	// ControlBatches counts transaction markers (COMMIT and ABORT batches).
	ControlBatches int64
}

// VerifyError lists what Verify found wrong with a log: the first
// maxProblems problems, and how many there were in all.
type VerifyError struct {
	Dir      string
	Problems []string
	Total    int
}

// maxProblems bounds the problems a VerifyError lists.
const maxProblems = 20

func (e *VerifyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "workloads: %s does not match its ground truth (%d problems", e.Dir, e.Total)
	if e.Total > len(e.Problems) {
		fmt.Fprintf(&b, ", the first %d listed", len(e.Problems))
	}
	b.WriteString("):")
	for _, p := range e.Problems {
		b.WriteString("\n\t")
		b.WriteString(p)
	}
	return b.String()
}

// Verify checks l against the truth; see VerifyLog.
func (t *GroundTruth) Verify(l *engine.Log, checkpoint int64) error {
	_, err := t.VerifyLog(l, checkpoint)
	return err
}

// VerifyLog reads the whole of l, batch by batch with its own decoder,
// independently of the cleaner, and checks it against the truth, given the
// cleaner checkpoint (the first dirty offset; -1 for none):
//   - every batch's CRC is right, offsets strictly increase across batches
//     and records, and the log end offset has not gone back;
//   - every record's key is one of the partition's, and no record is newer
//     than its key's latest write;
//   - a record of an aborted transaction may still be there (the cleaner
//     may not have removed it yet), with the value its offset gives, but it
//     never counts as its key's latest write, and below the checkpoint it
//     is not counted as a second record of its key;
//   - control batches are transaction markers (COMMIT or ABORT), present
//     only when the workload wrote transactions;
//   - every key's latest write is present, at its offset, with the value the
//     truth recomputes (or null for a tombstone); a latest tombstone may
//     instead be gone, but then so must be every record of that key (it was
//     removed past its delete horizon);
//   - below the checkpoint no key appears twice, and a record older than its
//     key's latest write appears only when that latest write is at or above
//     the checkpoint (the cleaned part holds the latest value of the cleaned
//     range).
//
// It returns the figures it counted and a *VerifyError listing the problems,
// each naming the key, the offsets and what was expected. Read errors
// (corruption, I/O) are returned as they are.
func (t *GroundTruth) VerifyLog(l *engine.Log, checkpoint int64) (VerifyStats, error) {
	var st VerifyStats
	verr := &VerifyError{Dir: l.Dir()}
	problem := func(format string, args ...any) {
		verr.Total++
		if len(verr.Problems) < maxProblems {
			verr.Problems = append(verr.Problems, fmt.Sprintf(format, args...))
		}
	}
	n := len(t.latest)
	words := (n + 63) / 64
	seen := make([]uint64, words)       // a record of the key was read
	seenLatest := make([]uint64, words) // the record at the key's latest offset was read
	seenBelow := make([]uint64, words)  // a record of the key below the checkpoint was read
	var (
		dec      record.Decoder
		r        record.Record
		want     = make([]byte, 0, t.valueSize.max)
		prevLast = int64(-1) // last offset of the previous batch
		prevRec  = int64(-1) // offset of the previous record
	)
	err := l.ReadBatches(l.LogStartOffset(), func(seg *engine.Segment, pos engine.FilePos, batch []byte) error {
		where := func() string { return fmt.Sprintf("%s byte %d", seg.LogPath(), pos) }
		st.Batches++
		st.Bytes += int64(len(batch))
		if err := record.VerifyCRC(batch); err != nil {
			return &record.CorruptionError{Path: seg.LogPath(), Pos: int64(pos), Reason: "batch CRC", Err: err}
		}
		h, recs, err := dec.Records(batch)
		if err != nil {
			return &record.CorruptionError{Path: seg.LogPath(), Pos: int64(pos), Reason: "batch", Err: err}
		}
		if int64(h.BaseOffset) <= prevLast {
			problem("batch at %s has base offset %d, not above the previous batch's last offset %d", where(), h.BaseOffset, prevLast)
		}
		prevLast = int64(h.LastOffset())
		if h.RecordCount == 0 {
			st.EmptyBatches++
		}
		if h.Attributes.Control() {
			st.ControlBatches++
			if !t.txn {
				problem("batch at %s (offsets %d-%d) is a control batch; the workload writes none", where(), h.BaseOffset, h.LastOffset())
				return nil
			}
			for {
				ok, err := recs.Next(&r)
				if err != nil {
					return &record.CorruptionError{Path: seg.LogPath(), Pos: int64(pos), Reason: "control record", Err: err}
				}
				if !ok {
					break
				}
				if ct, err := record.ParseControlKey(r.Key); err != nil || !ct.IsTxnMarker() || !h.Attributes.Transactional() {
					problem("control batch at %s (offset %d) is not a transaction marker", where(), r.Offset(&h))
				}
			}
			return nil
		}
		checkAborted := t.txn && h.Attributes.Transactional() && len(t.aborted) > 0
		for {
			ok, err := recs.Next(&r)
			if err != nil {
				return &record.CorruptionError{Path: seg.LogPath(), Pos: int64(pos), Reason: "record", Err: err}
			}
			if !ok {
				break
			}
			st.Records++
			off := int64(r.Offset(&h))
			if off <= prevRec {
				problem("record at offset %d (%s) is not above the previous record's offset %d", off, where(), prevRec)
			}
			if off > int64(h.LastOffset()) {
				problem("record at offset %d (%s) is past its batch's last offset %d", off, where(), h.LastOffset())
			}
			prevRec = off
			if r.IsTombstone() {
				st.Tombstones++
			}
			j, ok := t.localIndex(r.Key)
			if !ok {
				problem("record at offset %d (%s) has key %q, not a key of partition %d", off, where(), r.Key, t.Partition)
				continue
			}
			if checkAborted && t.IsAborted(off) {
				// Kafka's cleaner removes aborted data; until it does, the
				// record is only checked for its value.
				st.AbortedRecords++
				if !r.IsTombstone() {
					want = t.AppendValue(want[:0], off)
					if string(r.Value) != string(want) {
						problem("key %q: aborted record at offset %d (%s) has value %s, want %s", r.Key, off, where(), shortHex(r.Value), shortHex(want))
					}
				}
				continue
			}
			bit, word := uint64(1)<<(j&63), j>>6
			if seen[word]&bit == 0 {
				seen[word] |= bit
				st.DistinctKeys++
			}
			latest, tomb := t.latest[j], t.tombstone[word]&bit != 0
			switch {
			case off > latest:
				problem("key %q: record at offset %d (%s) is newer than the key's latest write at offset %d", r.Key, off, where(), latest)
			case off == latest:
				seenLatest[word] |= bit
				st.LatestRecords++
				if tomb {
					st.TombstonesKept++
					if !r.IsTombstone() {
						problem("key %q: latest record at offset %d (%s) has a %d-byte value, want a tombstone (null value)", r.Key, off, where(), len(r.Value))
					}
				} else {
					want = t.AppendValue(want[:0], off)
					switch {
					case r.IsTombstone():
						problem("key %q: latest record at offset %d (%s) is a tombstone, want a %d-byte value", r.Key, off, where(), len(want))
					case string(r.Value) != string(want):
						problem("key %q: latest record at offset %d (%s) has value %s, want %s", r.Key, off, where(), shortHex(r.Value), shortHex(want))
					}
				}
			default: // an older write
				st.StaleRecords++
				if off < checkpoint && latest < checkpoint {
					problem("key %q: record at offset %d (%s) is below the checkpoint %d but older than the key's latest write at offset %d, also below it",
						r.Key, off, where(), checkpoint, latest)
				}
			}
			if off < checkpoint {
				if seenBelow[word]&bit != 0 {
					problem("key %q: second record below the checkpoint %d, at offset %d (%s)", r.Key, checkpoint, off, where())
				}
				seenBelow[word] |= bit
			}
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if leo := int64(l.LogEndOffset()); leo < t.LogEndOffset {
		problem("log end offset %d is below the %d the workload wrote: offsets would be reused", leo, t.LogEndOffset)
	}
	for j, latest := range t.latest {
		if latest < 0 {
			continue
		}
		bit, word := uint64(1)<<(j&63), j>>6
		if seenLatest[word]&bit != 0 {
			continue
		}
		key := t.AppendKey(nil, int64(j))
		tomb := t.tombstone[word]&bit != 0
		switch {
		case tomb && seen[word]&bit == 0:
			st.TombstonesRemoved++
		case tomb:
			problem("key %q: latest write, a tombstone at offset %d, is gone but older records of the key remain", key, latest)
		default:
			problem("key %q: latest write at offset %d is missing", key, latest)
		}
	}
	if verr.Total > 0 {
		return st, verr
	}
	return st, nil
}

// shortHex renders up to 16 bytes of b in hex, with its length.
func shortHex(b []byte) string {
	if len(b) <= 16 {
		return fmt.Sprintf("%x (%d bytes)", b, len(b))
	}
	return fmt.Sprintf("%x... (%d bytes)", b[:16], len(b))
}
