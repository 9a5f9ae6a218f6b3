package explore

import (
	"fmt"
	"slices"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/replication"
)

// The invariants of the public TLA+ specification of Kafka's replication
// protocol (Vanlightly/kafka-tlaplus, kafka_data_replication/kraft/v3.5,
// v3_5_properties.tla), restated for real logs. The specification's log
// is a sequence of values that only truncation shortens; a compacted log
// also loses records on purpose, so where the specification asks that a
// record be present, a replica may lack it below its LEO when compaction
// may have removed it (a tombstone, a superseded write, aborted data, a
// marker: acked.removable), whether its own cleaner did or a leader it
// fetched from; what that did to readers is the divergence checker's to
// judge. The latest value of a key is never excused. "Acknowledged" is
// the specification's positively acknowledged value: an acks=all write
// whose wait the leader's HW ended (or a transaction marker the HW
// passed), the only writes Kafka promises to keep. The checks read each
// running broker's log through engine.Log; a broker that is down has no
// log to read and is skipped where the specification skips it too.
const (
	// ReplicationQuorumSuperset: the ISR the leader computes its HW over
	// (the maximal ISR) contains the controller's ISR, and equals it while
	// no ISR change is pending (ReplicationQuorumSupersetProperty).
	ReplicationQuorumSuperset = "ReplicationQuorumSuperset"
	// LeaderCandidateCompleteness: every running ISR member's LEO is at
	// least the true HW, the end of the acknowledged prefix
	// (LeaderCandidateCompletenessProperty).
	LeaderCandidateCompleteness = "LeaderCandidateCompleteness"
	// LeaderCompleteness: a running leader's LEO is at least the true HW
	// and it holds every acknowledged record at its offset (unless
	// removable) (LeaderCompletenessProperty).
	LeaderCompleteness = "LeaderCompleteness"
	// LogMatching: two running replicas hold the same record at every
	// offset below both their HWs where both hold one (LogMatchingProperty).
	LogMatching = "LogMatching"
	// NoCommittedRecordLost: some replica holds every acknowledged record
	// (unless removable); judged when every broker runs, as a down
	// broker's disk may hold it (NoCommittedRecordLostGlobally).
	NoCommittedRecordLost = "NoCommittedRecordLost"
	// ConsistentRead: a record a consumer could read (acknowledged, so
	// below a HW) is the record the current leader holds at its offset,
	// if it holds one there (ConsistentReadProperty; the model does not
	// keep which offsets a consumer read, so every acknowledged offset
	// counts as read).
	ConsistentRead = "ConsistentRead"
	// AckedFullyReplicated: after the cluster settled (every fault healed,
	// every follower caught up), every replica holds every acknowledged
	// record (unless removable) (the liveness property
	// EventuallyAcknowledgedValueFullyReplicated).
	AckedFullyReplicated = "AckedFullyReplicated"
)

// Invariants lists the invariants in the order reports print them.
var Invariants = []string{ReplicationQuorumSuperset, LeaderCandidateCompleteness, LeaderCompleteness, LogMatching, NoCommittedRecordLost, ConsistentRead, AckedFullyReplicated}

// Violation is one invariant that does not hold, or one divergence kind
// the checker found.
type Violation struct {
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

// rec is one record a replica holds: what identifies it against the
// model and against another replica.
type rec struct {
	key, value string
	tombstone  bool
	control    bool
	pid        int64
}

func (r rec) String() string {
	switch {
	case r.control:
		return fmt.Sprintf("marker(pid %d)", r.pid)
	case r.tombstone:
		return r.key + "=null"
	}
	return r.key + "=" + r.value
}

// replica is one running broker's log as the invariants read it.
type replica struct {
	id            int
	logStart, leo record.Offset
	hw            record.Offset
	records       map[record.Offset]rec
}

// readReplica reads every record of broker b's open log.
func readReplica(b *replication.Broker) (*replica, error) {
	l := b.Log()
	r := &replica{id: b.ID, logStart: l.LogStartOffset(), leo: l.LogEndOffset(), hw: l.HighWatermark(), records: map[record.Offset]rec{}}
	var dec record.Decoder
	err := l.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		h, it, err := dec.Records(batch)
		if err != nil {
			return err
		}
		var x record.Record
		for {
			ok, err := it.Next(&x)
			if err != nil {
				return err
			}
			if !ok {
				return nil
			}
			e := rec{key: string(x.Key), value: string(x.Value), tombstone: x.Value == nil, control: h.Attributes.Control()}
			if h.Attributes.Transactional() || e.control {
				e.pid = h.ProducerID
			}
			if e.control {
				e.key, e.value = "", ""
			}
			r.records[x.Offset(&h)] = e
		}
	})
	if err != nil {
		return nil, fmt.Errorf("explore: broker %d: read log: %w", b.ID, err)
	}
	return r, nil
}

// acked is one acknowledged record of the model: a write or a marker.
// removable says compaction may take it away (and so a replica may lack
// it without having lost it, whether its own cleaner removed it or it
// fetched from a leader that had): a marker, a tombstone, a write of a
// transaction that did not commit, or a write that a later write of its
// key supersedes (one not refused and not of a transaction that did not
// commit). The latest value of a key is never removable.
type acked struct {
	offset    record.Offset
	w         *replication.Write // nil for a marker
	marker    bool
	removable bool
}

func (a acked) matches(r rec) bool {
	if a.marker {
		return r.control
	}
	return !r.control && r.key == a.w.Key && r.tombstone == a.w.Tombstone && (a.w.Tombstone || r.value == a.w.Value)
}

func (a acked) String() string {
	if a.marker {
		return fmt.Sprintf("marker@%d", a.offset)
	}
	v := a.w.Value
	if a.w.Tombstone {
		v = "null"
	}
	return fmt.Sprintf("%s=%s@%d", a.w.Key, v, a.offset)
}

// ackedRecords are the model's acknowledged records and the true HW (one
// past the last of them; 0 when none).
func ackedRecords(m *replication.Model) ([]acked, record.Offset) {
	var out []acked
	var hw record.Offset
	decided := func(w *replication.Write) bool {
		return w.Txn < 0 || m.Txns[w.Txn].Outcome == replication.Committed
	}
	superseded := func(w *replication.Write) bool {
		for i := range m.Writes {
			x := &m.Writes[i]
			if x.Key == w.Key && x.Offset > w.Offset && x.State != replication.Refused && decided(x) {
				return true
			}
		}
		return false
	}
	for i := range m.Writes {
		w := &m.Writes[i]
		if w.State == replication.Acked && w.Acks == replication.AcksAll && w.Offset >= 0 {
			out = append(out, acked{offset: w.Offset, w: w, removable: w.Tombstone || !decided(w) || superseded(w)})
			hw = max(hw, w.Offset+1)
		}
	}
	for i := range m.Txns {
		t := &m.Txns[i]
		if t.MarkerAcked && len(t.MarkerOffsets) > 0 {
			off := t.MarkerOffsets[len(t.MarkerOffsets)-1]
			out = append(out, acked{offset: off, marker: true, removable: true})
			hw = max(hw, off+1)
		}
	}
	return out, hw
}

// holds reports whether replica r holds a, or may lack it without having
// lost it (below its log start, or removable by compaction and below its
// LEO); other is the record r holds at a's offset instead, if any.
func (r *replica) holds(a acked) (ok bool, other string) {
	if a.offset < r.logStart {
		return true, ""
	}
	if x, present := r.records[a.offset]; present {
		if a.matches(x) {
			return true, ""
		}
		return false, x.String()
	}
	return a.removable && a.offset < r.leo, ""
}

// checkStep evaluates the safety invariants on cluster c as it is now.
func checkStep(c *replication.Cluster) ([]Violation, error) {
	var out []Violation
	add := func(kind, format string, args ...any) {
		out = append(out, Violation{Kind: kind, Detail: fmt.Sprintf(format, args...)})
	}
	reps := map[int]*replica{}
	allUp := true
	for _, b := range c.Brokers() {
		if !b.Up() {
			allUp = false
			continue
		}
		r, err := readReplica(b)
		if err != nil {
			return nil, err
		}
		reps[b.ID] = r
	}
	m := c.Model()
	acks, trueHW := ackedRecords(&m)
	isr := c.ISR()
	leader := c.Leader()

	if leader != 0 && reps[leader] != nil {
		maximal, pending := c.LeaderISR()
		for _, id := range isr {
			if !slices.Contains(maximal, id) {
				add(ReplicationQuorumSuperset, "leader %d's maximal ISR %v lacks broker %d of the controller's ISR %v", leader, maximal, id, isr)
				break
			}
		}
		if !pending && !slices.Equal(maximal, isr) {
			add(ReplicationQuorumSuperset, "no ISR change pending, yet leader %d's maximal ISR %v differs from the controller's %v", leader, maximal, isr)
		}
	}
	for _, id := range isr {
		if r := reps[id]; r != nil && r.leo < trueHW {
			add(LeaderCandidateCompleteness, "broker %d is in the ISR %v with LEO %d below the acknowledged end %d", id, isr, r.leo, trueHW)
		}
	}
	if r := reps[leader]; leader != 0 && r != nil {
		if r.leo < trueHW {
			add(LeaderCompleteness, "leader %d's LEO %d is below the acknowledged end %d", leader, r.leo, trueHW)
		}
		for _, a := range acks {
			if ok, other := r.holds(a); !ok {
				if other != "" {
					add(ConsistentRead, "leader %d holds %s at offset %d where %s was acknowledged", leader, other, a.offset, a)
					add(LeaderCompleteness, "leader %d holds %s at offset %d instead of acknowledged %s", leader, other, a.offset, a)
				} else {
					add(LeaderCompleteness, "leader %d lacks acknowledged %s", leader, a)
				}
			}
		}
	}
	ids := make([]int, 0, len(reps))
	for id := range reps {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for i, a := range ids {
		for _, b := range ids[i+1:] {
			ra, rb := reps[a], reps[b]
			end := min(ra.hw, rb.hw)
			var bad []record.Offset
			for off, x := range ra.records {
				if y, ok := rb.records[off]; ok && off < end && x != y {
					bad = append(bad, off)
				}
			}
			if len(bad) > 0 {
				slices.Sort(bad)
				add(LogMatching, "brokers %d and %d hold %s and %s at offset %d, below both HWs (%d offsets differ)", a, b, ra.records[bad[0]], rb.records[bad[0]], bad[0], len(bad))
			}
		}
	}
	if allUp {
		for _, a := range acks {
			kept := false
			for _, id := range ids {
				if ok, _ := reps[id].holds(a); ok {
					kept = true
					break
				}
			}
			if !kept {
				add(NoCommittedRecordLost, "no replica holds acknowledged %s", a)
			}
		}
	}
	return dedupe(out), nil
}

// checkSettled evaluates the liveness property on a settled cluster:
// every replica holds every acknowledged record, or may lack it without
// having lost it (acked.removable: what compaction, on this replica or on
// a leader it fetched from, may take away; the checker judges what that
// did to readers).
func checkSettled(c *replication.Cluster) ([]Violation, error) {
	var out []Violation
	m := c.Model()
	acks, _ := ackedRecords(&m)
	for _, b := range c.Brokers() {
		if !b.Up() {
			out = append(out, Violation{Kind: AckedFullyReplicated, Detail: fmt.Sprintf("broker %d is still down after settling", b.ID)})
			continue
		}
		r, err := readReplica(b)
		if err != nil {
			return nil, err
		}
		for _, a := range acks {
			if ok, other := r.holds(a); !ok {
				d := fmt.Sprintf("broker %d lacks acknowledged %s after settling", b.ID, a)
				if other != "" {
					d += " (holds " + other + " there)"
				}
				out = append(out, Violation{Kind: AckedFullyReplicated, Detail: d})
				break
			}
		}
	}
	return dedupe(out), nil
}

// dedupe keeps the first violation of each kind.
func dedupe(vs []Violation) []Violation {
	var out []Violation
	seen := map[string]bool{}
	for _, v := range vs {
		if !seen[v.Kind] {
			seen[v.Kind] = true
			out = append(out, v)
		}
	}
	return out
}
