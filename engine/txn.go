package engine

import (
	"errors"
	"fmt"
	"io"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// controlType returns the type of the first control record of a v2 control
// batch (a transaction marker batch holds exactly one record).
func controlType(batch []byte) (record.ControlType, error) {
	var dec record.Decoder
	_, it, err := dec.Records(batch)
	if err != nil {
		return 0, err
	}
	var r record.Record
	ok, err := it.Next(&r)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, fmt.Errorf("%w: control batch without a record", record.ErrMalformedRecord)
	}
	return record.ParseControlKey(r.Key)
}

// txnState is the part of Kafka's producer state the log needs: the first
// offset of each producer's open transaction (ProducerStateEntry's
// currentTxnFirstOffset), from which the .txnindex entries and the last
// stable offset follow.
type txnState struct {
	ongoing map[int64]record.Offset // producer id -> first offset of its open transaction
}

func newTxnState() *txnState { return &txnState{ongoing: map[int64]record.Offset{}} }

// completedTxn is a transaction a marker ended during one append.
type completedTxn struct {
	pid         int64
	first, last record.Offset
	abort       bool
	seg         *Segment // holds the marker
}

// txnBatch is what the transaction bookkeeping needs of one batch.
type txnBatch struct {
	h       record.BatchHeader
	control record.ControlType // of a control batch; -1 otherwise
	seg     *Segment
}

// apply applies the batches of one append (or of a scan) to the state, as
// Kafka's ProducerStateManager.update then completeTxn: first every
// transaction the batches begin is registered, then, for each completed
// one in order, its last stable offset is computed (the first offset of the
// earliest transaction of another producer still open, else its last offset
// + 1) and emit is called with the AbortedTxn of an ABORT.
func (st *txnState) apply(batches []txnBatch, emit func(seg *Segment, a AbortedTxn) error) error {
	// Producer state as this append leaves it, transaction by transaction.
	cur := map[int64]record.Offset{}
	for pid, first := range st.ongoing {
		cur[pid] = first
	}
	started := map[record.Offset]int64{} // first offset -> producer id, of transactions open at some point of the append
	for pid, first := range st.ongoing {
		started[first] = pid
	}
	var completed []completedTxn
	for _, b := range batches {
		h := &b.h
		if !h.Attributes.Transactional() || !h.HasProducerID() {
			continue
		}
		pid := h.ProducerID
		if !h.Attributes.Control() {
			if _, open := cur[pid]; !open {
				cur[pid] = h.BaseOffset
				started[h.BaseOffset] = pid
			}
			continue
		}
		if b.control != record.ControlAbort && b.control != record.ControlCommit {
			continue
		}
		first, open := cur[pid]
		if !open {
			first = h.BaseOffset // a marker of a transaction with no data here
		}
		completed = append(completed, completedTxn{pid: pid, first: first, last: h.LastOffset(), abort: b.control == record.ControlAbort, seg: b.seg})
		delete(cur, pid)
	}
	for _, c := range completed {
		lso := c.last + 1
		for first, pid := range started {
			if pid != c.pid && first < lso {
				lso = first
			}
		}
		if c.abort && emit != nil {
			if err := emit(c.seg, AbortedTxn{ProducerID: c.pid, FirstOffset: c.first, LastOffset: c.last, LastStableOffset: lso}); err != nil {
				return err
			}
		}
		if started[c.first] == c.pid {
			delete(started, c.first)
		}
	}
	st.ongoing = cur
	return nil
}

// firstUnstable is the first offset of the earliest open transaction, and
// whether there is one.
func (st *txnState) firstUnstable() (record.Offset, bool) {
	var first record.Offset
	found := false
	for _, f := range st.ongoing {
		if !found || f < first {
			first, found = f, true
		}
	}
	return first, found
}

// txnBatchesOf returns the transaction bookkeeping of the whole batches in
// buf (already validated by the caller), headers[i] being the header of the
// i-th batch, all written to seg.
func txnBatchesOf(buf []byte, headers []record.BatchHeader, seg *Segment, out []txnBatch) []txnBatch {
	pos := 0
	for i := range headers {
		h := headers[i]
		size := h.Size()
		tb := txnBatch{h: h, control: -1, seg: seg}
		if h.Attributes.Control() && h.Attributes.Transactional() {
			if t, err := controlType(buf[pos : pos+size]); err == nil {
				tb.control = t
			}
		}
		out = append(out, tb)
		pos += size
	}
	return out
}

// loadTxnState rebuilds the producer transaction state by reading every
// batch header of the log (the log keeps no producer snapshots), and
// returns the aborted transactions each segment's .txnindex should hold,
// which Kafka's recovery would write. It runs at most once per open Log,
// the first time the state is needed (an append, LastStableOffset, or a
// .txnindex to rebuild), so that opening a log to clean it reads nothing.
// REQUIRES: l.mu held.
func (l *Log) loadTxnState() (map[*Segment][]AbortedTxn, error) {
	st := newTxnState()
	want := map[*Segment][]AbortedTxn{}
	for _, s := range l.segments {
		var batches []txnBatch
		it := newBatchIter(l.reader, s.f, 0, s.size)
		for {
			batch, pos, err := it.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				l.reader.Restore()
				return nil, err
			}
			h, err := record.ParseHeader(batch)
			if err != nil {
				if errors.Is(err, record.ErrLegacyMagic) {
					continue // legacy messages predate transactions
				}
				l.reader.Restore()
				return nil, &record.CorruptionError{Path: s.f.Name(), Pos: int64(pos), Reason: "batch header", Err: err}
			}
			tb := txnBatch{h: h, control: -1, seg: s}
			if h.Attributes.Control() && h.Attributes.Transactional() {
				if t, err := controlType(batch); err == nil {
					tb.control = t
				}
			}
			batches = append(batches, tb)
		}
		l.reader.Restore()
		if err := st.apply(batches, func(seg *Segment, a AbortedTxn) error {
			want[seg] = append(want[seg], a)
			return nil
		}); err != nil {
			return nil, err
		}
	}
	l.txn = st
	return want, nil
}

// ensureTxnState loads the transaction state if it is not loaded yet.
// REQUIRES: l.mu held.
func (l *Log) ensureTxnState() error {
	if l.txn != nil {
		return nil
	}
	_, err := l.loadTxnState()
	return err
}

// rebuildTxnIndexes rewrites (in memory for a read-only log) the .txnindex
// of every segment that needs it: one whose file cannot be decoded, or a
// recovered one holding ABORT markers its file lacks. It returns the paths
// rebuilt.
// REQUIRES: l.mu held.
func (l *Log) rebuildTxnIndexes(need func(s *Segment) bool) ([]string, error) {
	any := false
	for _, s := range l.segments {
		if need(s) {
			any = true
			break
		}
	}
	if !any {
		return nil, nil
	}
	want, err := l.loadTxnState()
	if err != nil {
		return nil, err
	}
	var rebuilt []string
	for _, s := range l.segments {
		if !need(s) {
			continue
		}
		s.txns = want[s]
		s.txnCorrupt = false
		rebuilt = append(rebuilt, s.path(TxnIndexFileSuffix))
		if !l.readOnly {
			if err := s.writeTxnIndex(); err != nil {
				return rebuilt, err
			}
		}
	}
	return rebuilt, nil
}

// txnIndexLacksMarkers reports whether a full scan of s met an ABORT marker
// its .txnindex has no entry for.
func txnIndexLacksMarkers(s *Segment) bool {
	have := make(map[record.Offset]bool, len(s.txns))
	for _, a := range s.txns {
		have[a.LastOffset] = true
	}
	for _, off := range s.abortMarkers {
		if !have[off] {
			return true
		}
	}
	return false
}
