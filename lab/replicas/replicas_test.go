package replicas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestRunFilesCountsMismatches: a file with its true outputs has none; one
// changed expected line is one mismatch, named by file and line.
func TestRunFilesCountsMismatches(t *testing.T) {
	src, err := os.ReadFile("../../replication/testdata/s4a_truncate_to_hw_loses_acked")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	os.WriteFile(good, src, 0o644)
	var out bytes.Buffer
	if n, err := RunFiles(&out, dir, []string{good}, engine.CleanerConfig{}); err != nil || n != 0 {
		t.Fatalf("good file: %d mismatches, %v\n%s", n, err, out.String())
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte(strings.Replace(string(src), "offset 0, waits for the HW (leader HW 0)", "offset 7, waits for the HW (leader HW 0)", 1)), 0o644)
	out.Reset()
	n, err := RunFiles(&out, dir, []string{bad}, engine.CleanerConfig{})
	if err != nil || n != 1 {
		t.Fatalf("bad file: %d mismatches, %v", n, err)
	}
	if !strings.Contains(out.String(), bad+":18: produce key=K value=v1: output differs") {
		t.Fatalf("mismatch not named by file:line:\n%s", out.String())
	}
}

// TestCampaignRecord: the record holds the config, the result with mode,
// runs, diverged and by_kind, the report and the plot.
func TestCampaignRecord(t *testing.T) {
	out := t.TempDir()
	rec, err := Campaign(CampaignOptions{CampaignConfig: replication.CampaignConfig{Root: t.TempDir(), Mode: replication.Coordinated, Runs: 3, Seed: 7, Events: 40}, Out: out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{results.RunJSONFile, results.ReportMDFile, "divergences-by-kind.png", "divergences-by-kind.svg"} {
		if _, err := os.Stat(filepath.Join(rec.Run.Path, f)); err != nil {
			t.Fatalf("record lacks %s: %v", f, err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(rec.Run.Path, results.RunJSONFile))
	var got struct {
		Stats struct {
			Mode     string         `json:"mode"`
			Runs     int            `json:"runs"`
			Diverged int            `json:"diverged"`
			ByKind   map[string]int `json:"by_kind"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if got.Stats.Mode != "coordinated" || got.Stats.Runs != 3 || got.Stats.ByKind == nil {
		t.Fatalf("run.json stats: %+v", got.Stats)
	}
}

// TestCostRecord: two downtimes, both modes, four points and the plot.
func TestCostRecord(t *testing.T) {
	out := t.TempDir()
	rec, err := Cost(CostOptions{Root: t.TempDir(), DowntimesMs: []int64{0, 120000}, DeleteRetentionMs: 60000, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Points) != 4 || rec.Points[0].Mode != "independent" || rec.Points[3].DowntimeMs != 120000 {
		t.Fatalf("points: %+v", rec.Points)
	}
	if _, err := os.Stat(filepath.Join(rec.Run.Path, "cost-vs-downtime.png")); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteCostTable(&b, rec.Points)
	if lines := strings.Count(b.String(), "\n"); lines != 5 {
		t.Fatalf("table has %d lines:\n%s", lines, b.String())
	}
}

// TestRunFilesWithBestProfile: every scenario file of the replication
// package's testdata (the divergence and HW cases) gives its expected
// outputs with the best profile's cleaner on every broker too (its maps
// hold these small logs in one pass, so it keeps what Kafka's keeps), and
// the profile's settings are really those of the brokers' cleaners; an
// unknown profile is an error naming the valid ones.
func TestRunFilesWithBestProfile(t *testing.T) {
	best, err := ProfileCleaner("best")
	if err != nil {
		t.Fatal(err)
	}
	if best.OffsetMap != "bucket16" || !best.ParallelMapBuild || best.DedupeBufferBytes != replication.DefaultCleanerConfig().DedupeBufferBytes {
		t.Fatalf("best cleaner %+v: want bucket16, the parallel map build and the brokers' dedupe buffer", best)
	}
	files, err := filepath.Glob("../../replication/testdata/*")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		if filepath.Base(f) != "bad_input" {
			paths = append(paths, f)
		}
	}
	if len(paths) < 5 {
		t.Fatalf("%d scenario files found, want the replication package's", len(paths))
	}
	var out bytes.Buffer
	if n, err := RunFiles(&out, t.TempDir(), paths, best); err != nil || n != 0 {
		t.Fatalf("best profile: %d mismatches, %v\n%s", n, err, out.String())
	}
	if _, err := ProfileCleaner("fastest"); err == nil || !strings.Contains(err.Error(), "kafka, best") {
		t.Errorf("unknown profile: %v", err)
	}
}
