package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
)

func newInterferenceCmd() *cobra.Command {
	var o lab.InterferenceCommandOptions
	cmd := &cobra.Command{
		Use:  "interference [flags] -- COMMAND [ARGS...]",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Args, o.Stdin, o.Stdout, o.Stderr = args, os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return lab.InterferenceCommand(cmd.Context(), o)
		},
	}
	lab.InterferenceFlags.Bind(cmd.Flags(), &o)
	return cmd
}
