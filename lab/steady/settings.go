package steady

import (
	"io"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Options are the steady command's: the run's Config (its settings are
// declared in Settings) and where and how the run is carried out.
type Options struct {
	Config
	// Parent is the directory the run's fresh cleanerlab-* log directory
	// root is made in ("": the OS temp dir); the root is removed afterwards
	// unless Keep.
	Parent string
	// Keep keeps the logs.
	Keep bool
	// Out is the directory of run records. Default "runs".
	Out string
	// MetricsAddr, when set, serves /metrics for Prometheus at host:port
	// while running (":PORT" binds 127.0.0.1).
	MetricsAddr string
	// FromAdvice, when set, is advise --format json output: its dedupe
	// buffer, threads and I/O buffer replace the defaults (Given wins over
	// them) and its predictions are compared with the run.
	FromAdvice string
	// Given are the cleaner settings given on the command line, which win
	// over FromAdvice's (settings.CleanerRegistry's keys).
	Given []settings.Given
	// Quiet: no line per sample on Log.
	Quiet bool
	// Progress receives the progress lines (one per sample unless Quiet,
	// the metrics address); nil: none.
	Progress io.Writer
}

// Defaults of the steady command (Options) that differ from the
// engine's and the workload's.
const (
	// DefaultKeys is the workload's key cardinality.
	DefaultKeys = 100_000
	// DefaultSegmentBytes is segment.bytes: small enough that a minute's
	// writes roll segments the cleaner can clean.
	DefaultSegmentBytes = 64 << 20
	// DefaultWriteRateBytes is the producers' rate in bytes/s, all
	// partitions together.
	DefaultWriteRateBytes = 1 << 20
	// DefaultDuration is the measured window.
	DefaultDuration = time.Minute
	// DefaultWarmup is the real time before the measured window.
	DefaultWarmup = 10 * time.Second
)

// DefaultOptions are the steady command's defaults.
func DefaultOptions() Options {
	o := Options{Out: "runs"}
	o.Workload = workloads.DefaultSpec()
	o.Workload.Keys = DefaultKeys
	o.Log = engine.DefaultLogConfig()
	o.Log.SegmentBytes = DefaultSegmentBytes
	o.Cleaner = engine.DefaultCleanerConfig()
	o.CleanerOptions.FsyncPolicy = iosched.FsyncSegment
	o.BackoffMs = engine.DefaultBackoffMs
	o.RetentionCheckIntervalMs = DefaultRetentionCheckIntervalMs
	o.WriteRateBytes = DefaultWriteRateBytes
	o.Duration = DefaultDuration
	o.Warmup = DefaultWarmup
	o.SampleInterval = DefaultSampleInterval
	return o
}

// GeneratorFlags are the workload's flags that only the generator of run
// reads, not a live producer: the steady command hides them.
var GeneratorFlags = []string{"dirty-ratio", "log-bytes", "records-per-sec", "start-time-ms"}

// fsyncDoc is the fsync setting's doc line, the experiment's.
func fsyncDoc() string {
	s, _ := lab.Settings.Lookup("fsync")
	return s.Doc
}

// ownSettings are the settings of a steady run beyond the workload's,
// Kafka's topic and cleaner configs.
var ownSettings = []settings.Setting[Options]{
	{Name: "log.cleaner.backoff.ms", Kafka: true, Flag: "log.cleaner.backoff.ms", Path: "BackoffMs",
		Doc: "log.cleaner.backoff.ms: how long an idle cleaner thread sleeps (ms)",
		Var: func(o *Options) settings.Value { return settings.Millis(&o.BackoffMs) }},
	{Name: "log.retention.check.interval.ms", Kafka: true, Flag: "log.retention.check.interval.ms", Path: "RetentionCheckIntervalMs",
		Doc: "log.retention.check.interval.ms: how often the retention task runs on logs whose cleanup.policy lacks compact (ms; compacted logs' retention runs in the cleaner threads)",
		Var: func(o *Options) settings.Value { return settings.Millis(&o.RetentionCheckIntervalMs) }},
	{Name: "fsync", Flag: "fsync", Path: "CleanerOptions.FsyncPolicy", Doc: fsyncDoc(),
		Var: func(o *Options) settings.Value { return settings.Enum(&o.CleanerOptions.FsyncPolicy, "policy") }},
	{Name: "write-rate", Flag: "write-rate", Path: "WriteRateBytes",
		Doc: "producers' rate in bytes/s of encoded batches, all partitions together (suffixes KiB, MiB, GiB; /s optional)",
		Var: func(o *Options) settings.Value { return settings.Rate(&o.WriteRateBytes) }},
	{Name: "per-partition", Flag: "per-partition", Path: "PerPartitionRate",
		Doc: "--write-rate is each partition's rate",
		Var: func(o *Options) settings.Value { return settings.Bool(&o.PerPartitionRate) }},
	{Name: "duration", Flag: "duration", Path: "Duration",
		Doc: "measured real time after the warm-up",
		Var: func(o *Options) settings.Value { return settings.Duration(&o.Duration) }},
	{Name: "warmup", Flag: "warmup", Path: "Warmup",
		Doc: "real time before the measured window (its samples are recorded, not summarised)",
		Var: func(o *Options) settings.Value { return settings.Duration(&o.Warmup) }},
	{Name: "sample-interval", Flag: "sample-interval", Path: "SampleInterval",
		Doc: "time between samples",
		Var: func(o *Options) settings.Value { return settings.Duration(&o.SampleInterval) }},
	{Name: "readers", Flag: "readers", Path: "Readers",
		Doc: "read_committed consumers tailing the logs (reader i tails partition i mod partitions)",
		Var: func(o *Options) settings.Value { return settings.Count(&o.Readers) }},
}

// Settings are the settings of a steady run (the steady command's flags),
// with its defaults (DefaultOptions): the workload's, Kafka's topic and
// cleaner configs (package settings) and ownSettings.
var Settings = settings.MustRegistry(DefaultOptions,
	settings.Lift(settings.Workload, "Workload.", func(o *Options) *workloads.Spec { return &o.Workload }),
	settings.Lift(settings.Log, "Log.", func(o *Options) *engine.LogConfig { return &o.Log }),
	settings.Lift(settings.Cleaner, "Cleaner.", func(o *Options) *engine.CleanerConfig { return &o.Cleaner }),
	ownSettings)

// PlaceFlags are the steady command's flags that say where and how the run
// is carried out, beside Settings.
var PlaceFlags = settings.MustRegistry(DefaultOptions, []settings.Setting[Options]{
	settings.Flag("metrics-addr", "serve /metrics for Prometheus at host:port while running (\":PORT\" binds 127.0.0.1)",
		func(o *Options) settings.Value { return settings.String(&o.MetricsAddr) }),
	settings.Flag("from-advice", "advise --format json output: take its dedupe_buffer_bytes, threads and io_buffer_bytes (flags given win) and set its predicted mean and peak dirty ratio, max compaction delay and falls_behind beside what the run measured",
		func(o *Options) settings.Value { return settings.String(&o.FromAdvice) }),
	settings.Flag("dir", "log directory root on the disk under test (a fresh cleanerlab-* directory is made in it; default the OS temp dir), removed afterwards unless --keep",
		func(o *Options) settings.Value { return settings.String(&o.Parent) }),
	settings.Flag("keep", "keep the logs", func(o *Options) settings.Value { return settings.Bool(&o.Keep) }),
	settings.Flag("out", "directory of run records", func(o *Options) settings.Value { return settings.String(&o.Out) }),
	settings.Flag("quiet", "do not print a line per sample", func(o *Options) settings.Value { return settings.Bool(&o.Quiet) }),
})
