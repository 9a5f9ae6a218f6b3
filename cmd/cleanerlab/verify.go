package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
)

func newVerifyCmd() *cobra.Command {
	o := lab.VerifyFlags.Defaults()
	cmd := &cobra.Command{
		Use:  "verify --dir PARTITION_OR_LOG_DIR",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			labcli.ReadOnly() // read-only: a signal exits at once
			return lab.VerifyCommand(o, cmd.OutOrStdout())
		},
	}
	lab.VerifyFlags.Bind(cmd.Flags(), &o)
	return cmd
}
