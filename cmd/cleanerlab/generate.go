package main

import (
	"errors"
	"github.com/cleanerlab/cleanerlab/settings"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/truthfile"
	"github.com/cleanerlab/cleanerlab/workloads"
)

func newGenerateCmd() *cobra.Command {
	spec := workloads.DefaultSpec()
	logCfg := engine.DefaultLogConfig()
	logCfg.SegmentBytes = spec.SegmentBytes
	var dir, truth string
	cmd := &cobra.Command{
		Use:  "generate --dir LOGDIR [--truth FILE] [workload flags]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return errors.New("generate: --dir is required")
			}
			spec.SegmentBytes = logCfg.SegmentBytes
			if truth == "" {
				truth = filepath.Clean(dir) + "-truth.txt"
			}
			res, err := workloads.GenerateContext(cmd.Context(), dir, spec, logCfg, nil)
			if err != nil {
				return err
			}
			if err := truthfile.Write(truth, res); err != nil {
				return err
			}
			truthfile.WriteSummary(cmd.OutOrStdout(), res, truth)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "log directory root to write the partitions into (created; the partition directories must not exist)")
	f.StringVar(&truth, "truth", "", "ground truth file to write (default LOGDIR-truth.txt)")
	workloadFlags(f, &spec)
	f.Var(settings.Bytes(&logCfg.SegmentBytes), "segment.bytes", "segment.bytes the log is written with (bytes)")
	f.Var(settings.Bytes(&logCfg.SegmentIndexBytes), "segment.index.bytes", "segment.index.bytes (bytes)")
	f.StringVar(&spec.Topic, "topic", spec.Topic, "topic name of the partition directories")
	return cmd
}
