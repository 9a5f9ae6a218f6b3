package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
)

func newBaselineCmd() *cobra.Command {
	o := lab.DefaultBaselineCommandOptions()
	cmd := &cobra.Command{
		Use:  "baseline",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return lab.BaselineCommand(cmd.Context(), cmd.OutOrStdout(), o.Dir, o.Out, o.BaselineOptions, cmd.Flags().Changed)
		},
	}
	lab.BaselineFlags.Bind(cmd.Flags(), &o)
	return cmd
}
