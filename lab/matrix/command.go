package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/cleanerlab/cleanerlab/lab/sizing"
)

// CommandOptions are advise --validate --matrix's options, as its flags
// give them.
type CommandOptions struct {
	// Spec is "default" (the shipped matrix) or a YAML file of rows; ""
	// (no --matrix): advise for one workload.
	Spec string
	// Out is the directory of the record; "": <calibration out>/advise-matrix-<UTC time>.
	Out string
	// Rows, when set, are the only rows run.
	Rows []string
	// SteadyDuration, SteadyWarmup and SteadyLogBytes shape each row's
	// steady run (Options).
	SteadyDuration time.Duration
	SteadyWarmup   time.Duration
	SteadyLogBytes int64
	// Recalibrate interleaves a calibration run with each validation
	// repetition.
	Recalibrate bool
}

// DefaultCommandOptions are advise's matrix defaults: 4 s steady runs of
// 8 MiB logs, recalibrated.
func DefaultCommandOptions() CommandOptions {
	return CommandOptions{SteadyDuration: 4 * time.Second, SteadyLogBytes: 8 << 20, Recalibrate: true}
}

// rowFlags are advise's flags that describe one workload, which a matrix's
// rows give instead.
var rowFlags = append(append([]string(nil), sizing.WorkloadFlags...), "write-rate", "disks")

// AdviseCommand is the advise command: with m.Spec, advise --validate
// --matrix (Run over the matrix's rows, the record written under m.Out
// and the table or JSON to out); else sizing.AdviseCommand of a.
func AdviseCommand(ctx context.Context, a sizing.AdviseCommandOptions, m CommandOptions, out io.Writer) error {
	if m.Spec == "" {
		return sizing.AdviseCommand(ctx, a, out)
	}
	_, cc, err := a.Prepare()
	if err != nil {
		return err
	}
	changed := func(name string) bool { return a.Changed != nil && a.Changed(name) }
	if !a.Validate {
		return errors.New("advise: --matrix needs --validate")
	}
	if a.Dir != "" {
		return errors.New("advise: --matrix checks the matrix's workloads, not --dir")
	}
	for _, name := range rowFlags {
		if changed(name) {
			return fmt.Errorf("advise: --%s describes one workload; with --matrix each row gives its own", name)
		}
	}
	cal := a.Calibration
	if cal.None {
		return errors.New("advise: --matrix needs a calibration (drop --no-calibration)")
	}
	if m.SteadyDuration <= 0 {
		return fmt.Errorf("advise: --matrix-steady-duration %v: want a duration above 0", m.SteadyDuration)
	}
	mx, err := Load(m.Spec)
	if err != nil {
		return err
	}
	logw := a.Log
	if logw == nil {
		logw = io.Discard
	}
	o := Options{Dir: cal.Dir, Cleaner: cc, Cores: a.Cores, Recalibrate: m.Recalibrate,
		Calibrate:      sizing.CalibrateOptions{Out: cal.Out, Dir: cal.Dir, LogBytes: cal.LogBytes, Runs: cal.Runs, MaxAge: cal.MaxAge, Force: cal.Calibrate},
		SteadyLogBytes: m.SteadyLogBytes, SteadyDuration: m.SteadyDuration, SteadyWarmup: m.SteadyWarmup, Only: m.Rows, Log: sizing.Logf(logw)}
	if changed("validate-log-bytes") {
		o.ValidateLogBytes = a.ValidateLogBytes
	}
	if changed("validate-runs") {
		o.ValidateRuns = a.ValidateRuns
	}
	res, err := Run(ctx, mx, o)
	if err != nil {
		return err
	}
	dir := m.Out
	if dir == "" {
		dir = filepath.Join(cal.Out, "advise-matrix-"+res.StartedAt.Format("20060102T150405Z"))
	}
	if err := WriteRecord(dir, res); err != nil {
		return err
	}
	fmt.Fprintf(logw, "matrix record: %s\n", dir)
	if a.Format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	WriteText(out, res)
	return nil
}
