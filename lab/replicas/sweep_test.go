package replicas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestSweepRecord: a 2 x 1 sweep (coordinated, 2 schedules of 30 events a
// cell) writes a record whose config has the axes and the seed (enough to
// rerun it), sweep.json with both cells, a heat map of the divergence
// rate and one of the coordination's bytes (coordinated mode polls); and
// every cell's figures are those of a campaign of the same seeds run
// alone with the cell's cluster line, so a cell replays from its seeds.
func TestSweepRecord(t *testing.T) {
	axes := []replication.SweepAxis{{Knob: replication.KnobDeleteRetention, Values: []string{"10s", "10m"}, Nums: []int64{10000, 600000}}, {Knob: replication.KnobSegmentBytes, Values: []string{"500"}, Nums: []int64{500}}}
	base := replication.CampaignConfig{Root: t.TempDir(), Mode: replication.Coordinated, Runs: 2, Seed: 11, Events: 30}
	rec, err := Sweep(SweepOptions{SweepConfig: replication.SweepConfig{Campaign: base, Axes: axes}, Out: t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.RunJSONFile, "sweep.json", "divergence-any.png", "coordination-bytes.png"} {
		if _, err := os.Stat(filepath.Join(rec.Run.Path, f)); err != nil {
			t.Errorf("record lacks %s: %v", f, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(rec.Run.Path, results.RunJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Config struct {
			Kind string                  `json:"kind"`
			Seed uint64                  `json:"seed"`
			Runs int                     `json:"runs"`
			Axes []replication.SweepAxis `json:"axes"`
		} `json:"config"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Config.Kind != "replicas-campaign-sweep" || got.Config.Seed != 11 || got.Config.Runs != 2 || len(got.Config.Axes) != 2 || got.Config.Axes[0].Values[1] != "10m" {
		t.Errorf("run.json config %+v: want the sweep's kind, seed 11, runs 2 and both axes", got.Config)
	}
	cells := rec.Result.Cells
	if len(cells) != 2 || cells[1].ClusterLine != "cluster replicas=3 mode=coordinated delete.retention.ms=10m producer.id.expiration.ms=10m segment.bytes=500" {
		t.Fatalf("cells %d: want 2, the second on delete.retention.ms=10m, segment.bytes=500", len(cells))
	}
	for _, c := range cells {
		if c.Polls == 0 || c.Bytes == 0 {
			t.Errorf("cell %d: polls %d, bytes %d: a coordinated campaign polls", c.Index, c.Polls, c.Bytes)
		}
		alone, err := replication.RunCampaign(replication.CampaignConfig{Root: t.TempDir(), Mode: replication.Coordinated, Runs: 2, Seed: 11, Events: 30, ClusterLine: c.ClusterLine}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if alone.Coordination != c.Coordination || alone.Diverged != c.Diverged || alone.TombstoneByteSeconds != c.TombstoneByteSeconds {
			t.Errorf("cell %d: %+v, %d diverged; alone %+v, %d diverged: a cell must replay from its seeds", c.Index, c.Coordination, c.Diverged, alone.Coordination, alone.Diverged)
		}
	}
	var out bytes.Buffer
	if err := WriteSweep(&out, rec, "json"); err != nil {
		t.Fatal(err)
	}
	var js struct {
		Cells []struct {
			Rate  map[string]float64 `json:"divergence_rate"`
			Polls int                `json:"coordination_polls"`
		} `json:"cells"`
		Record string `json:"record"`
	}
	if err := json.Unmarshal(out.Bytes(), &js); err != nil {
		t.Fatalf("--format json: %v\n%s", err, out.String())
	}
	if len(js.Cells) != 2 || js.Cells[0].Polls != cells[0].Polls || js.Record != rec.Run.Path || strings.Contains(out.String(), "runs_detail") {
		t.Errorf("--format json: %d cells, polls %d (want %d), record %q; per-run detail left out:\n%s", len(js.Cells), js.Cells[0].Polls, cells[0].Polls, js.Record, out.String())
	}
}
