package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/truthfile"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

func newGenerateCmd() *cobra.Command {
	spec := workloads.DefaultSpec()
	logCfg := engine.DefaultLogConfig()
	logCfg.SegmentBytes = spec.SegmentBytes
	var dir, truth string
	cmd := &cobra.Command{
		Use:   "generate --dir LOGDIR [--truth FILE] [workload flags]",
		Short: "Write a workload's log (not cleaned) and its ground truth as a file",
		Long: `generate writes the logs run would clean (a clean, compacted base and a dirty
head at --dirty-ratio, the cleaner-offset-checkpoint at the boundary) under
--dir, without cleaning them, and the ground truth (every key's latest
record) to --truth (default LOGDIR-truth.txt beside it). Clean the logs with
anything, then check them with cleanerlab verify --dir PARTITION_OR_LOGDIR --truth FILE.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("generate: --dir is required")
			}
			spec.SegmentBytes = logCfg.SegmentBytes
			if truth == "" {
				truth = filepath.Clean(dir) + "-truth.txt"
			}
			res, err := workloads.Generate(dir, spec, logCfg, nil)
			if err != nil {
				return err
			}
			if err := truthfile.Write(truth, res); err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			for i, d := range res.Dirs {
				fmt.Fprintf(out, "%s: %s clean base + %s dirty head, first dirty offset %d, log end offset %d\n", d,
					results.FormatBytes(res.CleanBytes[i]), results.FormatBytes(res.DirtyBytes[i]), res.FirstDirtyOffsets[i], res.LogEndOffsets[i])
			}
			fmt.Fprintf(out, "%d records (%d tombstones) in %d batches, %s; checkpoint %s\n", res.Records, res.Tombstones, res.Batches, results.FormatBytes(res.Bytes), res.CheckpointPath)
			fmt.Fprintf(out, "ground truth: %s\n", truth)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "log directory root to write the partitions into (created; the partition directories must not exist)")
	f.StringVar(&truth, "truth", "", "ground truth file to write (default LOGDIR-truth.txt)")
	workloadFlags(f, &spec)
	f.Var((*byteSize)(&logCfg.SegmentBytes), "segment.bytes", "segment.bytes the log is written with (bytes)")
	f.Int64Var(&logCfg.SegmentIndexBytes, "segment.index.bytes", logCfg.SegmentIndexBytes, "segment.index.bytes (bytes)")
	f.StringVar(&spec.Topic, "topic", spec.Topic, "topic name of the partition directories")
	return cmd
}

// verifyTruth is verify --truth: every key's latest record of the partition
// dir against a ground truth file of cleanerlab generate.
func verifyTruth(w io.Writer, dir, truth string) error {
	rep, err := truthfile.Verify(dir, truth)
	if rep != nil {
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "PROBLEM %s\n", p)
		}
		if err == nil {
			fmt.Fprintf(w, "truth %s: %d keys (%d tombstones) of %d partition(s): every latest record read as written\n", truth, rep.Keys, rep.Tombstones, rep.Partitions)
		}
	}
	return err
}
