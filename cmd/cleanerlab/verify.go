package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

func newVerifyCmd() *cobra.Command {
	var dir string
	var checkpoint int64
	var ignoreCheckpoint bool
	cmd := &cobra.Command{
		Use:   "verify --dir PARTITION_DIR",
		Short: "Check a partition directory: CRCs, offsets, indexes, and compaction below the checkpoint",
		Long: `verify opens a partition directory read-only (nothing on disk changes) and
checks every batch's CRC and records (magic 0/1 messages too, compressed
wrappers decoded), that offsets increase across batches and segments, that the
.index, .timeindex and .txnindex files agree with the log, that nothing would
be cut by recovery (without the clean-shutdown marker in the parent directory,
a torn tail after the recovery point is a problem: a read-write open would
truncate it), and, when
the cleaner checkpoint in the parent directory has an entry for the partition
(or --checkpoint is given), that no key appears twice below it (from the log
start offset on). It lists every problem with its file and byte position and
exits 2 when there is one. A log that needs recovery (leftover .cleaned, .swap
or .deleted files of an interrupted clean or swap, or a torn tail) is never
OK: each file is listed as RECOVERY PENDING with what a read-write open (such
as clean) would do to it, and verify exits 3 when that is all it found.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			rep, err := engine.Verify(dir, opts)
			out := cmd.OutOrStdout()
			if rep != nil && rep.Segments > 0 {
				ckpt := "none"
				if rep.CheckpointOffset >= 0 {
					ckpt = fmt.Sprint(rep.CheckpointOffset)
				}
				fmt.Fprintf(out, "%s: %d segments, %d bytes, offsets [%d, %d), %d batches (%d control, %d empty, %d legacy), %d records, %d keys, %d tombstones, %d keyless; %d offset-index, %d time-index and %d txn-index entries; checkpoint %s\n",
					rep.TopicPartition, rep.Segments, rep.Bytes, rep.LogStartOffset, rep.LogEndOffset, rep.Batches, rep.ControlBatches, rep.EmptyBatches, rep.LegacyBatches,
					rep.Records, rep.Keys, rep.Tombstones, rep.KeylessRecords, rep.OffsetIndexEntries, rep.TimeIndexEntries, rep.TxnIndexEntries, ckpt)
			}
			if rep != nil {
				for _, n := range rep.Notes {
					fmt.Fprintf(out, "note: %s\n", n)
				}
				for _, p := range rep.Problems {
					fmt.Fprintf(out, "PROBLEM %s\n", p)
				}
				for _, a := range rep.RecoveryPending {
					fmt.Fprintf(out, "RECOVERY PENDING %s\n", a)
				}
			}
			if err != nil {
				if rep != nil && len(rep.Problems) == 0 && errors.Is(err, engine.ErrRecoveryPending) {
					return exitError{code: 3, err: err}
				}
				return exitError{code: 2, err: err}
			}
			fmt.Fprintln(out, "OK")
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "partition directory (named topic-partition)")
	cmd.Flags().Int64Var(&checkpoint, "checkpoint", -1, "check that no key appears twice below this offset (-1: the cleaner checkpoint file's entry)")
	cmd.Flags().BoolVar(&ignoreCheckpoint, "ignore-checkpoint", false, "skip the compaction check")
	return cmd
}

// printRecovery prints what a read-write Open found and changed.
func printRecovery(w io.Writer, r *engine.RecoveryReport) {
	if r == nil {
		return
	}
	for _, t := range r.Truncations {
		fmt.Fprintf(w, "recovery: %s\n", t)
	}
	for _, p := range r.DeletedSegments {
		fmt.Fprintf(w, "recovery: deleted %s (after a torn tail)\n", p)
	}
	for _, p := range r.RemovedOrphans {
		fmt.Fprintf(w, "recovery: removed orphan index %s\n", p)
	}
}
