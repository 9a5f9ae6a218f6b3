package main

import (
	"runtime"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/matrix"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

func newAdviseCmd() *cobra.Command {
	o := sizing.AdviseCommandOptions{Cleaner: engine.DefaultCleanerConfig(), Workload: sizing.DefaultWorkload(), Format: "table", Cores: runtime.NumCPU(),
		BackoffMs: engine.DefaultBackoffMs, ValidateLogBytes: 48 << 20, ValidateRuns: 3, CurveCache: "warm"}
	m := matrix.DefaultCommandOptions()
	cmd := &cobra.Command{
		Use:  "advise [--dir LOGDIR | --keys N --key-bytes N --value-bytes N ...]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Sources.Given, o.Changed, o.Log = givenSettings(cmd.Flags()), cmd.Flags().Changed, cmd.ErrOrStderr()
			return matrix.AdviseCommand(cmd.Context(), o, m, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "advise for this log directory or partition (its read-only plan) instead of a workload description")
	f.StringVar(&o.Format, "format", o.Format, "output: table (for people) or json (for scripts)")
	f.Var(settings.Count(&o.Workload.Keys), "keys", "key cardinality of the topic (split evenly over the partitions)")
	f.Var(settings.Bytes(&o.Workload.KeyBytes), "key-bytes", "bytes per key")
	f.Var(settings.Bytes(&o.Workload.ValueBytes), "value-bytes", "bytes per value")
	f.Var(settings.Name(&o.Workload.Distribution, "distribution", func() []string { return workloads.Distributions }), "distribution", "key choice of the writes (uniform has an exact distinct-key model; the others are taken at their upper bound)")
	f.Var(settings.Ratio(&o.Workload.TombstoneRatio), "tombstone-ratio", "share of writes that are tombstones")
	f.Var(settings.Count(&o.Workload.Partitions), "partitions", "partitions of the topic")
	f.Var(settings.Bytes(&o.Workload.SegmentBytes), "segment.bytes", "segment.bytes of the topic (bytes)")
	f.Var(settings.Ratio(&o.Workload.MinCleanableDirtyRatio), "min.cleanable.dirty.ratio", "min.cleanable.dirty.ratio: the ratio at which a clean starts")
	f.Var(settings.Millis(&o.Workload.MaxCompactionLagMs), "max.compaction.lag.ms", "max.compaction.lag.ms: with --write-rate, a clean starts at the latest this long after a write (ms)")
	f.Var(settings.Count(&o.Workload.RecordsPerBatch), "records-per-batch", "records per producer batch")
	f.Var(settings.Rate(&o.Workload.WriteBytesPerSecond), "write-rate", "bytes of log written per second over all partitions (suffixes KiB, MiB, GiB; e.g. 50MiB/s); sizes the threads")
	f.IntVar(&o.Workload.Disks, "disks", 0, "disks the partitions are spread over (bounds the threads; 0: no bound)")
	f.IntVar(&o.Cores, "cores", o.Cores, "cores the cleaner may use (bounds the threads)")
	f.Var(settings.Millis(&o.BackoffMs), "log.cleaner.backoff.ms", "log.cleaner.backoff.ms: how long an idle cleaner thread sleeps (ms), part of the predicted max compaction delay (as steady's flag)")
	f.StringVar(&o.CurveCache, "thread-curve-cache", o.CurveCache, "which measured contention curve sizes the threads: warm or cold (page cache of the segments cleaned)")
	f.BoolVar(&o.Validate, "validate", false, "run the recommendation and one step below at a scaled-down size and report predicted vs measured passes and clean time")
	f.IntVar(&o.ValidateRuns, "validate-runs", o.ValidateRuns, "repetitions of each validated configuration, each after one calibration run (the fastest is compared)")
	f.Var(settings.Bytes(&o.ValidateLogBytes), "validate-log-bytes", "size of the scaled-down log of --validate, all partitions (bytes)")
	bindSources(f, &o.Sources)
	bindCalibration(f, &o.Calibration)
	f.StringVar(&m.Spec, "matrix", "", "with --validate: check the model across a matrix of workloads: \"default\" (the shipped one) or a YAML file of rows (see docs/sizing-validation.md)")
	f.StringVar(&m.Out, "matrix-out", "", "directory of the matrix's record (matrix.md, matrix.json, the plot); default <--out>/advise-matrix-<UTC time>")
	f.StringSliceVar(&m.Rows, "matrix-rows", nil, "run only these rows of the matrix (names, comma-separated)")
	f.DurationVar(&m.SteadyDuration, "matrix-steady-duration", m.SteadyDuration, "measured window of each row's steady run")
	f.DurationVar(&m.SteadyWarmup, "matrix-steady-warmup", 0, "warm-up of each row's steady run (0: three fills of its log at its write rate, 1s to 10s)")
	f.Var(settings.Bytes(&m.SteadyLogBytes), "matrix-steady-log-bytes", "each row's steady log at its trigger, all partitions (bytes)")
	f.BoolVar(&m.Recalibrate, "matrix-recalibrate", m.Recalibrate, "interleave a calibration run with each validation repetition, as --validate does, so that predictions see the same machine load as the measurements (false: the cached calibration of each record shape)")
	cleanerConfigFlags(f, &o.Cleaner)
	return cmd
}
