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
		Use:  "retention --dir PARTITION_DIR|LOGDIR",
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
	topicconfig.SourcesFlags.Bind(f, &tc)
	return cmd
}
