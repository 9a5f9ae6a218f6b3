package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/cleanerlab/cleanerlab/results/interference"
	"github.com/cleanerlab/cleanerlab/settings"
)

// InterferenceCommandOptions are the interference command's options.
type InterferenceCommandOptions struct {
	// Args are the command to run and its arguments.
	Args []string
	// JSONOut, when set, is the file the interval (figures, verdict,
	// thresholds) is written to as JSON.
	JSONOut string
	// FailBusy makes a busy or unusable verdict an error asking for exit
	// status 3.
	FailBusy bool
	// Stdin, Stdout and Stderr are the command's; the interference line
	// goes to Stderr.
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// InterferenceCommand runs o.Args, measures what else the machine did
// meanwhile (interference.MeasureCommand with Thresholds) and writes the
// verdict line to o.Stderr. A cancelled ctx reaches the command as
// SIGINT, so that it stops at its own safe point (a wrapped run removes
// its data); SIGKILL follows only if it has not ended 30 s later. The
// command's own exit status is asked for (ExitError) when it failed.
func InterferenceCommand(ctx context.Context, o InterferenceCommandOptions) error {
	c := exec.CommandContext(ctx, o.Args[0], o.Args[1:]...)
	c.Stdin, c.Stdout, c.Stderr = o.Stdin, o.Stdout, o.Stderr
	c.Cancel = func() error { return c.Process.Signal(os.Interrupt) }
	c.WaitDelay = 30 * time.Second
	iv, err := interference.MeasureCommand(c, "", Thresholds())
	if c.ProcessState == nil { // it never started: nothing was measured
		return fmt.Errorf("%s: %w", o.Args[0], err)
	}
	fmt.Fprintf(o.Stderr, "interference: %s; %s; %s\n", iv.VerdictText(), iv.CPUText(), iv.MachineText())
	if o.JSONOut != "" {
		js, jerr := json.MarshalIndent(iv, "", "  ")
		if jerr == nil {
			jerr = os.WriteFile(o.JSONOut, append(js, '\n'), 0o644)
		}
		if jerr != nil {
			return fmt.Errorf("--json-out %s: %w", o.JSONOut, jerr)
		}
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ExitError{Code: ee.ExitCode(), Err: fmt.Errorf("%s: %w", o.Args[0], err)}
	}
	if err != nil {
		return err
	}
	if o.FailBusy && (iv.Verdict == interference.Busy || iv.Verdict == interference.Unusable) {
		return ExitError{Code: 3, Err: fmt.Errorf("interference: %s", iv.VerdictText())}
	}
	return nil
}

// InterferenceFlags are the interference command's flags.
var InterferenceFlags = settings.MustRegistry(func() InterferenceCommandOptions { return InterferenceCommandOptions{} }, []settings.Setting[InterferenceCommandOptions]{
	settings.Flag("json-out", "also write the interval (figures, verdict, thresholds) as JSON to this file",
		func(o *InterferenceCommandOptions) settings.Value { return settings.String(&o.JSONOut) }),
	settings.Flag("fail-busy", "exit 3 when the verdict is busy or unusable (the command itself succeeded)",
		func(o *InterferenceCommandOptions) settings.Value { return settings.Bool(&o.FailBusy) }),
})
