package lab

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
)

var rewriteGolden = flag.Bool("rewrite-golden", false, "rewrite the golden files of the report tables (read every changed line before committing)")

// golden compares got with testdata/name, or writes it with -rewrite-golden.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewriteGolden {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// goldenStats is one clean worked by hand: the map phase read 1 MiB, the
// copy phase 3 MiB, written 2 MiB, in 2 s (0.5 s map, 1.5 s copy), so the
// throughput is (1 + 3) MiB / 2 s = 2.0 MiB/s; 30,000 records read, 20,000
// kept; 1,000 keys in a map of 10,000 slots (10%).
func goldenStats() *engine.CleanStats {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &engine.CleanStats{
		TopicPartition: engine.TopicPartition{Topic: "t", Partition: 0},
		StartTime:      t0, MapCompleteTime: t0.Add(500 * time.Millisecond), EndTime: t0.Add(2 * time.Second),
		MapBytesRead: 1 << 20, BytesRead: 3 << 20, BytesWritten: 2 << 20,
		MessagesRead: 30000, MessagesWritten: 20000, SyncTime: 100 * time.Millisecond,
		MapEntries: 1000, MaxMapEntries: 9000, BufferUtilization: 0.1, EndOffset: 30000, CheckpointOffset: 30000,
	}
}

// TestRunTableGolden: the run table of a hand-worked clean, with the
// counters of a machine where /proc/self/io could not be read (n/a, not
// zero) and the disk read 4 MiB, written 2 MiB.
func TestRunTableGolden(t *testing.T) {
	st := goldenStats()
	tp := ThroughputOf([]*engine.CleanStats{st}, 2*time.Second)
	if tp.Bytes() != 4<<20 || tp.MiBps() != "2.0" {
		t.Fatalf("throughput %d bytes, %s MiB/s; want 4 MiB, 2.0", tp.Bytes(), tp.MiBps())
	}
	d := results.CounterDelta{Device: "vda", DiskReadBytes: 4 << 20, DiskWrittenBytes: 2 << 20, CachedBytes: 3 << 20, MajorFaultsCount: 7,
		Missing: []string{results.SourceSelfIO + ": permission denied"}}
	cfg := engine.DefaultCleanerConfig()
	run := &results.Run{
		Phases:       map[string]time.Duration{"generate": 1500 * time.Millisecond, "clean": 2 * time.Second},
		Rows:         RunRows([]*engine.CleanStats{st}, cfg, tp, d),
		Notes:        []string{"a note"},
		Verification: &results.Verification{Passed: true, Detail: "t-0: ok"},
	}
	var b bytes.Buffer
	WriteRunTable(&b, run)
	golden(t, "run-table.golden", b.Bytes())
}

// TestCleanTableGolden: cleanerlab clean's rows of the hand-worked clean.
func TestCleanTableGolden(t *testing.T) {
	var b bytes.Buffer
	WriteRows(&b, CleanRows(goldenStats()))
	golden(t, "clean-table.golden", b.Bytes())
}

// TestSweepTableGolden: three points: two runs at 100 and 110 MB/s (10^6
// B/s; median 105 MB/s = 100.1 MiB/s, p95 109.5 MB/s = 104.4 MiB/s, CV
// 7.07/105 = 6.7%), one run at 50 MB/s (47.7 MiB/s, CV n/a), and one whose
// run failed (every figure n/a).
func TestSweepTableGolden(t *testing.T) {
	run := func(mbps float64) results.PointRun {
		return results.PointRun{Metrics: []results.Metric{{Value: mbps, Unit: results.UnitMBps}, {Value: 1000 / mbps, Unit: results.UnitNsPerKey}}}
	}
	sw := &results.Sweep{Points: []results.Point{
		{Params: []results.KV{{Key: "keys", Value: "1e4"}}, Runs: []results.PointRun{run(100), run(110)}},
		{Params: []results.KV{{Key: "keys", Value: "1e5"}}, Runs: []results.PointRun{run(50)}},
		{Params: []results.KV{{Key: "keys", Value: "1e6"}}, Runs: []results.PointRun{{Error: "boom"}}},
	}}
	sw.Summarize()
	var b bytes.Buffer
	WriteSweepTable(&b, sw)
	golden(t, "sweep-table.golden", b.Bytes())
}

// TestSweepTableNsPerKeyPlain: ns/key medians of 10^4 and more print as
// whole numbers ("12920"), as smaller ones print their 4 significant
// digits, never in e-notation ("1.292e+04" beside "6913" in one column).
func TestSweepTableNsPerKeyPlain(t *testing.T) {
	sw := &results.Sweep{Points: []results.Point{{Params: []results.KV{{Key: "keys", Value: "1e4"}},
		Runs: []results.PointRun{{Metrics: []results.Metric{{Value: 10, Unit: results.UnitMBps}, {Value: 12920.4, Unit: results.UnitNsPerKey}}}}}}}
	sw.Summarize()
	var b bytes.Buffer
	WriteSweepTable(&b, sw)
	// 10 MB/s = 10e6 / 2^20 = 9.5367 MiB/s.
	if !strings.Contains(b.String(), "9.5  9.5  n/a          12920  1       0") {
		t.Errorf("table:\n%s", b.String())
	}
}
