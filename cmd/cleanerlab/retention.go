package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

func newRetentionCmd() *cobra.Command {
	logCfg := engine.DefaultLogConfig()
	var dir string
	var nowMs, highWatermark optOffset
	deleteRecords := int64(-1)
	cmd := &cobra.Command{
		Use:   "retention --dir PARTITION_DIR",
		Short: "Apply Kafka's retention to one partition directory in place (delete old segments)",
		Long: `retention runs Kafka's UnifiedLog.deleteOldSegments over a partition directory,
in place: run it on a COPY of a real partition. With --cleanup.policy delete
(or compact,delete), segments go by --retention.ms and --retention.bytes;
whatever the policy, segments wholly below the log start offset go (the log
start offset comes from log-start-offset-checkpoint in the parent directory,
and --delete-records raises it first, as a DeleteRecords request would, up to
the high watermark). A walk stops at the first segment that may not go; when
every segment may go, an empty active segment is rolled first. Deleted
segments are renamed .deleted and removed after --file.delete.delay.ms (the
rest are removed by the next open). It prints each deleted segment and the
log start offset after.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("retention: --dir is required")
			}
			now := time.Now()
			if nowMs.set {
				now = time.UnixMilli(nowMs.v)
			}
			l, err := engine.Open(dir, engine.Options{Config: &logCfg, Now: func() time.Time { return now }})
			if err != nil {
				return err
			}
			defer l.Close()
			out := cmd.OutOrStdout()
			printRecovery(out, l.Recovery())
			if highWatermark.set {
				l.SetHighWatermark(record.Offset(highWatermark.v))
			}
			if cmd.Flags().Changed("delete-records") {
				before := l.LogStartOffset()
				lso, err := l.DeleteRecords(record.Offset(deleteRecords))
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%s: log start offset %d -> %d (delete records below %d)\n", l.TopicPartition(), before, lso, deleteRecords)
			}
			if !logCfg.Delete {
				fmt.Fprintf(out, "%s: cleanup.policy %s: only segments below the log start offset are deleted\n", l.TopicPartition(), (*cleanupPolicy)(&logCfg).String())
			}
			res, err := l.DeleteOldSegments(now)
			if err != nil {
				return err
			}
			if res.Rolled {
				fmt.Fprintf(out, "%s: every segment was deletable: rolled a new active segment first\n", l.TopicPartition())
			}
			for _, d := range res.Deleted {
				fmt.Fprintf(out, "%s: deleted segment %d (offsets [%d, %d), %d bytes, largest timestamp %d) by %s\n",
					l.TopicPartition(), d.BaseOffset, d.BaseOffset, d.NextOffset, d.SizeBytes, d.MaxTimestamp, d.Reason)
			}
			fmt.Fprintf(out, "%s: %d segments deleted; log start offset %d, log end offset %d, %d segments left\n",
				l.TopicPartition(), len(res.Deleted), res.LogStartOffset, l.LogEndOffset(), len(l.Segments()))
			return l.Close()
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "partition directory to apply retention to, in place (work on a copy)")
	f.Var(&nowMs, "now-ms", "the clock, ms since the epoch (not given: now)")
	f.Var(&highWatermark, "high-watermark", "high watermark: no segment at or above it is deleted, and --delete-records may not pass it (an offset >= 0; not given: the log end offset)")
	f.Var((*countValue)(&deleteRecords), "delete-records", "raise the log start offset to this offset first, as a DeleteRecords request (-1: to the high watermark; not given: no DeleteRecords)")
	logConfigFlags(f, &logCfg, nil)
	return cmd
}
