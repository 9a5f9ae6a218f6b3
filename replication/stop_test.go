package replication

import (
	"context"
	"errors"
	"os"
	"testing"
)

// TestCampaignStopsAtNextSafePoint: a campaign whose CheckDone reports a
// cancelled context after its second schedule (one worker, so the order is
// fixed) starts no other schedule, returns the two outcomes with Stopped
// saying how far it got, and leaves no run directory behind. A context
// cancelled in the middle of a schedule stops it at its next event; the
// partial schedule is not counted.
func TestCampaignStopsAtNextSafePoint(t *testing.T) {
	root := campaignDir(t)
	ctx, cancel := context.WithCancel(context.Background())
	res, err := RunCampaign(CampaignConfig{Root: root, Mode: Independent, Runs: 50, Seed: 1, Events: 20, Workers: 1, CheckDone: ctx.Err},
		func(done int) {
			if done == 2 {
				cancel()
			}
		})
	if err != nil {
		t.Fatalf("campaign: %v", err)
	}
	if res.RunsDone != 2 || len(res.Outcomes) != 2 || res.Stopped == "" {
		t.Fatalf("runs done %d, outcomes %d, stopped %q; want 2, 2 and a reason", res.RunsDone, len(res.Outcomes), res.Stopped)
	}
	if res.Runs != 50 {
		t.Errorf("runs asked %d, want 50 (the record says how many were asked)", res.Runs)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("%d entries left in the campaign's root, want none", len(ents))
	}

	// Cancelled mid-schedule: the check between events stops it.
	calls := 0
	stopAt := errors.New("stop")
	res, err = RunCampaign(CampaignConfig{Root: root, Mode: Independent, Runs: 3, Seed: 1, Events: 20, Workers: 1, CheckDone: func() error {
		calls++
		if calls > 5 { // before run 0, then events 1..4 of run 0
			return stopAt
		}
		return nil
	}}, nil)
	if err != nil {
		t.Fatalf("campaign: %v", err)
	}
	if res.RunsDone != 0 || len(res.Outcomes) != 0 || res.Stopped == "" {
		t.Fatalf("runs done %d, outcomes %d, stopped %q; want 0, 0 and a reason", res.RunsDone, len(res.Outcomes), res.Stopped)
	}
	if calls != 6 {
		t.Errorf("CheckDone called %d times, want 6: the schedule went on after the stop", calls)
	}
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("%d entries left in the campaign's root, want none", len(ents))
	}
}

// TestCostStopsAtNextTick: a cost run whose CheckDone fails stops at the
// next tick with an error wrapping ErrStopped and removes its cluster.
func TestCostStopsAtNextTick(t *testing.T) {
	root := campaignDir(t) + "/cost"
	ticks := 0
	_, err := RunCost(CostConfig{Root: root, Mode: Coordinated, DowntimeMs: 600000, CheckDone: func() error {
		ticks++
		if ticks > 3 {
			return context.Canceled
		}
		return nil
	}})
	if !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("cost: %v, want ErrStopped wrapping context.Canceled", err)
	}
	if ticks != 4 {
		t.Errorf("CheckDone called %d times, want 4", ticks)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("cost left %s: %v", root, err)
	}
}
