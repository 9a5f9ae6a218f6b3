// Command cleanerlab generates Kafka-format logs, cleans them the way Kafka's
// log cleaner does, verifies the result and reports throughput, page-cache
// and disk counters. It only binds flags to the lab's packages. Subcommands:
//
//	run        generate a log, clean it, verify it and report (the main job)
//	sweep      run the cross product of parameter lists, each point --count times, and report
//	report     render sweeps and runs to Markdown and HTML; compare sets with benchstat's statistics
//	baseline   measure the data directory's device (O_DIRECT, from a cold cache) and memory copy bandwidth
//	clean      clean a partition directory or every compacted partition of a log directory in place, as Kafka would
//	retention  apply Kafka's retention to one partition directory in place
//	dump       print the files of a partition or a whole log directory (segments, indexes, checkpoints; package lab/inspect)
//	verify     check a partition or every partition of a log directory, read-only (package lab/inspect, engine.Verify)
//	hashers    list the offset map's hashers and layouts: density and collision risk
//
// "cleanerlab COMMAND --help" gives each one's flags.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "cleanerlab:", err)
		var ee exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "cleanerlab",
		Short: "A benchmark and tuning lab for Kafka-style log compaction on real disks",
		Long: `cleanerlab writes Kafka-format (record batch v2) segment files, cleans them with
a cleaner faithful to Kafka's LogCleaner, verifies the result against the
workload's ground truth and reports throughput, page-cache and disk counters.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newRunCmd(), newCleanCmd(), newDumpCmd(), newVerifyCmd(), newRetentionCmd(), newHashersCmd(), newSweepCmd(), newReportCmd(), newBaselineCmd(), newSteadyCmd())
	return root
}

// exitError carries a specific exit status (e.g. 2 for verification failures).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string { return e.err.Error() }
func (e exitError) Unwrap() error { return e.err }
