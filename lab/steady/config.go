// Package steady runs the lab's steady state: producers append to P
// partitions on the real disk at a write rate while Kafka's cleaner threads
// (engine.CleanerManager) clean them, retention runs every
// log.retention.check.interval.ms and segments roll by segment.bytes,
// segment.ms and segment.jitter.ms, for a duration of real time after a
// warm-up. Every sample interval it records Kafka's cleaner metrics and the
// lab's own figures (per-partition dirty bytes and ratio, log size, segment
// count, log start offset, producer append latency, bytes written by the
// producers and by the cleaner, page cache and disk counters) as a time
// series, and at the end it says whether the cleaner kept up (Verdict).
//
// The files of a run (series.csv, series.json, summary.md, plots,
// log-cleaner.log) are written by WriteRecord; Exporter serves the same
// values to Prometheus under the names the JMX exporter gives Kafka's
// metrics.
package steady

import (
	"fmt"
	"os"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Defaults of Config.
const (
	// DefaultRetentionCheckIntervalMs is Kafka's log.retention.check.interval.ms.
	DefaultRetentionCheckIntervalMs = 300_000
	// DefaultSampleInterval is the time between two samples.
	DefaultSampleInterval = time.Second
	// DefaultReaderPollMs is how long an idle reader waits before fetching
	// again, as a consumer's fetch.max.wait.ms bounds an empty fetch (Kafka's
	// default is 500 ms; the lab polls more often to measure fetch latency).
	DefaultReaderPollMs = 10
)

// Config describes one steady-state run.
type Config struct {
	// Dir is the log directory root the partitions are created in
	// (Dir/<topic>-<p>); it must not hold them yet. Required.
	Dir string
	// Workload gives the topic, the partitions (Partitions), the keys and
	// their distribution, the key and value sizes, the tombstone ratio, the
	// records per batch, the codec, the transactions and the seed of the
	// producers' writes (workloads.Stream). DirtyRatio, LogBytes and
	// SegmentBytes are not used (Log.SegmentBytes is).
	Workload workloads.Spec
	// Log is every partition's topic config (segment.bytes, segment.ms,
	// segment.jitter.ms, min.cleanable.dirty.ratio, max.compaction.lag.ms,
	// cleanup.policy, retention.ms, ...).
	Log engine.LogConfig
	// Cleaner is the broker's log.cleaner.* config (threads, dedupe
	// buffer, I/O buffer, throttle, hasher, map layout). Required: start
	// from engine.DefaultCleanerConfig() (DefaultOptions does); 0 threads
	// is an error, as engine.NewCleanerManager's.
	Cleaner engine.CleanerConfig
	// CleanerOptions are handed to the cleaner threads (fsync policy).
	CleanerOptions engine.CleanerOptions
	// BackoffMs is log.cleaner.backoff.ms: how long an idle cleaner thread
	// sleeps. Default engine.DefaultBackoffMs (15000).
	BackoffMs int64
	// RetentionCheckIntervalMs is log.retention.check.interval.ms: how often
	// the retention task runs Log.DeleteOldSegments on the logs the cleaner
	// does not own (cleanup.policy without compact; the cleaner threads run
	// the retention of compacted logs after each clean, as Kafka's). Default
	// 300000.
	RetentionCheckIntervalMs int64
	// WriteRateBytes is the producers' target rate in bytes per second of
	// encoded batches: over all partitions, or per partition when
	// PerPartitionRate. Required (> 0).
	WriteRateBytes float64
	// PerPartitionRate makes WriteRateBytes the rate of each partition.
	PerPartitionRate bool
	// Warmup is the real time before the measured window; samples taken in
	// it are recorded with Warmup set and left out of the summary.
	Warmup time.Duration
	// Duration is the measured window's real time, after Warmup. Required.
	Duration time.Duration
	// SampleInterval is the time between samples. Default 1 s.
	SampleInterval time.Duration
	// Readers is the number of read_committed consumers tailing the logs
	// (reader i tails partition i mod P from its log start offset).
	Readers int
	// ReaderPollMs is how long a caught-up reader waits before fetching
	// again. Default 10.
	ReaderPollMs int64
	// DiskDevice is the /proc/diskstats name of the data directory's block
	// device ("" for none: no disk figures).
	DiskDevice string
	// OnSample, when set, is called with each sample as it is taken.
	OnSample func(*Sample)
	// OnEvent, when set, is called with each line of the event log
	// (log-cleaner.log) as it is written.
	OnEvent func(line string)
	// Exporter, when set, is updated with every sample.
	Exporter *Exporter
	// FS is the file system the partitions' logs are reached through
	// (engine.Options.FS). Default engine.DefaultFS.
	FS engine.FS
	// onCleanerEvent, when set, sees every cleaner event after the run
	// has counted it (tests).
	onCleanerEvent func(engine.CleanerEvent)
	// beforeCleanerEvent, when set, sees every cleaner event before the
	// run counts it, on the cleaner thread (tests: it may hold the thread
	// there, between a clean's last swap and its stats being counted).
	beforeCleanerEvent func(engine.CleanerEvent)
	// beforePoll, when set, is called by each reader before each fetch,
	// with its log and position (tests: to move the log start past it).
	beforePoll func(l *engine.Log, position int64)
	// onManager, when set, is given the run's cleaner manager before its
	// threads start (tests: to abort a clean).
	onManager func(*engine.CleanerManager)
	// Now is the clock of the logs, the cleaner and the samples. Default
	// time.Now. Timestamps of the producers' records are Now in ms.
	Now func() time.Time
}

// withDefaults fills the zero fields that have a default.
func (c Config) withDefaults() Config {
	if c.BackoffMs <= 0 {
		c.BackoffMs = engine.DefaultBackoffMs
	}
	if c.RetentionCheckIntervalMs <= 0 {
		c.RetentionCheckIntervalMs = DefaultRetentionCheckIntervalMs
	}
	if c.SampleInterval <= 0 {
		c.SampleInterval = DefaultSampleInterval
	}
	if c.ReaderPollMs <= 0 {
		c.ReaderPollMs = DefaultReaderPollMs
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.FS == nil {
		c.FS = engine.DefaultFS
	}
	return c
}

// Validate returns an error naming the first setting out of range.
func (c *Config) Validate() error {
	switch {
	case c.Dir == "":
		return fmt.Errorf("steady: no log directory given")
	case !(c.WriteRateBytes > 0):
		return fmt.Errorf("steady: --write-rate %v bytes/s: want a rate above 0", c.WriteRateBytes)
	case c.Duration <= 0:
		return fmt.Errorf("steady: --duration %v: want a duration above 0", c.Duration)
	case c.Warmup < 0:
		return fmt.Errorf("steady: --warmup %v is negative", c.Warmup)
	case c.SampleInterval < 10*time.Millisecond:
		return fmt.Errorf("steady: --sample-interval %v: want at least 10ms", c.SampleInterval)
	case c.Readers < 0:
		return fmt.Errorf("steady: --readers %d is negative", c.Readers)
	case c.BackoffMs < 1:
		return fmt.Errorf("steady: --log.cleaner.backoff.ms %d: want at least 1", c.BackoffMs)
	case c.RetentionCheckIntervalMs < 1:
		return fmt.Errorf("steady: --log.retention.check.interval.ms %d: want at least 1", c.RetentionCheckIntervalMs)
	}
	// The producers' workload, as each partition's stream reads it.
	if _, err := workloads.NewStream(c.Workload, 0, 0); err != nil {
		return fmt.Errorf("steady: %w", err)
	}
	if err := c.Log.Validate(); err != nil {
		return fmt.Errorf("steady: %w", err)
	}
	if err := c.Cleaner.Validate(); err != nil {
		return fmt.Errorf("steady: %w", err)
	}
	return nil
}

// partitionRate is the target bytes per second of one partition.
func (c *Config) partitionRate() float64 {
	if c.PerPartitionRate {
		return c.WriteRateBytes
	}
	return c.WriteRateBytes / float64(c.Workload.Partitions)
}

// NewRoot makes a fresh log directory root for a run: a new cleanerlab-*
// directory in parent (created if need be; the OS temp dir when "").
func NewRoot(parent string) (string, error) {
	if parent == "" {
		parent = os.TempDir()
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("steady: --dir: %w", err)
	}
	root, err := os.MkdirTemp(parent, "cleanerlab-")
	if err != nil {
		return "", fmt.Errorf("steady: --dir: %w", err)
	}
	return root, nil
}
