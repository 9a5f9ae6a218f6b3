package lab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/results"
)

// TestSweepRefusesWhenNoPointIsValid: a sweep none of whose points is a
// valid experiment (10 and 20 keys cannot fill 1 MiB of clean base at a
// dirty ratio of 0.5: each key is written once there) is refused before
// anything runs or is made, the error naming every point and why.
func TestSweepRefusesWhenNoPointIsValid(t *testing.T) {
	plan, err := PlanSweep(smallBase(), nil,
		[]Axis{{Name: "workload.Keys", Values: []string{"10", "20"}, Where: "--keys"}}, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	fake := func(context.Context, Experiment, Options) (*results.Run, error) { ran++; return &results.Run{}, nil }
	out := filepath.Join(t.TempDir(), "runs")
	_, _, err = Sweep(context.Background(), plan, SweepOptions{Out: out, run: fake})
	if err == nil {
		t.Fatal("a sweep of no valid point ran")
	}
	for _, want := range []string{"no point of the sweep is a valid experiment", "point workload.Keys=10: ", "point workload.Keys=20: ", "dirty ratio 0.5 is unreachable with 10 keys", "with 20 keys"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if ran != 0 {
		t.Errorf("%d runs ran", ran)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("the refused sweep made %s", out)
	}
}

// TestSweepNamesInvalidPointsFirst: in a sweep of valid and invalid points,
// the valid ones run; each invalid one is named once with its reason before
// the first run (not once per repetition as it comes up), and its runs are
// recorded as failed without running.
func TestSweepNamesInvalidPointsFirst(t *testing.T) {
	plan, err := PlanSweep(smallBase(), nil,
		[]Axis{{Name: "workload.Keys", Values: []string{"10", "20000"}, Where: "--keys"}}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ran := 0
	fake := func(ctx context.Context, e Experiment, o Options) (*results.Run, error) {
		ran++
		if ran == 1 {
			log.WriteString("first run\n")
		}
		return &results.Run{ID: "r" + o.IDSuffix}, nil
	}
	sw, _, err := Sweep(context.Background(), plan, SweepOptions{Out: filepath.Join(t.TempDir(), "runs"), Log: &log, run: fake})
	if err != nil {
		t.Fatal(err)
	}
	if ran != 3 {
		t.Errorf("%d runs ran, want the valid point's 3", ran)
	}
	if failed, _ := sw.Failures(); failed != 3 {
		t.Errorf("%d failed runs recorded, want the invalid point's 3", failed)
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "sweep: point workload.Keys=10: ") || !strings.Contains(lines[0], "unreachable with 10 keys") ||
		!strings.Contains(lines[0], "its 3 runs are recorded as failed, not run") || lines[1] != "first run" {
		t.Errorf("log:\n%s\nwant the invalid point named once, with its reason, before the first run", log.String())
	}
}

// TestSweepInvalidPointOneRun: an invalid point of a sweep of one
// repetition is named with "its 1 run is recorded as failed" (it once said
// "its 1 runs are").
func TestSweepInvalidPointOneRun(t *testing.T) {
	plan, err := PlanSweep(smallBase(), nil,
		[]Axis{{Name: "workload.Keys", Values: []string{"10", "20000"}, Where: "--keys"}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	fake := func(ctx context.Context, e Experiment, o Options) (*results.Run, error) {
		return &results.Run{ID: "r" + o.IDSuffix}, nil
	}
	if _, _, err := Sweep(context.Background(), plan, SweepOptions{Out: filepath.Join(t.TempDir(), "runs"), Log: &log, run: fake}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "(its 1 run is recorded as failed, not run)") {
		t.Errorf("log:\n%s\nwant the invalid point's one run named in the singular", log.String())
	}
}

// smallBase is the default experiment with 1 MiB of log at a dirty ratio
// of 0.5.
func smallBase() Experiment {
	e := DefaultExperiment()
	e.Workload.LogBytes, e.Workload.DirtyRatio = 1<<20, 0.5
	return e
}
