package steady

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// series builds samples at 1 s intervals: warmup samples first, then one
// per dirty value, each with the producer bytes written at writeRate.
func series(warmup int, dirty []int64, writeRate int64, cleans func(i int) int64, sinceLastRunMs int64) []*Sample {
	var out []*Sample
	for i := range warmup {
		out = append(out, &Sample{ElapsedSeconds: float64(i), Warmup: true})
	}
	for i, d := range dirty {
		t := warmup + i
		out = append(out, &Sample{ElapsedSeconds: float64(t), DirtyBytes: d, ProducerBytes: int64(t) * writeRate,
			Cleans: cleans(i), TimeSinceLastRunMs: sinceLastRunMs})
	}
	out = append(out, &Sample{ElapsedSeconds: float64(warmup + len(dirty)), Final: true, DirtyBytes: 1 << 40})
	return out
}

// TestJudge checks the verdict on hand-made series whose slopes and thirds
// are worked out by hand.
func TestJudge(t *testing.T) {
	const w = 1000 // bytes/s written
	everySecond := func(i int) int64 { return int64(i) }
	never := func(int) int64 { return 0 }

	// A sawtooth: 0, 1000, 2000, 0, ... (a clean every 3 s). Over 9
	// samples the least-squares slope of 0,1,2,0,1,2,0,1,2 (x1000) is
	// 1000 x sum((x-4)(y-1))/60 = 1000 x 6/60 = 100 B/s: 10% of the write
	// rate, not above it; the last third's min (0) is below the first
	// third's max (2000).
	saw := []int64{0, 1000, 2000, 0, 1000, 2000, 0, 1000, 2000}
	v := Judge(series(2, saw, w, everySecond, 100), math.MaxInt64)
	if !v.Decided || !v.KeepsUp || v.Growing || v.Late {
		t.Errorf("sawtooth: %+v, want keeps up", v)
	}
	if math.Abs(v.DirtySlopeBytesPerSec-100) > 1e-9 || v.WriteBytesPerSec != w {
		t.Errorf("sawtooth: slope %v (want 100), write rate %v (want %d)", v.DirtySlopeBytesPerSec, v.WriteBytesPerSec, w)
	}
	if v.FirstThirdMaxDirty != 2000 || v.LastThirdMinDirty != 0 {
		t.Errorf("sawtooth thirds: %d, %d; want 2000, 0", v.FirstThirdMaxDirty, v.LastThirdMinDirty)
	}
	if v.Line == "" || !strings.HasPrefix(v.Line, "keeps up") {
		t.Errorf("line %q", v.Line)
	}

	// Linear growth at half the write rate, cleans still finishing: slope
	// 500 B/s > 100, last third min 3000 > first third max 1000.
	lin := []int64{0, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000}
	v = Judge(series(2, lin, w, everySecond, 100), math.MaxInt64)
	if !v.Decided || v.KeepsUp || !v.Growing || v.DirtySlopeBytesPerSec != 500 {
		t.Errorf("linear growth: %+v, want does not keep up with slope 500", v)
	}
	if !strings.HasPrefix(v.Line, "does NOT keep up") {
		t.Errorf("line %q", v.Line)
	}

	// A slow drift (slope 50 B/s, 5% of the write rate) with thirds that
	// do not overlap still keeps up: test (a) fails.
	drift := []int64{10000, 10050, 10100, 10150, 10200, 10250, 10300, 10350, 10400}
	if v = Judge(series(0, drift, w, everySecond, 100), math.MaxInt64); !v.KeepsUp || v.Growing {
		t.Errorf("drift: %+v, want keeps up", v)
	}

	// Growth with no clean in the window while the threads are idle
	// (last choice 100 ms ago, under 2 intervals of 1 s): undecided.
	if v = Judge(series(2, lin, w, never, 100), math.MaxInt64); v.Decided {
		t.Errorf("growth while idle: %+v, want undecided", v)
	}
	// The same growth while a clean runs all the window (last choice 8 s
	// ago, a log cleanable all along): does not keep up.
	busy := series(2, lin, w, never, 8000)
	for _, x := range Window(busy) {
		x.MaxCleanableRatio = 0.6
	}
	if v = Judge(busy, math.MaxInt64); !v.Decided || v.KeepsUp {
		t.Errorf("growth while busy: %+v, want does not keep up", v)
	}
	// The same samples with nothing cleanable (no segment rolled) while
	// the threads sleep their 15 s backoff (last choice 14 s ago):
	// undecided, nothing was eligible.
	if v = Judge(series(2, lin, w, never, 14000), math.MaxInt64); v.Decided || !strings.Contains(v.Line, "no log was eligible") {
		t.Errorf("growth with nothing cleanable: %+v, want undecided", v)
	}

	// Late: a sawtooth, but 5 of 9 samples past max.compaction.lag.ms.
	s := series(2, saw, w, everySecond, 100)
	for _, x := range Window(s)[:5] {
		x.MaxCompactionDelayMs = 1
	}
	if v = Judge(s, 60_000); !v.Decided || v.KeepsUp || !v.Late || v.LateShare != 5.0/9 {
		t.Errorf("late: %+v, want does not keep up, late share 5/9", v)
	}
	// 4 of 9 is not more than half; with no finite lag it never counts.
	Window(s)[0].MaxCompactionDelayMs = 0
	if v = Judge(s, 60_000); !v.KeepsUp {
		t.Errorf("4 of 9 late: %+v, want keeps up", v)
	}
	if v = Judge(series(2, saw, w, everySecond, 100), math.MaxInt64); v.Late {
		t.Errorf("no max.compaction.lag.ms: %+v, want not late", v)
	}

	// Too few samples.
	if v = Judge(series(2, saw[:5], w, everySecond, 100), math.MaxInt64); v.Decided || !strings.HasPrefix(v.Line, "undecided") {
		t.Errorf("5 samples: %+v, want undecided", v)
	}
}

// TestSummarize: median (mean of the middle two for an even count) and max
// over the window only, and the window's rates.
func TestSummarize(t *testing.T) {
	s := series(3, []int64{40, 10, 30, 20}, 1000, func(i int) int64 { return int64(2 * i) }, 0)
	s[0].DirtyBytes = 1 << 30 // warm-up: left out
	for i, x := range Window(s) {
		x.CleanerBytesWritten = int64(i) * 300
		x.CleanerBusySeconds = float64(i) * 0.25
	}
	sum := Summarize(s)
	r, ok := sum.Row("dirty_bytes")
	if !ok || r.Median != 25 || r.Max != 40 {
		t.Errorf("dirty_bytes row %+v, want median 25 max 40", r)
	}
	if sum.Samples != 4 || sum.WindowSeconds != 3 || sum.ProducerBytesPerSec != 1000 || sum.CleanerWrittenBytesPerSec != 300 || sum.CleanerDutyCycle != 0.25 || sum.Cleans != 6 {
		t.Errorf("summary %+v", sum)
	}
}

// TestAdvice reads advise JSON files (lab/sizing.Advice's keys, and the
// same figures nested under "prediction" with the delay in ms) and
// compares their predictions with a hand-made window.
func TestAdvice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "advice.json")
	for _, body := range []string{
		`{"dedupe_buffer_bytes": 1048576, "threads": 2, "io_buffer_bytes": 524288, "passes": 1, "clean_seconds": 0.5,
		  "mean_dirty_ratio": 0.5, "peak_dirty_ratio": 0.7, "max_compaction_delay_seconds": 4, "falls_behind": false}`,
		`{"dedupe_buffer_bytes": 1048576, "threads": 2, "io_buffer_bytes": 524288, "passes": 1, "clean_seconds": 0.5, "falls_behind": false,
		  "prediction": {"steady_dirty_ratio": 0.5, "peak_dirty_ratio": 0.7, "compaction_delay_ms": 4000}}`,
	} {
		os.WriteFile(path, []byte(body), 0o644)
		a, err := ReadAdvice(path)
		if err != nil {
			t.Fatal(err)
		}
		if a.DedupeBufferBytes != 1<<20 || a.Threads != 2 || a.IOBufferBytes != 512<<10 || *a.Passes != 1 || *a.CleanSeconds != 0.5 ||
			*a.SteadyDirtyRatio != 0.5 || *a.PeakDirtyRatio != 0.7 || *a.CompactionDelaySeconds != 4 || a.FallsBehind == nil || *a.FallsBehind {
			t.Errorf("advice %+v", a)
		}
		// Window: partitions' cleanable ratios (0.2, 0.4), (0.5, 0.7),
		// (0.1, 0.1): means 0.3, 0.6, 0.1, their mean 1/3; peak 0.7.
		// Oldest dirty age 2, 5, 3 s: median 3, max 5. dirty/log 0.2, 0.4,
		// 0.6: median 0.4.
		ps := func(a, b float64) []PartitionSample {
			return []PartitionSample{{CleanableRatio: a}, {CleanableRatio: b}}
		}
		s := []*Sample{
			{ElapsedSeconds: 1, DirtyBytes: 20, LogBytes: 100, OldestDirtyAgeMs: 2000, MaxCleanableRatio: 0.4, Partitions: ps(0.2, 0.4)},
			{ElapsedSeconds: 2, DirtyBytes: 40, LogBytes: 100, OldestDirtyAgeMs: 5000, MaxCleanableRatio: 0.7, Partitions: ps(0.5, 0.7)},
			{ElapsedSeconds: 3, DirtyBytes: 60, LogBytes: 100, OldestDirtyAgeMs: 3000, MaxCleanableRatio: 0.1, Partitions: ps(0.1, 0.1)},
		}
		// Cleans chosen at ratios 0.8, 0.6, 0.7 in the window (median
		// 0.7, max 0.8); the one ending at 10 s is outside it.
		cleans := []CleanRecord{{EndSeconds: 1.5, CleanableRatio: 0.8}, {EndSeconds: 2, CleanableRatio: 0.6}, {EndSeconds: 3, CleanableRatio: 0.7}, {EndSeconds: 10, CleanableRatio: 0.99}}
		c := CheckAdvice(a, s, cleans)
		if c.ChosenCleans != 3 || c.MeasuredChosenRatio != 0.7 || c.MeasuredMaxChosenRatio != 0.8 {
			t.Errorf("chosen: %d cleans, median %v, max %v; want 3, 0.7, 0.8", c.ChosenCleans, c.MeasuredChosenRatio, c.MeasuredMaxChosenRatio)
		}
		if math.Abs(c.MeasuredDirtyRatio-1.0/3) > 1e-12 || c.MeasuredPeakDirtyRatio != 0.7 || c.MeasuredDirtyBytesRatio != 0.4 ||
			c.MeasuredCompactionDelaySeconds != 3 || c.MeasuredMaxCompactionDelaySeconds != 5 {
			t.Errorf("check %+v", c)
		}
		if c.DirtyRatioError == nil || math.Abs(*c.DirtyRatioError-(-1.0/3)) > 1e-12 || c.PeakDirtyRatioError == nil || *c.PeakDirtyRatioError != 0 ||
			c.CompactionDelayError == nil || *c.CompactionDelayError != 0.25 {
			t.Errorf("errors %v %v %v, want -1/3, 0, +0.25", c.DirtyRatioError, c.PeakDirtyRatioError, c.CompactionDelayError)
		}
	}
	for body, want := range map[string]string{
		`[1]`:                                  "not a JSON object",
		`{"threads": 2, "io_buffer_bytes": 1}`: `no "dedupe_buffer_bytes"`,
		`{"dedupe_buffer_bytes": "1MiB", "threads": 2, "io_buffer_bytes": 1}`: "want a number",
		`{"dedupe_buffer_bytes": 1024, "threads": 0, "io_buffer_bytes": 1}`:   `"threads" is 0`,
	} {
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := ReadAdvice(path); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file and %q", body, err, want)
		}
	}
}

// TestSummaryWithoutWindow: a run stopped in its warm-up (SIGINT) has no
// sample after it, and a window with no finished clean has no clean's
// choice. The summary then says n/a for what was not measured, never a
// zero: no "0.000" measured ratio, no "0 B/s" rate, no 0.0 s delay.
func TestSummaryWithoutWindow(t *testing.T) {
	pred := func(v float64) *float64 { return &v }
	keepsUp := false
	a := &Advice{Path: "advice.json", DedupeBufferBytes: 1 << 20, Threads: 1, IOBufferBytes: 512 << 10,
		SteadyDirtyRatio: pred(0.3), PeakDirtyRatio: pred(0.5), CompactionDelaySeconds: pred(17.5), FallsBehind: &keepsUp}
	// Two warm-up samples and the final one: an empty window.
	warm := []*Sample{
		{ElapsedSeconds: 1, Warmup: true, ProducerBytes: 1000, DirtyBytes: 1000, LogBytes: 1000, OldestDirtyAgeMs: 1000},
		{ElapsedSeconds: 2, Warmup: true, ProducerBytes: 2000, DirtyBytes: 2000, LogBytes: 2000, OldestDirtyAgeMs: 2000},
		{ElapsedSeconds: 2.3, Final: true, ProducerBytes: 2300, DirtyBytes: 2300, LogBytes: 2300, OldestDirtyAgeMs: 2300},
	}
	res := &Result{Stopped: "signal: interrupt", Summary: Summarize(warm), Verdict: Judge(warm, 0)}
	c := CheckAdvice(a, warm, nil)
	out := FormatSummary(res, &c)
	for _, row := range []string{
		"| producers wrote | n/a",
		"| cleaner read (copy) | n/a",
		"| cleaner wrote | n/a",
		"| cleaner duty cycle | n/a",
		"| mean dirty ratio (time average of the partitions' cleanable ratio) | 0.300 | n/a | n/a |",
	} {
		if !strings.Contains(out, row) {
			t.Errorf("summary lacks %q:\n%s", row, out)
		}
	}
	for _, row := range []string{"peak dirty ratio", "largest cleanable ratio at a choice", "max compaction delay", "median compaction delay", "median dirty bytes / log bytes"} {
		line := lineWith(out, row)
		if line == "" || strings.Contains(line, "0.000") || strings.Contains(line, "| 0.0 |") || !strings.Contains(line, "n/a") {
			t.Errorf("row %q = %q, want n/a for the measured value of an empty window", row, line)
		}
	}
	// A window of 3 samples with no clean ending in it: the ratios and
	// delays are measured; the cleans' choice is not.
	win := []*Sample{
		{ElapsedSeconds: 1, ProducerBytes: 1000, DirtyBytes: 50, LogBytes: 100, OldestDirtyAgeMs: 1000, MaxCleanableRatio: 0.5, Partitions: []PartitionSample{{CleanableRatio: 0.5}}},
		{ElapsedSeconds: 2, ProducerBytes: 2000, DirtyBytes: 60, LogBytes: 100, OldestDirtyAgeMs: 2000, MaxCleanableRatio: 0.6, Partitions: []PartitionSample{{CleanableRatio: 0.6}}},
	}
	res = &Result{Summary: Summarize(win), Verdict: Judge(win, 0)}
	c = CheckAdvice(a, win, []CleanRecord{{EndSeconds: 9, CleanableRatio: 0.9}})
	out = FormatSummary(res, &c)
	if line := lineWith(out, "peak dirty ratio"); !strings.Contains(line, "| 0.500 | n/a | n/a |") {
		t.Errorf("peak row %q, want the prediction 0.500 beside n/a: no clean was chosen in the window", line)
	}
	if line := lineWith(out, "largest cleanable ratio at a choice"); !strings.Contains(line, "| n/a / 0.600 |") {
		t.Errorf("largest-ratio row %q, want n/a at a choice and 0.600 in the samples", line)
	}
	if line := lineWith(out, "mean dirty ratio"); !strings.Contains(line, "| 0.300 | 0.550 | +83% |") {
		t.Errorf("mean row %q, want (0.5+0.6)/2 = 0.550 against 0.300: +83%%", line)
	}
	if !strings.Contains(out, "| producers wrote | 1000 B/s |") {
		t.Errorf("summary lacks the window's 1000 B/s of producer writes ((2000-1000) B / 1 s):\n%s", out)
	}
}

func lineWith(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
