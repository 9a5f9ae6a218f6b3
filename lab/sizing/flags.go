package sizing

import (
	"runtime"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// The flags of plan and advise, declared once each (settings.Flag for a
// command's own, settings.Lift for the cleaner's settings and the
// calibration's): cmd binds them with settings.Bind.

// calibrationFlags are CalibrationSettings and the calibration's paths
// (--out, --calibration-dir) of a command's options R.
func calibrationFlags[R any](get func(*R) *CalibrationChoice) []settings.Setting[R] {
	return append(settings.Lift(CalibrationSettings.All(), "Calibration.", get),
		settings.Flag("out", "directory of run records, where the calibration is cached",
			func(r *R) settings.Value { return settings.String(&get(r).Out) }),
		settings.Flag("calibration-dir", "parent of the calibration runs' data (default the OS temp dir): put it on the disk to size",
			func(r *R) settings.Value { return settings.String(&get(r).Dir) }))
}

// formatFlag is --format of plan and advise: table or json.
func formatFlag[R any](get func(*R) *string) settings.Setting[R] {
	return settings.Flag("format", "output: table (for people) or json (for scripts)", func(r *R) settings.Value { return settings.String(get(r)) })
}

// DefaultPlanCommandOptions are plan's defaults: Kafka's cleaner, a table,
// DefaultExactKeysMemoryBytes, DefaultCalibrationChoice.
func DefaultPlanCommandOptions() PlanCommandOptions {
	return PlanCommandOptions{Cleaner: engine.DefaultCleanerConfig(), Format: "table", ExactKeysMemoryBytes: DefaultExactKeysMemoryBytes,
		Calibration: DefaultCalibrationChoice()}
}

// PlanFlags are plan's flags but --now-ms and --profile.
var PlanFlags = settings.MustRegistry(DefaultPlanCommandOptions,
	[]settings.Setting[PlanCommandOptions]{
		settings.Flag("dir", "log directory root or partition directory (read-only)",
			func(o *PlanCommandOptions) settings.Value { return settings.String(&o.Dir) }),
		formatFlag(func(o *PlanCommandOptions) *string { return &o.Format }),
		settings.Flag("exact-keys-memory", "memory bound of each exact distinct-key set; past it the count is a HyperLogLog estimate (bytes)",
			func(o *PlanCommandOptions) settings.Value { return settings.Bytes(&o.ExactKeysMemoryBytes) }),
	},
	topicconfig.SourceSettings(func(o *PlanCommandOptions) *topicconfig.Sources { return &o.Sources }),
	calibrationFlags(func(o *PlanCommandOptions) *CalibrationChoice { return &o.Calibration }),
	settings.Lift(settings.Cleaner, "Cleaner.", func(o *PlanCommandOptions) *engine.CleanerConfig { return &o.Cleaner }))

// DefaultAdviseCommandOptions are advise's defaults: Kafka's cleaner and
// backoff, KafkaWorkload (Kafka's topic defaults: 1 GiB segments), a table, every core, a 48 MiB validation log
// run 3 times, the warm contention curve.
func DefaultAdviseCommandOptions() AdviseCommandOptions {
	return AdviseCommandOptions{Cleaner: engine.DefaultCleanerConfig(), Workload: KafkaWorkload(), Format: "table", Cores: runtime.NumCPU(),
		BackoffMs: engine.DefaultBackoffMs, ValidateLogBytes: 48 << 20, ValidateRuns: 3, CurveCache: "warm", Calibration: DefaultCalibrationChoice()}
}

// AdviseFlags are advise's flags but --profile (and its matrix's,
// matrix.Flags).
var AdviseFlags = settings.MustRegistry(DefaultAdviseCommandOptions,
	[]settings.Setting[AdviseCommandOptions]{
		settings.Flag("dir", "advise for this log directory or partition (its read-only plan) instead of a workload description",
			func(o *AdviseCommandOptions) settings.Value { return settings.String(&o.Dir) }),
		formatFlag(func(o *AdviseCommandOptions) *string { return &o.Format }),
		settings.Flag("keys", "key cardinality of the topic (split evenly over the partitions)",
			func(o *AdviseCommandOptions) settings.Value { return settings.Count(&o.Workload.Keys) }),
		settings.Flag("key-bytes", "bytes per key", func(o *AdviseCommandOptions) settings.Value { return settings.Bytes(&o.Workload.KeyBytes) }),
		settings.Flag("value-bytes", "bytes per value", func(o *AdviseCommandOptions) settings.Value { return settings.Bytes(&o.Workload.ValueBytes) }),
		settings.Flag("distribution", "key choice of the writes (uniform has an exact distinct-key model; the others are taken at their upper bound)",
			func(o *AdviseCommandOptions) settings.Value {
				return settings.Name(&o.Workload.Distribution, "distribution", func() []string { return workloads.Distributions })
			}),
		settings.Flag("tombstone-ratio", "share of writes that are tombstones",
			func(o *AdviseCommandOptions) settings.Value { return settings.Ratio(&o.Workload.TombstoneRatio) }),
		settings.Flag("partitions", "partitions of the topic", func(o *AdviseCommandOptions) settings.Value { return settings.Count(&o.Workload.Partitions) }),
		settings.Flag("segment.bytes", "segment.bytes of the topic (bytes)",
			func(o *AdviseCommandOptions) settings.Value { return settings.Bytes(&o.Workload.SegmentBytes) }),
		settings.Flag("min.cleanable.dirty.ratio", "min.cleanable.dirty.ratio: the ratio at which a clean starts",
			func(o *AdviseCommandOptions) settings.Value {
				return settings.Ratio(&o.Workload.MinCleanableDirtyRatio)
			}),
		settings.Flag("max.compaction.lag.ms", "max.compaction.lag.ms: with --write-rate, a clean starts at the latest this long after a write (ms)",
			func(o *AdviseCommandOptions) settings.Value { return settings.Millis(&o.Workload.MaxCompactionLagMs) }),
		settings.Flag("records-per-batch", "records per producer batch",
			func(o *AdviseCommandOptions) settings.Value { return settings.Count(&o.Workload.RecordsPerBatch) }),
		settings.Flag("write-rate", "bytes of log written per second over all partitions (suffixes KiB, MiB, GiB; e.g. 50MiB/s); sizes the threads",
			func(o *AdviseCommandOptions) settings.Value { return settings.Rate(&o.Workload.WriteBytesPerSecond) }),
		settings.Flag("disks", "disks the partitions are spread over (bounds the threads; 0: no bound)",
			func(o *AdviseCommandOptions) settings.Value { return settings.Count(&o.Workload.Disks) }),
		{Name: "cores", Flag: "cores", Doc: "cores the cleaner may use (bounds the threads)", DefaultText: "the machine's",
			Var: func(o *AdviseCommandOptions) settings.Value { return settings.Count(&o.Cores) }},
		settings.Flag("log.cleaner.backoff.ms", "log.cleaner.backoff.ms: how long an idle cleaner thread sleeps (ms), part of the predicted max compaction delay (as steady's flag)",
			func(o *AdviseCommandOptions) settings.Value { return settings.Millis(&o.BackoffMs) }),
		settings.Flag("thread-curve-cache", "which measured contention curve sizes the threads: warm or cold (page cache of the segments cleaned)",
			func(o *AdviseCommandOptions) settings.Value { return settings.String(&o.CurveCache) }),
		settings.Flag("validate", "run the recommendation and one step below at a scaled-down size and report predicted vs measured passes and clean time",
			func(o *AdviseCommandOptions) settings.Value { return settings.Bool(&o.Validate) }),
		settings.Flag("validate-runs", "repetitions of each validated configuration, each after one calibration run (the fastest is compared)",
			func(o *AdviseCommandOptions) settings.Value { return settings.Count(&o.ValidateRuns) }),
		settings.Flag("validate-log-bytes", "size of the scaled-down log of --validate, all partitions (bytes)",
			func(o *AdviseCommandOptions) settings.Value { return settings.Bytes(&o.ValidateLogBytes) }),
	},
	topicconfig.SourceSettings(func(o *AdviseCommandOptions) *topicconfig.Sources { return &o.Sources }),
	calibrationFlags(func(o *AdviseCommandOptions) *CalibrationChoice { return &o.Calibration }),
	settings.Lift(settings.Cleaner, "Cleaner.", func(o *AdviseCommandOptions) *engine.CleanerConfig { return &o.Cleaner }))
