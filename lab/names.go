package lab

import (
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
)

// BenchBase is the benchmark name of a run of cleanerlab run or sweep and
// of bench's BenchmarkClean suite:
// BenchmarkClean/keys=.../dirty=.../hasher=.../map=.../cache=...
const BenchBase = "Clean"

// StandardNameKeys are the parameters every benchmark name carries, in
// name order: the run flag, the experiment's field path, the key in the name.
var StandardNameKeys = []struct{ Flag, Path, Key string }{
	{"keys", "workload.Keys", "keys"},
	{"dirty-ratio", "workload.DirtyRatio", "dirty"},
	{"hasher", "cleaner.Hasher", "hasher"},
	{"offset-map", "cleaner.OffsetMap", "map"},
	{"cache", "cache", "cache"},
}

// IsStandardName says whether name (a run flag or a field path) is one of
// StandardNameKeys: a sweep axis of it adds no name part of its own.
func IsStandardName(name string) bool {
	for _, s := range StandardNameKeys {
		if s.Flag == name || s.Path == name {
			return true
		}
	}
	return false
}

// IsWorkloadNameKey says whether key, a key of a benchmark name, says what
// was measured rather than how it was cleaned: the workload's keys of
// StandardNameKeys (keys, dirty), the cache state, or a sweep axis of a
// workload setting (named by its flag, as log-bytes). report --col never
// leaves such a key out of its row names (results.SplitByKeyFollowing).
func IsWorkloadNameKey(key string) bool {
	for _, s := range StandardNameKeys {
		if s.Key == key {
			return strings.HasPrefix(s.Path, "workload.") || s.Path == "cache"
		}
	}
	s, ok := Settings.Lookup(key)
	return ok && strings.HasPrefix(s.Path, "workload.")
}

// StandardNameParts are the name parts every run carries: key
// cardinality, dirty ratio, hasher, offset map layout, cache state.
func StandardNameParts(e *Experiment) []results.KV {
	layout := e.Cleaner.OffsetMap
	if layout == "" {
		layout = offsetmap.LayoutSkimpy
	}
	return []results.KV{
		{Key: "keys", Value: strconv.FormatInt(e.Workload.Keys, 10)},
		{Key: "dirty", Value: strconv.FormatFloat(e.Workload.DirtyRatio, 'g', -1, 64)},
		{Key: "hasher", Value: string(e.Cleaner.Hasher)},
		{Key: "map", Value: string(layout)},
		{Key: "cache", Value: string(e.Cache)},
	}
}

// BenchName is the benchmark name of e with extra parts after the
// standard ones.
func BenchName(e *Experiment, extra ...results.KV) string {
	return results.BenchName(BenchBase, append(StandardNameParts(e), extra...)...)
}

// BenchSubName is BenchName without "Benchmark<BenchBase>/": the
// sub-benchmark name a go test -bench suite passes to b.Run so that its
// lines carry the same name as the CLI's.
func BenchSubName(e *Experiment, extra ...results.KV) string {
	return strings.TrimPrefix(BenchName(e, extra...), "Benchmark"+BenchBase+"/")
}

// RunBenchmarks is the run's benchmark line: one iteration (one clean of
// every partition) with its wall time, throughput by the one definition
// (Throughput, in MB/s of 10^6 bytes as go test -bench writes it, which
// benchstat reads as B/s), time per record read, the map's bytes per
// entry, and the device and process read bytes when they were counted
// (the process's not for an experiment cleaned by an external cleaner,
// Experiment.CleanedBy, which reads in a process of its own).
func RunBenchmarks(e *Experiment, stats []*engine.CleanStats, tp Throughput, d results.CounterDelta, extra []results.KV) []results.Benchmark {
	var records int64
	for _, st := range stats {
		records += st.MessagesRead
	}
	b := results.Benchmark{
		Name:       BenchName(e, extra...),
		Iterations: 1,
		Metrics:    []results.Metric{{Value: float64(tp.Wall.Nanoseconds()), Unit: results.UnitNsPerOp}},
	}
	if tp.Wall > 0 {
		b.Metrics = append(b.Metrics, results.Metric{Value: tp.BytesPerSecond() / 1e6, Unit: results.UnitMBps})
	}
	if records > 0 {
		b.Metrics = append(b.Metrics, results.Metric{Value: float64(tp.Wall.Nanoseconds()) / float64(records), Unit: results.UnitNsPerKey})
	}
	if h, err := offsetmap.NewHasher(e.Cleaner.Hasher); err == nil {
		if info, err := offsetmap.Describe(e.Cleaner.OffsetMap, h); err == nil {
			b.Metrics = append(b.Metrics, results.Metric{Value: float64(info.EntryBytes), Unit: results.UnitBPerKey})
		}
	}
	if d.DiskNote == "" && d.Device != "" && d.Measured(results.SourceDiskstats) {
		b.Metrics = append(b.Metrics,
			results.Metric{Value: float64(d.DiskReadBytes), Unit: results.UnitDiskReadBPerOp},
			results.Metric{Value: float64(d.DiskWrittenBytes), Unit: results.UnitDiskWriteBPerOp})
	}
	if d.Measured(results.SourceSelfIO) && e.CleanedBy == "" {
		// /proc/self/io is this process's: an external cleaner
		// (kafka-jvm) read in its own, so it has no figure here.
		b.Metrics = append(b.Metrics, results.Metric{Value: float64(d.ProcReadBytes), Unit: results.UnitStorageReadBPerOp})
	}
	return []results.Benchmark{b}
}
