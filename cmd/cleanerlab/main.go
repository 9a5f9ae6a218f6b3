// Command cleanerlab generates Kafka-format logs, cleans them the way Kafka's
// log cleaner does, verifies the result and reports throughput, page-cache
// and disk counters. Subcommands: run, clean, dump, verify, retention.
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
