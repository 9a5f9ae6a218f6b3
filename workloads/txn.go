package workloads

import (
	"math"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// The transactional part of the dirty head (Spec.Txn): batches of several
// producers inside transactions, each ended by a COMMIT or ABORT marker, as
// Kafka's transactional producers and transaction coordinator leave them in
// a partition.

// producerEpoch is the epoch of every transactional producer: each has
// initialised its transactions once.
const producerEpoch int16 = 0

// coordinatorEpoch is the transaction coordinator's epoch written in every
// marker's value.
const coordinatorEpoch int32 = 0

// txnProducer is one transactional producer of the partition being written.
type txnProducer struct {
	// seq is the sequence number of the producer's next record.
	seq int32
	// batches are the offset ranges of the open transaction's data batches;
	// empty when no transaction is open.
	batches []offsetRange
	// pending are the writes of the open transaction, which become visible
	// (enter the ground truth) only when it commits.
	pending []pendingWrite
}

// pendingWrite is one record of an open transaction.
type pendingWrite struct {
	j    uint64 // local key index
	off  int64
	tomb bool
}

// resetProducers starts the partition's producers afresh: sequence 0, no
// open transaction.
func (g *generator) resetProducers() {
	n := 0
	if g.spec.Txn.Ratio > 0 {
		n = g.spec.Txn.Producers
	}
	if cap(g.producers) < n {
		g.producers = make([]txnProducer, n)
	}
	g.producers = g.producers[:n]
	for i := range g.producers {
		pr := &g.producers[i]
		pr.seq, pr.batches, pr.pending = 0, pr.batches[:0], pr.pending[:0]
	}
}

// endTxn draws whether producer p's open transaction aborts, writes its
// marker at the next offset, and applies the outcome to the ground truth:
// a commit makes its writes visible, an abort records its batches as
// aborted.
func (g *generator) endTxn(p int) error {
	pr := &g.producers[p]
	abort := drawUnit(g.rng) < g.spec.Txn.AbortRatio
	ctl := record.ControlCommit
	if abort {
		ctl = record.ControlAbort
		for _, b := range pr.batches {
			g.truth.abort(b.first, b.last)
			g.abortRec += b.last - b.first + 1
		}
		g.aborts++
	} else {
		for _, w := range pr.pending {
			g.truth.setIfNewer(w.j, w.off, w.tomb)
		}
	}
	pr.batches, pr.pending = pr.batches[:0], pr.pending[:0]
	g.txns++

	// The marker: a control batch of one record, uncompressed, with the
	// producer's id and epoch and no sequence, as the coordinator writes it.
	ts := g.spec.Timestamp(g.off)
	g.builder.Reset(record.BatchHeader{
		BaseOffset:           record.Offset(g.off),
		PartitionLeaderEpoch: partitionLeaderEpoch,
		Attributes:           record.AttrTransactional | record.AttrControl,
		BaseTimestamp:        ts,
		MaxTimestamp:         ts,
		ProducerID:           FirstProducerID + int64(p),
		ProducerEpoch:        producerEpoch,
		BaseSequence:         record.NoSequence,
	})
	g.marker = record.AppendControlKey(g.marker[:0], ctl)
	g.marker = record.AppendEndTxnMarkerValue(g.marker, coordinatorEpoch)
	g.builder.Append(&record.Record{Key: g.marker[:record.ControlKeySize], Value: g.marker[record.ControlKeySize:]})
	g.off++
	return g.finish()
}

// endOpenTxns ends every transaction still open, in producer order, so that
// the head leaves no open transaction (the last stable offset is the log end
// offset and the whole head is cleanable).
func (g *generator) endOpenTxns() error {
	for p := range g.producers {
		if len(g.producers[p].batches) > 0 {
			if err := g.endTxn(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// incrementSequence adds n to a sequence number, wrapping past
// math.MaxInt32 to 0 as Kafka's DefaultRecordBatch.incrementSequence.
func incrementSequence(seq, n int32) int32 {
	if seq > math.MaxInt32-n {
		return n - (math.MaxInt32 - seq) - 1
	}
	return seq + n
}
