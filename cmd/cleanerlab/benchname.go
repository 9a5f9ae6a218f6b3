package main

import (
	"strconv"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
)

// benchBase is the benchmark name of a run of cleanerlab run or sweep:
// BenchmarkClean/keys=.../dirty=.../hasher=.../map=.../cache=...
const benchBase = "Clean"

// standardNameFlags maps the run flags that every benchmark name carries to
// their name keys, in name order.
var standardNameFlags = []struct{ flag, key string }{
	{"keys", "keys"},
	{"dirty-ratio", "dirty"},
	{"hasher", "hasher"},
	{"offset-map", "map"},
	{"cache", "cache"},
}

// standardNameParts are the name parts every run carries: key cardinality,
// dirty ratio, hasher, offset map layout, cache state.
func standardNameParts(cfg *runConfig) []results.KV {
	layout := cfg.Cleaner.OffsetMap
	if layout == "" {
		layout = offsetmap.LayoutSkimpy
	}
	return []results.KV{
		{Key: "keys", Value: strconv.FormatInt(cfg.Workload.Keys, 10)},
		{Key: "dirty", Value: strconv.FormatFloat(cfg.Workload.DirtyRatio, 'g', -1, 64)},
		{Key: "hasher", Value: cfg.Cleaner.Hasher},
		{Key: "map", Value: layout},
		{Key: "cache", Value: cfg.Cache},
	}
}

// runBenchmarks is the run's benchmark line: one iteration (one clean of
// every partition) with its wall time, throughput (MB of 10^6 bytes of log
// read while recopying per second), time per record read, the map's bytes
// per entry, and the device and process read bytes when they were counted.
func runBenchmarks(cfg *runConfig, stats []*engine.CleanStats, wall time.Duration, d results.CounterDelta, extra []results.KV) []results.Benchmark {
	var read, records int64
	for _, st := range stats {
		read += st.BytesRead
		records += st.MessagesRead
	}
	b := results.Benchmark{
		Name:       results.BenchName(benchBase, append(standardNameParts(cfg), extra...)...),
		Iterations: 1,
		Metrics:    []results.Metric{{Value: float64(wall.Nanoseconds()), Unit: results.UnitNsPerOp}},
	}
	if wall > 0 {
		b.Metrics = append(b.Metrics, results.Metric{Value: float64(read) / 1e6 / wall.Seconds(), Unit: results.UnitMBps})
	}
	if records > 0 {
		b.Metrics = append(b.Metrics, results.Metric{Value: float64(wall.Nanoseconds()) / float64(records), Unit: results.UnitNsPerKey})
	}
	if h, err := offsetmap.NewHasher(cfg.Cleaner.Hasher); err == nil {
		if info, err := offsetmap.Describe(cfg.Cleaner.OffsetMap, h); err == nil {
			b.Metrics = append(b.Metrics, results.Metric{Value: float64(info.EntryBytes), Unit: results.UnitBPerKey})
		}
	}
	if d.DiskNote == "" && d.Device != "" {
		b.Metrics = append(b.Metrics,
			results.Metric{Value: float64(d.DiskReadBytes), Unit: results.UnitDiskReadBPerOp},
			results.Metric{Value: float64(d.DiskWrittenBytes), Unit: results.UnitDiskWriteBPerOp})
	}
	if d.Measured(results.SourceSelfIO) {
		b.Metrics = append(b.Metrics, results.Metric{Value: float64(d.ProcReadBytes), Unit: results.UnitStorageReadBPerOp})
	}
	return []results.Benchmark{b}
}
