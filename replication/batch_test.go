package replication

import (
	"errors"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestProducerBatch: a produce of three records is one batch (one append on
// the leader, one on each follower), its records take consecutive offsets
// from the leader's LEO, each becomes a write of the model at its offset
// and is held by a follower once that follower appended the batch, and
// all three are acknowledged together once the HW passes the batch's last
// offset. Refused, every record is a refused write. Worked by hand from
// the fetch protocol of TestHighWatermark.
func TestProducerBatch(t *testing.T) {
	c := newTestCluster(t, func(cfg *Config) { cfg.Replicas = 2; cfg.Log = DefaultLogConfig(); cfg.Log.SegmentBytes = 1000 })
	mustProduce(t, c, "a", "v", AcksAll) // offset 0
	res, err := c.Produce(ProduceSpec{Batch: []BatchRecord{{Key: "x", Value: "1"}, {Key: "y", Tombstone: true}, {Key: "z", Value: "3"}},
		Codec: record.CodecLZ4, Acks: AcksAll})
	if err != nil || res.Err != nil {
		t.Fatalf("produce batch: %v %v", err, res.Err)
	}
	if res.Offset != 1 || res.Last != 3 || res.Write != 1 {
		t.Fatalf("batch at %d..%d, first write %d; want 1..3, write 1", res.Offset, res.Last, res.Write)
	}
	for i, want := range []Write{{Key: "x", Value: "1", Offset: 1}, {Key: "y", Tombstone: true, Offset: 2}, {Key: "z", Value: "3", Offset: 3}} {
		w := c.model.Writes[1+i]
		if w.Key != want.Key || w.Value != want.Value || w.Tombstone != want.Tombstone || w.Offset != want.Offset || w.State != Appended {
			t.Errorf("write %d: %+v, want %s at %d, appended", 1+i, w, want.Key, want.Offset)
		}
	}
	// Fetch from 0: both batches, the leader notes LEO 0, HW 0.
	if got := mustFetch(t, c, 2); got.Appended != 4 {
		t.Fatalf("first fetch appended %d, want 4", got.Appended)
	}
	for i := 1; i <= 3; i++ {
		if !c.model.Writes[i].everHeld(2) {
			t.Errorf("write %d not held by broker 2 after it appended the batch", i)
		}
	}
	// Fetch from 4: HW 4 > 3, all three acknowledged at once.
	mustFetch(t, c, 2)
	wantHW(t, c, 1, 4)
	for i := 1; i <= 3; i++ {
		if c.model.Writes[i].State != Acked {
			t.Errorf("write %d with HW 4: %v, want acknowledged", i, c.model.Writes[i].State)
		}
	}

	// Under min ISR: refused, three refused writes.
	c2 := newTestCluster(t, func(cfg *Config) {
		cfg.Replicas = 2
		cfg.MinInsyncReplicas = 2
		cfg.Log = DefaultLogConfig()
		cfg.Log.SegmentBytes = 1000
	})
	if err := c2.Crash(2, true); err != nil {
		t.Fatal(err)
	}
	res, err = c2.Produce(ProduceSpec{Batch: []BatchRecord{{Key: "x", Value: "1"}, {Key: "y", Value: "2"}}, Acks: AcksAll})
	if err != nil || !errors.Is(res.Err, ErrNotEnoughReplicas) || res.Offset != -1 || res.Last != -1 {
		t.Fatalf("batch under min ISR: %v %v at %d..%d, want NOT_ENOUGH_REPLICAS at -1..-1", err, res.Err, res.Offset, res.Last)
	}
	if n := len(c2.model.Writes); n != 2 || c2.model.Writes[0].State != Refused || c2.model.Writes[1].State != Refused {
		t.Fatalf("writes after a refused batch of 2: %+v", c2.model.Writes)
	}
	// Key/Value and Batch together: an error.
	if _, err := c2.Produce(ProduceSpec{Key: "k", Value: "v", Batch: []BatchRecord{{Key: "x"}}}); err == nil {
		t.Fatal("a produce with Key and Batch: no error")
	}
}
