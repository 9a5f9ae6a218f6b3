package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/truthfile"
)

func newGenerateCmd() *cobra.Command {
	o := truthfile.DefaultGenerateCommandOptions()
	cmd := &cobra.Command{
		Use:  "generate --dir LOGDIR [--truth FILE] [workload flags]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return truthfile.GenerateCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	truthfile.GenerateFlags.Bind(cmd.Flags(), &o)
	return cmd
}
