package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newCleanCmd() *cobra.Command {
	o := lab.CleanCommandOptions{CleanOptions: lab.CleanOptions{Log: engine.DefaultLogConfig(), Cleaner: engine.DefaultCleanerConfig(), Passes: 1,
		Recovery: inspect.WriteRecovery}, ServeMetrics: steady.ServeManager, WarnKeyless: sizing.WarnKeyless}
	var firstDirty, highWatermark, nowMs settings.OptionalOffset
	kj := kafkajvm.CommandOptions{Libs: os.Getenv("CLEANERLAB_KAFKA_LIBS"), Warmup: 1, Rounds: 1}
	cmd := &cobra.Command{
		Use:  "clean --dir PARTITION_DIR|LOGDIR",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			o.Now, o.FirstDirty, o.HighWatermark = nowMs.Clock(), firstDirty.Offset(), highWatermark.Offset()
			o.Sources.Given, o.Changed, o.Progress = givenSettings(f), f.Changed, cmd.ErrOrStderr()
			kj.Profile, kj.Changed, kj.Stderr = f.Lookup("profile").Value.String(), f.Changed, cmd.ErrOrStderr()
			o.Other = kj.Cleaner()
			return lab.CleanCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Dir, "dir", "", "partition directory, or log directory root of topic-N partition directories, to clean in place (work on a copy)")
	f.BoolVar(&o.Force, "force", false, "clean even when the cleanable ratio is not above min.cleanable.dirty.ratio (a log directory: every log with cleanable bytes)")
	f.BoolVar(&o.Roll, "roll", false, "roll the active segment first, so that all data is cleanable")
	f.StringVar(&o.MetricsAddr, "metrics-addr", "", "with --dir LOGDIR: serve Kafka's cleaner metrics at /metrics for Prometheus at host:port while cleaning (\":PORT\" binds 127.0.0.1)")
	f.BoolVar(&o.KafkaRecovery, "kafka-recovery-truncation", false, "after an unclean shutdown, cut a bad segment tail even when later segments hold data, and delete those segments, as Kafka's LogLoader does (default: refuse, nothing changed)")
	f.BoolVar(&o.AcceptTruncated, "accept-truncated-segments", false, "open and clean a segment whose index files prove that its .log lost data, as it is (default: refuse it, naming the file, nothing changed)")
	f.Var(&firstDirty, "first-dirty-offset", "start at this offset instead of the checkpoint (an offset >= 0; not given: the checkpoint)")
	f.Var(&highWatermark, "high-watermark", "high watermark bounding the clean (an offset >= 0; not given: the log end offset)")
	f.Var(&nowMs, "now-ms", "the cleaner's now for delete horizons and compaction lags, ms since the epoch (not given: the clock); timings always use the real clock")
	f.Var(settings.Count(&o.Passes), "passes", "clean again while the offset map filled before the dirty range ended, up to this many times")
	logConfigFlags(f, &o.Log)
	cleanerConfigFlags(f, &o.Cleaner, kafkajvm.ProfileAlias)
	topicconfig.SourcesFlags.Bind(f, &o.Sources)
	f.StringVar(&kj.Libs, "kafka-libs", kj.Libs, "Kafka's classes for --profile kafka-jvm and --compare-kafka: the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output (default $CLEANERLAB_KAFKA_LIBS)")
	f.StringVar(&kj.JavaOpts, "kafka-java-opts", "", "the JVM options of Kafka's cleaner, blank-separated (default: a broker's G1 options and a pre-touched heap of max(1 GiB, dedupe buffer + 512 MiB))")
	f.BoolVar(&kj.Compare, "compare-kafka", false, "clean copies of the partition with Kafka's own cleaner (--kafka-libs) and with --profile's settings, --rounds times interleaved, and diff every segment file byte for byte")
	f.Var(settings.Count(&kj.Warmup), "kafka-warmup", "cleans of a throwaway copy Kafka's JVM does before the measured ones (its JIT warm)")
	f.Var(settings.Count(&kj.Rounds), "rounds", "with --compare-kafka: measured cleans of each side, interleaved")
	return cmd
}
