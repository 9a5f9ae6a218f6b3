package lab

import (
	"fmt"
	"runtime/debug"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results"
)

// RSSHeadroomBytes is what issue 13's memory goal allows a clean over its
// buffers: its peak resident set should stay within the dedupe buffer, the
// I/O buffers and 64 MiB (RSSGoal).
const RSSHeadroomBytes = 64 << 20

// RSSGoal is the memory goal of a clean with cfg, in bytes: the dedupe
// buffer (log.cleaner.dedupe.buffer.size; bucket16's map sort buffers,
// MapSortBufferBytes, are inside it, carved out of each thread's share, so
// they are not counted again: engine.CleanerConfig.PerThreadMapTableBytes),
// the I/O buffers
// (log.cleaner.io.buffer.size, plus write-behind's second write buffer of
// IOBufferBytes / Threads / 2 per thread; with WriteDirectBytes, each
// thread's O_DIRECT write buffers of iosched.DirectWriteSize bytes, two
// with write-behind, besides them, as the clean may switch between the two
// paths per round) and RSSHeadroomBytes. A goal from the config, not a
// measurement.
func RSSGoal(cfg engine.CleanerConfig) int64 {
	io := cfg.IOBufferBytes
	if cfg.WriteBehind && cfg.Threads > 0 {
		io += cfg.PerThreadIOBufferBytes() * int64(cfg.Threads)
	}
	if direct := int64(iosched.DirectWriteSize(int(cfg.WriteDirectBytes))); direct > 0 && cfg.Threads > 0 {
		buffers := int64(1)
		if cfg.WriteBehind {
			buffers = 2
		}
		io += direct * buffers * int64(cfg.Threads)
	}
	return cfg.DedupeBufferBytes + io + RSSHeadroomBytes
}

// MemoryReport is a clean's peak resident set (results.PeakRSS), taken
// with the peak reset just before the clean (results.ResetPeakRSS), so it
// is the most the process held at once during the clean, the maps
// pre-faulted before it included, and RSSGoal for its config.
type MemoryReport struct {
	PeakBytes int64
	GoalBytes int64
	// ResetErr: the peak could not be reset, so PeakBytes is the
	// process's since it started (the workload's generation included).
	ResetErr error
	// Err: the peak could not be read; there is no figure.
	Err error
}

// startMemory resets the peak resident set before a clean with cfg; the
// returned function reads it after the clean. It first returns the heap
// that earlier work freed to the kernel (debug.FreeOSMemory: a collection
// and a scavenge, tens of milliseconds with a large live heap), since the
// reset starts from the resident set of that moment: in a sweep, one
// process runs clean after clean, and an earlier run's maps and ground
// truth would otherwise count in every later clean's peak. Call it before
// the clean's counter snapshot, so that its CPU is not the clean's.
func startMemory(cfg engine.CleanerConfig) func() MemoryReport {
	debug.FreeOSMemory()
	m := MemoryReport{GoalBytes: RSSGoal(cfg), ResetErr: results.ResetPeakRSS()}
	return func() MemoryReport {
		m.PeakBytes, m.Err = results.PeakRSS()
		return m
	}
}

// rows are the report's "peak RSS" and "RSS goal" rows.
func (m MemoryReport) rows() []results.Row {
	if m.Err != nil {
		return []results.Row{{Name: "peak RSS", Value: "n/a", Meaning: fmt.Sprintf("process: not read (%v)", m.Err)}}
	}
	meaning := "process: VmHWM of /proc/self/status, reset just before the clean: the most this process held at once during it (the pre-faulted maps and what it held before included; heap freed by earlier work is returned to the kernel before the reset)"
	if m.ResetErr != nil {
		meaning = fmt.Sprintf("process: VmHWM of /proc/self/status since the process started, the workload's generation included (the reset before the clean was refused: %v)", m.ResetErr)
	}
	verdict := "met"
	if m.PeakBytes > m.GoalBytes {
		verdict = "not met"
	}
	return []results.Row{
		{Name: "peak RSS", Value: mib(m.PeakBytes), Unit: "MiB", Meaning: meaning},
		{Name: "RSS goal", Value: mib(m.GoalBytes), Unit: "MiB", Meaning: fmt.Sprintf("goal from the config, not measured: dedupe buffer (the map sort buffers inside it) + I/O buffers (with write-behind's second write buffers) + %d MiB; %s by the peak RSS", RSSHeadroomBytes>>20, verdict)},
	}
}

// metric is the peak as a benchmark metric, when it was read.
func (m MemoryReport) metric() (results.Metric, bool) {
	if m.Err != nil {
		return results.Metric{}, false
	}
	return results.Metric{Value: float64(m.PeakBytes), Unit: results.UnitPeakRSSB}, true
}
