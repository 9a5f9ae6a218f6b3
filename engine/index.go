package engine

import (
	"encoding/binary"
	"fmt"
	"io"
	"sort"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Index entry sizes: part of Kafka's on-disk format (OffsetIndex, TimeIndex);
// they must not change.
const (
	offsetIndexEntrySize = 8  // relativeOffset int32, filePosition int32
	timeIndexEntrySize   = 12 // timestamp int64, relativeOffset int32
)

// FilePos is a byte position in a segment's .log file.
type FilePos int64

// OffsetIndexEntry maps an offset to the position of the batch holding it.
type OffsetIndexEntry struct {
	Offset record.Offset // absolute
	Pos    FilePos
}

// TimeIndexEntry says that records with a timestamp >= Timestamp are at or
// after Offset.
type TimeIndexEntry struct {
	Timestamp int64 // ms
	Offset    record.Offset
}

// indexer keeps a segment's offset and time indexes in memory and applies
// Kafka's append rules (LogSegment.append, per batch as in Kafka 4.x).
type indexer struct {
	base               record.Offset
	intervalBytes      int64
	offsets            []OffsetIndexEntry
	times              []TimeIndexEntry
	bytesSinceLast     int64
	maxTimestampSoFar  int64 // ms, record.NoTimestamp when none
	offsetOfMaxTsSoFar record.Offset
}

func newIndexer(base record.Offset, intervalBytes int64) indexer {
	return indexer{base: base, intervalBytes: intervalBytes, maxTimestampSoFar: record.NoTimestamp, offsetOfMaxTsSoFar: base}
}

// onBatch records one batch appended at pos, as Kafka's LogSegment.append:
// the max timestamp is tracked first, then an index entry (batch last offset,
// batch start position) is added when more than intervalBytes were appended
// since the last entry.
func (ix *indexer) onBatch(h *record.BatchHeader, pos FilePos) {
	if h.MaxTimestamp > ix.maxTimestampSoFar {
		ix.maxTimestampSoFar = h.MaxTimestamp
		ix.offsetOfMaxTsSoFar = h.LastOffset()
	}
	if ix.bytesSinceLast > ix.intervalBytes {
		ix.appendOffset(h.LastOffset(), pos)
		ix.maybeAppendTime(ix.maxTimestampSoFar, ix.offsetOfMaxTsSoFar)
		ix.bytesSinceLast = 0
	}
	ix.bytesSinceLast += int64(h.Size())
}

func (ix *indexer) appendOffset(off record.Offset, pos FilePos) {
	if n := len(ix.offsets); n > 0 && off <= ix.offsets[n-1].Offset {
		return // Kafka's OffsetIndex rejects non-increasing offsets; recovery never produces them
	}
	ix.offsets = append(ix.offsets, OffsetIndexEntry{Offset: off, Pos: pos})
}

// maybeAppendTime appends when ts is greater than the last entry's, as
// Kafka's TimeIndex.maybeAppend (initial last entry: timestamp -1).
func (ix *indexer) maybeAppendTime(ts int64, off record.Offset) {
	last := record.NoTimestamp
	if n := len(ix.times); n > 0 {
		last = ix.times[n-1].Timestamp
	}
	if ts > last {
		ix.times = append(ix.times, TimeIndexEntry{Timestamp: ts, Offset: off})
	}
}

// onBecomeInactive appends the roll-time entry (max timestamp so far), as
// Kafka's LogSegment.onBecomeInactiveSegment and LogSegment.close do. It
// reports whether an entry was appended.
func (ix *indexer) onBecomeInactive() bool {
	n := len(ix.times)
	ix.maybeAppendTime(ix.maxTimestampSoFar, ix.offsetOfMaxTsSoFar)
	return len(ix.times) > n
}

// lookup returns the position of the largest entry <= target, else 0, as
// Kafka's OffsetIndex.lookup.
func (ix *indexer) lookup(target record.Offset) FilePos {
	i := sort.Search(len(ix.offsets), func(i int) bool { return ix.offsets[i].Offset > target })
	if i == 0 {
		return 0
	}
	return ix.offsets[i-1].Pos
}

func (ix *indexer) encodeOffsetIndex(dst []byte) ([]byte, error) {
	for _, e := range ix.offsets {
		rel := int64(e.Offset - ix.base)
		if rel < 0 || rel > 1<<31-1 {
			return dst, fmt.Errorf("engine: offset %d does not fit a relative offset from base %d", e.Offset, ix.base)
		}
		dst = binary.BigEndian.AppendUint32(dst, uint32(rel))
		dst = binary.BigEndian.AppendUint32(dst, uint32(e.Pos))
	}
	return dst, nil
}

func (ix *indexer) encodeTimeIndex(dst []byte) ([]byte, error) {
	for _, e := range ix.times {
		rel := int64(e.Offset - ix.base)
		if rel < 0 || rel > 1<<31-1 {
			return dst, fmt.Errorf("engine: offset %d does not fit a relative offset from base %d", e.Offset, ix.base)
		}
		dst = binary.BigEndian.AppendUint64(dst, uint64(e.Timestamp))
		dst = binary.BigEndian.AppendUint32(dst, uint32(rel))
	}
	return dst, nil
}

// readOffsetIndex decodes a .index file. Trailing zero entries (the unused
// part of a preallocated index) end it, as Kafka's entry count does for an
// index that was not trimmed (relative offset 0 is only valid as the first entry).
func readOffsetIndex(f File, base record.Offset) ([]OffsetIndexEntry, error) {
	data, err := readAll(f)
	if err != nil {
		return nil, err
	}
	if len(data)%offsetIndexEntrySize != 0 {
		return nil, fmt.Errorf("%w: %s: size %d is not a multiple of %d", ErrCorruptIndex, f.Name(), len(data), offsetIndexEntrySize)
	}
	var out []OffsetIndexEntry
	for i := 0; i+offsetIndexEntrySize <= len(data); i += offsetIndexEntrySize {
		rel := binary.BigEndian.Uint32(data[i:])
		pos := binary.BigEndian.Uint32(data[i+4:])
		if rel == 0 && pos == 0 && i > 0 {
			break
		}
		out = append(out, OffsetIndexEntry{Offset: base + record.Offset(rel), Pos: FilePos(pos)})
	}
	return out, nil
}

// readTimeIndex decodes a .timeindex file; an all-zero entry after the first ends it.
func readTimeIndex(f File, base record.Offset) ([]TimeIndexEntry, error) {
	data, err := readAll(f)
	if err != nil {
		return nil, err
	}
	if len(data)%timeIndexEntrySize != 0 {
		return nil, fmt.Errorf("%w: %s: size %d is not a multiple of %d", ErrCorruptIndex, f.Name(), len(data), timeIndexEntrySize)
	}
	var out []TimeIndexEntry
	for i := 0; i+timeIndexEntrySize <= len(data); i += timeIndexEntrySize {
		ts := int64(binary.BigEndian.Uint64(data[i:]))
		rel := binary.BigEndian.Uint32(data[i+8:])
		if ts == 0 && rel == 0 && i > 0 {
			break
		}
		out = append(out, TimeIndexEntry{Timestamp: ts, Offset: base + record.Offset(rel)})
	}
	return out, nil
}

func readAll(f File) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, st.Size())
	n, err := f.ReadAt(data, 0)
	if err != nil && !(err == io.EOF && n == len(data)) {
		return nil, err
	}
	return data[:n], nil
}
