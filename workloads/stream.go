package workloads

import (
	"fmt"
	"math/rand/v2"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Stream writes one partition's records without end, as a live producer
// does, for steady-state runs: where Generate writes a clean base and a
// dirty head of a known size, a Stream yields batch after batch of the
// spec's dirty-head writes (keys drawn by Distribution, a TombstoneRatio
// share of tombstones, Txn.Ratio of the batches in transactions of
// Txn.Producers producers ended after Txn.BatchesPerTxn batches by COMMIT or,
// with probability Txn.AbortRatio, ABORT), stamped with the caller's clock
// instead of Spec.Timestamp. The draws follow Generate's head exactly (one
// producer draw per batch with transactions on, then per record a key draw
// and a tombstone draw; one abort draw per transaction), from the
// partition's own PCG stream, so a seed gives the same keys, tombstones and
// transactions whatever the clock; key and value sizes and value bytes are
// computed from the seed as Generate's are (GroundTruth.AppendValue gives a
// record's value back from its offset). Spec.DirtyRatio, LogBytes and
// SegmentBytes are not used. Not safe for concurrent use.
type Stream struct {
	spec      Spec
	rng       *rand.PCG
	vseed     uint64
	keySize   sizer
	valueSize sizer
	choose    keyChooser
	stride    uint64 // key id of local key j: j*stride + residue
	residue   uint64

	builder record.Builder
	key     []byte
	value   []byte
	recs    []byte
	marker  []byte
	off     int64 // offset of the next record

	producers []streamProducer
	// ending is the producer whose transaction's marker comes next; -1: none.
	ending int
}

// streamProducer is one transactional producer of a Stream.
type streamProducer struct {
	seq     int32 // sequence of its next record
	batches int   // data batches of its open transaction; 0: none open
}

// StreamBatch describes one batch a Stream wrote.
type StreamBatch struct {
	// BaseOffset and NextOffset bound the batch's offsets: [BaseOffset, NextOffset).
	BaseOffset, NextOffset int64
	// Bytes is the encoded batch's size in bytes.
	Bytes int
	// Records counts its data records (0 for a marker) and Tombstones those
	// of them with a null value.
	Records, Tombstones int
	// ProducerID is the transactional producer's id, -1 for a
	// non-transactional batch.
	ProducerID int64
	// Marker says the batch is a transaction marker (a control batch),
	// Abort that it is an ABORT marker (else COMMIT).
	Marker, Abort bool
}

// NewStream returns the stream of partition p of spec (p in [0,
// spec.Partitions)), whose first record gets offset nextOffset (the log end
// offset of the log it appends to). Errors: a spec that Validate refuses for
// anything but the clean base's reachability; p out of range; nextOffset
// negative.
func NewStream(spec Spec, p int, nextOffset int64) (*Stream, error) {
	if err := spec.validateShape(); err != nil {
		return nil, err
	}
	if p < 0 || p >= spec.Partitions {
		return nil, fmt.Errorf("workloads: stream of partition %d: want a partition in [0, %d)", p, spec.Partitions)
	}
	if nextOffset < 0 {
		return nil, fmt.Errorf("workloads: stream of partition %d: next offset %d is negative", p, nextOffset)
	}
	s := &Stream{
		spec:      spec,
		rng:       newPartitionRand(spec.Seed, p),
		vseed:     valueSeed(spec.Seed, p),
		keySize:   spec.keySizer(),
		valueSize: spec.valueSizer(),
		stride:    uint64(spec.Partitions),
		residue:   uint64(p),
		off:       nextOffset,
		ending:    -1,
	}
	s.choose = newKeyChooser(&s.spec, uint64(spec.partitionKeys(p)))
	s.key = make([]byte, s.keySize.max)
	s.value = make([]byte, s.valueSize.max)
	if spec.Txn.Ratio > 0 {
		s.producers = make([]streamProducer, spec.Txn.Producers)
	}
	return s, nil
}

// NextOffset is the offset the stream's next record gets.
func (s *Stream) NextOffset() int64 { return s.off }

// MaxBatchBytes bounds the size of any batch the stream writes, in bytes.
func (s *Stream) MaxBatchBytes() int64 { return s.spec.maxBatchBytes() }

// Next appends the stream's next batch to dst and describes it: the marker
// of the transaction the previous data batch completed, if any; otherwise a
// data batch of Spec.RecordsPerBatch records. Every timestamp of the batch
// is nowMs (ms since the epoch: a producer's CreateTime). Errors: the batch
// cannot be encoded (a compression codec failing).
func (s *Stream) Next(dst []byte, nowMs int64) ([]byte, StreamBatch, error) {
	if s.ending >= 0 {
		p := s.ending
		s.ending = -1
		return s.endTxn(dst, p, nowMs)
	}
	producer := -1
	if s.spec.Txn.Ratio > 0 && drawUnit(s.rng) < s.spec.Txn.Ratio {
		producer = int(drawBelow(s.rng, uint64(s.spec.Txn.Producers)))
	}
	base := s.off
	n := s.spec.RecordsPerBatch
	info := StreamBatch{BaseOffset: base, NextOffset: base + int64(n), Records: n, ProducerID: -1}
	s.recs = s.recs[:0]
	for i := range n {
		j := s.choose.next(s.rng)
		tomb := drawUnit(s.rng) < s.spec.TombstoneRatio
		id := j*s.stride + s.residue
		key := s.key[:s.keySize.size(s.spec.Seed, id)]
		fillKey(key, id)
		r := record.Record{OffsetDelta: int32(i), Key: key}
		if tomb {
			info.Tombstones++
		} else {
			r.Value = s.value[:s.valueSize.size(s.vseed, uint64(s.off))]
			fillValue(r.Value, s.vseed, s.off)
		}
		s.recs = record.AppendRecord(s.recs, &r)
		s.off++
	}
	h := record.BatchHeader{
		BaseOffset:           record.Offset(base),
		PartitionLeaderEpoch: partitionLeaderEpoch,
		Attributes:           record.Attributes(s.spec.Codec),
		LastOffsetDelta:      int32(n - 1),
		BaseTimestamp:        nowMs,
		MaxTimestamp:         nowMs,
		ProducerID:           record.NoProducerID,
		ProducerEpoch:        record.NoProducerEpoch,
		BaseSequence:         record.NoSequence,
	}
	if producer >= 0 {
		pr := &s.producers[producer]
		h.Attributes |= record.AttrTransactional
		h.ProducerID = FirstProducerID + int64(producer)
		h.ProducerEpoch = producerEpoch
		h.BaseSequence = pr.seq
		pr.seq = incrementSequence(pr.seq, int32(n))
		pr.batches++
		info.ProducerID = h.ProducerID
		if pr.batches == s.spec.Txn.BatchesPerTxn {
			s.ending = producer
		}
	}
	s.builder.Reset(h)
	s.builder.AppendRaw(s.recs, int32(n))
	start := len(dst)
	out, err := s.builder.Finish(dst)
	if err != nil {
		return dst, StreamBatch{}, fmt.Errorf("workloads: encode batch at offset %d: %w", base, err)
	}
	info.Bytes = len(out) - start
	return out, info, nil
}

// endTxn draws the outcome of producer p's open transaction and appends its
// marker: a control batch of one record, uncompressed, with the producer's
// id and epoch and no sequence, as the transaction coordinator writes it.
func (s *Stream) endTxn(dst []byte, p int, nowMs int64) ([]byte, StreamBatch, error) {
	abort := drawUnit(s.rng) < s.spec.Txn.AbortRatio
	ctl := record.ControlCommit
	if abort {
		ctl = record.ControlAbort
	}
	s.producers[p].batches = 0
	info := StreamBatch{BaseOffset: s.off, NextOffset: s.off + 1, ProducerID: FirstProducerID + int64(p), Marker: true, Abort: abort}
	s.builder.Reset(record.BatchHeader{
		BaseOffset:           record.Offset(s.off),
		PartitionLeaderEpoch: partitionLeaderEpoch,
		Attributes:           record.AttrTransactional | record.AttrControl,
		BaseTimestamp:        nowMs,
		MaxTimestamp:         nowMs,
		ProducerID:           info.ProducerID,
		ProducerEpoch:        producerEpoch,
		BaseSequence:         record.NoSequence,
	})
	s.marker = record.AppendControlKey(s.marker[:0], ctl)
	s.marker = record.AppendEndTxnMarkerValue(s.marker, coordinatorEpoch)
	s.builder.Append(&record.Record{Key: s.marker[:record.ControlKeySize], Value: s.marker[record.ControlKeySize:]})
	s.off++
	start := len(dst)
	out, err := s.builder.Finish(dst)
	if err != nil {
		return dst, StreamBatch{}, fmt.Errorf("workloads: encode marker at offset %d: %w", info.BaseOffset, err)
	}
	info.Bytes = len(out) - start
	return out, info, nil
}

// OpenTransactions counts the producers with an open transaction.
func (s *Stream) OpenTransactions() int {
	n := 0
	for _, pr := range s.producers {
		if pr.batches > 0 {
			n++
		}
	}
	return n
}

// EndOpenTransactions appends to dst the marker of every open transaction,
// in producer order, with the usual abort draw, so that a log stopped here
// holds no open transaction (its last stable offset is its log end
// offset), and describes each.
func (s *Stream) EndOpenTransactions(dst []byte, nowMs int64) ([]byte, []StreamBatch, error) {
	s.ending = -1
	var infos []StreamBatch
	for p := range s.producers {
		if s.producers[p].batches == 0 {
			continue
		}
		var info StreamBatch
		var err error
		dst, info, err = s.endTxn(dst, p, nowMs)
		if err != nil {
			return dst, infos, err
		}
		infos = append(infos, info)
	}
	return dst, infos, nil
}
