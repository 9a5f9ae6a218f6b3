package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cleanerlab/cleanerlab/settings"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/workloads"
)

func newAdviseCmd() *cobra.Command {
	cc := engine.DefaultCleanerConfig()
	w := sizing.DefaultWorkload()
	var dir, format string
	var cores int = runtime.NumCPU()
	var validate bool
	var backoffMs int64 = engine.DefaultBackoffMs
	var validateBytes int64 = 48 << 20
	validateRuns := 3
	curveCache := "warm"
	var tc topicConfigFlags
	var cal calibrationFlags
	var mf matrixFlags
	cmd := &cobra.Command{
		Use:   "advise [--dir LOGDIR | --keys N --key-bytes N --value-bytes N ...]",
		Short: "Recommend log.cleaner.dedupe.buffer.size, log.cleaner.threads and log.cleaner.io.buffer.size; predict passes, clean time, dirty ratio and delay",
		Long: `advise sizes the cleaner for a data directory (--dir: its plan, read-only)
or for a workload described with run's flag names (--keys, --key-bytes,
--value-bytes, --distribution, --tombstone-ratio, --partitions,
--segment.bytes, --min.cleanable.dirty.ratio, --max.compaction.lag.ms) plus
--write-rate (bytes per second over all partitions) and --disks. It
recommends log.cleaner.dedupe.buffer.size for Kafka's map and each lab
layout (one pass per clean), log.cleaner.threads (cleaning keeps up with
the dirty bytes written per second, bounded by cores, partitions and
disks) and log.cleaner.io.buffer.size, and predicts passes per clean, clean
time per partition, the steady dirty ratio, the compaction delay and the
memory. Every figure is a model prediction: the formulas and inputs are
printed, beside Kafka's own rule of thumb (24 bytes per entry). Clean times
come from a calibration: a few short runs on this machine, cached under
--out with their environment and measured again when stale.

--validate runs the recommendation and one step below it on a scaled-down
log (--validate-log-bytes) that keeps the keys-per-buffer ratio, and
reports predicted vs measured passes and clean time with the error.
--validate --matrix default|FILE does so for every row of a matrix of
workloads, with a short steady run per row (dirty ratio, compaction delay,
whether the advised threads keep up): an error table, a summary and a plot.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return fmt.Errorf("advise: --format %q: want table or json", format)
			}
			if dir != "" && validate {
				return errors.New("advise: --validate checks a workload description, not --dir (its keys and write pattern are not known)")
			}
			if dir != "" {
				for _, name := range []string{"keys", "key-bytes", "value-bytes", "distribution", "tombstone-ratio", "partitions", "segment.bytes", "min.cleanable.dirty.ratio", "max.compaction.lag.ms", "records-per-batch"} {
					if cmd.Flags().Changed(name) {
						return fmt.Errorf("advise: --%s describes a workload; with --dir the plan's counted figures are used", name)
					}
				}
				var err error
				if dir, err = existingDir("advise", dir); err != nil {
					return err
				}
			}
			set, resolved, err := tc.load(cmd, dir, cc)
			if err != nil {
				return err
			}
			if mf.spec != "" {
				return mf.run(cmd, dir, validate, format, resolved, cores, &cal, validateBytes, validateRuns)
			}
			kb, vb, rpb := w.KeyBytes, w.ValueBytes, w.RecordsPerBatch
			// A described workload is calibrated imitating the recommended
			// clean (map, fill, dirty ratio, tombstones: each moves the
			// cost per byte).
			var shape sizing.Shape
			if dir == "" {
				if a0, err := sizing.AdviseWorkload(w, sizing.AdviseOptions{Cleaner: resolved, Cores: cores, BackoffMs: max(backoffMs, 1), CurveCache: "warm"}); err == nil {
					shape, _ = sizing.CalibrationShape(a0)
				}
			}
			calib, calNote, err := cal.get(cmd, resolved, kb, vb, rpb, shape, true)
			if err != nil {
				return err
			}
			if curveCache != "warm" && curveCache != "cold" {
				return fmt.Errorf("advise: --thread-curve-cache %q: want warm or cold", curveCache)
			}
			if backoffMs < 1 {
				return fmt.Errorf("advise: --log.cleaner.backoff.ms %d: want at least 1 ms", backoffMs)
			}
			o := sizing.AdviseOptions{Cleaner: resolved, Cores: cores, Calibration: calib, BackoffMs: backoffMs, CurveCache: curveCache}
			var a *sizing.Advice
			if dir != "" {
				p, err := sizing.MakePlan(dir, sizing.Options{Configs: set, Cleaner: resolved, Calibration: calib})
				if err != nil {
					return err
				}
				a, err = sizing.AdviseFromPlan(p, w.WriteBytesPerSecond, w.Disks, o)
				if err != nil {
					return err
				}
			} else {
				a, err = sizing.AdviseWorkload(w, o)
				if err != nil {
					return err
				}
				if validate {
					if calib == nil {
						return errors.New("advise: --validate needs a calibration (drop --no-calibration)")
					}
					ew := cmd.ErrOrStderr()
					logf := func(format string, args ...any) { fmt.Fprintf(ew, format, args...) }
					// The validation's predictions use calibration runs
					// interleaved with its own, so both see the same load.
					re := sizing.CalibrateOptions{Out: cal.out, Dir: cal.dataDir, Cleaner: resolved, KeyBytes: kb, ValueBytes: vb, RecordsPerBatch: rpb, LogBytes: cal.logBytes, Log: logf}
					v, err := sizing.Validate(cmd.Context(), w, sizing.ValidateOptions{Dir: cal.dataDir, LogBytes: validateBytes, Cleaner: resolved, Calibration: calib,
						Recalibrate: &re, Repetitions: validateRuns, Log: logf})
					if err != nil {
						return err
					}
					a.Validation = v
				}
			}
			out := cmd.OutOrStdout()
			if format == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(a)
			}
			sizing.WriteAdviceTable(out, a, resolved, calNote, calib)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "advise for this log directory or partition (its read-only plan) instead of a workload description")
	f.StringVar(&format, "format", "table", "output: table (for people) or json (for scripts)")
	f.Var(settings.Count(&w.Keys), "keys", "key cardinality of the topic (split evenly over the partitions)")
	f.Var(settings.Bytes(&w.KeyBytes), "key-bytes", "bytes per key")
	f.Var(settings.Bytes(&w.ValueBytes), "value-bytes", "bytes per value")
	f.Var(settings.Name(&w.Distribution, "distribution", func() []string { return workloads.Distributions }), "distribution", "key choice of the writes (uniform has an exact distinct-key model; the others are taken at their upper bound)")
	f.Var(settings.Ratio(&w.TombstoneRatio), "tombstone-ratio", "share of writes that are tombstones")
	f.Var(settings.Count(&w.Partitions), "partitions", "partitions of the topic")
	f.Var(settings.Bytes(&w.SegmentBytes), "segment.bytes", "segment.bytes of the topic (bytes)")
	f.Var(settings.Ratio(&w.MinCleanableDirtyRatio), "min.cleanable.dirty.ratio", "min.cleanable.dirty.ratio: the ratio at which a clean starts")
	f.Var(settings.Millis(&w.MaxCompactionLagMs), "max.compaction.lag.ms", "max.compaction.lag.ms: with --write-rate, a clean starts at the latest this long after a write (ms)")
	f.Var(settings.Count(&w.RecordsPerBatch), "records-per-batch", "records per producer batch")
	f.Var(settings.Rate(&w.WriteBytesPerSecond), "write-rate", "bytes of log written per second over all partitions (suffixes KiB, MiB, GiB; e.g. 50MiB/s); sizes the threads")
	f.IntVar(&w.Disks, "disks", 0, "disks the partitions are spread over (bounds the threads; 0: no bound)")
	f.IntVar(&cores, "cores", cores, "cores the cleaner may use (bounds the threads)")
	f.Var(settings.Millis(&backoffMs), "log.cleaner.backoff.ms", "log.cleaner.backoff.ms: how long an idle cleaner thread sleeps (ms), part of the predicted max compaction delay (as steady's flag)")
	f.StringVar(&curveCache, "thread-curve-cache", curveCache, "which measured contention curve sizes the threads: warm or cold (page cache of the segments cleaned)")
	f.BoolVar(&validate, "validate", false, "run the recommendation and one step below at a scaled-down size and report predicted vs measured passes and clean time")
	f.IntVar(&validateRuns, "validate-runs", validateRuns, "repetitions of each validated configuration, each after one calibration run (the fastest is compared)")
	f.Var(settings.Bytes(&validateBytes), "validate-log-bytes", "size of the scaled-down log of --validate, all partitions (bytes)")
	tc.bind(f)
	cal.bind(f)
	mf.bind(f)
	cleanerConfigFlags(f, &cc)
	return cmd
}
