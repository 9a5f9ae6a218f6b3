package engine

import (
	"errors"
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// ProducerEntry is what the log knows of one idempotent or transactional
// producer, as Kafka's ProducerStateEntry: enough for the cleaner to keep the
// batch that holds the producer's last sequence, and for the log to know
// which transactions are open.
type ProducerEntry struct {
	ProducerID int64
	Epoch      int16
	// LastDataOffset is the last offset of the producer's last data batch;
	// -1 when it wrote only control batches (transaction markers).
	LastDataOffset record.Offset
	// LastSequence is the sequence number of that batch's last record.
	LastSequence int32
	// LastTimestampMs is the max timestamp of the producer's last batch (ms),
	// which producer.id.expiration.ms counts from.
	LastTimestampMs int64
	// CurrentTxnFirstOffset is the first offset of the producer's open
	// transaction; -1 when none is open.
	CurrentTxnFirstOffset record.Offset
}

// producerStateManager is the log's producer state, in the shape of Kafka's
// ProducerStateManager: one entry per producer id, each holding the
// producer's open transaction (if any), from which the last stable offset
// and the .txnindex entry of each ABORT marker follow. It is rebuilt from
// the log's batch headers (the lab keeps no .snapshot files) the first
// time it is needed, then maintained on every append.
type producerStateManager struct {
	producers map[int64]*ProducerEntry
}

func newProducerStateManager() *producerStateManager {
	return &producerStateManager{producers: map[int64]*ProducerEntry{}}
}

// txnBatch is what the producer state needs of one batch.
type txnBatch struct {
	h       record.BatchHeader
	control record.ControlType // of a transactional control batch; -1 otherwise
	seg     *Segment           // the segment the batch is in
}

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

// txnBatchOf returns the producer-state facts of one whole, valid v2 batch.
func txnBatchOf(h *record.BatchHeader, batch []byte, seg *Segment) txnBatch {
	tb := txnBatch{h: *h, control: -1, seg: seg}
	if h.Attributes.Control() && h.Attributes.Transactional() {
		if t, err := controlType(batch); err == nil {
			tb.control = t
		}
	}
	return tb
}

// update applies one batch, as Kafka's ProducerAppendInfo followed by
// ProducerStateManager.update and completeTxn: a data batch sets the
// producer's last data offset and sequence (and opens a transaction when it
// is transactional and none is open); an ABORT or COMMIT marker ends the
// producer's transaction (one with no data here begins at the marker). For
// an ABORT it returns the AbortedTxn the .txnindex of the marker's segment
// gets, whose last stable offset is the first offset of the earliest
// transaction of another producer still open, else the marker's offset + 1.
// Batches without a producer id, and legacy ones, change nothing.
func (m *producerStateManager) update(b *txnBatch) (aborted *AbortedTxn) {
	h := &b.h
	if !h.HasProducerID() || h.Magic != record.MagicV2 {
		return nil
	}
	e := m.producers[h.ProducerID]
	if e == nil {
		e = &ProducerEntry{ProducerID: h.ProducerID, LastDataOffset: -1, LastSequence: record.NoSequence, CurrentTxnFirstOffset: -1}
		m.producers[h.ProducerID] = e
	}
	e.Epoch = h.ProducerEpoch
	e.LastTimestampMs = h.MaxTimestamp
	if h.Attributes.Control() {
		if !b.control.IsTxnMarker() {
			return nil
		}
		first := e.CurrentTxnFirstOffset
		if first < 0 {
			first = h.BaseOffset
		}
		e.CurrentTxnFirstOffset = -1
		if b.control != record.ControlAbort {
			return nil
		}
		lso := h.LastOffset() + 1
		if f, ok := m.firstUnstableOffset(); ok && f < lso {
			lso = f
		}
		return &AbortedTxn{ProducerID: h.ProducerID, FirstOffset: first, LastOffset: h.LastOffset(), LastStableOffset: lso}
	}
	e.LastDataOffset = h.LastOffset()
	if h.BaseSequence >= 0 {
		e.LastSequence = h.BaseSequence + h.LastOffsetDelta
	}
	if h.Attributes.Transactional() && e.CurrentTxnFirstOffset < 0 {
		e.CurrentTxnFirstOffset = h.BaseOffset
	}
	return nil
}

// firstUnstableOffset is the first offset of the earliest open transaction,
// and whether there is one (Kafka's ProducerStateManager.firstUnstableOffset).
func (m *producerStateManager) firstUnstableOffset() (record.Offset, bool) {
	var first record.Offset
	found := false
	for _, e := range m.producers {
		if f := e.CurrentTxnFirstOffset; f >= 0 && (!found || f < first) {
			first, found = f, true
		}
	}
	return first, found
}

// openTxns returns the first offset of each producer's open transaction.
func (m *producerStateManager) openTxns() map[int64]record.Offset {
	out := map[int64]record.Offset{}
	for id, e := range m.producers {
		if e.CurrentTxnFirstOffset >= 0 {
			out[id] = e.CurrentTxnFirstOffset
		}
	}
	return out
}

// loadProducerState rebuilds the producer state by reading every batch
// header of the log (the log keeps no producer snapshots, so Kafka's replay
// from the last snapshot is a replay from the start), and returns the
// aborted transactions each segment's .txnindex should hold, which Kafka's
// recovery would write. It runs at most once per open Log, the first time
// the state is needed (an append, the last stable offset, a clean, or a
// .txnindex to rebuild), so that opening a log reads nothing more.
// REQUIRES: l.mu held.
func (l *Log) loadProducerState() (map[*Segment][]AbortedTxn, error) {
	m := newProducerStateManager()
	want := map[*Segment][]AbortedTxn{}
	for _, s := range l.segments {
		it := newBatchIter(l.reader, s.f, 0, s.size)
		err := it.each(func(batch []byte, pos FilePos) error {
			h, err := record.ParseHeader(batch)
			if errors.Is(err, record.ErrLegacyMagic) {
				return nil // legacy messages predate producer ids
			}
			if err != nil {
				return &record.CorruptionError{Path: s.f.Name(), Pos: int64(pos), Reason: "batch header", Err: err}
			}
			tb := txnBatchOf(&h, batch, s)
			if a := m.update(&tb); a != nil {
				want[s] = append(want[s], *a)
			}
			return nil
		})
		l.reader.Restore()
		if err != nil {
			return nil, err
		}
	}
	l.pstate = m
	return want, nil
}

// ensureProducerState loads the producer state if it is not loaded yet.
// REQUIRES: l.mu held.
func (l *Log) ensureProducerState() error {
	if l.pstate != nil {
		return nil
	}
	_, err := l.loadProducerState()
	return err
}

// LoadProducerState reads every batch header of the log to build the
// producer state, unless it is loaded already; later appends keep it
// current. Call it before timing a clean, as a broker has it in memory:
// otherwise the first clean (or the first call of LastStableOffset) loads it.
func (l *Log) LoadProducerState() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ensureProducerState()
}

// ActiveProducers returns a copy of the entries of the producers that have
// not expired at nowMs: written within producer.id.expiration.ms, or with a
// transaction still open, as Kafka's ProducerStateManager.isProducerExpired.
// It loads the producer state first when needed.
func (l *Log) ActiveProducers(nowMs int64) (map[int64]ProducerEntry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.ensureProducerState(); err != nil {
		return nil, err
	}
	out := make(map[int64]ProducerEntry, len(l.pstate.producers))
	for id, e := range l.pstate.producers {
		if e.CurrentTxnFirstOffset >= 0 || nowMs-e.LastTimestampMs < l.cfg.ProducerIDExpirationMs {
			out[id] = *e
		}
	}
	return out, nil
}

// OpenTransactions returns the first offset of each producer's open
// transaction (loading the producer state first when needed).
func (l *Log) OpenTransactions() (map[int64]record.Offset, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.ensureProducerState(); err != nil {
		return nil, err
	}
	return l.pstate.openTxns(), nil
}

// isLastBatchOfProducer reports whether h holds its producer's last record,
// as the check in Kafka's Cleaner.cleanInto (checkBatchRetention): the batch
// ending at the producer's last data offset or, for a producer that wrote
// only markers, a control batch of its current epoch.
func isLastBatchOfProducer(active map[int64]ProducerEntry, h *record.BatchHeader) bool {
	if !h.HasProducerID() {
		return false
	}
	e, ok := active[h.ProducerID]
	if !ok {
		return false
	}
	if e.LastDataOffset >= 0 {
		return h.LastOffset() == e.LastDataOffset
	}
	return h.Attributes.Control() && h.ProducerEpoch == e.Epoch
}
