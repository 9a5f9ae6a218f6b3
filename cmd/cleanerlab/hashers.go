package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
)

func newHashersCmd() *cobra.Command {
	o := lab.HashersFlags.Defaults()
	cmd := &cobra.Command{
		Use:  "hashers [--keys N]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return lab.HashersCommand(cmd.OutOrStdout(), o) },
	}
	lab.HashersFlags.Bind(cmd.Flags(), &o)
	return cmd
}
