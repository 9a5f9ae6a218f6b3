package sizing

import (
	"context"
	"encoding/json"
	"math"
	"testing"
)

// TestSpread: the fastest n samples' (fastest - slowest) / fastest.
// 100, 95, 90, 50 with n = 3: (100 - 90) / 100 = 0.1; n = 4: 0.5; a single
// sample: 0; none: 0.
func TestSpread(t *testing.T) {
	s := []float64{90, 50, 100, 95}
	for _, c := range []struct {
		n    int
		want float64
	}{{3, 0.1}, {4, 0.5}, {1, 0}, {0, 0.5}} {
		if got := Spread(s, c.n); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Spread(%v, %d) = %v, want %v", s, c.n, got, c.want)
		}
	}
	if Spread(nil, 3) != 0 {
		t.Error("no samples: want 0")
	}
}

// TestThreadChoice: speedups 1, 1.4, 1.7, 1.8. A load of 1.5 needs 3
// (1.7 > 1.5); 1.8 needs more than 4 gives: falls behind at 4, the
// largest; 0.5 needs 1. A flat curve past 2 (1, 1.4, 1.4) and a load of 2:
// 2 threads (the fewest of the largest speedup), not kept up.
func TestThreadChoice(t *testing.T) {
	c := &ThreadCurve{Points: []ThreadPoint{{1, 100, nil, 0, nil, nil}, {2, 140, nil, 0, nil, nil}, {3, 170, nil, 0, nil, nil}, {4, 180, nil, 0, nil, nil}}}
	for _, x := range []struct {
		load float64
		n    int
		ok   bool
	}{{1.5, 3, true}, {1.8, 4, false}, {0.5, 1, true}} {
		if n, ok := threadChoice(x.load, 4, c.Speedup); n != x.n || ok != x.ok {
			t.Errorf("load %v: %d %v, want %d %v", x.load, n, ok, x.n, x.ok)
		}
	}
	flat := &ThreadCurve{Points: []ThreadPoint{{Threads: 1, BytesPerSecond: 10}, {Threads: 2, BytesPerSecond: 14}, {Threads: 3, BytesPerSecond: 14}}}
	if n, ok := threadChoice(2, 3, flat.Speedup); n != 2 || ok {
		t.Errorf("flat: %d %v, want 2 false", n, ok)
	}
	if c.Speedup(9) != 1.8 || c.MaxThreads() != 4 || (*ThreadCurve)(nil).Speedup(1) != 0 {
		t.Errorf("speedup past the curve %v, max %d", c.Speedup(9), c.MaxThreads())
	}
}

// TestMergeFastestBusy: a busy run's faster rate is not kept; when every
// run is busy the fastest busy one is, and the verdict says busy.
func TestMergeFastestBusy(t *testing.T) {
	a := &Calibration{MapBuildSamples: []float64{300}, CopySamples: []float64{30}, RunVerdicts: []string{"busy"}}
	b := &Calibration{MapBuildSamples: []float64{200}, CopySamples: []float64{20}, RunVerdicts: []string{"quiet"}}
	m := mergeFastest(a, b)
	if m.MapBuildBytesPerSecond != 200 || m.CopyBytesPerSecond != 20 || m.UsableRuns != 1 || m.Verdict != "quiet" {
		t.Errorf("merged %+v", m)
	}
	b.RunVerdicts = []string{"unusable"}
	m = mergeFastest(a, b)
	if m.MapBuildBytesPerSecond != 300 || m.Verdict != "busy" || m.UsableRuns != 0 {
		t.Errorf("all busy: %+v", m)
	}
}

// TestCalibrateBusyHook: the hook judges the first run busy: it is
// recorded, left out of the kept rates, and the runs go on until
// CalibrateOptions.Runs usable ones (2 here, spread bound 100%, so no
// timing decides when it stops).
func TestCalibrateBusyHook(t *testing.T) {
	n := 0
	o := CalibrateOptions{Out: t.TempDir(), Dir: t.TempDir(), LogBytes: 2 << 20, Runs: 2, MaxRuns: 4, SpreadBound: 1,
		Busy: func() func() (string, json.RawMessage) {
			n++
			k := n
			return func() (string, json.RawMessage) {
				if k == 1 {
					return "busy", json.RawMessage(`{"run":1}`)
				}
				return "quiet", json.RawMessage(`{}`)
			}
		}}
	c, err := Calibrate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs != 3 || c.UsableRuns != 2 || len(c.RunVerdicts) != 3 || c.RunVerdicts[0] != "busy" || c.Verdict != "quiet" || !c.SpreadWithinBound {
		t.Fatalf("runs %d usable %d verdicts %v verdict %q within %v", c.Runs, c.UsableRuns, c.RunVerdicts, c.Verdict, c.SpreadWithinBound)
	}
	if want := math.Max(c.CopySamples[1], c.CopySamples[2]); c.CopyBytesPerSecond != want {
		t.Errorf("kept copy rate %v, want the fastest quiet run's %v (samples %v)", c.CopyBytesPerSecond, want, c.CopySamples)
	}
	if string(c.Interference[0]) != `{"run":1}` {
		t.Errorf("interference records %s", c.Interference)
	}
}

// TestCalibrateThreadCurve: with Threads 2 the calibration measures 1 and
// 2 threads, warm then cold, each point with its samples (their values are
// the machine's: only their presence is checked).
func TestCalibrateThreadCurve(t *testing.T) {
	c, err := Calibrate(context.Background(), CalibrateOptions{Out: t.TempDir(), Dir: t.TempDir(), LogBytes: 2 << 20, Runs: 1, MaxRuns: 1, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ThreadCurves) != 2 || c.ThreadCurves[0].Cache != "warm" || c.ThreadCurves[1].Cache != "cold" {
		t.Fatalf("curves %+v", c.ThreadCurves)
	}
	for _, cv := range c.ThreadCurves {
		if cv.MaxThreads() != 2 || cv.Speedup(1) != 1 || len(cv.Points[1].Samples) != 1 || cv.Points[1].BytesPerSecond <= 0 {
			t.Errorf("%s curve %+v", cv.Cache, cv)
		}
	}
	if c.Curve("cold") != &c.ThreadCurves[1] || c.Curve("hot") != nil {
		t.Error("Curve lookup")
	}
}
