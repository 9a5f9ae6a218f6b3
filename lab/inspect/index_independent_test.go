package inspect

// An independent decoder of the three index formats, written from Kafka's
// format apart from the engine's (engine.DecodeOffsetIndex and its
// siblings, the one codec dump and verify use): the tests check that the
// two agree on hand-made and fuzzed files (crossCheckIndexes).

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Entry sizes of the index files: part of Kafka's on-disk format
// (OffsetIndex, TimeIndex, TransactionIndex; engine/FORMAT.md). They must
// not change.
const (
	offsetIndexEntryBytes = 8  // relativeOffset int32, position int32
	timeIndexEntryBytes   = 12 // timestamp int64, relativeOffset int32
	txnIndexEntryBytes    = 34 // version int16, producerId, firstOffset, lastOffset, lastStableOffset int64
	txnIndexVersion       = 0
)

// offsetIndexEntry is one .index entry: the batch starting at Pos in the
// .log holds Offset (base offset + relative offset) as its last offset.
type offsetIndexEntry struct {
	Offset record.Offset
	Pos    engine.FilePos
}

// timeIndexEntry is one .timeindex entry: records with a timestamp at or
// above Timestamp (ms) are at or after Offset.
type timeIndexEntry struct {
	Timestamp int64
	Offset    record.Offset
}

// txnIndexEntry is one .txnindex entry (Kafka's AbortedTxn).
type txnIndexEntry struct {
	ProducerID                                int64
	FirstOffset, LastOffset, LastStableOffset record.Offset
}

// indexError is a corrupt index file: the byte position of the bad entry
// (of the partial entry at the end, for a bad size) and what was wrong.
type indexError struct {
	pos    int64
	reason string
}

func badIndex(pos int64, format string, args ...any) *indexError {
	return &indexError{pos: pos, reason: fmt.Sprintf(format, args...)}
}

// trailingZeroEntries counts the all-zero entries of size bytes at the end
// of data: the unused tail of an index preallocated to segment.index.bytes.
// A file of a single zero entry holds that entry (relative offset 0,
// position 0, or timestamp 0): only a run of more than one is a tail when
// nothing precedes it (engine/FORMAT.md).
func trailingZeroEntries(data []byte, size int) int {
	n := len(data) / size
	z := 0
	for z < n && allZero(data[(n-1-z)*size:(n-z)*size]) {
		z++
	}
	if z == n && n == 1 {
		return 0
	}
	return z
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// decodeOffsetIndex decodes a .index file of the segment with base offset
// base: 8-byte big-endian entries (relative offset int32, position int32),
// offsets strictly increasing, the zero-filled tail left out.
func decodeOffsetIndex(data []byte, base record.Offset) ([]offsetIndexEntry, int, *indexError) {
	if len(data)%offsetIndexEntryBytes != 0 {
		return nil, 0, badIndex(int64(len(data)-len(data)%offsetIndexEntryBytes), "size %d bytes is not a whole number of %d-byte entries", len(data), offsetIndexEntryBytes)
	}
	tail := trailingZeroEntries(data, offsetIndexEntryBytes)
	n := len(data)/offsetIndexEntryBytes - tail
	out := make([]offsetIndexEntry, 0, n)
	for i := range n {
		at := i * offsetIndexEntryBytes
		rel := binary.BigEndian.Uint32(data[at:])
		pos := binary.BigEndian.Uint32(data[at+4:])
		if rel > math.MaxInt32 || pos > math.MaxInt32 {
			return nil, 0, badIndex(int64(at), "relative offset %d or position %d above 2^31-1", rel, pos)
		}
		e := offsetIndexEntry{Offset: base + record.Offset(rel), Pos: engine.FilePos(pos)}
		if len(out) > 0 && e.Offset <= out[len(out)-1].Offset {
			return nil, 0, badIndex(int64(at), "offset %d not above the previous entry's %d", e.Offset, out[len(out)-1].Offset)
		}
		out = append(out, e)
	}
	return out, tail, nil
}

// decodeTimeIndex decodes a .timeindex file: 12-byte big-endian entries
// (timestamp int64 ms, relative offset int32), the zero-filled tail left
// out.
func decodeTimeIndex(data []byte, base record.Offset) ([]timeIndexEntry, int, *indexError) {
	if len(data)%timeIndexEntryBytes != 0 {
		return nil, 0, badIndex(int64(len(data)-len(data)%timeIndexEntryBytes), "size %d bytes is not a whole number of %d-byte entries", len(data), timeIndexEntryBytes)
	}
	tail := trailingZeroEntries(data, timeIndexEntryBytes)
	n := len(data)/timeIndexEntryBytes - tail
	out := make([]timeIndexEntry, 0, n)
	for i := range n {
		at := i * timeIndexEntryBytes
		ts := int64(binary.BigEndian.Uint64(data[at:]))
		rel := binary.BigEndian.Uint32(data[at+8:])
		if rel > math.MaxInt32 {
			return nil, 0, badIndex(int64(at), "relative offset %d above 2^31-1", rel)
		}
		out = append(out, timeIndexEntry{Timestamp: ts, Offset: base + record.Offset(rel)})
	}
	return out, tail, nil
}

// decodeTxnIndex decodes a .txnindex file: 34-byte big-endian entries of
// version 0, last offsets at or above the segment's base offset and
// strictly increasing, 0 <= first offset <= last offset.
func decodeTxnIndex(data []byte, base record.Offset) ([]txnIndexEntry, *indexError) {
	if len(data)%txnIndexEntryBytes != 0 {
		return nil, badIndex(int64(len(data)-len(data)%txnIndexEntryBytes), "size %d bytes is not a whole number of %d-byte entries", len(data), txnIndexEntryBytes)
	}
	be := binary.BigEndian
	out := make([]txnIndexEntry, 0, len(data)/txnIndexEntryBytes)
	for at := 0; at < len(data); at += txnIndexEntryBytes {
		if v := int16(be.Uint16(data[at:])); v != txnIndexVersion {
			return nil, badIndex(int64(at), "version %d, want %d", v, txnIndexVersion)
		}
		e := txnIndexEntry{
			ProducerID:       int64(be.Uint64(data[at+2:])),
			FirstOffset:      record.Offset(be.Uint64(data[at+10:])),
			LastOffset:       record.Offset(be.Uint64(data[at+18:])),
			LastStableOffset: record.Offset(be.Uint64(data[at+26:])),
		}
		switch {
		case e.LastOffset < base:
			return nil, badIndex(int64(at), "last offset %d below the segment's base offset %d", e.LastOffset, base)
		case len(out) > 0 && e.LastOffset <= out[len(out)-1].LastOffset:
			return nil, badIndex(int64(at), "last offset %d not above the previous entry's %d", e.LastOffset, out[len(out)-1].LastOffset)
		case e.FirstOffset < 0 || e.FirstOffset > e.LastOffset:
			return nil, badIndex(int64(at), "first offset %d outside [0, last offset %d]", e.FirstOffset, e.LastOffset)
		}
		out = append(out, e)
	}
	return out, nil
}
