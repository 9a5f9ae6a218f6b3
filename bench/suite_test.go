package bench

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Flags of the end-to-end benchmarks (BenchmarkClean, BenchmarkRead,
// BenchmarkGenerate), given after -args:
//
//	go test ./bench -run '^$' -bench 'Clean|Read|Generate' -count 10 \
//	    -args -bench.dir /mnt/disk-under-test -bench.scale 16 -bench.cache cold
var (
	benchDir = flag.String("bench.dir", "",
		"directory for the benchmarks' logs: put it on the disk under test (default: a temp dir, removed afterwards)")
	benchScale = flag.Float64("bench.scale", 1,
		"multiplies the benchmarks' log sizes and key counts; 1 is laptop-sized (8 MiB logs, 100,000 keys)")
	benchScaleRatio = flag.Int("bench.scale-ratio", 8,
		"BenchmarkSpeed/row=scale: the large log is this many times the small one (8: 256 MiB -> 2 GiB at -bench.scale 8; 32 at -bench.scale 4: 128 MiB -> 4 GiB)")
	benchCPUs = flag.Int("bench.cpus", 0,
		"pin the test process to this many CPUs before any benchmark (sched_setaffinity on every thread, and GOMAXPROCS), so that profiles compare on the same cores; 0: no pinning")
	benchCache = flag.String("bench.cache", "warm",
		"page cache before each timed clean or read: warm (read once) or cold (fdatasync and fadvise DONTNEED each segment); lab.SetCache sets it, as for cleanerlab run")
)

// Sizes at -bench.scale 1.
const (
	baseLogBytes = 8 << 20
	baseKeys     = 100_000
	// baseSegmentBytes is a quarter of the log: a clean groups and swaps
	// several segments.
	baseSegmentBytes = 2 << 20
)

// scaled returns n x -bench.scale, at least min.
func scaled(n int64, least int64) int64 {
	return max(int64(math.Round(float64(n)**benchScale)), least)
}

// benchSpec is the workload every end-to-end benchmark starts from:
// 8 MiB x scale of 100-byte values over 100,000 x scale keys, half of it
// dirty, 10% tombstones, 2 MiB x scale segments.
func benchSpec() workloads.Spec {
	s := workloads.DefaultSpec()
	s.Keys = scaled(baseKeys, 1000)
	s.LogBytes = scaled(baseLogBytes, 256<<10)
	s.SegmentBytes = min(scaled(baseSegmentBytes, 64<<10), 1<<30)
	s.TombstoneRatio = 0.1
	s.Seed = 11
	return s
}

// dataRoot returns a fresh directory under -bench.dir (or a temp dir),
// removed when owner ends; errors fail b.
func dataRoot(b, owner testing.TB) string {
	b.Helper()
	if *benchDir == "" {
		return owner.TempDir()
	}
	if err := os.MkdirAll(*benchDir, 0o755); err != nil {
		b.Fatal(err)
	}
	d, err := os.MkdirTemp(*benchDir, "cleanerlab-bench-")
	if err != nil {
		b.Fatal(err)
	}
	owner.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// cacheState is -bench.cache parsed (lab.ParseCacheState); a bad value
// fails b.
func cacheState(b testing.TB) lab.CacheState {
	b.Helper()
	c, err := lab.ParseCacheState(*benchCache)
	if err != nil {
		b.Fatalf("-bench.cache: %v", err)
	}
	return c
}

// setCache puts every segment of l in the -bench.cache state, through the
// lab's one page-cache setup (lab.SetCache).
func setCache(b testing.TB, l *engine.Log) {
	b.Helper()
	if _, err := lab.SetCache([]*engine.Log{l}, cacheState(b), false); err != nil {
		b.Fatal(err)
	}
}

// diskCounter reads the bytes the block device holding dir has read and
// written (/proc/diskstats), or reports that it cannot.
type diskCounter struct{ device string }

func newDiskCounter(dir string) *diskCounter {
	env, _ := results.CaptureEnvironment(dir)
	return &diskCounter{device: env.DataDir.Device}
}

// read returns the device's read and written bytes so far; ok is false
// when the device or /proc/diskstats is unknown.
func (d *diskCounter) read() (read, written int64, ok bool) {
	if d.device == "" {
		return 0, 0, false
	}
	c, err := results.Snapshot(d.device)
	if err != nil || c.DiskNote != "" {
		return 0, 0, false
	}
	return c.DiskReadBytes, c.DiskWrittenBytes, true
}

// name renders key=value sub-benchmark names.
func name(kv ...string) string {
	var parts []string
	for i := 0; i+1 < len(kv); i += 2 {
		parts = append(parts, kv[i]+"="+kv[i+1])
	}
	return strings.Join(parts, "/")
}

// sizeName renders a byte count for a name: "8MiB".
func sizeName(n int64) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprint(n)
}
