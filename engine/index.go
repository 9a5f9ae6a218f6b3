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
	txnIndexEntrySize    = 34 // version int16, producerId int64, firstOffset, lastOffset, lastStableOffset int64
	txnIndexVersion      = 0  // TransactionIndex's only entry version
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
	maxOffsets         int // capacity of the offset index in entries; 0: unbounded
	maxTimes           int // capacity of the time index in entries, the reserved last slot included; 0: unbounded
	offsets            []OffsetIndexEntry
	times              []TimeIndexEntry
	bytesSinceLast     int64
	maxTimestampSoFar  int64 // ms, record.NoTimestamp when none
	offsetOfMaxTsSoFar record.Offset
}

func newIndexer(base record.Offset, intervalBytes int64) indexer {
	return indexer{base: base, intervalBytes: intervalBytes, maxTimestampSoFar: record.NoTimestamp, offsetOfMaxTsSoFar: base}
}

// maxIndexEntries returns the capacity, in entries, of an offset index and a
// time index of segment.index.bytes: the preallocated file size rounded down
// to whole entries, as Kafka's AbstractIndex (10 MiB: 1,310,720 offset and
// 873,813 time entries).
func maxIndexEntries(segmentIndexBytes int64) (offsets, times int) {
	return int(segmentIndexBytes / offsetIndexEntrySize), int(segmentIndexBytes / timeIndexEntrySize)
}

// setCapacity bounds the indexes by segment.index.bytes.
func (ix *indexer) setCapacity(segmentIndexBytes int64) {
	ix.maxOffsets, ix.maxTimes = maxIndexEntries(segmentIndexBytes)
}

// full reports whether either index is full, as Kafka's OffsetIndex.isFull
// and TimeIndex.isFull (which keeps its last slot for the roll-time entry):
// the segment must roll before the next append.
func (ix *indexer) full() bool {
	return (ix.maxOffsets > 0 && len(ix.offsets) >= ix.maxOffsets) ||
		(ix.maxTimes > 0 && len(ix.times) >= ix.maxTimes-1)
}

// onBatch records one batch appended at pos as an append of its own (Kafka
// 4.x's LogSegment.append checks each batch): onAppend with the batch's
// last offset, max timestamp and size.
func (ix *indexer) onBatch(h *record.BatchHeader, pos FilePos) {
	ix.onAppend(h.LastOffset(), h.MaxTimestamp, h.LastOffset(), pos, int64(h.Size()))
}

// onAppend records one append of size bytes at pos, as Kafka's
// LogSegment.append(largestOffset, largestTimestamp,
// shallowOffsetOfMaxTimestamp, records): the max timestamp and its offset
// are tracked first, then, when more than intervalBytes were appended since
// the last entry, one offset-index entry (largestOffset -> pos) and one
// time-index entry (the max timestamp so far and its offset) are added.
func (ix *indexer) onAppend(largestOffset record.Offset, largestTs int64, offsetOfLargestTs record.Offset, pos FilePos, size int64) {
	if largestTs > ix.maxTimestampSoFar {
		ix.maxTimestampSoFar = largestTs
		ix.offsetOfMaxTsSoFar = offsetOfLargestTs
	}
	if ix.bytesSinceLast > ix.intervalBytes {
		ix.appendOffset(largestOffset, pos)
		ix.maybeAppendTime(ix.maxTimestampSoFar, ix.offsetOfMaxTsSoFar, false)
		ix.bytesSinceLast = 0
	}
	ix.bytesSinceLast += size
}

func (ix *indexer) appendOffset(off record.Offset, pos FilePos) {
	if n := len(ix.offsets); n > 0 && off <= ix.offsets[n-1].Offset {
		return // Kafka's OffsetIndex rejects non-increasing offsets; recovery never produces them
	}
	if ix.maxOffsets > 0 && len(ix.offsets) >= ix.maxOffsets {
		return // full: the log rolls before this happens; an index entry is only a hint
	}
	ix.offsets = append(ix.offsets, OffsetIndexEntry{Offset: off, Pos: pos})
}

// maybeAppendTime appends when ts is greater than the last entry's, as
// Kafka's TimeIndex.maybeAppend (initial last entry: timestamp -1). Only the
// roll-time append (skipFullCheck) may take the last slot.
func (ix *indexer) maybeAppendTime(ts int64, off record.Offset, skipFullCheck bool) {
	last := record.NoTimestamp
	if n := len(ix.times); n > 0 {
		last = ix.times[n-1].Timestamp
	}
	if ix.maxTimes > 0 && (len(ix.times) >= ix.maxTimes || (!skipFullCheck && len(ix.times) >= ix.maxTimes-1)) {
		return
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
	ix.maybeAppendTime(ix.maxTimestampSoFar, ix.offsetOfMaxTsSoFar, true)
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

// readIndexEntries reads the entries of an index file up to its first zero
// entry (see zeroEntries), in chunks, so that opening a log whose active
// segment's preallocated index holds few entries does not read the whole
// (10 MiB by default) file. A size that is not a whole number of entries is
// an error wrapping ErrCorruptIndex.
func readIndexEntries(f File, entrySize int) ([]byte, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	if size%int64(entrySize) != 0 {
		return nil, fmt.Errorf("%w: %s: size %d is not a multiple of %d", ErrCorruptIndex, f.Name(), size, entrySize)
	}
	const chunk = 96 << 10 // a multiple of 8 and 12
	var out []byte
	zero := make([]byte, entrySize)
	for pos := int64(0); pos < size; {
		n := min(int64(chunk), size-pos)
		start := len(out)
		out = append(out, make([]byte, n)...)
		if m, err := f.ReadAt(out[start:], pos); err != nil && !(err == io.EOF && int64(m) == n) {
			return nil, err
		}
		for i := start; i < len(out); i += entrySize {
			if !bytesEqual(out[i:i+entrySize], zero) {
				continue
			}
			if i == 0 {
				// A zero first entry is an entry, unless the next one is
				// zero too (a preallocated index without entries).
				if size == int64(entrySize) || (len(out) >= 2*entrySize && !bytesEqual(out[entrySize:2*entrySize], zero)) {
					continue
				}
			}
			return out[:i], nil
		}
		pos += n
	}
	return out, nil
}

func bytesEqual(a, b []byte) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// readOffsetIndex reads and decodes a .index file (decodeOffsetIndex).
func readOffsetIndex(f File, base record.Offset) ([]OffsetIndexEntry, error) {
	data, err := readIndexEntries(f, offsetIndexEntrySize)
	if err != nil {
		return nil, err
	}
	out, err := decodeOffsetIndex(data, base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return out, nil
}

// zeroEntries returns how many whole entries of size at the end of data are
// all zero: the unused part of a preallocated index. An index whose entries
// are all zero is empty when it has more than one (a preallocated index
// with no entry yet: Kafka never indexes the first batch at position 0);
// otherwise the first entry is kept, as relative offset 0 is valid there.
func zeroEntries(data []byte, size int) int {
	n := len(data) / size
	// The bytes after the last non-zero byte, found 8 bytes at a time (a
	// preallocated 10 MiB index is mostly zeros).
	end := len(data)
	for end >= 8 && binary.LittleEndian.Uint64(data[end-8:end]) == 0 {
		end -= 8
	}
	for end > 0 && data[end-1] == 0 {
		end--
	}
	z := n - (end+size-1)/size // whole entries after the last non-zero byte
	if z == n && n == 1 {
		return 0
	}
	return z
}

// decodeOffsetIndex is DecodeOffsetIndex without the tail count.
func decodeOffsetIndex(data []byte, base record.Offset) ([]OffsetIndexEntry, error) {
	out, _, err := DecodeOffsetIndex(data, base)
	return out, err
}

// readTimeIndex reads and decodes a .timeindex file (decodeTimeIndex).
func readTimeIndex(f File, base record.Offset) ([]TimeIndexEntry, error) {
	data, err := readIndexEntries(f, timeIndexEntrySize)
	if err != nil {
		return nil, err
	}
	out, err := decodeTimeIndex(data, base)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name(), err)
	}
	return out, nil
}

// decodeTimeIndex is DecodeTimeIndex without the tail count.
func decodeTimeIndex(data []byte, base record.Offset) ([]TimeIndexEntry, error) {
	out, _, err := DecodeTimeIndex(data, base)
	return out, err
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
