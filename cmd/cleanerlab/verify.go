package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
	"github.com/cleanerlab/cleanerlab/lab/truthfile"
)

func newVerifyCmd() *cobra.Command {
	var dir string
	var checkpoint int64
	var ignoreCheckpoint bool
	var truth string
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
			if dir == "" {
				return errors.New("verify: --dir is required")
			}
			if checkpoint < -1 {
				return fmt.Errorf("verify: --checkpoint %d: want an offset >= 0, or -1 for the checkpoint file's entry", checkpoint)
			}
			opts := engine.VerifyOptions{IgnoreCheckpoint: ignoreCheckpoint || checkpoint == 0}
			if checkpoint > 0 {
				opts.Checkpoint = record.Offset(checkpoint)
			}
			results, err := inspect.Verify(dir, opts)
			out := cmd.OutOrStdout()
			for _, r := range results {
				inspect.WriteVerifyResult(out, r)
			}
			if truth != "" {
				err = errors.Join(err, truthfile.Check(out, dir, truth))
			}
			if err != nil {
				if inspect.OnlyRecoveryPending(results) {
					return exitError{code: 3, err: err}
				}
				return exitError{code: 2, err: err}
			}
			fmt.Fprintln(out, "OK")
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "partition directory (named topic-partition) or log directory root (the parent of partition directories)")
	cmd.Flags().Int64Var(&checkpoint, "checkpoint", -1, "check that no key appears twice below this offset (-1: the cleaner checkpoint file's entry; one partition only)")
	cmd.Flags().BoolVar(&ignoreCheckpoint, "ignore-checkpoint", false, "skip the compaction check")
	cmd.Flags().StringVar(&truth, "truth", "", "also check every key's latest record against this ground truth file (from cleanerlab generate)")
	return cmd
}
