package engine

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// IndexError is a corrupt index file: Pos is the byte position of the bad
// entry (for a size that is not a whole number of entries, of the partial
// entry at the end) and Reason what was wrong. It wraps ErrCorruptIndex.
// The one decoder of each index format, used by the engine's open and by
// dump and verify (lab/inspect).
type IndexError struct {
	Pos    int64
	Reason string
}

func (e *IndexError) Error() string {
	return fmt.Sprintf("%v at byte %d: %s", ErrCorruptIndex, e.Pos, e.Reason)
}

// Unwrap returns ErrCorruptIndex.
func (e *IndexError) Unwrap() error { return ErrCorruptIndex }

func badIndexEntry(pos int, format string, args ...any) *IndexError {
	return &IndexError{Pos: int64(pos), Reason: fmt.Sprintf(format, args...)}
}

func badIndexSize(n, size int) *IndexError {
	return badIndexEntry(n-n%size, "size %d bytes is not a whole number of %d-byte entries", n, size)
}

// offsetIndexEntryAt is the .index entry at byte i of data: its relative
// offset and .log position, each a big-endian uint32 as stored (Kafka's
// OffsetIndex: int32s), unchecked. The one place the entry's layout is
// read: DecodeOffsetIndex and Verify's walk (which reports every bad entry
// rather than stopping at the first) both use it.
func offsetIndexEntryAt(data []byte, i int) (rel, pos uint32) {
	return binary.BigEndian.Uint32(data[i:]), binary.BigEndian.Uint32(data[i+4:])
}

// timeIndexEntryAt is the .timeindex entry at byte i of data: its
// timestamp (ms) and relative offset as stored (Kafka's TimeIndex: int64,
// int32), unchecked; as offsetIndexEntryAt, for DecodeTimeIndex and Verify.
func timeIndexEntryAt(data []byte, i int) (ts int64, rel uint32) {
	return int64(binary.BigEndian.Uint64(data[i:])), binary.BigEndian.Uint32(data[i+8:])
}

// DecodeOffsetIndex decodes the bytes of a .index file (Kafka's
// OffsetIndex) of the segment with base offset base: 8-byte big-endian
// entries of relative offset (int32) and .log position (int32), offsets
// strictly increasing. It returns the entries and zeroTail, the number of
// all-zero entries at the end that are the unused part of a preallocated
// index, not entries (zeroEntries). Errors are *IndexError: a size that is
// not a whole number of entries, a relative offset or position above
// 2^31-1, an offset not above the previous entry's.
func DecodeOffsetIndex(data []byte, base record.Offset) (entries []OffsetIndexEntry, zeroTail int, err error) {
	if len(data)%offsetIndexEntrySize != 0 {
		return nil, 0, badIndexSize(len(data), offsetIndexEntrySize)
	}
	zeroTail = zeroEntries(data, offsetIndexEntrySize)
	end := len(data) - zeroTail*offsetIndexEntrySize
	entries = make([]OffsetIndexEntry, 0, end/offsetIndexEntrySize)
	for i := 0; i < end; i += offsetIndexEntrySize {
		rel, pos := offsetIndexEntryAt(data, i)
		if rel > math.MaxInt32 || pos > math.MaxInt32 {
			return nil, 0, badIndexEntry(i, "relative offset %d or position %d above 2^31-1", rel, pos)
		}
		e := OffsetIndexEntry{Offset: base + record.Offset(rel), Pos: FilePos(pos)}
		if n := len(entries); n > 0 && e.Offset <= entries[n-1].Offset {
			return nil, 0, badIndexEntry(i, "offset %d not above the previous entry's %d", e.Offset, entries[n-1].Offset)
		}
		entries = append(entries, e)
	}
	return entries, zeroTail, nil
}

// DecodeTimeIndex decodes the bytes of a .timeindex file (Kafka's
// TimeIndex): 12-byte big-endian entries of timestamp (int64 ms) and
// relative offset (int32). zeroTail is as DecodeOffsetIndex's. Errors are
// *IndexError: a size that is not a whole number of entries, a relative
// offset above 2^31-1.
func DecodeTimeIndex(data []byte, base record.Offset) (entries []TimeIndexEntry, zeroTail int, err error) {
	if len(data)%timeIndexEntrySize != 0 {
		return nil, 0, badIndexSize(len(data), timeIndexEntrySize)
	}
	zeroTail = zeroEntries(data, timeIndexEntrySize)
	end := len(data) - zeroTail*timeIndexEntrySize
	entries = make([]TimeIndexEntry, 0, end/timeIndexEntrySize)
	for i := 0; i < end; i += timeIndexEntrySize {
		ts, rel := timeIndexEntryAt(data, i)
		if rel > math.MaxInt32 {
			return nil, 0, badIndexEntry(i, "relative offset %d above 2^31-1", rel)
		}
		entries = append(entries, TimeIndexEntry{Timestamp: ts, Offset: base + record.Offset(rel)})
	}
	return entries, zeroTail, nil
}

// DecodeTxnIndex decodes the bytes of a .txnindex file (Kafka's
// TransactionIndex) of the segment with base offset base: 34-byte
// big-endian entries of version (int16, 0), producer id, first offset,
// last offset and last stable offset (int64 each). Errors are *IndexError:
// a size that is not a whole number of entries, another version, a last
// offset below the segment's base offset or not above the previous
// entry's (Kafka keeps them strictly increasing), a first offset outside
// [0, last offset].
func DecodeTxnIndex(data []byte, base record.Offset) ([]AbortedTxn, error) {
	if len(data)%txnIndexEntrySize != 0 {
		return nil, badIndexSize(len(data), txnIndexEntrySize)
	}
	out := make([]AbortedTxn, 0, len(data)/txnIndexEntrySize)
	be := binary.BigEndian
	for i := 0; i+txnIndexEntrySize <= len(data); i += txnIndexEntrySize {
		if v := int16(be.Uint16(data[i:])); v != txnIndexVersion {
			return nil, badIndexEntry(i, "version %d, want %d", v, txnIndexVersion)
		}
		a := AbortedTxn{
			ProducerID:       int64(be.Uint64(data[i+2:])),
			FirstOffset:      record.Offset(be.Uint64(data[i+10:])),
			LastOffset:       record.Offset(be.Uint64(data[i+18:])),
			LastStableOffset: record.Offset(be.Uint64(data[i+26:])),
		}
		switch {
		case a.LastOffset < base:
			return nil, badIndexEntry(i, "last offset %d below the segment's base offset %d", a.LastOffset, base)
		case len(out) > 0 && a.LastOffset <= out[len(out)-1].LastOffset:
			return nil, badIndexEntry(i, "last offset %d not above the previous entry's %d", a.LastOffset, out[len(out)-1].LastOffset)
		case a.FirstOffset < 0 || a.FirstOffset > a.LastOffset:
			return nil, badIndexEntry(i, "first offset %d outside [0, last offset %d]", a.FirstOffset, a.LastOffset)
		}
		out = append(out, a)
	}
	return out, nil
}

// TxnIndexVersion is the version of every .txnindex entry (Kafka's
// AbortedTxn.CURRENT_VERSION).
const TxnIndexVersion = txnIndexVersion

// Index entry sizes in bytes (Kafka's OffsetIndex, TimeIndex and
// TransactionIndex entry sizes).
const (
	OffsetIndexEntryBytes = offsetIndexEntrySize
	TimeIndexEntryBytes   = timeIndexEntrySize
	TxnIndexEntryBytes    = txnIndexEntrySize
)
