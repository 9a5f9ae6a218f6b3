package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cleanerlab/cleanerlab/settings"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/matrix"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
)

// matrixFlags are advise --validate --matrix's flags.
type matrixFlags struct {
	spec           string
	out            string
	rows           []string
	steadyDuration time.Duration
	steadyWarmup   time.Duration
	steadyBytes    int64
	recalibrate    bool
}

func (m *matrixFlags) bind(f *pflag.FlagSet) {
	f.StringVar(&m.spec, "matrix", "", "with --validate: check the model across a matrix of workloads: \"default\" (the shipped one) or a YAML file of rows (see docs/sizing-validation.md)")
	f.StringVar(&m.out, "matrix-out", "", "directory of the matrix's record (matrix.md, matrix.json, the plot); default <--out>/advise-matrix-<UTC time>")
	f.StringSliceVar(&m.rows, "matrix-rows", nil, "run only these rows of the matrix (names, comma-separated)")
	m.steadyDuration = 4 * time.Second
	f.DurationVar(&m.steadyDuration, "matrix-steady-duration", m.steadyDuration, "measured window of each row's steady run")
	f.DurationVar(&m.steadyWarmup, "matrix-steady-warmup", 0, "warm-up of each row's steady run (0: three fills of its log at its write rate, 1s to 10s)")
	m.steadyBytes = 8 << 20
	f.Var(settings.Bytes(&m.steadyBytes), "matrix-steady-log-bytes", "each row's steady log at its trigger, all partitions (bytes)")
	f.BoolVar(&m.recalibrate, "matrix-recalibrate", true, "interleave a calibration run with each validation repetition, as --validate does, so that predictions see the same machine load as the measurements (false: the cached calibration of each record shape)")
}

// run is advise --validate --matrix: it binds the flags to matrix.Run
// and prints the table or the JSON; the record goes to --matrix-out.
func (m *matrixFlags) run(cmd *cobra.Command, dir string, validate bool, format string, cc engine.CleanerConfig, cores int, cal *calibrationFlags, validateBytes int64, validateRuns int) error {
	if !validate {
		return errors.New("advise: --matrix needs --validate")
	}
	if dir != "" {
		return errors.New("advise: --matrix checks the matrix's workloads, not --dir")
	}
	for _, name := range []string{"keys", "key-bytes", "value-bytes", "distribution", "tombstone-ratio", "partitions", "segment.bytes", "min.cleanable.dirty.ratio", "max.compaction.lag.ms", "records-per-batch", "write-rate", "disks"} {
		if cmd.Flags().Changed(name) {
			return fmt.Errorf("advise: --%s describes one workload; with --matrix each row gives its own", name)
		}
	}
	if cal.none {
		return errors.New("advise: --matrix needs a calibration (drop --no-calibration)")
	}
	if m.steadyDuration <= 0 {
		return fmt.Errorf("advise: --matrix-steady-duration %v: want a duration above 0", m.steadyDuration)
	}
	mx, err := matrix.Load(m.spec)
	if err != nil {
		return err
	}
	ew := cmd.ErrOrStderr()
	logf := func(format string, args ...any) { fmt.Fprintf(ew, format, args...) }
	o := matrix.Options{Dir: cal.dataDir, Cleaner: cc, Cores: cores, Recalibrate: m.recalibrate,
		Calibrate:      sizing.CalibrateOptions{Out: cal.out, Dir: cal.dataDir, LogBytes: cal.logBytes, Runs: cal.runs, MaxAge: cal.maxAge, Force: cal.calibrate},
		SteadyLogBytes: m.steadyBytes, SteadyDuration: m.steadyDuration, SteadyWarmup: m.steadyWarmup, Only: m.rows, Log: logf}
	if cmd.Flags().Changed("validate-log-bytes") {
		o.ValidateLogBytes = validateBytes
	}
	if cmd.Flags().Changed("validate-runs") {
		o.ValidateRuns = validateRuns
	}
	res, err := matrix.Run(cmd.Context(), mx, o)
	if err != nil {
		return err
	}
	out := m.out
	if out == "" {
		out = filepath.Join(cal.out, "advise-matrix-"+res.StartedAt.Format("20060102T150405Z"))
	}
	if err := matrix.WriteRecord(out, res); err != nil {
		return err
	}
	fmt.Fprintf(ew, "matrix record: %s\n", out)
	w := cmd.OutOrStdout()
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	matrix.WriteText(w, res)
	return nil
}
