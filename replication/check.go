package replication

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Kind names a way replicas disagree with what clients were told.
type Kind string

const (
	// ResurrectedKey: a read_committed consumer of the replica sees a value
	// of a key whose latest acknowledged write is a tombstone.
	ResurrectedKey Kind = "resurrected-key"
	// AbortedVisible: it sees a value written in an aborted transaction.
	AbortedVisible Kind = "aborted-visible"
	// CommittedHidden: a committed transactional write the replica received
	// and still holds is hidden from it (read as aborted), and no later
	// write supersedes it. One it received and lost (truncated away) is
	// LostAcknowledged.
	CommittedHidden Kind = "committed-hidden"
	// LSOStuck: the replica's last stable offset stays below its HW after
	// every transaction ended: it holds transactional data it thinks open.
	LSOStuck Kind = "lso-stuck"
	// LostAcknowledged: an acknowledged write (or committed transactional
	// write) is neither present nor superseded.
	LostAcknowledged Kind = "lost-acknowledged"
	// OffsetsDiffer: two replicas hold different records at one offset.
	OffsetsDiffer Kind = "offsets-differ"
	// ConsumerKeepsDeleted: a consumer group, caught up with the leader,
	// keeps a key the log deleted: it missed the key's tombstone, cleaned
	// away (delete.retention.ms passed) before the group read past it.
	ConsumerKeepsDeleted Kind = "consumer-keeps-deleted"
)

// Kinds lists every kind, in the order reports print them.
var Kinds = []Kind{ResurrectedKey, AbortedVisible, CommittedHidden, LSOStuck, LostAcknowledged, OffsetsDiffer, ConsumerKeepsDeleted}

// Finding is one divergence on one replica.
type Finding struct {
	Kind   Kind
	Broker int
	Key    string // "" for lso-stuck and offsets-differ
	Offset record.Offset
	Detail string
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s broker=%d", f.Kind, f.Broker)
	if f.Key != "" {
		s += " key=" + f.Key
	}
	return s + fmt.Sprintf(" offset=%d: %s", f.Offset, f.Detail)
}

// ReplicaView is one replica as the checker read it.
type ReplicaView struct {
	Broker             int
	Up                 bool
	LogStart, LEO, HW  record.Offset
	LSO                record.Offset
	Epochs             []engine.EpochEntry
	SizeBytes          int64
	Visible            map[string]visibleRecord // read_committed state from the log start
	physical           map[record.Offset]string // offset -> what the record is
	openTxns           map[int64]record.Offset
	MCCO, MTRO, MXRO   record.Offset
	KnownLeaderEpoch   int32
	HasEmptyOrControls int
}

type visibleRecord struct {
	Value  string
	Offset record.Offset
}

// State renders the read_committed state as "K=v@off ..." sorted by key.
func (v *ReplicaView) State() string {
	keys := make([]string, 0, len(v.Visible))
	for k := range v.Visible {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%s@%d", k, v.Visible[k].Value, v.Visible[k].Offset)
	}
	if b.Len() == 0 {
		return "(empty)"
	}
	return b.String()
}

// View reads broker id's replica: offsets, epochs, the read_committed state
// from the log start (as a consumer with isolation.level=read_committed,
// bounded by the LSO) and every record it physically holds.
func (c *Cluster) View(id int) (*ReplicaView, error) {
	b := c.Broker(id)
	v := &ReplicaView{Broker: id, Up: b.Up(), MTRO: b.mtro, MXRO: b.mxro, KnownLeaderEpoch: b.knownLeaderEpoch}
	if !b.Up() {
		return v, nil
	}
	l := b.log
	v.LogStart, v.LEO, v.HW = l.LogStartOffset(), l.LogEndOffset(), l.HighWatermark()
	lso, err := l.LastStableOffset()
	if err != nil {
		return nil, err
	}
	v.LSO = lso
	v.Epochs = l.LeaderEpochs()
	v.SizeBytes = l.SizeBytes()
	v.MCCO = l.MaxCleanlyCompactedOffset()
	if v.openTxns, err = l.OpenTransactions(); err != nil {
		return nil, err
	}
	v.Visible = map[string]visibleRecord{}
	cons := l.NewConsumer(-1, engine.ReadCommitted, 0)
	err = cons.ReadAll(func(r *engine.ConsumerRecord) error {
		if r.Key == nil {
			return nil
		}
		if r.Value == nil {
			delete(v.Visible, string(r.Key))
			return nil
		}
		v.Visible[string(r.Key)] = visibleRecord{Value: string(r.Value), Offset: r.Offset}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replication: broker %d read_committed: %w", id, err)
	}
	v.physical = map[record.Offset]string{}
	var dec record.Decoder
	err = l.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		h, it, err := dec.Records(batch)
		if err != nil {
			return err
		}
		var r record.Record
		for {
			ok, err := it.Next(&r)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			v.physical[r.Offset(&h)] = describeRecord(&h, &r)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("replication: broker %d read: %w", id, err)
	}
	return v, nil
}

// describeRecord is a record's identity for comparing replicas.
func describeRecord(h *record.BatchHeader, r *record.Record) string {
	if h.Attributes.Control() {
		typ, _ := record.ParseControlKey(r.Key)
		return fmt.Sprintf("%s(pid %d)", typ, h.ProducerID)
	}
	val := "null"
	if r.Value != nil {
		val = string(r.Value)
	}
	s := fmt.Sprintf("%s=%s", r.Key, val)
	if h.Attributes.Transactional() {
		s += fmt.Sprintf("(txn pid %d)", h.ProducerID)
	}
	return s
}

// Report is the checker's result over every replica.
type Report struct {
	Views    []*ReplicaView
	Findings []Finding
}

// Kinds returns the kinds found, in Kinds order.
func (r *Report) Kinds() []Kind {
	var out []Kind
	for _, k := range Kinds {
		for _, f := range r.Findings {
			if f.Kind == k {
				out = append(out, k)
				break
			}
		}
	}
	return out
}

// Check compares every running replica with the model of what clients were
// told and with each other (call Settle first for the end-of-run check):
// read_committed state from the log start (key -> value), LSO == HW, every
// acknowledged write present or superseded, and equal records at equal
// offsets where two replicas both hold one.
func (c *Cluster) Check() (*Report, error) {
	rep := &Report{}
	for _, b := range c.brokers {
		v, err := c.View(b.ID)
		if err != nil {
			return nil, err
		}
		rep.Views = append(rep.Views, v)
	}
	for _, v := range rep.Views {
		if v.Up {
			rep.Findings = append(rep.Findings, c.checkReplica(v)...)
		}
	}
	for i, a := range rep.Views {
		for _, b := range rep.Views[i+1:] {
			if !a.Up || !b.Up {
				continue
			}
			var diff []record.Offset
			for off, ra := range a.physical {
				if rb, ok := b.physical[off]; ok && rb != ra {
					diff = append(diff, off)
				}
			}
			if len(diff) == 0 {
				continue
			}
			slices.Sort(diff)
			off := diff[0]
			rep.Findings = append(rep.Findings, Finding{Kind: OffsetsDiffer, Broker: b.Broker, Offset: off,
				Detail: fmt.Sprintf("broker %d holds %s, broker %d holds %s (%d offsets differ)", a.Broker, a.physical[off], b.Broker, b.physical[off], len(diff))})
		}
	}
	for _, v := range rep.Views {
		if v.Broker == c.leader {
			rep.Findings = append(rep.Findings, c.checkGroups(v)...)
		}
	}
	return rep, nil
}

// checkReplica compares one replica with the model.
func (c *Cluster) checkReplica(v *ReplicaView) []Finding {
	var out []Finding
	m := &c.model
	stuck := v.LSO < v.HW
	if stuck {
		var who []string
		for pid, first := range v.openTxns {
			who = append(who, fmt.Sprintf("producer %s (pid %d) from %d", c.producerName(pid), pid, first))
		}
		slices.Sort(who)
		out = append(out, Finding{Kind: LSOStuck, Broker: v.Broker, Offset: v.LSO,
			Detail: fmt.Sprintf("LSO %d < HW %d: open transaction of %s, which no client has open; Kafka never expires a producer with an open transaction (ProducerStateManager.isProducerExpired), so it stays until that producer writes a marker or an admin aborts it", v.LSO, v.HW, strings.Join(who, ", "))})
	}
	byKey := map[string][]int{}
	var keys []string
	for i := range m.Writes {
		k := m.Writes[i].Key
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	for k := range v.Visible {
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		if f, bad := c.checkKey(v, k, byKey[k], stuck); bad {
			out = append(out, f)
		}
	}
	return out
}

func (c *Cluster) producerName(pid int64) string {
	for name, pr := range c.prod.byName {
		if pr.id == pid {
			return name
		}
	}
	return "?"
}

// checkKey judges one key on one replica: the replica may show the latest
// write a consumer must see (or nothing, when that is a tombstone or there
// is none), or any later write it may see; anything else is named by what
// it shows and what it misses.
func (c *Cluster) checkKey(v *ReplicaView, key string, writes []int, stuck bool) (Finding, bool) {
	m := &c.model
	last := -1 // index into writes of the latest must-see write
	for i, wi := range writes {
		if m.mustSee(&m.Writes[wi]) {
			last = i
		}
	}
	absentOK := last < 0 || m.Writes[writes[last]].Tombstone
	allowed := map[int]bool{}
	if last >= 0 && !m.Writes[writes[last]].Tombstone {
		allowed[writes[last]] = true
	}
	for _, wi := range writes[last+1:] {
		w := &m.Writes[wi]
		if !m.maySee(w) {
			continue
		}
		if w.Tombstone {
			absentOK = true
		} else {
			allowed[wi] = true
		}
	}
	judge := func(v *ReplicaView) (ok, present bool, rv visibleRecord, shown int) {
		rv, present = v.Visible[key]
		shown = -1
		if !present {
			return absentOK, false, rv, shown
		}
		for _, wi := range writes {
			w := &m.Writes[wi]
			if w.State != Refused && !w.Tombstone && w.Offset == rv.Offset && w.Value == rv.Value {
				shown = wi
			}
		}
		return shown >= 0 && allowed[shown], true, rv, shown
	}
	ok, present, rv, shown := judge(v)
	if ok {
		return Finding{}, false
	}
	f := Finding{Broker: v.Broker, Key: key}
	var must *Write
	if last >= 0 {
		must = &m.Writes[writes[last]]
	}
	if stuck && must != nil && must.Offset >= v.LSO {
		// Hidden behind the stuck LSO: the lso-stuck finding covers it.
		return Finding{}, false
	}
	switch {
	case present && shown < 0:
		f.Kind, f.Offset = OffsetsDiffer, rv.Offset
		f.Detail = fmt.Sprintf("shows %s=%s, which no client wrote at offset %d", key, rv.Value, rv.Offset)
	case present && m.Writes[shown].Txn >= 0 && m.Txns[m.Writes[shown].Txn].Outcome != Committed:
		f.Kind, f.Offset = AbortedVisible, rv.Offset
		f.Detail = fmt.Sprintf("shows %s=%s from producer %s's aborted transaction", key, rv.Value, m.Writes[shown].Producer)
	case must != nil && must.Txn >= 0 && must.everHeld(v.Broker) && !must.lostByTruncation(v.Broker):
		f.Kind, f.Offset = CommittedHidden, must.Offset
		f.Detail = fmt.Sprintf("reads %s of producer %s's committed transaction at offset %d as aborted", writeString(must), must.Producer, must.Offset)
		if present {
			f.Detail += fmt.Sprintf(" and shows %s=%s@%d", key, rv.Value, rv.Offset)
		}
	case present && must != nil && must.Tombstone:
		f.Kind, f.Offset = ResurrectedKey, rv.Offset
		f.Detail = fmt.Sprintf("shows %s=%s, deleted by the acknowledged tombstone at offset %d", key, rv.Value, must.Offset)
	case must != nil:
		f.Kind, f.Offset = LostAcknowledged, must.Offset
		f.Detail = fmt.Sprintf("lost acknowledged %s", writeString(must))
		if present {
			f.Detail += fmt.Sprintf(" (shows %s@%d instead)", rv.Value, rv.Offset)
		}
	default:
		// Nothing must be seen and the value shown is a client's write that
		// is not of an undecided transaction: every such write is allowed,
		// so this is not reached.
		return Finding{}, false
	}
	return f, true
}

// writeString is "K=v" or "K=null" for a tombstone.
func writeString(w *Write) string {
	if w.Tombstone {
		return w.Key + "=null"
	}
	return w.Key + "=" + w.Value
}
