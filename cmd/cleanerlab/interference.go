package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

func newInterferenceCmd() *cobra.Command {
	var jsonOut string
	var failBusy bool
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
			c := exec.CommandContext(cmd.Context(), args[0], args[1:]...)
			c.Stdin, c.Stdout, c.Stderr = os.Stdin, cmd.OutOrStdout(), cmd.ErrOrStderr()
			// A signal to cleanerlab reaches the command as SIGINT, so that it
			// stops at its own safe point (a wrapped run removes its data);
			// SIGKILL only if it has not ended 30 s later.
			c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
			c.WaitDelay = 30 * time.Second
			iv, err := interference.MeasureCommand(c, "", lab.Thresholds())
			if c.ProcessState == nil { // it never started: nothing was measured
				return fmt.Errorf("%s: %w", args[0], err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "interference: %s; %s; %s\n", iv.VerdictText(), iv.CPUText(), iv.MachineText())
			if err := writeJSONOut(jsonOut, iv); err != nil {
				return err
			}
			var ee *exec.ExitError
			if errors.As(err, &ee) {
				return exitError{code: ee.ExitCode(), err: fmt.Errorf("%s: %w", args[0], err)}
			}
			if err != nil {
				return err
			}
			if failBusy && (iv.Verdict == interference.Busy || iv.Verdict == interference.Unusable) {
				return exitError{code: 3, err: fmt.Errorf("interference: %s", iv.VerdictText())}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&jsonOut, "json-out", "", "also write the interval (figures, verdict, thresholds) as JSON to this file")
	cmd.Flags().BoolVar(&failBusy, "fail-busy", false, "exit 3 when the verdict is busy or unusable (the command itself succeeded)")
	return cmd
}

// writeJSONOut writes v, indented, to path (a --json-out flag's file);
// nothing when path is "". Errors name the flag and the file.
func writeJSONOut(path string, v any) error {
	if path == "" {
		return nil
	}
	js, err := json.MarshalIndent(v, "", "  ")
	if err == nil {
		err = os.WriteFile(path, append(js, '\n'), 0o644)
	}
	if err != nil {
		return fmt.Errorf("--json-out %s: %w", path, err)
	}
	return nil
}
