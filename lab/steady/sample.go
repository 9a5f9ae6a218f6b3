package steady

import (
	"slices"
	"sync"
	"time"
)

// Sample is the state of a steady-state run at one instant. Cumulative
// figures count from the start of the run; per-interval figures cover the
// time since the previous sample.
type Sample struct {
	// TimeMs is when the sample was taken (the run's clock, ms since the
	// epoch); ElapsedSeconds is since the producers started.
	TimeMs         int64   `json:"time_ms"`
	ElapsedSeconds float64 `json:"elapsed_s"`
	// Warmup marks the samples taken during the warm-up; Final the one taken
	// after the producers and the cleaner threads stopped.
	Warmup bool `json:"warmup"`
	Final  bool `json:"final,omitempty"`

	// Kafka's cleaner metrics (engine.CleanerMetrics, as Kafka's gauges),
	// read from the manager at TimeMs. The uncleanable figures are the
	// run's one log directory root.
	MaxDirtyPercent             int   `json:"max_dirty_percent"`
	MaxCompactionDelaySecs      int   `json:"max_compaction_delay_secs"`
	CleanerRecopyPercent        int   `json:"cleaner_recopy_percent"`
	MaxBufferUtilizationPercent int   `json:"max_buffer_utilization_percent"`
	MaxCleanTimeSecs            int   `json:"max_clean_time_secs"`
	TimeSinceLastRunMs          int64 `json:"time_since_last_run_ms"`
	UncleanablePartitionsCount  int   `json:"uncleanable_partitions_count"`
	UncleanableBytes            int64 `json:"uncleanable_bytes"`
	DeadThreadCount             int   `json:"dead_thread_count"`

	// Partitions, by partition number.
	Partitions []PartitionSample `json:"partitions"`
	// Sums and maxima over the partitions.
	LogBytes             int64   `json:"log_bytes"`               // sum of .log sizes
	DirtyBytes           int64   `json:"dirty_bytes"`             // sum of DirtyBytes
	MaxCleanableRatio    float64 `json:"max_cleanable_ratio"`     // largest cleanable ratio now
	MaxCompactionDelayMs int64   `json:"max_compaction_delay_ms"` // largest per-partition delay past max.compaction.lag.ms now
	OldestDirtyAgeMs     int64   `json:"oldest_dirty_age_ms"`     // largest OldestDirtyAgeMs
	Segments             int     `json:"segments"`

	// Producers (cumulative): encoded batch bytes appended, records,
	// Log.Append calls; AppendLatency over the interval's appends.
	ProducerBytes   int64   `json:"producer_bytes"`
	ProducerRecords int64   `json:"producer_records"`
	ProducerAppends int64   `json:"producer_appends"`
	AppendLatency   Latency `json:"append_latency"`
	// Readers (cumulative records delivered); FetchLatency over the
	// interval's fetches that returned data.
	ReaderRecords int64   `json:"reader_records"`
	FetchLatency  Latency `json:"fetch_latency"`

	// Cleaner (cumulative, over finished cleans): bytes read while copying
	// and building the map, bytes written to cleaned segments. Removed
	// (cumulative, counted at the swap or deletion itself, at the same
	// instant as LogBytes): what the cleans' swaps took out of the logs
	// (replaced segments' .log bytes less the cleaned segment's: a finished
	// clean's read - written, plus the groups a clean aborted afterwards had
	// swapped in) and what retention removed (deleted segments' .log
	// bytes). ProducerBytes = LogBytes + CleanRemovedBytes +
	// RetentionRemovedBytes at every sample.
	Cleans                int64 `json:"cleans"`
	CleanerBytesRead      int64 `json:"cleaner_bytes_read"`
	CleanerMapBytesRead   int64 `json:"cleaner_map_bytes_read"`
	CleanerBytesWritten   int64 `json:"cleaner_bytes_written"`
	CleanRemovedBytes     int64 `json:"clean_removed_bytes"`
	RetentionRemovedBytes int64 `json:"retention_removed_bytes"`
	// CleanerBusySeconds sums the finished cleans' wall times (all threads).
	CleanerBusySeconds float64 `json:"cleaner_busy_s"`

	// Kernel counters: page cache gauges (system-wide, /proc/meminfo), and
	// the interval's disk and process I/O (/proc/diskstats of the data
	// directory's device, all processes; /proc/self/io). DiskNote says why
	// the disk figures are missing.
	PageCacheBytes      int64   `json:"page_cache_bytes"`
	PageCacheDirtyBytes int64   `json:"page_cache_dirty_bytes"`
	DiskReadBytes       int64   `json:"disk_read_bytes"`
	DiskWrittenBytes    int64   `json:"disk_written_bytes"`
	ProcReadBytes       int64   `json:"proc_read_bytes"`
	ProcWriteBytes      int64   `json:"proc_write_bytes"`
	IntervalSeconds     float64 `json:"interval_s"`
	DiskNote            string  `json:"disk_note,omitempty"`

	// RSSBytes is the process's resident set (VmRSS of /proc/self/status);
	// SamplerCPUSeconds the CPU time the sampler's thread has used so far.
	RSSBytes          int64   `json:"rss_bytes"`
	SamplerCPUSeconds float64 `json:"sampler_cpu_s"`
}

// PartitionSample is one partition's state in a Sample.
type PartitionSample struct {
	Partition      int   `json:"partition"`
	SizeBytes      int64 `json:"size_bytes"`
	Segments       int   `json:"segments"`
	LogStartOffset int64 `json:"log_start_offset"`
	LogEndOffset   int64 `json:"log_end_offset"`
	// FirstDirtyOffset is where the next clean starts (the cleaner
	// checkpoint, or the log start offset).
	FirstDirtyOffset int64 `json:"first_dirty_offset"`
	// DirtyBytes are the .log bytes from the first dirty offset's segment
	// to the log end, the active segment included: SizeBytes minus the
	// clean bytes.
	DirtyBytes int64 `json:"dirty_bytes"`
	// CleanableBytes and CleanableRatio are Kafka's (engine.LogToClean):
	// the active segment and what lies past the last stable offset and
	// min.compaction.lag.ms excluded.
	CleanableBytes int64   `json:"cleanable_bytes"`
	CleanableRatio float64 `json:"cleanable_ratio"`
	// CompactionDelayMs is how long past max.compaction.lag.ms the oldest
	// dirty segment is (Kafka's maxCompactionDelay), 0 when not late.
	CompactionDelayMs int64 `json:"compaction_delay_ms"`
	// OldestDirtyAgeMs is how long ago the record at the first dirty offset
	// was appended: how late compaction is, whatever max.compaction.lag.ms.
	OldestDirtyAgeMs int64 `json:"oldest_dirty_age_ms"`
	// ProducerBytes are the bytes appended to this partition (cumulative).
	ProducerBytes int64 `json:"producer_bytes"`
}

// Latency summarises the durations of one interval, in ms: the 50th, 99th
// and 99.9th percentiles (nearest rank) and the maximum; Count is how many.
type Latency struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50_ms"`
	P99   float64 `json:"p99_ms"`
	P999  float64 `json:"p999_ms"`
	Max   float64 `json:"max_ms"`
}

// latencies collects durations between two samples. Safe for concurrent
// use.
type latencies struct {
	mu   sync.Mutex
	cur  []time.Duration
	next []time.Duration // the previous interval's slice, reused
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.cur = append(l.cur, d)
	l.mu.Unlock()
}

// take summarises and resets the interval.
func (l *latencies) take() Latency {
	l.mu.Lock()
	ds := l.cur
	l.cur = l.next[:0]
	l.mu.Unlock()
	out := summarize(ds)
	l.mu.Lock()
	l.next = ds
	l.mu.Unlock()
	return out
}

// summarize computes nearest-rank percentiles of ds (sorted in place).
func summarize(ds []time.Duration) Latency {
	if len(ds) == 0 {
		return Latency{}
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rank := func(p float64) time.Duration {
		// nearest rank: the ceil(p x n)-th smallest, 1-based.
		k := int(p*float64(len(ds)) + 0.999999999)
		k = min(max(k, 1), len(ds))
		return ds[k-1]
	}
	return Latency{Count: len(ds), P50: ms(rank(0.50)), P99: ms(rank(0.99)), P999: ms(rank(0.999)), Max: ms(ds[len(ds)-1])}
}
