package engine

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// TestStartIOKeepsNoRoundsDirectWrite: the IOStats a round begins with
// (startIO) hold no O_DIRECT choice: the write size, its rule and the
// source segment bytes it was chosen by are decided in the copy phase, after the
// map build, so a round that fails or is cut short before that must not
// report the choice of the round before it (nor the configured size the
// writer starts with). ioTestLog's round over [0, 4) rewrites segments 0
// and 1 (s0 + s1 bytes): with WriteDirectBytes 4096 and
// WriteDirectMinCleanBytes s0 + s1 it writes direct by the clean-bytes
// rule. Before the fix startIO copied the writer's current setting, 4096,
// both before the first round (the config's size) and after it.
func TestStartIOKeepsNoRoundsDirectWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	s0, s1 := ioTestLog(t, dir)
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	cfg.WriteDirectBytes, cfg.WriteDirectMinCleanBytes = 4096, s0+s1
	lc := DefaultLogConfig()
	lc.FileDeleteDelayMs = 0
	l, err := Open(dir, Options{Config: &lc})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(2000), FsyncPolicy: iosched.FsyncNone})
	if err != nil {
		t.Fatal(err)
	}
	startIO := func(when string) {
		t.Helper()
		var st CleanStats
		c.startIO(&st)
		c.stopIO(&st)
		if st.IO.WriteDirectBytes != 0 || st.IO.WriteDirectRule != "" || st.IO.SourceSegmentBytes != 0 {
			t.Errorf("%s: a round's IOStats begin with direct write %d bytes, rule %q, source segment bytes %d; want 0, \"\", 0 until its copy phase decides",
				when, st.IO.WriteDirectBytes, st.IO.WriteDirectRule, st.IO.SourceSegmentBytes)
		}
	}
	startIO("before the first round")
	st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.IO.WriteDirectBytes != 4096 || st.IO.WriteDirectRule != WriteDirectRuleCleanBytes || st.IO.SourceSegmentBytes != s0+s1 {
		t.Fatalf("first round: direct write %d, rule %q, source segment bytes %d; want 4096, %q, %d",
			st.IO.WriteDirectBytes, st.IO.WriteDirectRule, st.IO.SourceSegmentBytes, WriteDirectRuleCleanBytes, s0+s1)
	}
	startIO("after a round that wrote direct")
}

// TestFailedRoundLeavesNoDirectWrite: the writer's O_DIRECT write size is
// a round's own choice (the copy phase sets it, after the map build), so
// a round resets it when it starts: after a round that wrote direct
// (ioTestLog's round over [0, 4) reaches WriteDirectMinCleanBytes s0 + s1,
// as in TestStartIOKeepsNoRoundsDirectWrite), a round stopped by its
// CheckDone in its map build, before any copy, leaves the writer at 0
// (off), not at the 4096 of the round before. Before the fix the failed
// round left the writer's 4096 in place.
func TestFailedRoundLeavesNoDirectWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	s0, s1 := ioTestLog(t, dir)
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	cfg.WriteDirectBytes, cfg.WriteDirectMinCleanBytes = 4096, s0+s1
	lc := DefaultLogConfig()
	lc.FileDeleteDelayMs = 0
	l, err := Open(dir, Options{Config: &lc})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(2000), FsyncPolicy: iosched.FsyncNone})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.IO.WriteDirectBytes != 4096 || c.writer.Direct() != 4096 {
		t.Fatalf("first round: IOStats direct write %d, writer %d; want 4096 by the clean-bytes rule", st.IO.WriteDirectBytes, c.writer.Direct())
	}
	stop := errors.New("stopped before the copy phase")
	if _, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, CheckDone: func() error { return stop }}); !errors.Is(err, stop) {
		t.Fatalf("second round: %v, want %v", err, stop)
	}
	if got := c.writer.Direct(); got != 0 {
		t.Errorf("after a round that failed in its map build the writer's O_DIRECT write size is %d; want 0: no round chose it", got)
	}
}

// TestStartIORecordsDirectWriteSetting: every round's IOStats carry the
// O_DIRECT setting in force (WriteDirectSetBytes), rounded up to 4 KiB as
// the writer rounds it (5000 -> 8192), whether or not the round goes
// direct, so a report can say that the setting was on and the round's
// output went through the page cache by its minimums; 0 when off. Here a
// clean-bytes minimum of 1 GiB no round of ioTestLog reaches keeps the
// output in the page cache (WriteDirectBytes 0, rule "").
func TestStartIORecordsDirectWriteSetting(t *testing.T) {
	for _, c := range []struct{ set, want int64 }{{5000, 8192}, {0, 0}} {
		dir := filepath.Join(t.TempDir(), "t-0")
		ioTestLog(t, dir)
		cfg := DefaultCleanerConfig()
		cfg.DedupeBufferBytes = 1 << 20
		cfg.WriteDirectBytes, cfg.WriteDirectMinCleanBytes = c.set, 1<<30
		lc := DefaultLogConfig()
		lc.FileDeleteDelayMs = 0
		l, err := Open(dir, Options{Config: &lc})
		if err != nil {
			t.Fatal(err)
		}
		c0, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(2000), FsyncPolicy: iosched.FsyncNone})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c0.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true})
		l.Close()
		if err != nil {
			t.Fatal(err)
		}
		if st.IO.WriteDirectSetBytes != c.want || st.IO.WriteDirectBytes != 0 || st.IO.WriteDirectRule != "" {
			t.Errorf("WriteDirectBytes setting %d: IOStats set %d, direct %d, rule %q; want set %d, direct 0, rule \"\"",
				c.set, st.IO.WriteDirectSetBytes, st.IO.WriteDirectBytes, st.IO.WriteDirectRule, c.want)
		}
	}
}
