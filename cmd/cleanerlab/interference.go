package main

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
)

func newInterferenceCmd() *cobra.Command {
	var o lab.InterferenceCommandOptions
	cmd := &cobra.Command{
		Use:   "interference [flags] -- COMMAND [ARGS...]",
		Short: "Run a command and say what else the machine did meanwhile: its CPU time, others' CPU, steal, PSI, and a quiet|busy|unusable verdict",
		Long: `Runs COMMAND (stdin, stdout and stderr passed through) and prints to stderr
the command's CPU time (it and its children, getrusage) and cores used, and
the machine's interference over the same interval: other processes' CPU,
steal, iowait, pressure stall information, the load; then the verdict by
--interference-thresholds. Exit status: the command's, or 3 with --fail-busy
when the verdict is busy or unusable. scripts/compare-commits.sh wraps each
benchmark round in it.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Args, o.Stdin, o.Stdout, o.Stderr = args, os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			return lab.InterferenceCommand(cmd.Context(), o)
		},
	}
	cmd.Flags().StringVar(&o.JSONOut, "json-out", "", "also write the interval (figures, verdict, thresholds) as JSON to this file")
	cmd.Flags().BoolVar(&o.FailBusy, "fail-busy", false, "exit 3 when the verdict is busy or unusable (the command itself succeeded)")
	return cmd
}
