package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/results"
)

func newAdviseCmd() *cobra.Command {
	cc := engine.DefaultCleanerConfig()
	w := sizing.DefaultWorkload()
	var dir, format string
	var cores int = runtime.NumCPU()
	var validate bool
	var validateBytes int64 = 48 << 20
	validateRuns := 3
	var tc topicConfigFlags
	var cal calibrationFlags
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
reports predicted vs measured passes and clean time with the error.`,
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
				if abs, err := filepath.Abs(dir); err == nil {
					dir = abs
				}
			}
			set, resolved, err := tc.load(cmd, dir, cc)
			if err != nil {
				return err
			}
			kb, vb, rpb := w.KeyBytes, w.ValueBytes, w.RecordsPerBatch
			calib, calNote, err := cal.get(cmd, resolved, kb, vb, rpb, true)
			if err != nil {
				return err
			}
			o := sizing.AdviseOptions{Cleaner: resolved, Cores: cores, Calibration: calib}
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
					v, err := sizing.Validate(context.Background(), w, sizing.ValidateOptions{Dir: cal.dataDir, LogBytes: validateBytes, Cleaner: resolved, Calibration: calib,
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
			printAdvice(out, a, resolved, calNote, calib)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "advise for this log directory or partition (its read-only plan) instead of a workload description")
	f.StringVar(&format, "format", "table", "output: table (for people) or json (for scripts)")
	f.Var(countOf(&w.Keys), "keys", "key cardinality of the topic (split evenly over the partitions)")
	f.IntVar(&w.KeyBytes, "key-bytes", w.KeyBytes, "bytes per key")
	f.IntVar(&w.ValueBytes, "value-bytes", w.ValueBytes, "bytes per value")
	f.StringVar(&w.Distribution, "distribution", w.Distribution, "key choice of the writes (uniform has an exact distinct-key model; the others are taken at their upper bound)")
	f.Float64Var(&w.TombstoneRatio, "tombstone-ratio", w.TombstoneRatio, "share of writes that are tombstones")
	f.IntVar(&w.Partitions, "partitions", w.Partitions, "partitions of the topic")
	f.Var((*byteSize)(&w.SegmentBytes), "segment.bytes", "segment.bytes of the topic (bytes)")
	f.Float64Var(&w.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio", w.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio: the ratio at which a clean starts")
	f.Int64Var(&w.MaxCompactionLagMs, "max.compaction.lag.ms", w.MaxCompactionLagMs, "max.compaction.lag.ms: with --write-rate, a clean starts at the latest this long after a write (ms)")
	f.IntVar(&w.RecordsPerBatch, "records-per-batch", w.RecordsPerBatch, "records per producer batch")
	f.Var((*byteRate)(&w.WriteBytesPerSecond), "write-rate", "bytes of log written per second over all partitions (suffixes KiB, MiB, GiB; e.g. 50MiB/s); sizes the threads")
	f.IntVar(&w.Disks, "disks", 0, "disks the partitions are spread over (bounds the threads; 0: no bound)")
	f.IntVar(&cores, "cores", cores, "cores the cleaner may use (bounds the threads)")
	f.BoolVar(&validate, "validate", false, "run the recommendation and one step below at a scaled-down size and report predicted vs measured passes and clean time")
	f.IntVar(&validateRuns, "validate-runs", validateRuns, "repetitions of each validated configuration, each after one calibration run (the fastest is compared)")
	f.Var((*byteSize)(&validateBytes), "validate-log-bytes", "size of the scaled-down log of --validate, all partitions (bytes)")
	tc.bind(f)
	cal.bind(f)
	cleanerConfigFlags(f, &cc)
	return cmd
}

func printAdvice(w io.Writer, a *sizing.Advice, cc engine.CleanerConfig, calNote string, cal *sizing.Calibration) {
	fmt.Fprintf(w, "advice from the %s (a MODEL PREDICTION from the inputs below, not a measurement)\n", a.Source)
	var chosen sizing.LayoutAdvice
	for _, la := range a.Layouts {
		if la.Layout == a.Layout {
			chosen = la
		}
	}
	fmt.Fprintf(w, "  log.cleaner.dedupe.buffer.size  %s  (%s/%s map, %d B/entry, %d keys per pass per thread: %d pass(es) per clean; now %s gives %d)\n",
		results.FormatBytes(a.DedupeBufferBytes), chosen.Layout, chosen.Hasher, chosen.EntryBytes, chosen.MaxKeysPerPass, a.Passes, results.FormatBytes(cc.DedupeBufferBytes), a.CurrentPasses)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    layout\thasher\tB/entry\tbuffer\tkeys/pass/thread\tpasses\tP(collision) per pass")
	for _, la := range a.Layouts {
		fmt.Fprintf(tw, "    %s\t%s\t%d\t%s\t%d\t%d\t%.2g\n", la.Layout, la.Hasher, la.EntryBytes, results.FormatBytes(la.DedupeBufferBytes), la.MaxKeysPerPass, la.Passes, la.CollisionProbability)
	}
	tw.Flush()
	fmt.Fprintf(w, "  log.cleaner.threads             %d  (%s)\n", a.Threads, a.ThreadsReason)
	fmt.Fprintf(w, "  log.cleaner.io.buffer.size      %s  (%s read + %s write buffer per thread)\n", results.FormatBytes(a.IOBufferBytes),
		results.FormatBytes(a.IOBufferBytes/int64(2*a.Threads)), results.FormatBytes(a.IOBufferBytes/int64(2*a.Threads)))
	if cal != nil {
		fmt.Fprintf(w, "  clean time per partition        %.3f s  (calibration: map build %s/s, copy %s/s; %s)\n", a.CleanSeconds,
			results.FormatBytes(int64(cal.MapBuildBytesPerSecond)), results.FormatBytes(int64(cal.CopyBytesPerSecond)), calNote)
	} else {
		fmt.Fprintf(w, "  clean time per partition        - (%s)\n", calNote)
	}
	fmt.Fprintf(w, "  dirty ratio                     peak %.3f, mean %.3f\n", a.PeakDirtyRatio, a.MeanDirtyRatio)
	if a.MaxCompactionDelaySeconds > 0 {
		fmt.Fprintf(w, "  max compaction delay            %.1f s\n", a.MaxCompactionDelaySeconds)
	}
	fmt.Fprintf(w, "  memory                          %s (dedupe buffer + I/O buffers)\n", results.FormatBytes(a.MemoryBytes))
	fmt.Fprintf(w, "Kafka's rule of thumb (24 bytes per entry, every dirty record a distinct key, no load factor; 8 GB cleans ~366 GB of head at 1 KiB messages): %s\n",
		results.FormatBytes(a.RuleOfThumbBufferBytes))
	fmt.Fprintln(w, "model inputs:")
	names := make([]string, 0, len(a.Inputs))
	for k := range a.Inputs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "  %-28s %.6g\n", k, a.Inputs[k])
	}
	fmt.Fprintln(w, "formulas:")
	for _, f := range a.Formulas {
		fmt.Fprintf(w, "  %s\n", f)
	}
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if v := a.Validation; v != nil {
		fmt.Fprintf(w, "validation at scale %.4g (keys per buffer kept; warm cache, one thread; measured now, fastest of %d runs each):\n", v.Scale, len(v.Runs[0].CleanSecondsSamples))
		if c := v.Calibration; c != nil {
			fmt.Fprintf(w, "  predicted with the calibration measured between the runs: map build %s/s, copy %s/s\n", results.FormatBytes(int64(c.MapBuildBytesPerSecond)), results.FormatBytes(int64(c.CopyBytesPerSecond)))
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  run\tbuffer\tkeys\tpasses predicted\tmeasured\tclean s predicted\tmeasured\terror")
		for _, r := range v.Runs {
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%.4f\t%.4f\t%+.1f%%\n", r.Name, results.FormatBytes(r.DedupeBufferBytes), r.Keys, r.PassesPredicted, r.PassesMeasured,
				r.CleanSecondsPredicted, r.CleanSecondsMeasured, 100*r.CleanSecondsError)
		}
		tw.Flush()
	}
}
