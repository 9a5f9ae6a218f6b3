package replication

import "testing"

// TestCostGrowsWithDowntime: with coordination, a replica down for longer
// than delete.retention.ms holds back tombstone and marker removal, so the
// bytes held grow with the downtime; independent cleaning does not wait
// (and diverges instead). Orders, not figures: the figures are measured.
func TestCostGrowsWithDowntime(t *testing.T) {
	run := func(mode Mode, down int64) *CostResult {
		res, err := RunCost(CostConfig{Root: t.TempDir() + "/c", Mode: mode, DowntimeMs: down, DeleteRetentionMs: 60000, WarmupMs: 120000, AfterMs: 300000, TickMs: 10000})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	c0, c1 := run(Coordinated, 0), run(Coordinated, 1200000)
	i1 := run(Independent, 1200000)
	t.Logf("coordinated 0: %+v", c0)
	t.Logf("coordinated 20m: %+v", c1)
	t.Logf("independent 20m: %+v", i1)
	if !(c1.TombstoneByteSeconds+c1.MarkerByteSeconds > c0.TombstoneByteSeconds+c0.MarkerByteSeconds) {
		t.Errorf("coordinated: bytes held with 20m downtime not above none")
	}
	if !(c1.TombstoneByteSeconds+c1.MarkerByteSeconds > i1.TombstoneByteSeconds+i1.MarkerByteSeconds) {
		t.Errorf("20m downtime: coordinated does not hold more than independent")
	}
	if len(c1.Findings) != 0 {
		t.Errorf("coordinated diverged: %v", c1.Findings)
	}
}
