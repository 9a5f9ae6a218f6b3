package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// AbortedTxn is one entry of a .txnindex file, as Kafka's AbortedTxn: a
// transaction of ProducerID that was aborted by the ABORT marker at
// LastOffset, whose first batch was at FirstOffset (which may lie in an
// earlier segment). LastStableOffset is the log's last stable offset once the
// transaction was complete: the first offset of the earliest transaction of
// another producer still open then, else LastOffset + 1. Consumers reading
// with isolation.level=read_committed skip the transaction's data with it.
type AbortedTxn struct {
	ProducerID       int64
	FirstOffset      record.Offset
	LastOffset       record.Offset
	LastStableOffset record.Offset
}

func (a AbortedTxn) String() string {
	return fmt.Sprintf("producerId %d firstOffset %d lastOffset %d lastStableOffset %d", a.ProducerID, a.FirstOffset, a.LastOffset, a.LastStableOffset)
}

// appendTxnEntry appends the 34-byte encoding of a: version int16 (0),
// producerId int64, firstOffset int64, lastOffset int64, lastStableOffset
// int64, big-endian (Kafka's TransactionIndex).
func appendTxnEntry(dst []byte, a AbortedTxn) []byte {
	dst = binary.BigEndian.AppendUint16(dst, txnIndexVersion)
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.ProducerID))
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.FirstOffset))
	dst = binary.BigEndian.AppendUint64(dst, uint64(a.LastOffset))
	return binary.BigEndian.AppendUint64(dst, uint64(a.LastStableOffset))
}

// decodeTxnIndex is DecodeTxnIndex.
func decodeTxnIndex(data []byte, base record.Offset) ([]AbortedTxn, error) {
	return DecodeTxnIndex(data, base)
}

// encodeTxnIndex returns the bytes of a .txnindex file holding entries.
func encodeTxnIndex(entries []AbortedTxn) []byte {
	out := make([]byte, 0, len(entries)*txnIndexEntrySize)
	for _, a := range entries {
		out = appendTxnEntry(out, a)
	}
	return out
}

// loadTxnIndex reads the segment's .txnindex when present. A missing file
// means no aborted transaction ended in the segment (Kafka creates it
// lazily). ok is false when the file exists but cannot be decoded.
func (s *Segment) loadTxnIndex() (ok bool, err error) {
	f, err := s.fs.Open(s.path(TxnIndexFileSuffix))
	if err != nil {
		if isNotExist(err) {
			s.txns = nil
			return true, nil
		}
		return false, err
	}
	data, err := readAll(f)
	f.Close()
	if err != nil {
		return false, err
	}
	txns, err := decodeTxnIndex(data, s.base)
	if err != nil {
		return false, nil
	}
	s.txns = txns
	s.hadTxnIndex = true
	return true, nil
}

// appendTxn appends one aborted transaction to the segment's .txnindex
// file, creating it on first use (as Kafka's TransactionIndex.append), and
// fsyncs it, as the marker it indexes is durable only with the log.
func (s *Segment) appendTxn(a AbortedTxn) error {
	if n := len(s.txns); n > 0 && a.LastOffset <= s.txns[n-1].LastOffset {
		return fmt.Errorf("engine: %s: aborted transaction's last offset %d not above the previous entry's %d", s.path(TxnIndexFileSuffix), a.LastOffset, s.txns[n-1].LastOffset)
	}
	path := s.path(TxnIndexFileSuffix)
	var f File
	var err error
	if s.hadTxnIndex || len(s.txns) > 0 {
		f, err = s.fs.OpenAppend(path)
	} else {
		f, err = s.fs.Create(path)
	}
	if err != nil {
		return fmt.Errorf("engine: open %s: %w", path, err)
	}
	if _, err := f.Write(appendTxnEntry(nil, a)); err != nil {
		f.Close()
		return fmt.Errorf("engine: append to %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("engine: close %s: %w", path, err)
	}
	s.txns = append(s.txns, a)
	s.hadTxnIndex = true
	return nil
}

// writeTxnIndex replaces the segment's .txnindex with its in-memory
// entries, removing the file when there are none.
func (s *Segment) writeTxnIndex() error {
	path := s.path(TxnIndexFileSuffix)
	if len(s.txns) == 0 {
		if err := s.fs.Remove(path); err != nil && !isNotExist(err) {
			return fmt.Errorf("engine: remove %s: %w", path, err)
		}
		s.hadTxnIndex = false
		return nil
	}
	if err := writeWhole(s.fs, path, encodeTxnIndex(s.txns)); err != nil {
		return fmt.Errorf("engine: write %s: %w", path, err)
	}
	s.hadTxnIndex = true
	return nil
}

// TxnIndex returns the segment's aborted transactions (its .txnindex).
func (s *Segment) TxnIndex() []AbortedTxn { return s.txns }
