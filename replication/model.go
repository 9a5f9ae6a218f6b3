package replication

import "github.com/cleanerlab/cleanerlab/engine/record"

// WriteState is what became of one produced record.
type WriteState int8

const (
	// Refused: the leader answered with an error; nothing was appended.
	Refused WriteState = iota
	// Appended: the leader appended it, nobody acknowledged it (acks=0, or
	// acks=all whose wait failed or is still pending): it may or may not
	// survive.
	Appended
	// Acked: the producer got its acknowledgement.
	Acked
)

// Outcome is a transaction's end as the coordinator decided it.
type Outcome int8

const (
	Open Outcome = iota
	Committed
	Aborted
)

func (o Outcome) String() string {
	switch o {
	case Committed:
		return "committed"
	case Aborted:
		return "aborted"
	}
	return "open"
}

// Write is one produced record as the clients saw it.
type Write struct {
	Seq       int // production order
	Key       string
	Value     string
	Tombstone bool
	Producer  string
	Txn       int // Model.Txns index; -1: not transactional
	Offset    record.Offset
	Epoch     int32
	State     WriteState
	Acks      Acks
	TimeMs    int64
	// HeldBy has bit id set once broker id appended this write (as leader
	// or follower), whatever became of it since; TruncatedBy once broker id
	// truncated it away after holding it.
	HeldBy      uint64
	TruncatedBy uint64
}

// Txn is one transaction: its writes and the coordinator's decision.
type Txn struct {
	Producer string
	Writes   []int
	Outcome  Outcome
	// Failed: a write of it was refused, so it can only abort.
	Failed bool
	// MarkerAcked: the HW passed a marker the coordinator wrote for it.
	MarkerAcked bool
	// MarkerOffsets are the offsets the coordinator's markers got (more than
	// one when a leader change made it write again).
	MarkerOffsets  []record.Offset
	StartMs, EndMs int64
}

// Model is what the clients were told: every write and transaction, in
// production order. The checker compares each replica with it.
type Model struct {
	Writes []Write
	Txns   []Txn
	// byOffsetEpoch finds the write a leader appended at an offset in a
	// leader epoch (unique: one leader per epoch, offsets only grow in it).
	byOffsetEpoch map[[2]int64]int
}

// appended notes that broker id appended the batch of offsets [base, last]
// written in leader epoch epoch: every client's write at those offsets in
// that epoch (an offset and an epoch name one write). A record the
// leader's cleaner removed from inside the batch counts as held too: a
// clean removes only what a later write supersedes.
func (m *Model) appended(id int, base, last record.Offset, epoch int32) {
	for off := base; off <= last; off++ {
		if wi, ok := m.byOffsetEpoch[[2]int64{int64(off), int64(epoch)}]; ok {
			m.Writes[wi].HeldBy |= 1 << uint(id)
		}
	}
}

// truncated notes that broker id cut its log to offset to: every write it
// held at or above to is gone from it by truncation.
func (m *Model) truncated(id int, to record.Offset) {
	for i := range m.Writes {
		w := &m.Writes[i]
		if w.everHeld(id) && w.Offset >= to && w.State != Refused {
			w.TruncatedBy |= 1 << uint(id)
		}
	}
}

// lostByTruncation reports whether broker id held w and truncated it away.
func (w *Write) lostByTruncation(id int) bool { return w.TruncatedBy&(1<<uint(id)) != 0 }

// everHeld reports whether broker id ever appended w.
func (w *Write) everHeld(id int) bool { return w.HeldBy&(1<<uint(id)) != 0 }

// mustSee reports whether a read_committed consumer of a correct log must
// see w unless a later write of its key supersedes it: an acknowledged
// plain write, or a write of a committed transaction.
func (m *Model) mustSee(w *Write) bool {
	if w.Txn >= 0 {
		return m.Txns[w.Txn].Outcome == Committed && w.State != Refused
	}
	return w.State == Acked
}

// maySee reports whether a correct log may show w: anything appended that
// is not part of an aborted (or still open) transaction.
func (m *Model) maySee(w *Write) bool {
	if w.State == Refused {
		return false
	}
	if w.Txn >= 0 {
		return m.Txns[w.Txn].Outcome == Committed
	}
	return true
}
