package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newCleanCmd() *cobra.Command {
	o, kj := lab.DefaultCleanCommandOptions(), kafkajvm.DefaultCommandOptions()
	o.Recovery, o.ServeMetrics, o.WarnKeyless = inspect.WriteRecovery, steady.ServeManager, sizing.WarnKeyless
	var firstDirty, highWatermark, nowMs settings.OptionalOffset
	cmd := &cobra.Command{
		Use:  "clean --dir PARTITION_DIR|LOGDIR",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			o.Now, o.FirstDirty, o.HighWatermark = nowMs.Clock(), firstDirty.Offset(), highWatermark.Offset()
			o.Sources.Given, o.Changed, o.Progress = givenSettings(f), f.Changed, cmd.ErrOrStderr()
			o.Flags = settings.FlagsGiven(f, func(name string) bool { return name == lab.ProfileFlag || settings.CleanerRegistry.Knows(name) })
			kj.Profile, kj.Changed, kj.Given, kj.Stderr = f.Lookup("profile").Value.String(), f.Changed, settings.FlagsGiven(f, settings.CleanerRegistry.Knows), cmd.ErrOrStderr()
			o.Other = kj.Cleaner()
			return lab.CleanCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	lab.CleanFlags.Bind(f, &o)
	f.Var(&firstDirty, "first-dirty-offset", "start at this offset instead of the checkpoint (an offset >= 0; not given: the checkpoint)")
	f.Var(&highWatermark, "high-watermark", "high watermark bounding the clean (an offset >= 0; not given: the log end offset)")
	f.Var(&nowMs, "now-ms", "the cleaner's now for delete horizons and compaction lags, ms since the epoch (not given: the clock); timings always use the real clock")
	profileFlag(f, &o.Cleaner, kafkajvm.ProfileAlias, kafkajvm.ProfileDoc)
	kafkajvm.CleanFlags.Bind(f, &kj)
	return cmd
}
