package main

import (
	"github.com/spf13/cobra"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/replicas"
)

func newReplicasExploreCmd() *cobra.Command {
	o := replicas.DefaultExploreOptions()
	o.AtHardExit = labcli.AtHardExit
	cmd := &cobra.Command{
		Use:  "explore",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Progress = cmd.ErrOrStderr()
			return replicas.ExploreCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	replicas.ExploreSettings.Bind(cmd.Flags(), &o)
	return cmd
}
