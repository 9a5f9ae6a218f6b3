package replication

import (
	"errors"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestBatchTooLargeTakesNoSequence: a batch the leader refuses as larger
// than segment.bytes (100 by default here) takes none of the producer's
// sequence numbers, as Kafka's UnifiedLog.append refuses it before
// producer state is updated: the producer's next batch, appended, has
// base sequence 0.
func TestBatchTooLargeTakesNoSequence(t *testing.T) {
	c := newTestCluster(t, nil)
	res, err := c.Produce(ProduceSpec{Key: "P", Value: strings.Repeat("x", 35), Producer: "p1", Acks: AcksAll})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res.Err, ErrRecordListTooLarge) || res.Offset != -1 {
		t.Fatalf("a 104-byte batch: %+v, want RECORD_LIST_TOO_LARGE", res)
	}
	if res, err = c.Produce(ProduceSpec{Key: "P", Value: "p", Producer: "p1", Acks: AcksAll}); err != nil || res.Err != nil || res.Offset != 0 {
		t.Fatalf("the next batch: %+v, %v; want offset 0", res, err)
	}
	var seqs []int32
	err = c.Broker(1).Log().ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		h, err := record.ParseHeader(batch)
		seqs = append(seqs, h.BaseSequence)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seqs) != 1 || seqs[0] != 0 {
		t.Fatalf("base sequences %v, want [0]", seqs)
	}
}
