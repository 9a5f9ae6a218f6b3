package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// steadyFlags are steady's flags beyond the workload, topic and cleaner
// configs.
type steadyFlags struct {
	cfg         steady.Config
	writeRate   float64
	dir, out    string
	keep        bool
	metricsAddr string
	fromAdvice  string
	quiet       bool
	fsync       iosched.FsyncPolicy
}

func newSteadyCmd() *cobra.Command {
	sf := &steadyFlags{out: "runs", writeRate: 1 << 20}
	sf.cfg.Workload = workloads.DefaultSpec()
	sf.cfg.Workload.Keys = 100_000
	sf.cfg.Log = engine.DefaultLogConfig()
	sf.cfg.Log.SegmentBytes = 64 << 20
	sf.cfg.Cleaner = engine.DefaultCleanerConfig()
	sf.cfg.BackoffMs = engine.DefaultBackoffMs
	sf.cfg.RetentionCheckIntervalMs = steady.DefaultRetentionCheckIntervalMs
	sf.cfg.Duration = time.Minute
	sf.cfg.Warmup = 10 * time.Second
	sf.cfg.SampleInterval = steady.DefaultSampleInterval
	cmd := &cobra.Command{
		Use:   "steady",
		Short: "Producers at a write rate while Kafka's cleaner threads run: cleaner metrics over time, keeps up or not",
		Long: `steady creates --partitions partitions under --dir (on the disk under test)
and runs, for --warmup then --duration of real time: producers appending the
workload's batches at --write-rate bytes/s (all partitions together, or each
with --per-partition), Kafka's cleaner threads (--log.cleaner.threads,
backing off --log.cleaner.backoff.ms) and the retention task every
--log.retention.check.interval.ms; segments roll by --segment.bytes,
--segment.ms and --segment.jitter.ms. --readers N adds read_committed
consumers tailing the logs.

Every --sample-interval it records Kafka's cleaner metrics, each partition's
dirty bytes, cleanable ratio, size, segments and log start offset, the
producers' append latency, the bytes written by producers and by the
cleaner, and the page cache and disk counters. The record
(runs/<id>/: run.json, series.csv, series.json, summary.md, plots/,
log-cleaner.log) ends with a summary of the window after the warm-up and a
verdict: keeps up, or not (dirty bytes growing without bound, or compaction
later than max.compaction.lag.ms).

--metrics-addr serves the same figures at /metrics for Prometheus (Kafka's
under the JMX exporter's names, e.g. kafka_log_logcleanermanager_max_dirty_percent).
--from-advice FILE takes the dedupe buffer, threads and I/O buffer from
advise --format json and compares its predictions with the run.

SIGINT or SIGTERM stops the run cleanly (producers stop, open transactions
are ended, the cleaner threads stop, the logs are closed), the record is
written, and the exit status is 130 or 143.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return steadyMain(cmd, sf) },
	}
	f := cmd.Flags()
	workloadFlags(f, &sf.cfg.Workload)
	for _, name := range []string{"dirty-ratio", "log-bytes", "records-per-sec", "start-time-ms"} {
		f.MarkHidden(name) // the generator's, not a live producer's
	}
	logConfigFlags(f, &sf.cfg.Log)
	cleanerConfigFlags(f, &sf.cfg.Cleaner)
	f.Var(settings.Millis(&sf.cfg.BackoffMs), "log.cleaner.backoff.ms", "log.cleaner.backoff.ms: how long an idle cleaner thread sleeps (ms)")
	f.Var(settings.Millis(&sf.cfg.RetentionCheckIntervalMs), "log.retention.check.interval.ms", "log.retention.check.interval.ms: how often the retention task runs on logs whose cleanup.policy lacks compact (ms; compacted logs' retention runs in the cleaner threads)")
	sf.fsync = iosched.FsyncSegment
	fsync, _ := lab.Settings.Lookup("fsync")
	f.Var(settings.Enum(&sf.fsync, "policy"), "fsync", fsync.Doc)
	f.Var(settings.Rate(&sf.writeRate), "write-rate", "producers' rate in bytes/s of encoded batches, all partitions together (suffixes KiB, MiB, GiB; /s optional)")
	f.BoolVar(&sf.cfg.PerPartitionRate, "per-partition", false, "--write-rate is each partition's rate")
	f.DurationVar(&sf.cfg.Duration, "duration", sf.cfg.Duration, "measured real time after the warm-up")
	f.DurationVar(&sf.cfg.Warmup, "warmup", sf.cfg.Warmup, "real time before the measured window (its samples are recorded, not summarised)")
	f.DurationVar(&sf.cfg.SampleInterval, "sample-interval", sf.cfg.SampleInterval, "time between samples")
	f.IntVar(&sf.cfg.Readers, "readers", 0, "read_committed consumers tailing the logs (reader i tails partition i mod partitions)")
	f.StringVar(&sf.metricsAddr, "metrics-addr", "", "serve /metrics for Prometheus at host:port while running (\":PORT\" binds 127.0.0.1)")
	f.StringVar(&sf.fromAdvice, "from-advice", "", "advise --format json output: take its dedupe_buffer_bytes, threads and io_buffer_bytes (flags given win) and set its predicted mean and peak dirty ratio, max compaction delay and falls_behind beside what the run measured")
	f.StringVar(&sf.dir, "dir", "", "log directory root on the disk under test (a fresh cleanerlab-* directory is made in it; default the OS temp dir), removed afterwards unless --keep")
	f.BoolVar(&sf.keep, "keep", false, "keep the logs")
	f.StringVar(&sf.out, "out", sf.out, "directory of run records")
	f.BoolVar(&sf.quiet, "quiet", false, "do not print a line per sample")
	return cmd
}

func steadyMain(cmd *cobra.Command, sf *steadyFlags) error {
	f := cmd.Flags()
	out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
	cfg := sf.cfg
	var err error
	cfg.WriteRateBytes = sf.writeRate
	if cfg.CleanerOptions.FsyncPolicy, err = iosched.ParseFsyncPolicy(string(sf.fsync)); err != nil {
		return fmt.Errorf("steady: --fsync: %w", err)
	}
	var advice *steady.Advice
	if sf.fromAdvice != "" {
		if advice, err = steady.ReadAdvice(sf.fromAdvice); err != nil {
			return err
		}
		// The advice's sizes over the flags' defaults, the flags given over
		// the advice (settings.CleanerRegistry.Resolve).
		fromAdvice := func(name string, v int64) settings.Given {
			return settings.Given{Key: name, Value: strconv.FormatInt(v, 10), From: settings.FromFile, Where: sf.fromAdvice}
		}
		given := append([]settings.Given{fromAdvice("log.cleaner.dedupe.buffer.size", advice.DedupeBufferBytes),
			fromAdvice("log.cleaner.threads", int64(advice.Threads)), fromAdvice("log.cleaner.io.buffer.size", advice.IOBufferBytes)},
			flagsGiven(settings.CleanerRegistry, f)...)
		if cfg.Cleaner, _, err = settings.CleanerRegistry.Resolve(cfg.Cleaner, given...); err != nil {
			return err
		}
	}
	var addr string
	if sf.metricsAddr != "" {
		if addr, err = steady.ResolveMetricsAddr(sf.metricsAddr); err != nil {
			return err
		}
	}
	cfg.Dir = "(checked)"
	if err := cfg.Validate(); err != nil {
		return err
	}
	root, err := steady.NewRoot(sf.dir)
	if err != nil {
		return err
	}
	if !sf.keep {
		defer os.RemoveAll(root)
	}
	cfg.Dir = root
	env, _ := results.CaptureEnvironment(root)
	cfg.DiskDevice = env.DataDir.Device
	if err := os.MkdirAll(sf.out, 0o755); err != nil {
		return fmt.Errorf("steady: --out: %w", err)
	}
	evf, err := os.CreateTemp(sf.out, ".steady-events-*.log")
	if err != nil {
		return fmt.Errorf("steady: event log: %w", err)
	}
	evf.Chmod(0o644)
	evPath := evf.Name()
	defer os.Remove(evPath) // moved into the record when it is written

	if addr != "" {
		cfg.Exporter = steady.NewExporter(cfg.Workload.Topic, root)
		srv, err := steady.ServeMetrics(addr, cfg.Exporter)
		if err != nil {
			evf.Close()
			return err
		}
		defer srv.Close()
		fmt.Fprintf(errOut, "serving Prometheus metrics at http://%s/metrics\n", srv.Addr())
	}
	if !sf.quiet {
		cfg.OnSample = func(s *steady.Sample) {
			phase := "window"
			switch {
			case s.Final:
				phase = "final"
			case s.Warmup:
				phase = "warm-up"
			}
			fmt.Fprintf(errOut, "%7.1fs %-7s dirty %9s (max cleanable %.2f)  log %9s  oldest dirty %6.1fs  max-dirty-percent %3d  cleans %d  append p99 %.2f ms\n",
				s.ElapsedSeconds, phase, results.FormatBytes(s.DirtyBytes), s.MaxCleanableRatio, results.FormatBytes(s.LogBytes),
				float64(s.OldestDirtyAgeMs)/1000, s.MaxDirtyPercent, s.Cleans, s.AppendLatency.P99)
		}
	}

	// SIGINT and SIGTERM (main's signalContext) end the run cleanly; the
	// exit status says which.
	ctx := cmd.Context()

	fmt.Fprintf(errOut, "steady: %d partition(s) under %s, %s/s %s, %v warm-up + %v\n", cfg.Workload.Partitions, root,
		results.FormatBytes(int64(cfg.WriteRateBytes)), map[bool]string{true: "per partition", false: "in all"}[cfg.PerPartitionRate], cfg.Warmup, cfg.Duration)
	watch := lab.WatchPhase(cfg.DiskDevice)
	res, runErr := steady.Run(ctx, cfg, evf)
	iv := watch.Stop()
	evf.Close()
	if res == nil {
		return runErr
	}
	var check *steady.AdviceCheck
	if advice != nil {
		c := steady.CheckAdvice(advice, res.Samples, res.Cleans)
		check = &c
	}
	rec := steady.NewConfigRecord(cfg, advice)
	fmt.Fprint(out, steady.FormatSummary(res, check))
	lab.WriteInterferenceLine(out, iv)
	path, werr := steady.WriteRecord(sf.out, res, steady.RecordInfo{Config: rec, Environment: env, EventLogPath: evPath, Advice: check, Interference: iv})
	if werr == nil {
		fmt.Fprintf(out, "record: %s (event log %s)\n", path, filepath.Join(path, steady.EventLogFile))
	}
	if sf.keep {
		fmt.Fprintf(out, "logs kept in %s\n", root)
	}
	if err := errors.Join(runErr, werr); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("steady: stopped (%v) after %.1f s; the logs were closed cleanly", context.Cause(ctx), res.Final().ElapsedSeconds)
	}
	return nil
}
