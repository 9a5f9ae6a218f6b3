package replicas

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestCampaignRecordSaysStopped: a campaign cancelled after its first
// schedule (one worker) writes a record whose run.json says it stopped,
// with runs_done 1 of the 20 asked, and report.md says INTERRUPTED.
func TestCampaignRecordSaysStopped(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	rec, err := Campaign(CampaignOptions{CampaignConfig: replication.CampaignConfig{Root: t.TempDir(), Mode: replication.Coordinated, Runs: 20, Seed: 7, Events: 30, Workers: 1, CheckDone: ctx.Err}, Out: t.TempDir()},
		func(done int) { cancel() })
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(rec.Run.Path, results.RunJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Stopped string `json:"stopped"`
		Stats   struct {
			Runs     int    `json:"runs"`
			RunsDone int    `json:"runs_done"`
			Stopped  string `json:"stopped"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Stats.Runs != 20 || got.Stats.RunsDone != 1 || !strings.Contains(got.Stopped, "after 1 of 20") {
		t.Errorf("run.json: stopped %q, runs %d, runs_done %d; want stopped after 1 of 20", got.Stopped, got.Stats.Runs, got.Stats.RunsDone)
	}
	md, _ := os.ReadFile(filepath.Join(rec.Run.Path, results.ReportMDFile))
	if !strings.Contains(string(md), "INTERRUPTED") {
		t.Errorf("report.md does not say INTERRUPTED:\n%s", md)
	}
}

// TestCostRecordSaysStopped: a cost sweep whose CheckDone fails during its
// third point records the two points done and says it stopped.
func TestCostRecordSaysStopped(t *testing.T) {
	points := 0
	rec, err := Cost(CostOptions{Root: t.TempDir(), DowntimesMs: []int64{0, 120000}, DeleteRetentionMs: 60000, Out: t.TempDir(),
		runCost: func(cc replication.CostConfig) (*replication.CostResult, error) {
			points++
			if points == 3 {
				return nil, replication.ErrStopped
			}
			return &replication.CostResult{Mode: cc.Mode.String(), DowntimeMs: cc.DowntimeMs}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Points) != 2 || !strings.Contains(rec.Stopped, "after 2 of 4 points") || rec.Run.Stopped != rec.Stopped {
		t.Fatalf("points %d, stopped %q, record's %q; want 2 and stopped after 2 of 4", len(rec.Points), rec.Stopped, rec.Run.Stopped)
	}
	if points != 3 {
		t.Errorf("%d points started, want 3: the sweep went on after the stop", points)
	}
}
