package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newRetentionCmd() *cobra.Command {
	logCfg := engine.DefaultLogConfig()
	var dir string
	var acceptTruncated bool
	var nowMs, highWatermark settings.OptionalOffset
	deleteRecords := int64(-1)
	var tc topicconfig.Sources
	cmd := &cobra.Command{
		Use:   "retention --dir PARTITION_DIR|LOGDIR",
		Short: "Apply Kafka's retention to a partition directory, or every partition of a log directory, in place (delete old segments)",
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
log start offset after.

Given a log directory root, it does so for every partition directory, each
with its topic's config (--server-config, --topic-config, the metadata log);
a partition without segment files is skipped and said to be; one that fails
is reported and the others go on (exit 1). --delete-records and
--high-watermark apply to one partition directory only.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o := lab.RetentionOptions{Log: logCfg, Now: nowMs.Clock(), HighWatermark: highWatermark.Offset(), Recovery: inspect.WriteRecovery, AcceptTruncated: acceptTruncated}
			if cmd.Flags().Changed("delete-records") {
				d := record.Offset(deleteRecords)
				o.DeleteRecords = &d
			}
			tc.Given = givenSettings(cmd.Flags())
			return lab.RetentionCommand(dir, tc, o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "partition directory, or log directory root of topic-N partition directories, to apply retention to, in place (work on a copy)")
	f.Var(&nowMs, "now-ms", "the clock, ms since the epoch (not given: now)")
	f.BoolVar(&acceptTruncated, "accept-truncated-segments", false, "open a segment whose index files prove that its .log lost data, as it is (default: refuse it, naming the file, nothing changed)")
	f.Var(&highWatermark, "high-watermark", "high watermark: no segment at or above it is deleted, and --delete-records may not pass it (an offset >= 0; not given: the log end offset)")
	f.Var(settings.Count(&deleteRecords), "delete-records", "raise the log start offset to this offset first, as a DeleteRecords request (-1: to the high watermark; not given: no DeleteRecords)")
	logConfigFlags(f, &logCfg)
	bindSources(f, &tc)
	return cmd
}
