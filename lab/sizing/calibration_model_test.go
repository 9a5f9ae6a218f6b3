package sizing

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
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

// TestCalibrationShape: the calibration's log and map for a map at a fill,
// worked by hand. Kafka's skimpy map with md5 takes 24 bytes per entry:
// 1 MiB holds 43,690 slots, 39,321 keys per pass at load factor 0.9. Half
// of them, 19,660.5 distinct dirty keys, come from a head of k records
// over k keys when k (1 - e^-1) = 19,660.5: k = 31,102.45; the records of
// run's default shape are 128.8125 bytes (16-byte keys, 100-byte values,
// 16 per batch), so the log is 2 k r / 1.002 = 7,996,776 bytes (rounded
// up). Capped at a 4 MiB log, keys and map shrink by 4,194,304 /
// 7,996,776 = 0.5245: a map of 549,960 bytes (whole entries).
func TestCalibrationShape(t *testing.T) {
	o := CalibrateOptions{Cleaner: engine.DefaultCleanerConfig(), Shape: Shape{MapBytes: 1 << 20, MapFill: 0.5}, LogBytes: 64 << 20, NoVerdict: true}
	o.defaults()
	logBytes, mapBytes, note, err := calibrationShape(o)
	if err != nil || logBytes != 7996776 || mapBytes != 1<<20 || note != "" {
		t.Errorf("shape = %d, %d, %q, %v; want 7996776, 1048576, no note", logBytes, mapBytes, note, err)
	}
	o.LogBytes = 4 << 20
	logBytes, mapBytes, note, err = calibrationShape(o)
	if err != nil || logBytes != 4<<20 || mapBytes != 549960 || !strings.Contains(note, "scaled by 0.524") {
		t.Errorf("capped shape = %d, %d, %q, %v; want 4194304, 549960, a note", logBytes, mapBytes, note, err)
	}
	// At dirty ratio 0.8 the head writes 4 records per key (n/k = 0.8/0.2):
	// distinct 1 - e^-4 = 0.98168 of the keys; k = 19,660.5 / 0.98168 =
	// 20,027.3 and the log k r / 0.2 / 1.002 = 12,873,096 bytes.
	o.DirtyRatio, o.LogBytes = 0.8, 64<<20
	if logBytes, _, _, _ := calibrationShape(o); logBytes != 12873096 {
		t.Errorf("dirty ratio 0.8: log %d, want 12873096", logBytes)
	}
	if p := o.path(); !strings.HasSuffix(p, "-m1048576-f50-r80.json") {
		t.Errorf("path %s", p)
	}
	o.DirtyRatio = 0.5
	// No fill: the log and map as given.
	o.MapFill, o.LogBytes = 0, 64<<20
	if logBytes, mapBytes, _, _ := calibrationShape(o); logBytes != 64<<20 || mapBytes != 1<<20 {
		t.Errorf("unfilled shape = %d, %d; want the options'", logBytes, mapBytes)
	}
	// The cache file names the shape; the default shape keeps the old name.
	if p := o.path(); !strings.HasSuffix(p, "-k16-v100-b16-m1048576-f0.json") {
		t.Errorf("path %s", p)
	}
	o.MapBytes = calibrationMapBytes
	if p := o.path(); !strings.HasSuffix(p, "-k16-v100-b16.json") {
		t.Errorf("default path %s", p)
	}
}

// TestMeanPassFill: 1,000 records of 1 byte written uniformly over 1,000
// keys (632.1 distinct) with 400 keys per pass: a pass holds
// -1000 ln(1 - 0.4) = 510.83 records, so 2 passes of 510 and 489 bytes
// (whole bytes); their distinct keys 1000 (1 - e^-0.510) = 399.50 and
// 1000 (1 - e^-0.489) = 386.76, fills 0.99876 and 0.96690, mean 0.98283.
// One pass: its distinct keys over the keys per pass, 632.12 / 800.
func TestMeanPassFill(t *testing.T) {
	h := head{partKeys: 1000, records: 1000, recordBytes: 1, dirtyBytes: 1000, keys: ExpectedDistinct(1000, 1000), uniform: true}
	if got := h.meanPassFill(400); math.Abs(got-0.98283) > 1e-5 {
		t.Errorf("two passes: fill %.6f, want 0.98283", got)
	}
	if got := h.meanPassFill(800); math.Abs(got-632.1206/800) > 1e-6 {
		t.Errorf("one pass: fill %.6f, want %.6f", got, 632.1206/800)
	}
}

// TestCalibrationShapeFitsTheTable: when the log caps a calibration of a
// map with a sort buffer, the table, not the share of the dedupe buffer,
// is scaled with the keys, and the share is the one whose table that is
// with the sort buffer carved as the cleaner carves it. Worked by hand:
// bucket16 (16 bytes an entry), 1 thread, a 2 MiB sort buffer (65,536
// Puts, under a quarter of the 16 MiB share, so all carved): a table of
// 14,680,064 bytes, 917,504 slots, 825,753 keys at load factor 0.9. Half
// of them, 412,876.5 distinct dirty keys, need k = 412,876.5 / (1 - e^-1)
// = 653,161.0 keys and a log of 2 k 128.8125 / 1.002 = 167,934,735 bytes
// (rounded up); capped at 96 MiB, keys and table shrink by 100,663,296 /
// 167,934,735 = 0.599419: a table of 8,799,504 bytes (whole entries), so
// a share of 8,799,504 + 2 MiB = 10,896,656 (a quarter of it holds the
// 65,536 Puts). Scaling the share instead (10,056,576) would leave a
// table of 7,959,424, a fill 1.106 times the one asked.
func TestCalibrationShapeFitsTheTable(t *testing.T) {
	cc := engine.DefaultCleanerConfig()
	cc.OffsetMap, cc.Hasher, cc.MapSortBufferBytes = offsetmap.LayoutBucket16, offsetmap.HasherXXH3_128, 2<<20
	o := CalibrateOptions{Cleaner: cc, Shape: Shape{MapBytes: 16 << 20, MapFill: 0.5}, LogBytes: 96 << 20, NoVerdict: true}
	o.defaults()
	if tb := calibrationCleaner(o, 1).PerThreadMapTableBytes(); tb != 14680064 {
		t.Fatalf("table of the clean predicted %d, want 14,680,064", tb)
	}
	logBytes, mapBytes, note, err := calibrationShape(o)
	if err != nil || logBytes != 96<<20 || mapBytes != 10896656 || !strings.Contains(note, "scaled by 0.599") {
		t.Errorf("shape = %d, %d, %q, %v; want 100663296, 10896656, a note", logBytes, mapBytes, note, err)
	}
	o.MapBytes = mapBytes
	for _, threads := range []int{1, 2} {
		if tb := calibrationCleaner(o, threads).PerThreadMapTableBytes(); tb != 8799504 {
			t.Errorf("%d threads: calibrated table %d, want 8,799,504", threads, tb)
		}
	}
}

// TestLoadOrCalibrateCachesFittedShape: a calibration fitted to a map at
// a fill (its log sized from the fill, under LogBytes) is cached under
// the settings asked, so the same options use it the second time.
func TestLoadOrCalibrateCachesFittedShape(t *testing.T) {
	o := CalibrateOptions{Out: t.TempDir(), Dir: t.TempDir(), LogBytes: 4 << 20, Runs: 1, MaxRuns: 1, NoVerdict: true,
		Shape: Shape{MapBytes: 256 << 10, MapFill: 0.5}}
	c, status, err := LoadOrCalibrate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(status, "measured now") || c.Settings == "" {
		t.Fatalf("first: %q, settings %q", status, c.Settings)
	}
	if _, status, err = LoadOrCalibrate(context.Background(), o); err != nil || !strings.HasPrefix(status, "cached") {
		t.Errorf("second: %q, %v; want the cached calibration", status, err)
	}
}
