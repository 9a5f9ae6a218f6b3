package lab

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// TestSweepRetryBusy drives the verdicts: the first attempt of every run
// is busy, the second unusable, the third quiet. With --retry-busy 1 each
// scheduled run is tried twice (busy, then unusable, which is kept,
// labelled); with --retry-busy 2 three times and the quiet one is kept.
// Superseded runs stay in the record with their figures, outside the
// summaries and benchmark lines.
func TestSweepRetryBusy(t *testing.T) {
	for _, tc := range []struct {
		retry          int
		runsPerRep     int
		kept           interference.Verdict
		keptNsPerOp    float64
		supersededRuns int
	}{
		{retry: 0, runsPerRep: 1, kept: interference.Busy, keptNsPerOp: 100},
		{retry: 1, runsPerRep: 2, kept: interference.Unusable, keptNsPerOp: 200, supersededRuns: 1},
		{retry: 2, runsPerRep: 3, kept: interference.Quiet, keptNsPerOp: 300, supersededRuns: 2},
	} {
		plan, err := PlanSweep(DefaultExperiment(), []Param{{Name: "workload.Keys", Value: "20000", Where: "test"}},
			[]Axis{{Name: "cleaner.Hasher", Values: []string{"md5", "xxh3-128"}, Where: "test"}}, 2, 1)
		if err != nil {
			t.Fatal(err)
		}
		attempts := map[string]int{}
		verdicts := []interference.Verdict{interference.Busy, interference.Unusable, interference.Quiet}
		fake := func(ctx context.Context, e Experiment, o Options) (*results.Run, error) {
			key := string(e.Cleaner.Hasher) + o.IDSuffix
			n := attempts[key]
			attempts[key]++
			return &results.Run{ID: key, Verdict: verdicts[n],
				Interference: map[string]interference.Interval{"clean": {Verdict: verdicts[n]}},
				Benchmarks:   []results.Benchmark{{Name: "BenchmarkClean", Iterations: 1, Metrics: []results.Metric{{Value: float64(100 * (n + 1)), Unit: results.UnitNsPerOp}}}},
			}, nil
		}
		sw, _, err := Sweep(context.Background(), plan, SweepOptions{Out: filepath.Join(t.TempDir(), "runs"), RetryBusy: tc.retry, run: fake})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range sw.Points {
			if len(p.Runs) != 2*tc.runsPerRep {
				t.Fatalf("retry %d: point %s has %d runs, want %d", tc.retry, p.Benchmark, len(p.Runs), 2*tc.runsPerRep)
			}
			superseded := 0
			for _, r := range p.Runs {
				if r.Superseded {
					superseded++
					if r.Verdict == interference.Quiet {
						t.Errorf("retry %d: a quiet run was superseded", tc.retry)
					}
				} else if r.Verdict != tc.kept {
					t.Errorf("retry %d: kept a %s run, want %s", tc.retry, r.Verdict, tc.kept)
				}
			}
			if superseded != 2*tc.supersededRuns {
				t.Errorf("retry %d: %d superseded, want %d", tc.retry, superseded, 2*tc.supersededRuns)
			}
			sum, ok := p.Summary(results.UnitNsPerOp)
			if !ok || sum.N != 2 || sum.Median != tc.keptNsPerOp {
				t.Errorf("retry %d: summary %+v, want n=2 median %g", tc.retry, sum, tc.keptNsPerOp)
			}
		}
		if n := len(sw.Benchmarks()); n != 4 {
			t.Errorf("retry %d: %d benchmark lines, want 4 (2 points x 2 repetitions)", tc.retry, n)
		}
		counted, superseded := sw.Verdicts()
		if counted[tc.kept] != 4 || superseded != 4*tc.supersededRuns {
			t.Errorf("retry %d: verdicts %v, %d superseded", tc.retry, counted, superseded)
		}
	}
}
