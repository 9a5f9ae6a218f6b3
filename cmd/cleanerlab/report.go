package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/shard"
)

func newReportCmd() *cobra.Command {
	var out, col, format string
	var merge bool
	cmd := &cobra.Command{
		Use:  "report [--out DIR] [--col KEY] PATH... | report --merge [--out DIR] [--format json] DIR...",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = lab.NewReportDir(time.Now())
			}
			if merge {
				if col != "" {
					return fmt.Errorf("report: --merge compares the host classes; --col is for other reports")
				}
				return shard.Report(cmd.OutOrStdout(), args, out, format)
			}
			if format != "text" {
				return fmt.Errorf("report: --format %s is for --merge", format)
			}
			return lab.Report(cmd.OutOrStdout(), args, out, col)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "directory of the report (default report-<UTC time>)")
	cmd.Flags().StringVar(&col, "col", "", "compare the values of this benchmark name key (hasher, map, keys, ...) instead of the PATHs")
	cmd.Flags().BoolVar(&merge, "merge", false, "the PATHs hold shard records (sweep --shard i/N): merge them into one sweep record per host class")
	cmd.Flags().StringVar(&format, "format", "text", "with --merge: text, or json (points, expected, missing, duplicated, failed, missing_shards, shards, classes)")
	return cmd
}
