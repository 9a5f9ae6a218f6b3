package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
)

func newVerifyCmd() *cobra.Command {
	var o lab.VerifyCommandOptions
	cmd := &cobra.Command{
		Use:   "verify --dir PARTITION_OR_LOG_DIR",
		Short: "Check a partition or every partition of a log directory: CRCs, offsets, indexes, and compaction below the checkpoint",
		Long: `verify opens a partition directory, or every partition directory of a log
directory root, read-only (nothing on disk changes, no lock is taken) and
checks every batch's CRC and records (magic 0/1 messages too, compressed
wrappers decoded), that offsets increase across batches and segments, that the
.index, .timeindex and .txnindex files agree with the log, that nothing would
be cut by recovery (without the clean-shutdown marker in the parent directory,
a torn tail after the recovery point is a problem: a read-write open would
truncate it), and, when the cleaner checkpoint in the root has an entry for
the partition (or --checkpoint is given, for one partition), that no key
appears twice below it (from the log start offset on). It lists every
problem with its file and byte position, one block per partition, and exits
2 when there is one. A log that needs recovery (leftover .cleaned, .swap or
.deleted files of an interrupted clean or swap, or a torn tail) is never OK:
each file is listed as RECOVERY PENDING with what a read-write open (such as
clean) would do to it, and verify exits 3 when that is all it found.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exitOnSignal.Store(true) // read-only: a signal exits at once
			return lab.VerifyCommand(o, cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&o.Dir, "dir", "", "partition directory (named topic-partition) or log directory root (the parent of partition directories)")
	cmd.Flags().Int64Var(&o.Checkpoint, "checkpoint", -1, "check that no key appears twice below this offset (-1: the cleaner checkpoint file's entry; one partition only)")
	cmd.Flags().BoolVar(&o.IgnoreCheckpoint, "ignore-checkpoint", false, "skip the compaction check")
	cmd.Flags().StringVar(&o.Truth, "truth", "", "also check every key's latest record against this ground truth file (from cleanerlab generate)")
	return cmd
}
