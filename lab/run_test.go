package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/results"
)

// smallExperiment is a 1 MiB warm run: a fraction of a second.
func smallExperiment() Experiment {
	e := DefaultExperiment()
	e.Workload.Keys = 20000
	e.Workload.LogBytes = 1 << 20
	e.Workload.SegmentBytes, e.Log.SegmentBytes = 128<<10, 128<<10
	e.Cache = CacheWarm
	return e
}

// TestRunThroughputDefinition: Run's throughput row and benchmark line are
// the one definition, recomputed here from the run's own stats: (map read
// + copy read) / the clean phase's wall time.
func TestRunThroughputDefinition(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	run, err := Run(context.Background(), smallExperiment(), Options{Out: out, Dir: data})
	if err != nil {
		t.Fatal(err)
	}
	if run.SchemaVersion != SchemaVersion || run.Path == "" || run.Verification == nil || !run.Verification.Passed {
		t.Fatalf("run: schema %d path %q verification %+v", run.SchemaVersion, run.Path, run.Verification)
	}
	var bytes int64
	for _, st := range Stats(run) {
		bytes += st.MapBytesRead + st.BytesRead
	}
	wall := run.Phases["clean"].Seconds()
	want := float64(bytes) / wall
	var row string
	for _, r := range run.Rows {
		if r.Name == "throughput" {
			row = r.Value
		}
	}
	if row != fmt.Sprintf("%.1f", want/(1<<20)) {
		t.Errorf("throughput row %q, want %.1f MiB/s", row, want/(1<<20))
	}
	mbps, ok := run.Benchmarks[0].Value(results.UnitMBps)
	if !ok || math.Abs(mbps-want/1e6) > 1e-9*want {
		t.Errorf("benchmark MB/s %v, want %v", mbps, want/1e6)
	}
	if left, _ := os.ReadDir(data); len(left) != 0 {
		t.Errorf("data left: %v", left)
	}
}

// TestRunTimesOpenAndMapApart: Run opens the logs in a phase of its own
// and makes and pre-faults the cleaner's map before the clean phase, each
// with its row, as a broker has them before it cleans.
func TestRunTimesOpenAndMapApart(t *testing.T) {
	run, err := Run(context.Background(), smallExperiment(), Options{Out: t.TempDir(), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := run.Phases["open"]; !ok {
		t.Errorf("no open phase: %v", run.Phases)
	}
	rows := map[string]bool{}
	for _, r := range run.Rows {
		rows[r.Name] = true
	}
	if !rows["map allocate"] || !rows["map pre-fault"] || rows["map fault time"] {
		t.Errorf("rows %v: want map allocate and map pre-fault, no map fault time", rows)
	}
}

// TestRunStoppedBeforeItStarts: a cancelled context stops Run with
// ErrStopped, no record and no data.
func TestRunStoppedBeforeItStarts(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run, err := Run(ctx, smallExperiment(), Options{Out: out, Dir: data})
	if run != nil || !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("run %v, err %v", run, err)
	}
	for _, d := range []string{out, data} {
		if left, _ := filepath.Glob(filepath.Join(d, "*")); len(left) != 0 {
			t.Errorf("%s holds %v", d, left)
		}
	}
}

// TestCheckProfilePaths: --cpuprofile and --trace are refused before the
// run when their directory is missing or a file, or when both name one file
// (spelled differently, through a symlinked directory, or an existing file
// and a hard link to it); distinct files, also through the symlink, or
// none, pass.
func TestCheckProfilePaths(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "plain")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	link, hard := filepath.Join(t.TempDir(), "link"), filepath.Join(dir, "hard")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(file, hard); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cpu, trace, want string // want: "" for no error, else a piece of it
	}{
		{"", "", ""},
		{filepath.Join(dir, "cpu.out"), filepath.Join(dir, "t.out"), ""},
		{filepath.Join(dir, "missing", "cpu.out"), "", "--cpuprofile"},
		{"", filepath.Join(file, "t.out"), "is not a directory"},
		{filepath.Join(dir, "same"), filepath.Join(dir, ".", "same"), "the same file"},
		{filepath.Join(dir, "same"), filepath.Join(link, "same"), "the same file"},
		{file, hard, "the same file"},
		{filepath.Join(dir, "a.out"), filepath.Join(link, "b.out"), ""},
	} {
		err := checkProfilePaths(c.cpu, c.trace)
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("cpu %q trace %q: error %v, want %q", c.cpu, c.trace, err, c.want)
		}
	}
}
