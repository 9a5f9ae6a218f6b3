package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newRetentionCmd() *cobra.Command {
	o := lab.RetentionFlags.Defaults()
	o.Recovery = inspect.WriteRecovery
	var nowMs, highWatermark settings.OptionalOffset
	deleteRecords := int64(-1)
	cmd := &cobra.Command{
		Use:  "retention --dir PARTITION_DIR|LOGDIR",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Now, o.HighWatermark, o.Sources.Given = nowMs.Clock(), highWatermark.Offset(), givenSettings(cmd.Flags())
			if cmd.Flags().Changed("delete-records") {
				d := record.Offset(deleteRecords)
				o.DeleteRecords = &d
			}
			return lab.RetentionCommand(o.Dir, o.Sources, o.RetentionOptions, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	lab.RetentionFlags.Bind(f, &o)
	f.Var(&nowMs, "now-ms", "the clock, ms since the epoch (not given: now)")
	f.Var(&highWatermark, "high-watermark", "high watermark: no segment at or above it is deleted, and --delete-records may not pass it (an offset >= 0; not given: the log end offset)")
	f.Var(settings.Count(&deleteRecords), "delete-records", "raise the log start offset to this offset first, as a DeleteRecords request (-1: to the high watermark; not given: no DeleteRecords)")
	return cmd
}
