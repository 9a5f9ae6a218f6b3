package engine

import (
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// TestStartIOKeepsNoRoundsDirectWrite: the IOStats a round begins with
// (startIO) hold no O_DIRECT choice: the write size, its rule and the
// clean bytes it was chosen by are decided in the copy phase, after the
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
		if st.IO.WriteDirectBytes != 0 || st.IO.WriteDirectRule != "" || st.IO.CleanBytes != 0 {
			t.Errorf("%s: a round's IOStats begin with direct write %d bytes, rule %q, clean bytes %d; want 0, \"\", 0 until its copy phase decides",
				when, st.IO.WriteDirectBytes, st.IO.WriteDirectRule, st.IO.CleanBytes)
		}
	}
	startIO("before the first round")
	st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.IO.WriteDirectBytes != 4096 || st.IO.WriteDirectRule != WriteDirectRuleCleanBytes || st.IO.CleanBytes != s0+s1 {
		t.Fatalf("first round: direct write %d, rule %q, clean bytes %d; want 4096, %q, %d",
			st.IO.WriteDirectBytes, st.IO.WriteDirectRule, st.IO.CleanBytes, WriteDirectRuleCleanBytes, s0+s1)
	}
	startIO("after a round that wrote direct")
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
