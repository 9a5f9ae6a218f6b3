package lab

import (
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestIORowsDirectWritePerPartition: the direct write row of a run of
// several partitions says each partition's O_DIRECT write size, as the
// direct write rule row beside it says each partition's rule: one size
// when all agree; else each size (KiB) with how many partitions wrote with
// it, in the order first seen. Here partition 0 stayed under the clean-size
// minimum (page cache, 0 KiB) and partitions 1 and 2 wrote in 1 MiB
// (1024.0 KiB) O_DIRECT writes: the row once showed partition 0's 0.0
// alone, as if no partition had written direct.
func TestIORowsDirectWritePerPartition(t *testing.T) {
	part := func(direct int64, rule string) *engine.CleanStats {
		return &engine.CleanStats{IO: engine.IOStats{WriteDirectBytes: direct, WriteDirectRule: rule}}
	}
	row := func(stats []*engine.CleanStats) string {
		t.Helper()
		for _, r := range ioRows(stats, time.Second, &ioRun{}) {
			if r.Name == "direct write" {
				if r.Unit != "KiB" {
					t.Errorf("direct write unit %q, want KiB", r.Unit)
				}
				return r.Value
			}
		}
		t.Fatalf("no direct write row")
		return ""
	}
	for _, c := range []struct {
		stats []*engine.CleanStats
		want  string
	}{
		{[]*engine.CleanStats{part(0, "")}, "0.0"},
		{[]*engine.CleanStats{part(1<<20, engine.WriteDirectRuleAlways), part(1<<20, engine.WriteDirectRuleAlways)}, "1024.0"},
		{[]*engine.CleanStats{part(0, ""), part(1<<20, engine.WriteDirectRuleCleanBytes), part(1<<20, engine.WriteDirectRuleCleanBytes)}, "0.0 (1 partition), 1024.0 (2)"},
		{[]*engine.CleanStats{part(1<<20, engine.WriteDirectRuleCleanBytes), part(0, ""), part(4096, engine.WriteDirectRuleCleanBytes), part(0, "")}, "1024.0 (1 partition), 0.0 (2), 4.0 (1)"},
	} {
		if got := row(c.stats); got != c.want {
			t.Errorf("%d partitions: direct write %q, want %q", len(c.stats), got, c.want)
		}
	}
}

// TestIORowsDirectWriteRuleWhenSet: with --write-direct-bytes set
// (IOStats.WriteDirectSetBytes), run shows the direct write rule row, and
// the bytes written direct beside it, even when no partition's clean
// reached a minimum: the rule is then "page cache" and 0.0 MiB went
// direct, which the direct write row's 0.0 KiB points at. Without the
// setting neither row shows. The rule rows once showed only when some
// partition wrote direct, so a small clean under the best profile (a log
// below both of its minimums) showed neither.
func TestIORowsDirectWriteRuleWhenSet(t *testing.T) {
	set := &engine.CleanStats{IO: engine.IOStats{WriteDirectSetBytes: 1 << 20}}
	rows := map[string]string{}
	for _, r := range ioRows([]*engine.CleanStats{set, set}, time.Second, &ioRun{}) {
		rows[r.Name] = r.Value
	}
	if rows["direct write"] != "0.0" || rows["direct write rule"] != "page cache" || rows["copy: written direct"] != "0.0" {
		t.Errorf("setting on, no partition direct: direct write %q, rule %q, written direct %q; want 0.0, page cache, 0.0",
			rows["direct write"], rows["direct write rule"], rows["copy: written direct"])
	}
	for _, r := range ioRows([]*engine.CleanStats{{}}, time.Second, &ioRun{}) {
		if r.Name == "direct write rule" || r.Name == "copy: written direct" {
			t.Errorf("setting off: row %+v", r)
		}
	}
}
