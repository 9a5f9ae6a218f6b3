package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

func newCleanCmd() *cobra.Command {
	logCfg := engine.DefaultLogConfig()
	cleanerCfg := engine.DefaultCleanerConfig()
	var dir string
	var force, roll, kafkaRecovery bool
	var metricsAddr string
	var firstDirty, highWatermark, nowMs int64
	var passes int
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

Given a log directory root (a directory holding topic-N partition
directories), clean works as a broker's cleaner threads do: the manager
opens every partition, then --log.cleaner.threads (--threads) threads each
take the filthiest compacted log (cleanable ratio above
min.cleanable.dirty.ratio, or past max.compaction.lag.ms), clean it, and run
the retention of the compacted logs, until no log needs cleaning. A log
whose data is corrupt is marked uncleanable and the others go on; an I/O
error takes the root offline. Every clean is printed, then Kafka's cleaner
metrics; the exit status is 1 when a partition could not be opened or
cleaned.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("clean: --dir is required")
			}
			// "." or a relative path: the directory's own name says topic-partition.
			if abs, err := filepath.Abs(dir); err == nil {
				dir = abs
			}
			if parts, err := engine.PartitionDirs(nil, dir); err == nil && len(parts) > 0 {
				if cmd.Flags().Changed("first-dirty-offset") || cmd.Flags().Changed("passes") || cmd.Flags().Changed("high-watermark") {
					return errors.New("clean: --first-dirty-offset, --passes and --high-watermark apply to one partition directory, not to a log directory")
				}
				return cleanLogDir(cmd, dir, logCfg, cleanerCfg, rootCleanOptions{force: force, roll: roll, nowMs: nowMs, kafkaRecovery: kafkaRecovery, metricsAddr: metricsAddr})
			}
			if passes < 1 {
				return fmt.Errorf("clean: --passes %d must be at least 1", passes)
			}
			// Read the checkpoint before changing anything, so that a bad one
			// leaves the directory as it was.
			if _, err := engine.ReadCheckpoint(nil, engine.CheckpointPath(dir)); err != nil {
				return err
			}
			l, err := engine.Open(dir, engine.Options{Config: &logCfg, KafkaRecoveryTruncation: kafkaRecovery})
			if err != nil {
				return err
			}
			defer l.Close()
			printRecovery(cmd.OutOrStdout(), l.Recovery())
			if roll {
				if err := l.Roll(); err != nil {
					return err
				}
			}
			if highWatermark >= 0 {
				l.SetHighWatermark(record.Offset(highWatermark))
			}
			opts := engine.CleanerOptions{}
			if nowMs >= 0 {
				opts.Now = func() time.Time { return time.UnixMilli(nowMs) }
			}
			c, err := engine.NewCleaner(cleanerCfg, opts)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for p := 0; p < passes; p++ {
				st, err := c.Clean(l, engine.CleanOptions{FirstDirtyOffset: record.Offset(firstDirty), OverrideFirstDirty: firstDirty >= 0, Force: force})
				if err != nil {
					return err
				}
				if !st.Cleaned() {
					fmt.Fprintf(out, "%s: not cleaned: %s\n", l.TopicPartition(), st.Skipped)
					break
				}
				printCleanTable(out, []*engine.CleanStats{st})
				fmt.Fprint(out, st.KafkaMessage(0))
				firstDirty = -1 // later passes continue from the checkpoint
				if !st.MapFull {
					break
				}
			}
			return l.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "partition directory, or log directory root of topic-N partition directories, to clean in place (work on a copy)")
	f.BoolVar(&force, "force", false, "clean even when the cleanable ratio is not above min.cleanable.dirty.ratio (a log directory: every log with cleanable bytes)")
	f.BoolVar(&roll, "roll", false, "roll the active segment first, so that all data is cleanable")
	f.StringVar(&metricsAddr, "metrics-addr", "", "with --dir LOGDIR: serve Kafka's cleaner metrics at /metrics for Prometheus at host:port while cleaning (\":PORT\" binds 127.0.0.1)")
	f.BoolVar(&kafkaRecovery, "kafka-recovery-truncation", false, "after an unclean shutdown, cut a bad segment tail even when later segments hold data, and delete those segments, as Kafka's LogLoader does (default: refuse, nothing changed)")
	f.Int64Var(&firstDirty, "first-dirty-offset", -1, "start at this offset instead of the checkpoint (-1: checkpoint)")
	f.Int64Var(&highWatermark, "high-watermark", -1, "high watermark bounding the clean (-1: log end offset)")
	f.Int64Var(&nowMs, "now-ms", -1, "the clock for delete horizons, ms since the epoch (-1: now)")
	f.IntVar(&passes, "passes", 1, "clean again while the offset map filled before the dirty range ended, up to this many times")
	logConfigFlags(f, &logCfg)
	cleanerConfigFlags(f, &cleanerCfg)
	return cmd
}

// printCleanTable prints the per-clean figures, one column per clean.
func printCleanTable(w io.Writer, stats []*engine.CleanStats) {
	for _, st := range stats {
		rows := cleanRows(st)
		fmt.Fprintf(w, "%s: cleaned [%d, %d), checkpoint %d\n", st.TopicPartition, st.LogToClean.FirstDirtyOffset, st.EndOffset, st.CheckpointOffset)
		for _, r := range rows {
			fmt.Fprintf(w, "  %-26s %14s %-8s %s\n", r.Name, r.Value, r.Unit, r.Meaning)
		}
	}
}

type figure struct{ Name, Value, Unit, Meaning string }

func cleanRows(st *engine.CleanStats) []figure {
	mib := func(n int64) string { return fmt.Sprintf("%.1f", float64(n)/(1<<20)) }
	secs := func(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }
	rate := func(n int64, d time.Duration) string {
		if d <= 0 {
			return "n/a"
		}
		return fmt.Sprintf("%.1f", float64(n)/(1<<20)/d.Seconds())
	}
	return []figure{
		{"cleanable ratio", fmt.Sprintf("%.4f", st.LogToClean.CleanableRatio), "", "cleanable bytes / (clean + cleanable bytes) before the clean"},
		{"log read", mib(st.BytesRead), "MiB", "bytes of segments recopied (all segments below the end offset)"},
		{"log written", mib(st.BytesWritten), "MiB", "bytes of cleaned segments written"},
		{"map read", mib(st.MapBytesRead), "MiB", "bytes of dirty segments read to build the offset map"},
		{"records read", fmt.Sprint(st.MessagesRead), "records", "records read while recopying"},
		{"records kept", fmt.Sprint(st.MessagesWritten), "records", "records written to cleaned segments"},
		{"throughput", rate(st.BytesRead, st.ElapsedTime()), "MiB/s", "log read / whole clean time (Kafka's \"MB/sec\")"},
		{"clean time", secs(st.ElapsedTime()), "s", "wall time of the whole clean"},
		{"map build time", secs(st.MapTime()), "s", "building the offset map"},
		{"copy time", secs(st.CopyTime()), "s", "recopying, fsync and swap"},
		{"fsync time", secs(st.SyncTime), "s", "inside fsync of cleaned segments"},
		{"map utilisation", fmt.Sprintf("%.1f", 100*st.BufferUtilization), "%", "keys in the map / map slots"},
		{"map keys", fmt.Sprint(st.MapEntries), "keys", fmt.Sprintf("of at most %d (slots x load factor)", st.MaxMapEntries)},
		{"map full", fmt.Sprint(st.MapFull), "", "the map filled before the dirty range ended: another clean is needed"},
		{"batches rebuilt", fmt.Sprint(st.BatchesRebuilt), "batches", "batches re-encoded because records went or a delete horizon was stamped"},
		{"batches dropped", fmt.Sprint(st.BatchesDropped), "batches", "batches with no record left"},
		{"segments cleaned", fmt.Sprintf("%d in %d groups", st.SegmentsCleaned, st.Groups), "", "segments recopied, and the cleaned segments they became"},
	}
}
