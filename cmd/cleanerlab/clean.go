package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newCleanCmd() *cobra.Command {
	logCfg := engine.DefaultLogConfig()
	cleanerCfg := engine.DefaultCleanerConfig()
	var dir string
	var force, roll, kafkaRecovery, acceptTruncated bool
	var metricsAddr string
	var firstDirty, highWatermark, nowMs optOffset
	passes := 1
	var tc topicconfig.Sources
	var kj kafkaJVMFlags
	cmd := &cobra.Command{
		Use:   "clean --dir PARTITION_DIR|LOGDIR",
		Short: "Clean a Kafka partition directory, or every compacted partition of a log directory, in place, as Kafka's log cleaner would",
		Long: `clean runs Kafka's cleaner over a partition directory (named topic-partition),
in place: run it on a COPY of a real partition. The first dirty offset comes
from the cleaner-offset-checkpoint file in the directory's parent (the log
directory root), which is updated afterwards, as a broker does. The active
segment is never cleaned (use --roll to make the data in it cleanable), nor
anything at or past the last stable offset (an open transaction), and a
log whose cleanable ratio is not above min.cleanable.dirty.ratio is left alone
unless --force. Corrupt input stops the clean with an error naming the file
and byte position; the log is left as it was.

The clean is timed as a broker runs one: the log is opened (recovery, the
producer state loaded) and the cleaner's dedupe buffer allocated and
pre-faulted first, each on its own row (log open, map allocate, map
pre-fault), outside the clean's time, so that Kafka's log line (seconds,
MB/sec) covers the clean alone, as a broker would log it.

Given a log directory root (a directory holding topic-N partition
directories), clean works as a broker's cleaner threads do: the manager
opens every partition, then --log.cleaner.threads (--threads) threads each
take the filthiest compacted log (cleanable ratio above
min.cleanable.dirty.ratio, or past max.compaction.lag.ms), clean it, and run
the retention of the compacted logs, until no log needs cleaning. A log
whose data is corrupt is marked uncleanable and the others go on; an I/O
error takes the root offline. Every clean is printed, then Kafka's cleaner
metrics; the exit status is 1 when a partition could not be opened or
cleaned.

A segment before the last whose index files prove that its .log lost data
(offset-index entries past the .log's end, a time-index entry for an offset
it no longer holds) is refused, naming the file, and nothing of its
partition is changed; --accept-truncated-segments goes on with it as it is.

SIGINT or SIGTERM stops at a safe point: the clean in progress is aborted
at its next read (its log left as it was, the groups already swapped in
complete), and the command exits 130 or 143.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("clean: --dir is required")
			}
			var err error
			if dir, err = existingDir("clean", dir); err != nil {
				return err
			}
			for _, w := range cleanerCfg.IgnoredSettings() {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
			}
			o := lab.CleanOptions{Log: logCfg, Cleaner: cleanerCfg, Force: force, Roll: roll, KafkaRecovery: kafkaRecovery,
				AcceptTruncated: acceptTruncated, Now: nowMs.clock(), Passes: passes, Recovery: inspect.WriteRecovery}
			tc.Given = givenSettings(cmd.Flags())
			logFor, set, err := tc.LogConfigs(dir)
			if err != nil {
				return err
			}
			if logFor != nil {
				o.LogFor = logFor
				o.PolicySource = func(tp engine.TopicPartition) string {
					if cmd.Flags().Changed("cleanup.policy") {
						return "--cleanup.policy"
					}
					res, err := set.For(tp.Topic)
					if err != nil {
						return ""
					}
					return string(res.PolicySource)
				}
				if tp, err := engine.ParseTopicPartition(filepath.Base(dir)); err == nil {
					if o.Log, err = logFor(tp); err != nil {
						return err
					}
				}
			}
			if !cmd.Flags().Changed("cleanup.policy") {
				sizing.WarnKeyless(cmd.OutOrStdout(), dir, set, cleanerCfg)
			}
			if kj.compare || kj.profile() == kafkajvm.ProfileName {
				return kj.run(cmd, dir, o)
			}
			if parts, err := engine.PartitionDirs(nil, dir); err == nil && len(parts) > 0 {
				if cmd.Flags().Changed("first-dirty-offset") || cmd.Flags().Changed("passes") || cmd.Flags().Changed("high-watermark") {
					return errors.New("clean: --first-dirty-offset, --passes and --high-watermark apply to one partition directory, not to a log directory")
				}
				if metricsAddr != "" {
					o.Serve = func(m *engine.CleanerManager) (func(), error) {
						srv, err := steady.ServeMetrics(metricsAddr, steady.ManagerCollector{M: m})
						if err != nil {
							return nil, err
						}
						fmt.Fprintf(cmd.ErrOrStderr(), "serving Prometheus metrics at http://%s/metrics\n", srv.Addr())
						return func() { srv.Close() }, nil
					}
				}
				return lab.CleanLogDir(cmd.Context(), cmd.OutOrStdout(), dir, o)
			}
			if passes < 1 {
				return fmt.Errorf("clean: --passes %d must be at least 1", passes)
			}
			o.FirstDirty, o.HighWatermark = firstDirty.offset(), highWatermark.offset()
			return lab.CleanPartition(cmd.Context(), cmd.OutOrStdout(), dir, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "partition directory, or log directory root of topic-N partition directories, to clean in place (work on a copy)")
	f.BoolVar(&force, "force", false, "clean even when the cleanable ratio is not above min.cleanable.dirty.ratio (a log directory: every log with cleanable bytes)")
	f.BoolVar(&roll, "roll", false, "roll the active segment first, so that all data is cleanable")
	f.StringVar(&metricsAddr, "metrics-addr", "", "with --dir LOGDIR: serve Kafka's cleaner metrics at /metrics for Prometheus at host:port while cleaning (\":PORT\" binds 127.0.0.1)")
	f.BoolVar(&kafkaRecovery, "kafka-recovery-truncation", false, "after an unclean shutdown, cut a bad segment tail even when later segments hold data, and delete those segments, as Kafka's LogLoader does (default: refuse, nothing changed)")
	f.BoolVar(&acceptTruncated, "accept-truncated-segments", false, "open and clean a segment whose index files prove that its .log lost data, as it is (default: refuse it, naming the file, nothing changed)")
	f.Var(&firstDirty, "first-dirty-offset", "start at this offset instead of the checkpoint (an offset >= 0; not given: the checkpoint)")
	f.Var(&highWatermark, "high-watermark", "high watermark bounding the clean (an offset >= 0; not given: the log end offset)")
	f.Var(&nowMs, "now-ms", "the cleaner's now for delete horizons and compaction lags, ms since the epoch (not given: the clock); timings always use the real clock")
	f.Var(settings.Count(&passes), "passes", "clean again while the offset map filled before the dirty range ended, up to this many times")
	logConfigFlags(f, &logCfg)
	cleanerConfigFlags(f, &cleanerCfg)
	bindSources(f, &tc)
	kj.bind(f)
	return cmd
}

// kafkaJVMFlags are clean's flags of Kafka's own cleaner (lab/kafkajvm).
type kafkaJVMFlags struct {
	f              *pflag.FlagSet
	libs, javaOpts string
	compare        bool
	warmup, rounds int
}

func (k *kafkaJVMFlags) bind(f *pflag.FlagSet) {
	k.f, k.warmup, k.rounds = f, 1, 1
	f.Lookup("profile").Value.(*cleanerProfile).jvmOK = true
	f.StringVar(&k.libs, "kafka-libs", os.Getenv("CLEANERLAB_KAFKA_LIBS"), "Kafka's classes for --profile kafka-jvm and --compare-kafka: the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output (default $CLEANERLAB_KAFKA_LIBS)")
	f.StringVar(&k.javaOpts, "kafka-java-opts", "", "the JVM options of Kafka's cleaner, blank-separated (default: a broker's G1 options and a pre-touched heap of max(1 GiB, dedupe buffer + 512 MiB))")
	f.BoolVar(&k.compare, "compare-kafka", false, "clean copies of the partition with Kafka's own cleaner (--kafka-libs) and with --profile's settings, --rounds times interleaved, and diff every segment file byte for byte")
	f.Var(settings.Count(&k.warmup), "kafka-warmup", "cleans of a throwaway copy Kafka's JVM does before the measured ones (its JIT warm)")
	f.Var(settings.Count(&k.rounds), "rounds", "with --compare-kafka: measured cleans of each side, interleaved")
}

func (k *kafkaJVMFlags) profile() string { return k.f.Lookup("profile").Value.String() }

func (k *kafkaJVMFlags) run(cmd *cobra.Command, dir string, o lab.CleanOptions) error {
	for _, n := range []string{"first-dirty-offset", "passes", "high-watermark", "roll", "metrics-addr"} {
		if k.f.Changed(n) {
			return fmt.Errorf("clean: --%s is not supported with --profile kafka-jvm or --compare-kafka", n)
		}
	}
	ko := kafkajvm.CleanOptions{Libs: k.libs, Lab: o, OurProfile: k.profile(), CleanedIndexGiven: k.f.Changed("cleaned-index"),
		Warmup: k.warmup, Rounds: k.rounds, Stderr: cmd.ErrOrStderr()}
	if k.javaOpts != "" {
		ko.JavaOpts = strings.Fields(k.javaOpts)
	}
	if ko.OurProfile == "" || ko.OurProfile == kafkajvm.ProfileName {
		ko.OurProfile = engine.ProfileKafka
	}
	if k.compare {
		return kafkajvm.Compare(cmd.Context(), cmd.OutOrStdout(), dir, ko)
	}
	return kafkajvm.CleanPartition(cmd.Context(), cmd.OutOrStdout(), dir, ko)
}

// optOffset is a flag of a non-negative offset or time in ms that may be
// left out: a negative value is refused, naming the flag, rather than read
// as "not given".
type optOffset struct {
	v   int64
	set bool
}

func (o *optOffset) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}
func (o *optOffset) Type() string { return "offset" }
func (o *optOffset) Set(s string) error {
	v, err := lab.ParseCount(s)
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("%d is negative: want a value >= 0 (leave the flag out for the default)", v)
	}
	o.v, o.set = v, true
	return nil
}

// clock is the fixed clock at o ms, or nil (the real clock) when not given.
func (o optOffset) clock() func() time.Time {
	if !o.set {
		return nil
	}
	ms := o.v
	return func() time.Time { return time.UnixMilli(ms) }
}

// offset is o as a record offset, nil when not given.
func (o optOffset) offset() *record.Offset {
	if !o.set {
		return nil
	}
	v := record.Offset(o.v)
	return &v
}
