package lab

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
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
