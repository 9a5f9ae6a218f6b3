package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
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

func TestLoadExperiment(t *testing.T) {
	p := writeYAML(t, "e.yaml", `description: test
count: 4
shuffle-seed: 9
workload:
  keys: 1e5
  value-size: uniform:10-20
log:
  segment.bytes: 16MiB
cleaner:
  hasher: xxh3-128
lab:
  cache: warm
sweep:
  dirty-ratio: [0.2, 0.5]
  offset-map: dense16
`)
	e, err := loadExperiment(p)
	if err != nil {
		t.Fatal(err)
	}
	if e.Count != 4 || e.ShuffleSeed == nil || *e.ShuffleSeed != 9 {
		t.Errorf("count %d seed %v", e.Count, e.ShuffleSeed)
	}
	var base []string
	for _, v := range e.Base {
		base = append(base, v.Flag+"="+v.Value)
	}
	if !slices.Equal(base, []string{"keys=1e5", "value-size=uniform:10-20", "segment.bytes=16MiB", "hasher=xxh3-128", "cache=warm"}) {
		t.Errorf("base %v", base)
	}
	if len(e.Axes) != 2 || e.Axes[0].Flag != "dirty-ratio" || !slices.Equal(e.Axes[0].Values, []string{"0.2", "0.5"}) ||
		e.Axes[1].Flag != "offset-map" || !slices.Equal(e.Axes[1].Values, []string{"dense16"}) {
		t.Errorf("axes %+v", e.Axes)
	}
	if e.Base[0].Where != p+":5:9" {
		t.Errorf("keys given at %s, want %s:5:9", e.Base[0].Where, p)
	}
}

// TestExperimentErrors: each mistake names the file, the line and the
// column, and says what is wrong.
func TestExperimentErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       string // after "<file>:"
	}{
		{"unknown top key", "workload:\n  keys: 1\nsweeps:\n  keys: [1]\n", `3:1: unknown key "sweeps" (valid: description, count, shuffle-seed, workload, log, cleaner, lab, sweep); did you mean "sweep"?`},
		{"typo", "workload:\n  kyes: 1000\n", `2:3: workload: unknown key "kyes"; did you mean "keys"?`},
		{"wrong section", "workload:\n  hasher: md5\n", `2:3: workload: "hasher" belongs under cleaner:`},
		{"bad value", "log:\n  segment.bytes: 16MiB\nworkload:\n  keys: many\n", `4:9: keys: "many" is not a valid value: "many" is not a whole number`},
		{"bad byte size", "workload:\n  log-bytes: 12XB\n", `2:14: log-bytes: "12XB" is not a valid value`},
		{"bad size dist", "workload:\n  value-size: pareto:1\n", `2:15: value-size: "pareto:1" is not a valid value: size distribution "pareto:1": unknown distribution`},
		{"list outside sweep", "cleaner:\n  hasher: [md5, sha1]\n", `2:11: hasher: want one value (lists go under sweep:)`},
		{"bad sweep value", "sweep:\n  hasher: [md5, nope]\n", `2:17: hasher: "nope" is not a valid value`},
		{"unknown sweep key", "sweep:\n  hashr: [md5]\n", `2:3: sweep: unknown key "hashr"; did you mean "hasher"?`},
		{"count", "count: 0\n", `1:8: count "0": want a whole number of repetitions, at least 1`},
		{"forbidden", "lab:\n  out: /tmp/x\n", `2:3: lab: "out" is given on the command line, not in an experiment file`},
		{"twice", "count: 1\ncount: 2\n", `2:1: "count" given twice`},
		{"not a mapping", "- a\n- b\n", `1:1: an experiment file is a mapping of sections`},
		{"bad float", "workload:\n  dirty-ratio: half\n", `2:16: dirty-ratio: "half" is not a valid value`},
	} {
		p := writeYAML(t, "bad.yaml", c.text)
		_, err := loadExperiment(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+":"+c.want) {
			t.Errorf("%s: %v\nwant %s:%s", c.name, err, p, c.want)
		}
	}
	// Set and swept: both places named.
	p := writeYAML(t, "both.yaml", "workload:\n  keys: 1e5\nsweep:\n  keys: [1e4, 1e5]\n")
	if _, err := loadExperiment(p); err == nil || !strings.Contains(err.Error(), "keys is set at "+p+":2:9 and swept at "+p+":4:3") {
		t.Errorf("set and swept: %v", err)
	}
	// A YAML syntax error names the line.
	p = writeYAML(t, "syntax.yaml", "workload:\n  keys: [1\n")
	if _, err := loadExperiment(p); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "line") {
		t.Errorf("syntax error: %v", err)
	}
}

// TestRunExperiment: run --experiment takes the file's values, flags win
// over them, and a file that sweeps is sent to sweep.
func TestRunExperiment(t *testing.T) {
	p := writeYAML(t, "run.yaml", `workload:
  keys: 2e4
  log-bytes: 1MiB
  distribution: hotcold
  txn-ratio: 0.3
log:
  segment.bytes: 256KiB
cleaner:
  hasher: sha1
lab:
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

	sweep := writeYAML(t, "sweep.yaml", "sweep:\n  keys: [2e4, 3e4]\n")
	if _, err := cli(t, "run", "--experiment", sweep); err == nil || !strings.Contains(err.Error(), "sweeps keys over 2 values: run it with cleanerlab sweep --experiment") {
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
