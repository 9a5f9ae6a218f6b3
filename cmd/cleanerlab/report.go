package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/shard"
)

func newReportCmd() *cobra.Command {
	o := shard.ReportFlags.Defaults()
	cmd := &cobra.Command{
		Use:  "report [--out DIR] [--col KEY] PATH... | report --merge [--out DIR] [--format json] DIR...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return shard.ReportCommand(cmd.OutOrStdout(), args, o) },
	}
	shard.ReportFlags.Bind(cmd.Flags(), &o)
	return cmd
}
