package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newSteadyCmd() *cobra.Command {
	o := steady.DefaultOptions()
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
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given, o.Progress = flagsGiven(settings.CleanerRegistry, cmd.Flags()), cmd.ErrOrStderr()
			return steady.Command(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	bindSettings(f, steady.Settings.All(), &o)
	for _, name := range steady.GeneratorFlags {
		f.MarkHidden(name)
	}
	profileFlag(f, &o.Cleaner)
	f.StringVar(&o.MetricsAddr, "metrics-addr", "", "serve /metrics for Prometheus at host:port while running (\":PORT\" binds 127.0.0.1)")
	f.StringVar(&o.FromAdvice, "from-advice", "", "advise --format json output: take its dedupe_buffer_bytes, threads and io_buffer_bytes (flags given win) and set its predicted mean and peak dirty ratio, max compaction delay and falls_behind beside what the run measured")
	f.StringVar(&o.Parent, "dir", "", "log directory root on the disk under test (a fresh cleanerlab-* directory is made in it; default the OS temp dir), removed afterwards unless --keep")
	f.BoolVar(&o.Keep, "keep", false, "keep the logs")
	f.StringVar(&o.Out, "out", o.Out, "directory of run records")
	f.BoolVar(&o.Quiet, "quiet", false, "do not print a line per sample")
	return cmd
}
