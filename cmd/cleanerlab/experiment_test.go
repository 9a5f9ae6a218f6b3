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

// TestRunExperimentBadValue: a value of the file that parses but is out of
// its range (found by the experiment's validation, not by the parser) is
// an error naming the file, line and column of that value; one that is
// only wrong together with others names the file; a flag that fixes the
// file's value wins.
func TestRunExperimentBadValue(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		// Keys: -5 is on line 3, its value at column 9.
		{"description: x\nworkload:\n  Keys: -5\n", "bad.yaml:3:9: workloads: keys -5 out of range [1, 4294967295]"},
		// DirtyRatio's value 1.5 at line 2, column 15.
		{"workload:\n  DirtyRatio: 1.5\n", "bad.yaml:2:15: workloads: dirty ratio 1.5 out of range (0, 1)"},
		// Txn.Ratio inside a flow mapping: line 2, column 16.
		{"workload:\n  Txn: {Ratio: 2}\n", "bad.yaml:2:16: workloads: transaction ratio 2 out of range [0, 1]"},
		// repetitions at line 1, column 14.
		{"repetitions: -1\n", "bad.yaml:1:14: repetitions -1: want at least 1"},
	} {
		p := writeYAML(t, "bad.yaml", c.text)
		_, err := cli(t, "run", "--progress", "never", "--out", t.TempDir(), "--experiment", p)
		if err == nil || !strings.HasSuffix(err.Error(), c.want) || !strings.HasPrefix(err.Error(), p+":") {
			t.Errorf("%q: got %v, want %s:...%s", c.text, err, p, c.want)
		}
	}
	// 3e6 keys are enough for the default 256 MiB log's compacted base
	// (at most once each); a 2 GiB log needs more keys than that. Each
	// alone fails differently or not at all (the error names the key
	// count), so no single value is to blame: the file is named.
	p := writeYAML(t, "combo.yaml", "workload:\n  Keys: 3e6\n  LogBytes: 2GiB\n")
	if _, err := cli(t, "run", "--progress", "never", "--out", t.TempDir(), "--experiment", p); err == nil || !strings.HasPrefix(err.Error(), p+": ") {
		t.Errorf("combination: got %v, want it to start with %s: ", err, p)
	}
}

// TestRunBlamesWhereGiven: run resolves its experiment through
// lab.ResolveExperiment, so a value that validation refuses is named where
// it was given: --keys over the file's good line, the file's line:col, or
// --server-config's line (server.properties < file < flags).
func TestRunBlamesWhereGiven(t *testing.T) {
	file := writeYAML(t, "f.yaml", "workload:\n  Keys: 1000\n  LogBytes: 1MiB\n")
	server := writeYAML(t, "server.properties", "# broker\nlog.cleaner.threads=0\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--experiment", file, "--keys", "-5"}, "--keys: "},
		{[]string{"--experiment", writeYAML(t, "g.yaml", "workload:\n  Keys: 0\n")}, "g.yaml:2:9: "},
		{[]string{"--server-config", server}, server + ":2: "},
		{[]string{"--server-config", server, "--threads", "0"}, "--threads: "},
	} {
		_, err := cli(t, append([]string{"run", "--progress", "never", "--out", t.TempDir()}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Index(err.Error(), c.want) > len(file) {
			t.Errorf("run %v: %v, want it to begin with %q", c.args, err, c.want)
		}
	}
}

// TestRunServerConfig: run --server-config takes the broker's values of
// the experiment's settings, under the experiment file's and the flags'.
func TestRunServerConfig(t *testing.T) {
	server := writeYAML(t, "server.properties", "log.cleaner.dedupe.buffer.size=1048576\nlog.cleaner.threads=2\nlog.cleaner.io.buffer.size=65536\n")
	file := writeYAML(t, "f.yaml", "cleaner:\n  Threads: 3\n")
	o := lab.RunCommandOptions{ServerConfig: server, File: file}
	e, err := o.Resolve()
	if err != nil {
		t.Fatal(err)
	}
	if e.Cleaner.DedupeBufferBytes != 1<<20 || e.Cleaner.Threads != 3 || e.Cleaner.IOBufferBytes != 64<<10 {
		t.Errorf("resolved cleaner %+v, want dedupe 1 MiB and I/O buffer 64 KiB from server.properties, 3 threads from the file", e.Cleaner)
	}
}
