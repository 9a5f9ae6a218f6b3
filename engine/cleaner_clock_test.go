package engine

import (
	"path/filepath"
	"testing"
	"time"
)

// TestCleanTimingsUseTheRealClock: CleanerOptions.Now fixes the cleaner's
// "now" (delete horizons, lags: CleanStats.NowMs) but not the clock its
// timings read, so a clean under a fixed clock still has a start time of
// today and a positive duration (issue 11.8: clean --now-ms printed
// "clean time 0.000 s" and "throughput n/a").
func TestCleanTimingsUseTheRealClock(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	lc := DefaultLogConfig()
	lc.FileDeleteDelayMs = 0
	writeTestLog(t, dir, &lc,
		[][]byte{testBatch(t, 0, 1000, "a=1", "b=1", "a=2")},
		[][]byte{testBatch(t, 3, 1000, "b=2", "c=1")},
		[][]byte{testBatch(t, 5, 1000, "d=1")})
	l, err := Open(dir, Options{Config: &lc})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const fixedMs = 2000
	c := testCleaner(t, fixedMs)
	before := time.Now()
	st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true})
	after := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if st.NowMs != fixedMs {
		t.Errorf("NowMs %d, want the fixed clock's %d", st.NowMs, fixedMs)
	}
	if st.StartTime.Before(before) || st.EndTime.After(after) || !st.MapCompleteTime.After(st.StartTime) || !st.EndTime.After(st.MapCompleteTime) {
		t.Errorf("start %v, map complete %v, end %v: want real times, in order, within [%v, %v]", st.StartTime, st.MapCompleteTime, st.EndTime, before, after)
	}
	if st.ElapsedTime() <= 0 {
		t.Errorf("elapsed %v, want > 0", st.ElapsedTime())
	}
}
