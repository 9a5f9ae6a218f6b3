package main

import (
	"github.com/spf13/cobra"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
)

func newDumpCmd() *cobra.Command {
	var o inspect.DumpCommandOptions
	cmd := &cobra.Command{
		Use:  "dump (--dir PARTITION_OR_LOG_DIR | --file FILE)",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			labcli.ReadOnly() // a signal exits at once
			return inspect.DumpCommand(cmd.OutOrStdout(), o.Dir, o.File, o.Indexes, o.Options)
		},
	}
	inspect.DumpFlags.Bind(cmd.Flags(), &o)
	return cmd
}
