package engine

import (
	"container/heap"
	"fmt"
	"sort"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// cleanedTxnMetadata tracks transactions while the cleaner walks a log, as
// Kafka's CleanedTransactionMetadata. One instance spans a whole round of
// the copy phase (every group of segments; KAFKA-8351, case C2), another the
// map-building phase. Aborted transactions, collected from the .txnindex
// files ahead of the walk, become "ongoing" once the walk reaches their
// first offset; a transactional data batch of a producer with an ongoing
// aborted transaction is aborted data (discarded, never put in the offset
// map); any other transactional batch belongs to a committed transaction.
// An ABORT marker is kept, and its AbortedTxn written to the cleaned
// segment's .txnindex, while a batch of its transaction was seen in this
// round; otherwise it may be discarded (after its delete horizon). A COMMIT
// marker may be discarded when no batch of its transaction was seen.
type cleanedTxnMetadata struct {
	ongoingCommitted map[int64]struct{}
	ongoingAborted   map[int64]*abortedTxnState
	pending          abortedHeap // aborted transactions not yet reached, by first offset
	// cleanedIndex receives the AbortedTxn of every ABORT marker kept: the
	// cleaned segment being written (nil while building the map).
	cleanedIndex *Segment
	// changes counts the calls that changed the state above (an aborted
	// transaction queued or made ongoing, a transactional data batch, a
	// transaction marker): a walk that leaves it as it was leaves the
	// state as it found it (ParallelCopy relies on this).
	changes int64
	// onChange, when set, is called after each change counted in changes
	// (ParallelCopy: it stops a copy worker whose copy is void).
	onChange func()
}

// changed counts one change of the state.
func (t *cleanedTxnMetadata) changed() {
	t.changes++
	if t.onChange != nil {
		t.onChange()
	}
}

type abortedTxnState struct {
	txn AbortedTxn
	// lastObservedBatch is the last offset of the last batch of the
	// transaction seen in this round; -1 when none was seen.
	lastObservedBatch record.Offset
}

func newCleanedTxnMetadata() *cleanedTxnMetadata {
	return &cleanedTxnMetadata{ongoingCommitted: map[int64]struct{}{}, ongoingAborted: map[int64]*abortedTxnState{}}
}

// clone returns a copy of t that shares nothing with it, without a
// cleaned index: the state a second cleaner starts a group from
// (ParallelCopy).
func (t *cleanedTxnMetadata) clone() *cleanedTxnMetadata {
	o := newCleanedTxnMetadata()
	for pid := range t.ongoingCommitted {
		o.ongoingCommitted[pid] = struct{}{}
	}
	for pid, st := range t.ongoingAborted {
		cp := *st
		o.ongoingAborted[pid] = &cp
	}
	o.pending = append(abortedHeap(nil), t.pending...)
	o.changes = t.changes
	return o
}

// addAborted queues aborted transactions found in the txn indexes. The same
// transaction may be added twice (Kafka collects per segment, and a
// transaction spanning segments overlaps both ranges); the second copy finds
// the producer's transaction already ongoing and is dropped.
func (t *cleanedTxnMetadata) addAborted(txns []AbortedTxn) {
	if len(txns) > 0 {
		t.changed()
	}
	for _, a := range txns {
		heap.Push(&t.pending, a)
	}
}

// consumeUpTo makes every queued aborted transaction whose first offset is
// at or below off ongoing (Kafka's consumeAbortedTxnsUpTo).
func (t *cleanedTxnMetadata) consumeUpTo(off record.Offset) {
	for t.pending.Len() > 0 && t.pending[0].FirstOffset <= off {
		a := heap.Pop(&t.pending).(AbortedTxn)
		t.changed()
		if _, ok := t.ongoingAborted[a.ProducerID]; !ok {
			t.ongoingAborted[a.ProducerID] = &abortedTxnState{txn: a, lastObservedBatch: -1}
		}
	}
}

// onBatchRead updates the state for a data batch and reports whether the
// batch is aborted data, which may be discarded (Kafka's onBatchRead).
func (t *cleanedTxnMetadata) onBatchRead(h *record.BatchHeader) bool {
	t.consumeUpTo(h.LastOffset())
	if !h.Attributes.Transactional() {
		return false
	}
	t.changed()
	if st, ok := t.ongoingAborted[h.ProducerID]; ok {
		st.lastObservedBatch = h.LastOffset()
		return true
	}
	t.ongoingCommitted[h.ProducerID] = struct{}{}
	return false
}

// onControlBatchRead updates the state for a control batch whose first
// record has type typ (empty: the batch holds no record) and reports
// whether the batch may be discarded (Kafka's onControlBatchRead): an empty
// control batch (already emptied by a clean) always; an ABORT marker when no
// batch of its transaction was seen in this round (one that stays gets its
// AbortedTxn appended to the cleaned index); a COMMIT marker when no batch
// of its transaction was seen; other control records never.
func (t *cleanedTxnMetadata) onControlBatchRead(h *record.BatchHeader, typ record.ControlType, empty bool) (bool, error) {
	t.consumeUpTo(h.LastOffset())
	if empty {
		return true, nil
	}
	pid := h.ProducerID
	if typ.IsTxnMarker() {
		t.changed()
	}
	switch typ {
	case record.ControlAbort:
		st, ok := t.ongoingAborted[pid]
		delete(t.ongoingAborted, pid)
		if ok && st.lastObservedBatch >= 0 {
			if t.cleanedIndex != nil {
				if err := t.cleanedIndex.addCleanedTxn(st.txn); err != nil {
					return false, err
				}
			}
			return false, nil
		}
		return true, nil
	case record.ControlCommit:
		_, seen := t.ongoingCommitted[pid]
		delete(t.ongoingCommitted, pid)
		return !seen, nil
	}
	return false, nil
}

// addCleanedTxn appends an aborted transaction to a cleaned segment's
// in-memory .txnindex (written with its other files), keeping last offsets
// strictly increasing as Kafka's TransactionIndex.append requires.
func (s *Segment) addCleanedTxn(a AbortedTxn) error {
	if n := len(s.txns); n > 0 && a.LastOffset <= s.txns[n-1].LastOffset {
		return fmt.Errorf("engine: %s: aborted transaction's last offset %d not above the previous entry's %d", s.path(TxnIndexFileSuffix), a.LastOffset, s.txns[n-1].LastOffset)
	}
	s.txns = append(s.txns, a)
	return nil
}

// abortedHeap is a min-heap of aborted transactions by first offset.
type abortedHeap []AbortedTxn

func (h abortedHeap) Len() int           { return len(h) }
func (h abortedHeap) Less(i, j int) bool { return h[i].FirstOffset < h[j].FirstOffset }
func (h abortedHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *abortedHeap) Push(x any)        { *h = append(*h, x.(AbortedTxn)) }
func (h *abortedHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// collectAbortedTxns returns the aborted transactions that overlap [from,
// upper) — last offset >= from and first offset < upper — as Kafka's
// UnifiedLog.collectAbortedTransactions: it reads the .txnindex of the
// segment holding from, then of the later segments, until an entry whose
// last stable offset is >= upper shows that no later abort can overlap.
// REQUIRES: l.mu held (the active segment's index grows on append).
func collectAbortedTxns(segs []*Segment, from, upper record.Offset) []AbortedTxn {
	start := sort.Search(len(segs), func(i int) bool { return segs[i].base > from }) - 1
	if start < 0 {
		start = 0
	}
	var out []AbortedTxn
	for _, s := range segs[start:] {
		for _, a := range s.txns {
			if a.LastOffset >= from && a.FirstOffset < upper {
				out = append(out, a)
			}
			if a.LastStableOffset >= upper {
				return out
			}
		}
	}
	return out
}

// CollectAbortedTxns is collectAbortedTxns over the log's current segments.
func (l *Log) CollectAbortedTxns(from, upper record.Offset) []AbortedTxn {
	l.mu.Lock()
	defer l.mu.Unlock()
	return collectAbortedTxns(l.segments, from, upper)
}
