package replication

import (
	"fmt"
	"slices"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Acks is a producer's acks setting: AcksAll (-1), 1 or 0.
type Acks int8

const (
	AcksAll    Acks = -1
	AcksLeader Acks = 1
	AcksNone   Acks = 0
)

func (a Acks) String() string {
	if a == AcksAll {
		return "all"
	}
	return fmt.Sprint(int8(a))
}

// producer is one idempotent or transactional producer (plain writes have
// none): its producer id, epoch and next sequence, and its open transaction.
type producer struct {
	name  string
	id    int64
	epoch int16
	seq   int32
	txn   int // index into Model.Txns of the open transaction; -1 none
}

// pendingAck is an acks=all produce (write >= 0) or a coordinator's marker
// (txn >= 0) waiting for the leader's HW to pass its offset in the epoch it
// was appended in.
type pendingAck struct {
	write, txn int
	offset     record.Offset
	epoch      int32
}

// producers holds the clients: producers by name, acks waiting, and the
// transaction coordinator's markers still to write.
type producers struct {
	byName  map[string]*producer
	nextID  int64
	pending []pendingAck
	// markers are Model.Txns indexes whose COMMIT/ABORT the coordinator has
	// decided but not yet had acknowledged (it retries after every event).
	markers []int
}

func (p *producers) init() {
	p.byName = map[string]*producer{}
	p.nextID = 1000
}

// get returns the producer of that name, creating it (producer ids are
// given in order of first use, from 1000, so runs replay exactly).
func (p *producers) get(name string) *producer {
	if pr, ok := p.byName[name]; ok {
		return pr
	}
	pr := &producer{name: name, id: p.nextID, txn: -1}
	p.nextID++
	p.byName[name] = pr
	return pr
}

// failPending drops every wait on the old leader's HW: acks=all produces
// fail with NOT_LEADER_OR_FOLLOWER (their write stays unacknowledged: it
// may or may not survive) and markers go back to the coordinator's queue.
func (p *producers) failPending(c *Cluster) {
	for _, a := range p.pending {
		if a.txn >= 0 && !slices.Contains(p.markers, a.txn) {
			p.markers = append(p.markers, a.txn)
		}
	}
	p.pending = p.pending[:0]
}

// markerOwed reports whether the coordinator still owes a marker of a
// transaction of producer name: decided, and not yet acknowledged (queued
// for a retry or waiting for the HW).
func (p *producers) markerOwed(c *Cluster, name string) bool {
	for _, ti := range p.markers {
		if c.model.Txns[ti].Producer == name {
			return true
		}
	}
	for _, a := range p.pending {
		if a.txn >= 0 && c.model.Txns[a.txn].Producer == name {
			return true
		}
	}
	return false
}

// onHW acknowledges what the leader's new HW covers.
func (p *producers) onHW(c *Cluster, hw record.Offset) error {
	kept := p.pending[:0]
	for _, a := range p.pending {
		if a.offset >= hw || a.epoch != c.leaderEpoch {
			kept = append(kept, a)
			continue
		}
		if a.write >= 0 {
			c.model.Writes[a.write].State = Acked
		}
		if a.txn >= 0 {
			c.model.Txns[a.txn].MarkerAcked = true
		}
	}
	p.pending = kept
	return nil
}

// ProduceSpec is one produce: one record (Key, Value, Tombstone), or one
// producer batch of several (Batch).
type ProduceSpec struct {
	Key       string
	Value     string
	Tombstone bool
	// Batch, when not empty, replaces Key/Value/Tombstone: the records of
	// one producer batch, in order; the leader gives them consecutive
	// offsets and they are acknowledged together, once the HW passes the
	// batch's last offset (Kafka's produce purgatory waits for the last
	// offset + 1).
	Batch []BatchRecord
	// Codec compresses the batch (Kafka's compression.type=producer keeps
	// the producer's codec); CodecNone by default.
	Codec record.Codec
	Acks  Acks
	// Producer names an idempotent producer (or the transactional one with
	// Txn); empty: a plain producer (no producer id).
	Producer string
	// Txn writes the record in the producer's transaction (begun by its
	// first transactional write).
	Txn bool
}

// BatchRecord is one record of a producer batch (ProduceSpec.Batch).
type BatchRecord struct {
	Key       string
	Value     string
	Tombstone bool
}

// ProduceResult is what the produce got.
type ProduceResult struct {
	Offset record.Offset // -1 when refused; the batch's first offset
	// Last is the batch's last offset (Offset for one record); -1 when
	// refused.
	Last record.Offset
	// Acked: acknowledged now (acks=1, or acks=all with the HW already past).
	Acked bool
	// Err is the error the leader answered with (the write was refused).
	Err error
	// Write is the Model.Writes index of the batch's first record; the
	// others follow it.
	Write int
}

// Produce sends one record to the leader, as a Kafka client: no leader (or
// a leader down) answers NOT_LEADER_OR_FOLLOWER; acks=all under min ISR
// answers NOT_ENOUGH_REPLICAS (Partition.appendRecordsToLeader); otherwise
// the leader appends it in its epoch and raises its HW; acks=1 is
// acknowledged at once, acks=all once the HW passes it, acks=0 never.
func (c *Cluster) Produce(s ProduceSpec) (ProduceResult, error) {
	recs := s.Batch
	if len(recs) == 0 {
		recs = []BatchRecord{{Key: s.Key, Value: s.Value, Tombstone: s.Tombstone}}
	} else if s.Key != "" || s.Value != "" || s.Tombstone {
		return ProduceResult{Offset: -1, Last: -1}, fmt.Errorf("replication: a produce has Key/Value/Tombstone or Batch, not both")
	}
	first := len(c.model.Writes)
	ws := make([]Write, len(recs))
	for i, r := range recs {
		ws[i] = Write{Seq: first + i, Key: r.Key, Value: r.Value, Tombstone: r.Tombstone, Producer: s.Producer, Txn: -1, Offset: -1, Acks: s.Acks, TimeMs: c.Clock.Ms()}
	}
	res := ProduceResult{Offset: -1, Last: -1, Write: first}
	var pr *producer
	if s.Producer != "" {
		pr = c.prod.get(s.Producer)
	}
	if s.Txn {
		if pr == nil {
			return res, fmt.Errorf("replication: a transactional produce needs a producer")
		}
		if pr.txn < 0 && c.prod.markerOwed(c, pr.name) {
			// The coordinator is still in PrepareCommit/PrepareAbort for
			// the producer's previous transaction: it answers the new
			// transaction's AddPartitionsToTxn with
			// CONCURRENT_TRANSACTIONS (TransactionCoordinator.handleAddPartitionsToTransaction)
			// until every marker is written. Nothing is appended and no
			// transaction begins.
			res.Err = fmt.Errorf("%w: producer %s's previous transaction is not complete (its marker is not acknowledged)", ErrConcurrentTransactions, pr.name)
			for _, w := range ws {
				w.State = Refused
				c.model.Writes = append(c.model.Writes, w)
			}
			return res, nil
		}
		if pr.txn < 0 {
			pr.txn = len(c.model.Txns)
			c.model.Txns = append(c.model.Txns, Txn{Producer: pr.name, StartMs: c.Clock.Ms()})
		}
		for i := range ws {
			ws[i].Txn = pr.txn
		}
	}
	lb := c.leaderBroker()
	switch {
	case lb == nil || !lb.Up():
		res.Err = ErrNotLeaderOrFollower
	case s.Acks == AcksAll && c.underMinISR():
		res.Err = fmt.Errorf("%w: ISR %v is below min.insync.replicas %d", ErrNotEnoughReplicas, c.isr, c.effectiveMinISR())
	case pr != nil && !s.Txn:
		// A non-transactional batch of a producer whose transaction is
		// open on the leader is refused, as Kafka's
		// ProducerAppendInfo.appendDataBatch ("Expected transactional
		// write from producer ..."); nothing is appended.
		open, err := lb.log.OpenTransactions()
		if err != nil {
			return res, fmt.Errorf("replication: leader %d producer state: %w", lb.ID, err)
		}
		if first, ok := open[int64(pr.id)]; ok {
			res.Err = fmt.Errorf("%w: expected a transactional write from producer %s, whose transaction is open from offset %d", ErrInvalidTxnState, pr.name, first)
		}
	}
	if res.Err != nil {
		c.refuse(ws)
		return res, nil
	}
	h := record.BatchHeader{BaseTimestamp: c.Clock.UnixMs(), MaxTimestamp: c.Clock.UnixMs(),
		ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}
	if pr != nil {
		h.ProducerID, h.ProducerEpoch, h.BaseSequence = pr.id, pr.epoch, pr.seq
		pr.seq += int32(len(recs))
	}
	if s.Txn {
		h.Attributes |= record.AttrTransactional
	}
	h.Attributes |= record.Attributes(s.Codec) & record.AttrCodecMask
	h.LastOffsetDelta = int32(len(recs) - 1)
	rs := make([]record.Record, len(recs))
	for i, r := range recs {
		rs[i] = record.Record{Key: []byte(r.Key), OffsetDelta: int32(i)}
		if !r.Tombstone {
			rs[i].Value = []byte(r.Value)
		}
	}
	batch, err := record.BuildBatch(nil, h, rs)
	if err != nil {
		return res, err
	}
	if size := int64(len(batch)); size > lb.cfg.SegmentBytes {
		// Kafka's UnifiedLog.append refuses a batch larger than a segment
		// (RecordBatchTooLargeException) before producer state is
		// updated: the broker takes none of its sequence numbers, and
		// the client gives them back (TransactionManager's handling of a
		// failed batch).
		if pr != nil {
			pr.seq -= int32(len(recs))
		}
		res.Err = fmt.Errorf("%w: the batch is %d bytes, above segment.bytes %d", ErrRecordListTooLarge, size, lb.cfg.SegmentBytes)
		c.refuse(ws)
		return res, nil
	}
	if err := lb.beforeAppend(len(batch)); err != nil {
		return res, err
	}
	off, last, err := lb.log.AppendAsLeader(batch, c.leaderEpoch)
	if err != nil {
		return res, fmt.Errorf("replication: leader %d appends: %w", lb.ID, err)
	}
	if err := lb.appended(int64(len(recs))); err != nil {
		return res, err
	}
	c.cost.invalidate(lb.ID)
	if c.model.byOffsetEpoch == nil {
		c.model.byOffsetEpoch = map[[2]int64]int{}
	}
	res.Offset, res.Last = off, last
	for i := range ws {
		w := &ws[i]
		w.Offset, w.Epoch, w.State = off+record.Offset(i), c.leaderEpoch, Appended
		w.HeldBy = 1 << uint(lb.ID)
		c.model.byOffsetEpoch[[2]int64{int64(w.Offset), int64(c.leaderEpoch)}] = w.Seq
		if s.Acks == AcksLeader {
			w.State = Acked
			res.Acked = true
		}
		c.model.Writes = append(c.model.Writes, *w)
		if w.Txn >= 0 {
			c.model.Txns[w.Txn].Writes = append(c.model.Txns[w.Txn].Writes, w.Seq)
		}
	}
	if s.Acks == AcksAll {
		// Each record waits for the batch's last offset.
		for _, w := range ws {
			c.prod.pending = append(c.prod.pending, pendingAck{write: w.Seq, txn: -1, offset: last, epoch: c.leaderEpoch})
		}
		if err := c.maybeIncrementLeaderHW(); err != nil {
			return res, err
		}
		res.Acked = c.model.Writes[first].State == Acked
	}
	return res, nil
}

// EndTxn ends producer name's open transaction, as the client's
// commitTransaction/abortTransaction: the coordinator decides (a COMMIT
// needs every write of the transaction acknowledged, else the producer
// must abort: INVALID_TXN_STATE here), then writes the marker through the
// leader with acks=all, retrying after every later event until the HW
// passes it. The decision stands from now on (the coordinator has logged
// PREPARE_COMMIT/PREPARE_ABORT), whatever happens to the marker.
func (c *Cluster) EndTxn(name string, commit bool) error {
	pr, ok := c.prod.byName[name]
	if !ok || pr.txn < 0 {
		return fmt.Errorf("%w: producer %s has no open transaction", ErrInvalidTxnState, name)
	}
	t := &c.model.Txns[pr.txn]
	if commit {
		if t.Failed {
			return fmt.Errorf("%w: a write of %s's transaction was refused: it must abort", ErrInvalidTxnState, name)
		}
		for _, wi := range t.Writes {
			if c.model.Writes[wi].State != Acked {
				return fmt.Errorf("%w: %s's write at offset %d is not acknowledged yet", ErrInvalidTxnState, name, c.model.Writes[wi].Offset)
			}
		}
		t.Outcome = Committed
	} else {
		t.Outcome = Aborted
	}
	t.EndMs = c.Clock.Ms()
	c.prod.markers = append(c.prod.markers, pr.txn)
	pr.txn = -1
	return c.retryMarkers()
}

// retryMarkers has the coordinator write every marker it still owes, when
// there is a leader not under min ISR (WriteTxnMarkers appends with
// acks=all).
func (c *Cluster) retryMarkers() error {
	lb := c.leaderBroker()
	if len(c.prod.markers) == 0 || lb == nil || !lb.Up() || c.underMinISR() {
		return nil
	}
	todo := c.prod.markers
	c.prod.markers = nil
	for _, ti := range todo {
		t := &c.model.Txns[ti]
		pr := c.prod.byName[t.Producer]
		typ := record.ControlAbort
		if t.Outcome == Committed {
			typ = record.ControlCommit
		}
		h := record.BatchHeader{Attributes: record.AttrControl | record.AttrTransactional, BaseTimestamp: c.Clock.UnixMs(), MaxTimestamp: c.Clock.UnixMs(),
			ProducerID: pr.id, ProducerEpoch: pr.epoch, BaseSequence: record.NoSequence}
		r := record.Record{Key: record.AppendControlKey(nil, typ), Value: record.AppendEndTxnMarkerValue(nil, 0)}
		batch, err := record.BuildBatch(nil, h, []record.Record{r})
		if err != nil {
			return err
		}
		if err := lb.beforeAppend(len(batch)); err != nil {
			return err
		}
		off, _, err := lb.log.AppendAsLeader(batch, c.leaderEpoch)
		if err != nil {
			return fmt.Errorf("replication: leader %d appends a marker: %w", lb.ID, err)
		}
		if err := lb.appended(1); err != nil {
			return err
		}
		c.cost.invalidate(lb.ID)
		t.MarkerOffsets = append(t.MarkerOffsets, off)
		c.prod.pending = append(c.prod.pending, pendingAck{write: -1, txn: ti, offset: off, epoch: c.leaderEpoch})
	}
	return c.maybeIncrementLeaderHW()
}

// OpenTxnProducers lists the producers with an open transaction, by name.
func (c *Cluster) OpenTxnProducers() []string {
	var out []string
	for name, pr := range c.prod.byName {
		if pr.txn >= 0 {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// refuse records ws in the model as refused writes; a transaction they
// are of has failed.
func (c *Cluster) refuse(ws []Write) {
	for _, w := range ws {
		w.State = Refused
		c.model.Writes = append(c.model.Writes, w)
		if w.Txn >= 0 {
			c.model.Txns[w.Txn].Writes = append(c.model.Txns[w.Txn].Writes, w.Seq)
			c.model.Txns[w.Txn].Failed = true
		}
	}
}
