package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
)

// writeYAML writes text into a temp file named name and returns its path.
func writeYAML(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRunExperiment: run --experiment takes the file's values, flags win
// over them, and a file that sweeps is sent to sweep.
func TestRunExperiment(t *testing.T) {
	p := writeYAML(t, "run.yaml", `workload:
  Keys: 2e4
  LogBytes: 1MiB
  Distribution: hotcold
  Txn:
    Ratio: 0.3
log:
  SegmentBytes: 256KiB
cleaner:
  Hasher: sha1
cache: warm
`)
	out := t.TempDir()
	stdout, err := cli(t, "run", "--progress", "never", "--out", out, "--experiment", p, "--hasher", "xxh3-64")
	if err != nil {
		t.Fatalf("run --experiment: %v\n%s", err, stdout)
	}
	runs, _ := os.ReadDir(out)
	b, err := os.ReadFile(filepath.Join(out, runs[0].Name(), "run.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Config lab.Experiment `json:"config"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	c := rec.Config
	if c.Workload.Keys != 20000 || c.Workload.LogBytes != 1<<20 || c.Workload.Distribution != "hotcold" || c.Workload.Txn.Ratio != 0.3 ||
		c.Log.SegmentBytes != 256<<10 || c.Workload.SegmentBytes != 256<<10 || c.Cleaner.Hasher != "xxh3-64" || c.Cache != "warm" {
		t.Errorf("run.json config %+v", c)
	}

	sweep := writeYAML(t, "sweep.yaml", "sweep:\n  workload.Keys: [2e4, 3e4]\n")
	if _, err := cli(t, "run", "--experiment", sweep); err == nil || !strings.Contains(err.Error(), "sweeps workload.Keys over 2 values: run it with cleanerlab sweep --experiment") {
		t.Errorf("run of a sweep file: %v", err)
	}
}

// TestExampleExperiments: every example under scripts/experiments/ loads
// and resolves into runs (nothing is run).
func TestExampleExperiments(t *testing.T) {
	files, _ := filepath.Glob("../../scripts/experiments/*.yaml")
	if len(files) < 4 {
		t.Fatalf("found %d example experiments", len(files))
	}
	for _, f := range files {
		stdout, err := cli(t, "sweep", "--dry-run", "--experiment", f)
		if err != nil || !strings.Contains(stdout, " runs\n") {
			t.Errorf("%s: %v\n%s", f, err, stdout)
		}
	}
}
