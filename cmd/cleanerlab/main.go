// Command cleanerlab generates Kafka-format logs, cleans them the way Kafka's
// log cleaner does, verifies the result and reports throughput, page-cache
// and disk counters. It only binds flags to the lab's packages: each
// command's flags come from its settings registry (settings.Bind), its help
// from lab/cli/help/, its run from one library call; signals are handled by
// lab/cli (the first stops at a safe point, exit 128 + its number; a second
// exits at once). "cleanerlab --help" lists the commands, "cleanerlab
// settings" every setting.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/settings"
)

func main() {
	os.Exit(cleanerlab(os.Args[1:], os.Stderr))
}

// cleanerlab runs the command line args and returns the exit status
// (labcli.Run: 0, 1 for an error, the status it asks for, or 128 + the
// number of a signal that stopped it).
func cleanerlab(args []string, stderr io.Writer) int {
	root := newRootCmd()
	root.SetArgs(args)
	return labcli.Run(root.ExecuteContext, stderr)
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "cleanerlab",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SuggestionsMinimumDistance = 2
	var m labcli.Machine
	labcli.MachineFlags.Bind(root.PersistentFlags(), &m)
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		for _, w := range settings.ProfileWarnings(cmd.Flags()) {
			fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
		}
		return m.Apply()
	}
	root.AddCommand(newRunCmd(), newCleanCmd(), newDumpCmd(), newVerifyCmd(), newRetentionCmd(), newHashersCmd(), newSweepCmd(), newReportCmd(), newBaselineCmd(), newPlanCmd(), newAdviseCmd(), newGenerateCmd(), newReplicasCmd(), newSteadyCmd(), newInterferenceCmd(), newFaultsCmd(), newSettingsCmd())
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		return labcli.FlagError(err, names, cmd.Name())
	})
	describe(root, "")
	return root
}

// describe sets the Short and Long help of c and the commands under it
// from their help files (labcli.Help of the path under cleanerlab joined
// by dashes, prefix and c's name: "run", "replicas-campaign"; the root's
// is "cleanerlab").
func describe(c *cobra.Command, prefix string) {
	name := prefix + c.Name()
	if short, long, ok := labcli.Help(name); ok {
		c.Short, c.Long = short, long
	}
	if c.HasParent() {
		prefix = name + "-"
	}
	for _, sub := range c.Commands() {
		describe(sub, prefix)
	}
}
