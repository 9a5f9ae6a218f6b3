package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
)

func newVerifyCmd() *cobra.Command {
	var o lab.VerifyCommandOptions
	cmd := &cobra.Command{
		Use:  "verify --dir PARTITION_OR_LOG_DIR",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			labcli.ReadOnly() // read-only: a signal exits at once
			return lab.VerifyCommand(o, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", "", "partition directory (named topic-partition) or log directory root (the parent of partition directories)")
	cmd.Flags().Int64Var(&o.Checkpoint, "checkpoint", -1, "check that no key appears twice below this offset (-1: the cleaner checkpoint file's entry; one partition only)")
	cmd.Flags().BoolVar(&o.IgnoreCheckpoint, "ignore-checkpoint", false, "skip the compaction check")
	cmd.Flags().StringVar(&o.Truth, "truth", "", "also check every key's latest record against this ground truth file (from cleanerlab generate)")
	return cmd
}
