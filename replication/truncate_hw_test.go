package replication

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFollowerTruncationLowersHWAndCheckpoint pins UnifiedLog.truncateTo's
// high-watermark rule: a follower that truncates below its HW lowers the
// HW to the truncation offset, in memory and in its
// replication-offset-checkpoint, at once (not at its next fetch). Worked by
// hand: broker 3 falls behind at LEO 1 and leaves the ISR; brokers 1 and 2
// reach LEO 3 and HW 3; an unclean election makes broker 3 leader, and
// broker 2's next fetch finds its epoch 0 ends at 1 on the new leader, so
// it truncates to 1, below its HW 3.
func TestFollowerTruncationLowersHWAndCheckpoint(t *testing.T) {
	c := newTestCluster(t, nil)
	mustProduce(t, c, "a", "v", AcksAll) // 0
	for range 3 {
		mustFetch(t, c, 2)
		mustFetch(t, c, 3)
	}
	wantHW(t, c, 3, 1)
	c.Cut(3)
	mustProduce(t, c, "b", "v", AcksLeader) // 1
	mustProduce(t, c, "c", "v", AcksLeader) // 2
	// Broker 3 leaves the ISR after replica.lag.time.max.ms (checks every 15 s).
	if err := c.Advance(45000); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		mustFetch(t, c, 2)
	}
	wantHW(t, c, 1, 3)
	wantHW(t, c, 2, 3)
	c.Heal(3)
	if err := c.ElectPreferred(3, true); err != nil {
		t.Fatal(err)
	}
	res := mustFetch(t, c, 2)
	if !res.Truncated || res.TruncatedTo != 1 {
		t.Fatalf("broker 2's fetch: truncated %v to %d, want to 1", res.Truncated, res.TruncatedTo)
	}
	wantHW(t, c, 2, 1)
	data, err := os.ReadFile(filepath.Join(c.Broker(2).Root, HWCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "0\n1\nt 0 1\n" {
		t.Errorf("broker 2's %s %q, want HW 1", HWCheckpointFile, data)
	}
}
