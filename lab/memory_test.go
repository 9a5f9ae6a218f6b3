package lab

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestRSSGoal: the goal is the dedupe buffer, the I/O buffers and 64 MiB;
// with write-behind each thread's second write buffer (IOBufferBytes /
// Threads / 2) counts too; with O_DIRECT output each thread's direct write
// buffers (WriteDirectBytes rounded up to 4 KiB, two with write-behind)
// count besides them, as a clean switches between the two per round.
// Kafka's defaults: 128 MiB + 512 KiB + 64 MiB.
func TestRSSGoal(t *testing.T) {
	kafka := engine.DefaultCleanerConfig()
	best := engine.DefaultCleanerConfig()
	if err := best.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	two := best
	two.Threads, two.IOBufferBytes, two.DedupeBufferBytes = 2, 1<<20, 256<<20
	for _, c := range []struct {
		name string
		cfg  engine.CleanerConfig
		want int64
	}{
		{"kafka", kafka, 128<<20 + 512<<10 + 64<<20},
		// best: write-behind and 1 MiB direct writes.
		{"best", best, 128<<20 + 512<<10 + 256<<10 + 2*1<<20 + 64<<20},
		// 1 MiB over 2 threads: 256 KiB write buffers, one spare each,
		// and two 1 MiB direct buffers each.
		{"best, 2 threads", two, 256<<20 + 1<<20 + 2*256<<10 + 2*2*1<<20 + 64<<20},
		// 5000 direct bytes round up to 8 KiB; no write-behind: one each.
		{"kafka, direct 5000", withDirect(kafka, 5000), 128<<20 + 512<<10 + 8<<10 + 64<<20},
	} {
		if got := RSSGoal(c.cfg); got != c.want {
			t.Errorf("%s: RSSGoal %d, want %d", c.name, got, c.want)
		}
	}
}

func withDirect(c engine.CleanerConfig, n int64) engine.CleanerConfig {
	c.WriteDirectBytes = n
	return c
}

// TestMemoryRows: the peak and the goal in MiB, the verdict, the scope
// said (reset before the clean, or since the process started), and no
// figure when the peak could not be read.
func TestMemoryRows(t *testing.T) {
	m := MemoryReport{PeakBytes: 189<<20 + 104858, GoalBytes: 193 << 20}
	rows := m.rows()
	if len(rows) != 2 || rows[0].Name != "peak RSS" || rows[0].Value != "189.1" || rows[0].Unit != "MiB" ||
		rows[1].Name != "RSS goal" || rows[1].Value != "193.0" || !strings.Contains(rows[1].Meaning, "; met by") {
		t.Fatalf("rows %+v", rows)
	}
	if !strings.Contains(rows[0].Meaning, "reset just before the clean") {
		t.Errorf("peak row's meaning %q does not say the peak covers the clean", rows[0].Meaning)
	}
	if mt, ok := m.metric(); !ok || mt.Value != float64(189<<20+104858) || mt.Unit != results.UnitPeakRSSB {
		t.Errorf("metric %+v, %v", mt, ok)
	}

	m.PeakBytes, m.ResetErr = 200<<20, errors.New("read-only /proc")
	rows = m.rows()
	if !strings.Contains(rows[1].Meaning, "not met") || !strings.Contains(rows[0].Meaning, "since the process started") || !strings.Contains(rows[0].Meaning, "read-only /proc") {
		t.Errorf("over the goal, reset refused: rows %+v", rows)
	}

	m.Err = errors.New("no /proc")
	rows = m.rows()
	if len(rows) != 1 || rows[0].Value != "n/a" || !strings.Contains(rows[0].Meaning, "no /proc") {
		t.Errorf("peak not read: rows %+v", rows)
	}
	if _, ok := m.metric(); ok {
		t.Error("a metric without a figure")
	}
}

// TestStartMemoryLeavesEarlierGarbageOut: in a sweep, one process runs clean
// after clean, and the heap an earlier run freed (its offset maps, its ground
// truth) stays resident until Go returns it to the kernel. The peak reset
// before a clean starts from the resident set at that moment, so that
// garbage counted in every later clean's peak RSS. Here 256 MiB, touched and
// dropped before the reset, must not count: the clean itself (nothing) holds
// far less.
func TestStartMemoryLeavesEarlierGarbageOut(t *testing.T) {
	const garbage = 256 << 20
	b := make([]byte, garbage)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	before, err := results.ResidentBytes()
	if err != nil {
		t.Fatal(err)
	}
	if before < garbage {
		t.Fatalf("resident %d B with the %d B buffer touched", before, garbage)
	}
	runtime.KeepAlive(b)
	b = nil
	end := startMemory(engine.CleanerConfig{DedupeBufferBytes: 1 << 20, IOBufferBytes: 1 << 20, Threads: 1})
	m := end()
	if m.ResetErr != nil || m.Err != nil {
		t.Fatalf("reset %v, read %v", m.ResetErr, m.Err)
	}
	if m.PeakBytes >= before-garbage/2 {
		t.Errorf("peak %d MiB after the reset, with %d MiB resident before it: the dropped %d MiB counted", m.PeakBytes>>20, before>>20, garbage>>20)
	}
}
