package replication

import (
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestAcksAllNeedsHWPastLastOffset pins when an acks=all produce completes
// (Kafka's DelayedProduce: the leader's HW must be > the write's last
// offset, i.e. every in-sync replica holds it): a write at offset 1 is not
// acknowledged while the HW is 1 (the HW equal to its offset does not pass
// it), the write at 0 below it is. Worked by hand from the fetch protocol
// of TestHighWatermark: the leader learns a follower's LEO from its next
// fetch offset.
func TestAcksAllNeedsHWPastLastOffset(t *testing.T) {
	c := newTestCluster(t, nil)
	a := mustProduce(t, c, "a", "v", AcksAll) // offset 0
	// Both followers fetch from 0: they hold [0, 1), the leader records
	// LEO 0 for each, HW stays 0.
	mustFetch(t, c, 2)
	mustFetch(t, c, 3)
	b := mustProduce(t, c, "b", "v", AcksAll) // offset 1
	if a.Offset != 0 || b.Offset != 1 {
		t.Fatalf("offsets %d %d, want 0 1", a.Offset, b.Offset)
	}
	// Both fetch from 1: the leader records LEO 1 for each: HW 1 (its own
	// LEO is 2). Write 0 is below it; write 1 is at it, not past it.
	mustFetch(t, c, 2)
	mustFetch(t, c, 3)
	wantHW(t, c, 1, 1)
	if got := c.model.Writes[a.Write].State; got != Acked {
		t.Errorf("write at 0 with HW 1: state %v, want acknowledged", got)
	}
	if got := c.model.Writes[b.Write].State; got == Acked {
		t.Errorf("write at 1 with HW 1: acknowledged, but the HW has not passed its last offset")
	}
	// Both fetch from 2: HW 2 passes offset 1.
	mustFetch(t, c, 2)
	mustFetch(t, c, 3)
	wantHW(t, c, 1, record.Offset(2))
	if got := c.model.Writes[b.Write].State; got != Acked {
		t.Errorf("write at 1 with HW 2: state %v, want acknowledged", got)
	}
}
