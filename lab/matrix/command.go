package matrix

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/settings"
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

// Flags are advise's flags of its matrix (CommandOptions).
var Flags = settings.MustRegistry(DefaultCommandOptions, []settings.Setting[CommandOptions]{
	settings.Flag("matrix", "with --validate: check the model across a matrix of workloads: \"default\" (the shipped one) or a YAML file of rows (see docs/sizing-validation.md)",
		func(o *CommandOptions) settings.Value { return settings.String(&o.Spec) }),
	settings.Flag("matrix-out", "directory of the matrix's record (matrix.md, matrix.json, the plot); default <--out>/advise-matrix-<UTC time>",
		func(o *CommandOptions) settings.Value { return settings.String(&o.Out) }),
	settings.Flag("matrix-rows", "run only these rows of the matrix (names, comma-separated)",
		func(o *CommandOptions) settings.Value {
			return settings.Func("stringSlice", settings.UnitText, func() string { return strings.Join(o.Rows, ",") },
				func(s string) error { o.Rows = append(o.Rows, strings.Split(s, ",")...); return nil })
		}),
	settings.Flag("matrix-steady-duration", "measured window of each row's steady run",
		func(o *CommandOptions) settings.Value { return settings.Duration(&o.SteadyDuration) }),
	settings.Flag("matrix-steady-warmup", "warm-up of each row's steady run (0: three fills of its log at its write rate, 1s to 10s)",
		func(o *CommandOptions) settings.Value { return settings.Duration(&o.SteadyWarmup) }),
	settings.Flag("matrix-steady-log-bytes", "each row's steady log at its trigger, all partitions (bytes)",
		func(o *CommandOptions) settings.Value { return settings.Bytes(&o.SteadyLogBytes) }),
	settings.Flag("matrix-recalibrate", "interleave a calibration run with each validation repetition, as --validate does, so that predictions see the same machine load as the measurements (false: the cached calibration of each record shape)",
		func(o *CommandOptions) settings.Value { return settings.Bool(&o.Recalibrate) }),
})
