package replication

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestDowntimeEndsFaults: with a downtime every fault ends exactly when it
// has lasted that long. The virtual clock moves only at "advance" events,
// so with a downtime of 1 ms a fault's recovery comes right after the
// first advance that follows it: after each advance, the next events are
// the recoveries of every broker then hurt, in broker order, and no
// recovery comes anywhere else. With a downtime longer than any schedule
// (1000 days) no fault ever ends within it.
func TestDowntimeEndsFaults(t *testing.T) {
	dir := campaignDir(t)
	for seed := uint64(1); seed <= 6; seed++ {
		c := CampaignConfig{Mode: Independent, Replicas: 3, Events: testEvents, DowntimeMs: 1}
		out, err := c.randomRun(dir+"/r", seed)
		if err != nil {
			t.Fatal(err)
		}
		hurt := map[int]string{} // broker -> its recovery verb
		var due []string
		faults := 0
		for i, ev := range out.Schedule {
			f := strings.Fields(ev)
			var b int
			if len(f) == 2 {
				fmt.Sscanf(f[1], "broker=%d", &b)
			}
			switch f[0] {
			case "crash", "offline", "cut":
				faults++
				hurt[b] = map[string]string{"crash": "restart", "offline": "back", "cut": "heal"}[f[0]]
			case "restart", "back", "heal":
				if len(due) == 0 || due[0] != ev {
					t.Fatalf("seed %d event %d %q: want %q (the due recoveries)", seed, i+1, ev, due)
				}
				due = due[1:]
				delete(hurt, b)
				continue
			case "advance":
				for id := 1; id <= 3; id++ {
					if verb, ok := hurt[id]; ok {
						due = append(due, fmt.Sprintf("%s broker=%d", verb, id))
					}
				}
				continue
			}
			if len(due) > 0 {
				t.Fatalf("seed %d event %d %q: want the due recoveries %q first", seed, i+1, ev, due)
			}
		}
		if faults == 0 {
			t.Errorf("seed %d: no fault in %d events: the test shows nothing", seed, testEvents)
		}
		c.DowntimeMs = 1000 * 86400000
		out, err = c.randomRun(dir+"/r", seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, ev := range out.Schedule {
			if v := strings.Fields(ev)[0]; slices.Contains([]string{"restart", "back", "heal"}, v) {
				t.Fatalf("seed %d event %d %q: a fault ended before its downtime of 1000 days", seed, i+1, ev)
			}
		}
	}
}

// TestSweepStopsAtSafePoint: a sweep whose CheckDone fails after 3
// schedules (one worker, 2 schedules a cell) keeps cell 0 whole and cell 1
// with its one schedule done, and says it stopped in cell 2 of 4.
func TestSweepStopsAtSafePoint(t *testing.T) {
	calls, done := 0, 0
	stop := errors.New("interrupt")
	axes := []SweepAxis{{Knob: KnobDeleteRetention, Values: []string{"10s", "1m"}, Nums: []int64{10000, 60000}}, {Knob: KnobDowntime, Values: []string{"0", "1m"}, Nums: []int64{0, 60000}}}
	res, err := RunSweep(SweepConfig{Campaign: CampaignConfig{Root: campaignDir(t), Runs: 2, Seed: 3, Events: 20, Workers: 1, CheckDone: func() error {
		calls++
		if done >= 3 {
			return stop
		}
		return nil
	}}, Axes: axes}, func(cell, n int) { done++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Cells) != 2 || res.Cells[0].RunsDone != 2 || res.Cells[1].RunsDone != 1 || res.CellsPlanned != 4 {
		t.Fatalf("cells %d (planned %d): want 2 of 4, the first with 2 schedules, the second with 1", len(res.Cells), res.CellsPlanned)
	}
	if !strings.Contains(res.Stopped, "in cell 2 of 4") || !strings.Contains(res.Stopped, "after 1 of 2 schedules") {
		t.Errorf("stopped %q: want it to say cell 2 of 4, 1 of 2 schedules", res.Stopped)
	}
	if c := res.Cells[1]; c.ClusterLine != "cluster replicas=3 mode=independent delete.retention.ms=10s producer.id.expiration.ms=10m segment.bytes=300" || c.DowntimeMs != 60000 || c.Seed != 3 {
		t.Errorf("cell 1: cluster %q, downtime %d, seed %d", c.ClusterLine, c.DowntimeMs, c.Seed)
	}
}
