package steady

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/results"
)

// Column is one figure of a Sample: its CSV and summary name, its unit, and
// how to read it.
type Column struct {
	Name string
	Unit string
	Get  func(*Sample) float64
	// Summary puts the column in the summary table.
	Summary bool
}

// perSecond divides an interval's count by the interval (0 without one).
func perSecond(n int64, s *Sample) float64 {
	if s.IntervalSeconds <= 0 {
		return 0
	}
	return float64(n) / s.IntervalSeconds
}

// Columns are the run-wide figures of a Sample, in CSV order (the
// per-partition ones follow them in the CSV).
var Columns = []Column{
	{"elapsed_s", "s", func(s *Sample) float64 { return s.ElapsedSeconds }, false},
	{"max_dirty_percent", "%", func(s *Sample) float64 { return float64(s.MaxDirtyPercent) }, true},
	{"max_compaction_delay_secs", "s", func(s *Sample) float64 { return float64(s.MaxCompactionDelaySecs) }, true},
	{"cleaner_recopy_percent", "%", func(s *Sample) float64 { return float64(s.CleanerRecopyPercent) }, true},
	{"max_buffer_utilization_percent", "%", func(s *Sample) float64 { return float64(s.MaxBufferUtilizationPercent) }, true},
	{"max_clean_time_secs", "s", func(s *Sample) float64 { return float64(s.MaxCleanTimeSecs) }, true},
	{"time_since_last_run_ms", "ms", func(s *Sample) float64 { return float64(s.TimeSinceLastRunMs) }, true},
	{"uncleanable_partitions_count", "partitions", func(s *Sample) float64 { return float64(s.UncleanablePartitionsCount) }, true},
	{"uncleanable_bytes", "B", func(s *Sample) float64 { return float64(s.UncleanableBytes) }, true},
	{"dead_thread_count", "threads", func(s *Sample) float64 { return float64(s.DeadThreadCount) }, true},
	{"log_bytes", "B", func(s *Sample) float64 { return float64(s.LogBytes) }, true},
	{"dirty_bytes", "B", func(s *Sample) float64 { return float64(s.DirtyBytes) }, true},
	{"max_cleanable_ratio", "ratio", func(s *Sample) float64 { return s.MaxCleanableRatio }, true},
	{"max_compaction_delay_ms", "ms", func(s *Sample) float64 { return float64(s.MaxCompactionDelayMs) }, true},
	{"oldest_dirty_age_ms", "ms", func(s *Sample) float64 { return float64(s.OldestDirtyAgeMs) }, true},
	{"segments", "segments", func(s *Sample) float64 { return float64(s.Segments) }, true},
	{"producer_bytes", "B", func(s *Sample) float64 { return float64(s.ProducerBytes) }, false},
	{"producer_records", "records", func(s *Sample) float64 { return float64(s.ProducerRecords) }, false},
	{"producer_appends", "appends", func(s *Sample) float64 { return float64(s.ProducerAppends) }, false},
	{"append_count", "appends", func(s *Sample) float64 { return float64(s.AppendLatency.Count) }, false},
	{"append_p50_ms", "ms", func(s *Sample) float64 { return s.AppendLatency.P50 }, true},
	{"append_p99_ms", "ms", func(s *Sample) float64 { return s.AppendLatency.P99 }, true},
	{"append_p999_ms", "ms", func(s *Sample) float64 { return s.AppendLatency.P999 }, true},
	{"append_max_ms", "ms", func(s *Sample) float64 { return s.AppendLatency.Max }, true},
	{"reader_records", "records", func(s *Sample) float64 { return float64(s.ReaderRecords) }, false},
	{"fetch_count", "fetches", func(s *Sample) float64 { return float64(s.FetchLatency.Count) }, false},
	{"fetch_p50_ms", "ms", func(s *Sample) float64 { return s.FetchLatency.P50 }, true},
	{"fetch_p99_ms", "ms", func(s *Sample) float64 { return s.FetchLatency.P99 }, true},
	{"fetch_max_ms", "ms", func(s *Sample) float64 { return s.FetchLatency.Max }, true},
	{"cleans", "cleans", func(s *Sample) float64 { return float64(s.Cleans) }, false},
	{"cleaner_bytes_read", "B", func(s *Sample) float64 { return float64(s.CleanerBytesRead) }, false},
	{"cleaner_map_bytes_read", "B", func(s *Sample) float64 { return float64(s.CleanerMapBytesRead) }, false},
	{"cleaner_bytes_written", "B", func(s *Sample) float64 { return float64(s.CleanerBytesWritten) }, false},
	{"clean_removed_bytes", "B", func(s *Sample) float64 { return float64(s.CleanRemovedBytes) }, false},
	{"retention_removed_bytes", "B", func(s *Sample) float64 { return float64(s.RetentionRemovedBytes) }, false},
	{"cleaner_busy_s", "s", func(s *Sample) float64 { return s.CleanerBusySeconds }, false},
	{"page_cache_bytes", "B", func(s *Sample) float64 { return float64(s.PageCacheBytes) }, true},
	{"page_cache_dirty_bytes", "B", func(s *Sample) float64 { return float64(s.PageCacheDirtyBytes) }, true},
	{"disk_read_bytes_per_s", "B/s", func(s *Sample) float64 { return perSecond(s.DiskReadBytes, s) }, true},
	{"disk_written_bytes_per_s", "B/s", func(s *Sample) float64 { return perSecond(s.DiskWrittenBytes, s) }, true},
	{"proc_read_bytes_per_s", "B/s", func(s *Sample) float64 { return perSecond(s.ProcReadBytes, s) }, true},
	{"proc_write_bytes_per_s", "B/s", func(s *Sample) float64 { return perSecond(s.ProcWriteBytes, s) }, true},
	{"interval_s", "s", func(s *Sample) float64 { return s.IntervalSeconds }, false},
	{"rss_bytes", "B", func(s *Sample) float64 { return float64(s.RSSBytes) }, true},
	{"sampler_cpu_s", "s", func(s *Sample) float64 { return s.SamplerCPUSeconds }, false},
}

// Window returns the samples of the measured window: after the warm-up,
// the final one (taken after the producers stopped) left out.
func Window(samples []*Sample) []*Sample {
	var out []*Sample
	for _, s := range samples {
		if !s.Warmup && !s.Final {
			out = append(out, s)
		}
	}
	return out
}

// SummaryRow is one column's median and maximum over the window.
type SummaryRow struct {
	Name   string  `json:"name"`
	Unit   string  `json:"unit"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
}

// Summary is the steady-state table: the Summary columns over the window,
// plus the rates of the window as a whole.
type Summary struct {
	Samples int          `json:"samples"`
	Rows    []SummaryRow `json:"rows"`
	// WindowSeconds is the time from the window's first sample to its last.
	WindowSeconds float64 `json:"window_s"`
	// ProducerBytesPerSec and CleanerWrittenBytesPerSec are the bytes
	// written over the window by the producers and by the cleaner, per
	// second; CleanerDutyCycle is the share of the window the cleaner
	// threads spent in finished cleans (can exceed 1 with several threads).
	ProducerBytesPerSec       float64 `json:"producer_bytes_per_s"`
	CleanerReadBytesPerSec    float64 `json:"cleaner_read_bytes_per_s"`
	CleanerWrittenBytesPerSec float64 `json:"cleaner_written_bytes_per_s"`
	CleanerDutyCycle          float64 `json:"cleaner_duty_cycle"`
	Cleans                    int64   `json:"cleans"`
}

// Summarize computes the Summary of samples' window. The median of an even
// count is the mean of the two middle values.
func Summarize(samples []*Sample) Summary {
	w := Window(samples)
	sum := Summary{Samples: len(w)}
	if len(w) == 0 {
		return sum
	}
	for _, c := range Columns {
		if !c.Summary {
			continue
		}
		vs := make([]float64, len(w))
		for i, s := range w {
			vs[i] = c.Get(s)
		}
		sum.Rows = append(sum.Rows, SummaryRow{Name: c.Name, Unit: c.Unit, Median: results.Median(vs), Max: slices.Max(vs)})
	}
	first, last := w[0], w[len(w)-1]
	sum.WindowSeconds = last.ElapsedSeconds - first.ElapsedSeconds
	if sum.WindowSeconds > 0 {
		sum.ProducerBytesPerSec = float64(last.ProducerBytes-first.ProducerBytes) / sum.WindowSeconds
		sum.CleanerReadBytesPerSec = float64(last.CleanerBytesRead-first.CleanerBytesRead) / sum.WindowSeconds
		sum.CleanerWrittenBytesPerSec = float64(last.CleanerBytesWritten-first.CleanerBytesWritten) / sum.WindowSeconds
		sum.CleanerDutyCycle = (last.CleanerBusySeconds - first.CleanerBusySeconds) / sum.WindowSeconds
	}
	sum.Cleans = last.Cleans - first.Cleans
	return sum
}

// Row returns the summary row named name.
func (s *Summary) Row(name string) (SummaryRow, bool) {
	for _, r := range s.Rows {
		if r.Name == name {
			return r, true
		}
	}
	return SummaryRow{}, false
}

// Thresholds of Judge.
const (
	// MinWindowSamples is the fewest window samples Judge decides on.
	MinWindowSamples = 6
	// GrowthShareOfWriteRate: dirty bytes grow without bound when their
	// least-squares slope exceeds this share of the producers' write rate
	// (and the last third of the window stays above the first).
	GrowthShareOfWriteRate = 0.1
)

// Verdict says whether the cleaner kept up over the window.
type Verdict struct {
	// Decided is false when the window cannot tell (too few samples, or no
	// clean was needed in it); KeepsUp is meaningful only when Decided.
	Decided bool `json:"decided"`
	KeepsUp bool `json:"keeps_up"`
	// Growing: the dirty bytes grow without bound (see Judge); Late: the
	// compaction delay was above max.compaction.lag.ms in more than half
	// of the window's samples.
	Growing bool `json:"growing"`
	Late    bool `json:"late"`
	// The test's figures.
	DirtySlopeBytesPerSec float64 `json:"dirty_slope_bytes_per_s"`
	WriteBytesPerSec      float64 `json:"write_bytes_per_s"`
	FirstThirdMaxDirty    int64   `json:"first_third_max_dirty_bytes"`
	LastThirdMinDirty     int64   `json:"last_third_min_dirty_bytes"`
	LateShare             float64 `json:"late_share"`
	// Line is the verdict in one line, with its reasons.
	Line string `json:"line"`
}

// Judge decides whether the cleaner kept up over samples' window (after
// the warm-up, the final sample left out), by two tests:
//
//   - growth: the window's total dirty bytes D(t) (Sample.DirtyBytes, the
//     bytes from each log's first dirty offset to its end) grow without
//     bound when both (a) the least-squares slope of D over t is above
//     GrowthShareOfWriteRate (10%) of the producers' write rate over the
//     window, and (b) the smallest D of the window's last third is above
//     the largest D of its first third. A cleaner that keeps up makes D a
//     sawtooth (each clean brings it back down), which fails (b) once one
//     clean falls in the last third; a small drift fails (a).
//   - delay: with a finite maxCompactionLagMs, the logs are late when more
//     than half of the window's samples have a partition whose oldest dirty
//     segment is past max.compaction.lag.ms (Sample.MaxCompactionDelayMs >
//     0, Kafka's maxCompactionDelay at the sample's instant).
//
// It keeps up when neither holds. Undecided: fewer than MinWindowSamples
// samples; or growth while no clean finished in the window and either no
// sample had cleanable bytes (Sample.MaxCleanableRatio 0: no segment
// rolled, so no log could be eligible, however long the threads sleep in
// their backoff) or the threads last chose a log less than 2 sample
// intervals before its end (they are idle: no log was eligible yet). Then
// the window is shorter than one cleaning cycle, not a sign of falling
// behind.
func Judge(samples []*Sample, maxCompactionLagMs int64) Verdict {
	w := Window(samples)
	var v Verdict
	if len(w) < MinWindowSamples {
		v.Line = fmt.Sprintf("undecided: %d samples after the warm-up, %d needed; run longer or sample more often", len(w), MinWindowSamples)
		return v
	}
	first, last := w[0], w[len(w)-1]
	span := last.ElapsedSeconds - first.ElapsedSeconds
	if span > 0 {
		v.WriteBytesPerSec = float64(last.ProducerBytes-first.ProducerBytes) / span
	}
	v.DirtySlopeBytesPerSec = slope(w)
	third := len(w) / 3
	v.FirstThirdMaxDirty = math.MinInt64
	for _, s := range w[:third] {
		v.FirstThirdMaxDirty = max(v.FirstThirdMaxDirty, s.DirtyBytes)
	}
	v.LastThirdMinDirty = math.MaxInt64
	for _, s := range w[len(w)-third:] {
		v.LastThirdMinDirty = min(v.LastThirdMinDirty, s.DirtyBytes)
	}
	v.Growing = v.DirtySlopeBytesPerSec > GrowthShareOfWriteRate*v.WriteBytesPerSec && v.LastThirdMinDirty > v.FirstThirdMaxDirty
	late := 0
	for _, s := range w {
		if s.MaxCompactionDelayMs > 0 {
			late++
		}
	}
	v.LateShare = float64(late) / float64(len(w))
	v.Late = maxCompactionLagMs > 0 && maxCompactionLagMs < math.MaxInt64 && 2*late > len(w)

	yesNo := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	// Both tests, each with its outcome: dirty bytes grow without bound
	// only when both say yes.
	growth := fmt.Sprintf("dirty bytes slope %.0f B/s vs write rate %.0f B/s (above %.0f%% of it: %s), last third min %d B vs first third max %d B (above it: %s)",
		v.DirtySlopeBytesPerSec, v.WriteBytesPerSec, 100*GrowthShareOfWriteRate, yesNo(v.DirtySlopeBytesPerSec > GrowthShareOfWriteRate*v.WriteBytesPerSec),
		v.LastThirdMinDirty, v.FirstThirdMaxDirty, yesNo(v.LastThirdMinDirty > v.FirstThirdMaxDirty))
	delay := fmt.Sprintf("%.0f%% of samples past max.compaction.lag.ms", 100*v.LateShare)
	interval := 0.0
	if len(w) > 1 {
		interval = span / float64(len(w)-1)
	}
	noClean := last.Cleans == first.Cleans
	// Nothing cleanable in any sample: no segment rolled since the last
	// clean, so no log could be eligible whatever the threads were doing
	// (sleeping log.cleaner.backoff.ms, longer than the interval, included).
	nothingCleanable := true
	for _, s := range w {
		if s.MaxCleanableRatio > 0 {
			nothingCleanable = false
		}
	}
	idle := noClean && float64(last.TimeSinceLastRunMs) < 2*interval*1000
	switch {
	case v.Growing && noClean && nothingCleanable && !v.Late:
		v.Line = "undecided: dirty bytes grew but no clean finished after the warm-up and no log was eligible (no cleanable bytes: no segment rolled since the last clean); run longer than one cleaning cycle (" + growth + ")"
	case v.Growing && idle && !v.Late:
		v.Line = "undecided: dirty bytes grew but no clean finished after the warm-up and the cleaner threads are idle (no log eligible yet); run longer than one cleaning cycle (" + growth + ")"
	case v.Growing || v.Late:
		v.Decided = true
		var why []string
		if v.Growing {
			why = append(why, "dirty bytes grow without bound: "+growth)
		}
		if v.Late {
			why = append(why, "compaction is late: "+delay)
		}
		v.Line = "does NOT keep up: " + strings.Join(why, "; ")
	default:
		v.Decided, v.KeepsUp = true, true
		v.Line = "keeps up (dirty bytes grow without bound only when both growth tests say yes): " + growth + "; " + delay
	}
	return v
}

// slope is the least-squares slope of DirtyBytes over ElapsedSeconds, in
// bytes per second (0 when the times do not vary).
func slope(w []*Sample) float64 {
	n := float64(len(w))
	var sx, sy float64
	for _, s := range w {
		sx += s.ElapsedSeconds
		sy += float64(s.DirtyBytes)
	}
	mx, my := sx/n, sy/n
	var sxy, sxx float64
	for _, s := range w {
		dx := s.ElapsedSeconds - mx
		sxy += dx * (float64(s.DirtyBytes) - my)
		sxx += dx * dx
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

// PartitionColumn is one per-partition figure of a Sample; the CSV names it
// p<N>_<Name>.
type PartitionColumn struct {
	Name string
	Unit string
	Get  func(*PartitionSample) float64
	// KafkaName: exported to Prometheus under Kafka's Log metric name.
	KafkaName bool
}

// PartitionColumns are the per-partition figures, in CSV order.
var PartitionColumns = []PartitionColumn{
	{"size_bytes", "B", func(p *PartitionSample) float64 { return float64(p.SizeBytes) }, true},
	{"segments", "segments", func(p *PartitionSample) float64 { return float64(p.Segments) }, true},
	{"log_start_offset", "offset", func(p *PartitionSample) float64 { return float64(p.LogStartOffset) }, true},
	{"log_end_offset", "offset", func(p *PartitionSample) float64 { return float64(p.LogEndOffset) }, true},
	{"first_dirty_offset", "offset", func(p *PartitionSample) float64 { return float64(p.FirstDirtyOffset) }, false},
	{"dirty_bytes", "B", func(p *PartitionSample) float64 { return float64(p.DirtyBytes) }, false},
	{"cleanable_bytes", "B", func(p *PartitionSample) float64 { return float64(p.CleanableBytes) }, false},
	{"cleanable_ratio", "ratio", func(p *PartitionSample) float64 { return p.CleanableRatio }, false},
	{"compaction_delay_ms", "ms", func(p *PartitionSample) float64 { return float64(p.CompactionDelayMs) }, false},
	{"oldest_dirty_age_ms", "ms", func(p *PartitionSample) float64 { return float64(p.OldestDirtyAgeMs) }, false},
	{"producer_bytes", "B", func(p *PartitionSample) float64 { return float64(p.ProducerBytes) }, false},
}
