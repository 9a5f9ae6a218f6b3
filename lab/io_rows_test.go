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
