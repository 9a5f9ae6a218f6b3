package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newSteadyCmd() *cobra.Command {
	o := steady.DefaultOptions()
	cmd := &cobra.Command{
		Use:  "steady",
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
	profileFlag(f, &o.Cleaner, nil)
	f.StringVar(&o.MetricsAddr, "metrics-addr", "", "serve /metrics for Prometheus at host:port while running (\":PORT\" binds 127.0.0.1)")
	f.StringVar(&o.FromAdvice, "from-advice", "", "advise --format json output: take its dedupe_buffer_bytes, threads and io_buffer_bytes (flags given win) and set its predicted mean and peak dirty ratio, max compaction delay and falls_behind beside what the run measured")
	f.StringVar(&o.Parent, "dir", "", "log directory root on the disk under test (a fresh cleanerlab-* directory is made in it; default the OS temp dir), removed afterwards unless --keep")
	f.BoolVar(&o.Keep, "keep", false, "keep the logs")
	f.StringVar(&o.Out, "out", o.Out, "directory of run records")
	f.BoolVar(&o.Quiet, "quiet", false, "do not print a line per sample")
	return cmd
}
