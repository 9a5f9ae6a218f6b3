package lab

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// fakeExternal is an ExternalCleaner that cleans with the engine on its own
// (its own Open of the directory, as another process would), recording
// what Run handed it and when.
type fakeExternal struct {
	calls    []string
	prepared string
	wall     time.Duration
}

func (f *fakeExternal) Name() string { return "fake" }

func (f *fakeExternal) Prepare(ctx context.Context, w io.Writer, dir string, log engine.LogConfig) error {
	f.calls = append(f.calls, "prepare")
	f.prepared = dir
	return nil
}

func (f *fakeExternal) Clean(ctx context.Context, dir string, now time.Time, log engine.LogConfig) (ExternalClean, error) {
	f.calls = append(f.calls, "clean")
	l, err := engine.Open(dir, engine.Options{Config: &log})
	if err != nil {
		return ExternalClean{}, err
	}
	defer l.Close()
	if err := l.LoadProducerState(); err != nil {
		return ExternalClean{}, err
	}
	c, err := engine.NewCleaner(engine.DefaultCleanerConfig(), engine.CleanerOptions{Now: func() time.Time { return now }})
	if err != nil {
		return ExternalClean{}, err
	}
	st, err := c.Clean(l, engine.CleanOptions{Force: true})
	if err != nil {
		return ExternalClean{}, err
	}
	l.WaitClosing()
	f.wall = 1500 * time.Millisecond
	return ExternalClean{Stats: st, Wall: f.wall, Interval: interference.Interval{WallNs: int64(f.wall), CPUSeconds: 0.75},
		Rows:  []results.Row{{Name: "fake row", Value: "42", Unit: "x", Meaning: "the external cleaner's own figure"}},
		Notes: []string{"fake: its own note"}}, nil
}

// TestRunExternalCleaner: with Options.External, Run hands the generated
// partition to the external cleaner (Prepare once, then Clean, with no Log
// of its own open on it), verifies the result against the ground truth
// from a fresh open, and records the external cleaner's wall time as the
// clean phase's, its rows and notes, and the cleaner=NAME name part.
func TestRunExternalCleaner(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	ext := &fakeExternal{}
	e := smallExperiment()
	e.CleanedBy = ext.Name()
	run, err := Run(context.Background(), e, Options{Out: out, Dir: data, External: ext,
		NameParts: []results.KV{{Key: "cleaner", Value: "fake"}}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ext.calls, []string{"prepare", "clean"}) {
		t.Errorf("calls %v, want prepare then clean", ext.calls)
	}
	if filepath.Base(ext.prepared) != "cleanerlab-0" {
		t.Errorf("prepared %q, want the partition directory cleanerlab-0", ext.prepared)
	}
	if run.Verification == nil || !run.Verification.Passed {
		t.Fatalf("verification %+v", run.Verification)
	}
	if run.Phases["clean"] != 1500*time.Millisecond {
		t.Errorf("clean phase %v, want the external cleaner's 1.5 s", run.Phases["clean"])
	}
	if got := run.Interference["clean"].CPUSeconds; got != 0.75 {
		t.Errorf("clean interval CPU %v, want the external cleaner's 0.75 s", got)
	}
	var fakeRow bool
	for _, r := range run.Rows {
		fakeRow = fakeRow || (r.Name == "fake row" && r.Value == "42")
		if r.Name == "map pre-fault" || r.Name == "peak RSS" {
			t.Errorf("row %q is our cleaner's, not the external one's", r.Name)
		}
	}
	if !fakeRow {
		t.Error("the external cleaner's row is missing")
	}
	notes := strings.Join(run.Notes, "\n")
	if !strings.Contains(notes, "cleaned by profile fake") || !strings.Contains(notes, "fake: its own note") {
		t.Errorf("notes:\n%s", notes)
	}
	if !strings.Contains(run.Benchmarks[0].Name, "cleaner=fake") {
		t.Errorf("benchmark name %q lacks cleaner=fake", run.Benchmarks[0].Name)
	}
	if st := Stats(run); len(st) != 1 || st[0].EndSizeBytes <= 0 || st[0].EndSizeBytes >= st[0].StartSizeBytes {
		t.Errorf("stats sizes: %+v", Stats(run))
	}
}

// TestRunExternalCleanerOnePartition: an external cleaner cleans one
// partition; Run refuses more before it generates anything.
func TestRunExternalCleanerOnePartition(t *testing.T) {
	e := smallExperiment()
	e.Workload.Partitions = 2
	e.CleanedBy = "fake"
	data := t.TempDir()
	_, err := Run(context.Background(), e, Options{Out: t.TempDir(), Dir: data, External: &fakeExternal{}})
	if err == nil || !strings.Contains(err.Error(), "--partitions 1") {
		t.Fatalf("err %v, want one naming --partitions 1", err)
	}
	if es, _ := os.ReadDir(data); len(es) != 0 {
		t.Errorf("data directory not empty: %v", es)
	}
}
