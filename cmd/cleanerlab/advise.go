package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/matrix"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
)

func newAdviseCmd() *cobra.Command {
	o, m := sizing.DefaultAdviseCommandOptions(), matrix.DefaultCommandOptions()
	cmd := &cobra.Command{
		Use:  "advise [--dir LOGDIR | --keys N --key-bytes N --value-bytes N ...]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Sources.Given, o.Changed, o.Log = givenSettings(cmd.Flags()), cmd.Flags().Changed, cmd.ErrOrStderr()
			return matrix.AdviseCommand(cmd.Context(), o, m, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	sizing.AdviseFlags.Bind(f, &o)
	matrix.Flags.Bind(f, &m)
	profileFlag(f, &o.Cleaner, nil)
	return cmd
}
