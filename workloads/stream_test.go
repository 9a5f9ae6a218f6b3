package workloads

import (
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestStream decodes a stream's batches independently and checks what the
// spec says of them: contiguous offsets from the given start, the caller's
// timestamp, keys of the partition only (key id mod partitions), values of
// the seed's bytes (GroundTruth.AppendValue), tombstones and transactions
// at about their ratios, a marker after every BatchesPerTxn batches of a
// producer, and none left open after EndOpenTransactions.
func TestStream(t *testing.T) {
	spec := DefaultSpec()
	spec.Keys = 1000
	spec.Partitions = 3
	spec.TombstoneRatio = 0.2
	spec.Txn = TxnSpec{Ratio: 0.5, AbortRatio: 0.5, Producers: 3, BatchesPerTxn: 2}
	const p, first, nowMs = 1, 500, 1_700_000_000_000
	s, err := NewStream(spec, p, first)
	if err != nil {
		t.Fatal(err)
	}
	truth := newGroundTruth(&spec, p)
	var buf []byte
	next := int64(first)
	var records, tombs, txnBatches, dataBatches, markers, aborts int
	open := map[int64]int{}
	var dec record.Decoder
	var r record.Record
	check := func(b []byte, info StreamBatch, final bool) {
		h, it, err := dec.Records(b)
		if err != nil {
			t.Fatal(err)
		}
		if int64(h.BaseOffset) != next || info.BaseOffset != next || int64(h.NextOffset()) != info.NextOffset || info.Bytes != len(b) {
			t.Fatalf("batch at %d: header %d..%d, info %+v; want base %d", next, h.BaseOffset, h.NextOffset(), info, next)
		}
		if h.BaseTimestamp != nowMs || h.MaxTimestamp != nowMs {
			t.Fatalf("batch at %d: timestamps %d/%d, want %d", next, h.BaseTimestamp, h.MaxTimestamp, nowMs)
		}
		next = int64(h.NextOffset())
		if h.Attributes.Control() {
			markers++
			if info.Abort {
				aborts++
			}
			if n := open[h.ProducerID]; !info.Marker || (!final && n != spec.Txn.BatchesPerTxn) || (final && (n < 1 || n >= spec.Txn.BatchesPerTxn)) {
				t.Fatalf("marker of %d after %d batches (final %v, info %+v)", h.ProducerID, n, final, info)
			}
			delete(open, h.ProducerID)
			return
		}
		dataBatches++
		if h.Attributes.Transactional() {
			txnBatches++
			open[h.ProducerID]++
			if info.ProducerID != h.ProducerID {
				t.Fatalf("info producer %d, header %d", info.ProducerID, h.ProducerID)
			}
		}
		n := 0
		for {
			ok, err := it.Next(&r)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			n++
			id, ok := parseKeyID(r.Key)
			if !ok || id%uint64(spec.Partitions) != p || id >= uint64(spec.Keys) {
				t.Fatalf("key %q is not a key of partition %d", r.Key, p)
			}
			off := r.Offset(&h)
			if r.Value == nil {
				tombs++
			} else if want := truth.AppendValue(nil, int64(off)); string(r.Value) != string(want) {
				t.Fatalf("value at %d is not the seed's", off)
			}
		}
		records += n
		if n != info.Records || n != spec.RecordsPerBatch {
			t.Fatalf("batch of %d records, info says %d", n, info.Records)
		}
	}
	for range 2000 {
		start := len(buf)
		var info StreamBatch
		buf, info, err = s.Next(buf, nowMs)
		if err != nil {
			t.Fatal(err)
		}
		check(buf[start:], info, false)
	}
	if s.NextOffset() != next {
		t.Errorf("NextOffset %d, batches end at %d", s.NextOffset(), next)
	}
	if got := float64(tombs) / float64(records); got < 0.17 || got > 0.23 {
		t.Errorf("tombstone share %.3f, want about 0.2", got)
	}
	if got := float64(txnBatches) / float64(dataBatches); got < 0.45 || got > 0.55 {
		t.Errorf("transactional share %.3f, want about 0.5", got)
	}
	if markers == 0 || aborts == 0 || aborts == markers {
		t.Errorf("%d markers, %d aborts: want both outcomes", markers, aborts)
	}
	start := len(buf)
	buf, infos, err := s.EndOpenTransactions(buf, nowMs)
	if err != nil {
		t.Fatal(err)
	}
	rest := buf[start:]
	for _, info := range infos {
		check(rest[:info.Bytes], info, true)
		rest = rest[info.Bytes:]
	}
	if s.OpenTransactions() != 0 || len(open) != 0 {
		t.Errorf("open after EndOpenTransactions: stream %d, decoded %v", s.OpenTransactions(), open)
	}
	if _, err := NewStream(spec, 3, 0); err == nil {
		t.Error("partition 3 of 3 accepted")
	}
}
