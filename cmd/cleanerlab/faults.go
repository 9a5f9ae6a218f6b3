package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/faults"
)

func newFaultsCmd() *cobra.Command {
	o := faults.DefaultCommandOptions()
	cmd := &cobra.Command{
		Use:  "faults",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ew := cmd.ErrOrStderr()
			o.Log = func(format string, args ...any) { fmt.Fprintf(ew, format, args...) }
			return faults.Command(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	faults.Flags.Bind(cmd.Flags(), &o)
	return cmd
}
