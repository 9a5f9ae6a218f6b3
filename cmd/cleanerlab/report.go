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
		Use:   "report [--out DIR] [--col KEY] PATH... | report --merge [--out DIR] [--format json] DIR...",
		Short: "Render sweeps and runs to Markdown and HTML with plots; compare sets with benchstat's statistics",
		Long: `report renders what each PATH holds, and compares them:

  a sweep directory (sweep.json)       its results table and plots
  a run directory (run.json)           its benchmark line
  a directory of those (e.g. runs/)    every sweep and run under it
  a benchmark file (bench.txt, or the output of go test -bench)

into DIR/report.md and DIR/report.html (default DIR: report-<UTC time>),
with the plots regenerated under DIR/plots/. With two or more PATHs, each
is one set of benchmark results, and the report compares them as benchstat
does (golang.org/x/perf/benchmath: median and 95% confidence interval per
set; against the first set, the change of the median when the Mann-Whitney
U test gives p < 0.05). --col KEY instead compares the values of one name
key within all the results, as benchstat -col /KEY (e.g. --col hasher).
The comparison is also printed.

--merge DIR... merges the records of a sharded sweep (sweep --shard i/N;
each DIR a shard's record or a directory holding them) into DIR/report.md,
merge.json and one merged sweep record per host class (class-N/: CPU model,
disk model, file system and kernel alike), compared side by side. It
refuses a shard of another sweep and two complete records of one shard;
runs no shard reported are listed missing, with the shards to re-run, and
the report still renders. --format json prints the merge's summary.`,
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
