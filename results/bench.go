package results

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// BenchTxtFile is the run directory's results in Go benchmark format.
const BenchTxtFile = "bench.txt"

// Units of the benchmark lines, named as golang.org/x/perf/benchunit reads
// them: a "ns" or "MB" prefix is scaled, a "B" counts bytes, "/op" is per
// iteration (one clean of every partition).
const (
	// UnitNsPerOp is the wall time of one clean of all partitions.
	UnitNsPerOp = "ns/op"
	// UnitMBps is the lab's throughput (lab.Throughput: the bytes the
	// cleaner read, map phase plus copy phase, per second of the clean's
	// wall time) in MB of 10^6 bytes, as go test's MB/s, which benchstat
	// reads as B/s. Every table, plot and report a person reads shows it in
	// MiB/s (ToMiBps).
	UnitMBps = "MB/s"
	// UnitNsPerKey is the clean's wall time per record read while
	// recopying (each record carries one key).
	UnitNsPerKey = "ns/key"
	// UnitBPerKey is the offset map's bytes per entry (per key it can hold)
	// for the run's layout and hasher.
	UnitBPerKey = "B/key"
	// UnitDiskReadBPerOp and UnitDiskWriteBPerOp are the bytes the data
	// directory's block device read and wrote during the clean
	// (/proc/diskstats, all processes).
	UnitDiskReadBPerOp  = "disk-read-B/op"
	UnitDiskWriteBPerOp = "disk-write-B/op"
	// UnitStorageReadBPerOp is /proc/self/io read_bytes during the clean:
	// what this process's page-cache misses fetched.
	UnitStorageReadBPerOp = "storage-read-B/op"
	// UnitPeakRSSB is the process's peak resident set during the clean
	// (PeakRSS after ResetPeakRSS), in bytes.
	UnitPeakRSSB = "peak-RSS-B"
	// UnitCPUNsPerOp is this process's CPU time (user + system, every
	// thread, getrusage) during one clean of all partitions: beside ns/op,
	// it compares profiles fairly whatever share of the machine each got.
	UnitCPUNsPerOp = "cpu-ns/op"
	// UnitCores is the cores the clean used: cpu-ns/op over ns/op.
	UnitCores = "cores"
)

// ToMiBps converts a UnitMBps value (10^6 B/s) to MiB/s (2^20 B/s), the
// unit the lab's tables, plots and reports show.
func ToMiBps(mbps float64) float64 { return mbps * 1e6 / MiB }

// unitBetter says which direction is better for the units benchunit does
// not know, written as "Unit" metadata lines so that benchstat reads them.
var unitBetter = []struct{ unit, better string }{
	{UnitMBps, "higher"},
	{UnitNsPerKey, "lower"},
	{UnitBPerKey, "lower"},
	{UnitDiskReadBPerOp, "lower"},
	{UnitDiskWriteBPerOp, "lower"},
	{UnitStorageReadBPerOp, "lower"},
	{UnitPeakRSSB, "lower"},
	{UnitCPUNsPerOp, "lower"},
	{UnitCores, "lower"},
}

// KV is one key=value pair: of a benchmark name or a file-level
// configuration line.
type KV struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Metric is one measurement of a benchmark line.
type Metric struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Benchmark is one line of Go benchmark format: "BenchmarkClean/keys=1000/
// hasher=md5 1 123456 ns/op 95.2 MB/s".
type Benchmark struct {
	// Name is the full name, "Benchmark" included.
	Name string `json:"name"`
	// Iterations is the count the values are averaged over (1 for a run).
	Iterations int      `json:"iterations"`
	Metrics    []Metric `json:"metrics"`
}

// Value returns the benchmark's value in unit, and whether it has one.
func (b *Benchmark) Value(unit string) (float64, bool) {
	for _, m := range b.Metrics {
		if m.Unit == unit {
			return m.Value, true
		}
	}
	return 0, false
}

// BenchName returns "Benchmark<base>/k1=v1/k2=v2...". A value's characters
// that would break the name (white space, '/') become '_', since benchfmt
// splits names at '/' and lines at spaces.
func BenchName(base string, parts ...KV) string {
	var b strings.Builder
	b.WriteString("Benchmark")
	b.WriteString(base)
	for _, p := range parts {
		b.WriteByte('/')
		b.WriteString(nameSafe(p.Key))
		b.WriteByte('=')
		b.WriteString(nameSafe(p.Value))
	}
	return b.String()
}

func nameSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == ' ' || r == '\t' || r == '\n' || r == '\r' {
			return '_'
		}
		return r
	}, s)
}

// BenchConfig returns the file-level configuration lines that describe env
// in a benchmark file, in this order: goos, goarch, cpu, kernel, fs (type
// and mount options of the data directory), device (its block device and
// model), commit. Unknown fields are left out.
func BenchConfig(env Environment) []KV {
	var kv []KV
	add := func(k, v string) {
		if v = strings.TrimSpace(strings.ReplaceAll(v, "\n", " ")); v != "" {
			kv = append(kv, KV{k, v})
		}
	}
	add("goos", env.GOOS)
	add("goarch", env.GOARCH)
	add("cpu", env.CPUModel)
	add("kernel", env.KernelRelease)
	dd := env.DataDir
	fs := dd.FSType
	if fs != "" && dd.MountOptions != "" {
		fs += " (" + dd.MountOptions + ")"
	}
	add("fs", fs)
	dev := dd.Device
	if dev != "" && dd.Model != "" {
		dev += " (" + dd.Model + ")"
	}
	add("device", dev)
	commit := env.Commit
	if m := env.CommitModified; m != nil && *m && commit != "" {
		commit += "-dirty"
	}
	add("commit", commit)
	return kv
}

// WriteBench writes a benchmark file: the configuration lines, a blank
// line, the unit metadata lines, then the benchmark lines. Values are
// written with up to 6 significant digits, as go test writes them.
func WriteBench(w io.Writer, config []KV, benches []Benchmark) error {
	bw := bufio.NewWriter(w)
	for _, c := range config {
		fmt.Fprintf(bw, "%s: %s\n", c.Key, c.Value)
	}
	if len(config) > 0 {
		bw.WriteString("\n")
	}
	for _, u := range unitBetter {
		fmt.Fprintf(bw, "Unit %s better=%s\n", u.unit, u.better)
	}
	for _, b := range benches {
		bw.WriteString(b.Name)
		fmt.Fprintf(bw, " %d", max(b.Iterations, 1))
		for _, m := range b.Metrics {
			fmt.Fprintf(bw, " %s %s", formatValue(m.Value), m.Unit)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// formatValue renders v as go test does for metrics: integers as they are,
// others with up to 6 significant digits.
func formatValue(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// Measured says whether source (SourceMeminfo, SourceSelfIO, ...) was read
// in both snapshots, so that its fields are figures.
func (d CounterDelta) Measured(source string) bool { return !d.missing(source) }
