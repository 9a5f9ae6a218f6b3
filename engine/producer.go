package engine

import (
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// ProducerEntry is what the log knows of one idempotent or transactional
// producer, as Kafka's ProducerStateEntry: enough for the cleaner to keep the
// batch that holds the producer's last sequence.
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

// producerState maps producer ids to their entries, built from the log's
// batch headers, as Kafka's ProducerStateManager rebuilds it from the log
// when it has no snapshot.
type producerState map[int64]*ProducerEntry

// update applies one v2 batch, as Kafka's ProducerAppendInfo: a data batch
// sets the last data offset and sequence (and opens a transaction when
// transactional); a control batch (a transaction marker) closes the
// transaction. Batches without a producer id are ignored.
func (ps producerState) update(h *record.BatchHeader) {
	if !h.HasProducerID() || h.Magic != record.MagicV2 {
		return
	}
	e := ps[h.ProducerID]
	if e == nil {
		e = &ProducerEntry{ProducerID: h.ProducerID, LastDataOffset: -1, LastSequence: record.NoSequence, CurrentTxnFirstOffset: -1}
		ps[h.ProducerID] = e
	}
	e.Epoch = h.ProducerEpoch
	e.LastTimestampMs = h.MaxTimestamp
	if h.Attributes.Control() {
		e.CurrentTxnFirstOffset = -1
		return
	}
	e.LastDataOffset = h.LastOffset()
	if h.BaseSequence >= 0 {
		e.LastSequence = h.BaseSequence + h.LastOffsetDelta
	}
	if h.Attributes.Transactional() && e.CurrentTxnFirstOffset < 0 {
		e.CurrentTxnFirstOffset = h.BaseOffset
	}
}

// LoadProducerState reads every batch header of the log to build the
// producer state (Kafka loads it from .snapshot files and replays the log
// after them; this lab does not read snapshots yet and replays the whole
// log). It is done at most once; later appends keep it current. Call it
// before timing a clean, as a broker has it in memory: otherwise the first
// clean loads it.
func (l *Log) LoadProducerState() error {
	l.mu.Lock()
	loaded := l.producers != nil
	l.mu.Unlock()
	if loaded {
		return nil
	}
	ps := producerState{}
	err := l.ReadBatches(0, func(_ *Segment, _ FilePos, batch []byte) error {
		if len(batch) < record.BatchHeaderSize || batch[record.MagicPos] != record.MagicV2 {
			return nil
		}
		h, err := record.ParseHeader(batch)
		if err != nil {
			return err
		}
		ps.update(&h)
		return nil
	})
	if err != nil {
		return err
	}
	l.mu.Lock()
	if l.producers == nil {
		l.producers = ps
	}
	l.mu.Unlock()
	return nil
}

// ActiveProducers returns a copy of the entries of the producers that have
// not expired at nowMs: written within producer.id.expiration.ms, or with a
// transaction still open, as Kafka's ProducerStateManager.isProducerExpired.
// It loads the producer state first when needed.
func (l *Log) ActiveProducers(nowMs int64) (map[int64]ProducerEntry, error) {
	if err := l.LoadProducerState(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[int64]ProducerEntry, len(l.producers))
	for id, e := range l.producers {
		if e.CurrentTxnFirstOffset >= 0 || nowMs-e.LastTimestampMs < l.cfg.ProducerIDExpirationMs {
			out[id] = *e
		}
	}
	return out, nil
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
