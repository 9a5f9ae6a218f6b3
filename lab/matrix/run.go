package matrix

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
)

// Options configure a matrix run. Zero fields take the defaults named.
type Options struct {
	// Dir is the parent of every data directory (validation logs, steady
	// logs); "": the OS temp dir. Put it on the disk to be sized.
	Dir string
	// Cleaner is the configured cleaner (offset map layout, hasher, I/O
	// path, load factor); its threads, buffers and throttle are set per
	// row. The zero config: engine.DefaultCleanerConfig(); any other is
	// taken as it is.
	Cleaner engine.CleanerConfig
	// Cores bounds the advised threads of rows without their own cores
	// (advise --cores). Default 1.
	Cores int
	// Calibrate is the calibration template (Out, Dir, LogBytes, Runs,
	// MaxAge, Force, Log); the cleaner and the record shape are set per
	// row, and sizing.LoadOrCalibrate measures or reads one per record
	// shape (Force: measured once per shape in this run).
	Calibrate sizing.CalibrateOptions
	// Recalibrate interleaves one calibration run with each validation
	// repetition (sizing.ValidateOptions.Recalibrate), so that predictions
	// and measurements see the same machine load. Default off.
	Recalibrate bool
	// ValidateLogBytes is each row's scaled-down log, all partitions
	// (sizing.ValidateOptions.LogBytes). Default 16 MiB.
	ValidateLogBytes int64
	// ValidateRuns is the repetitions of each validated configuration (the
	// fastest is compared). Default 2.
	ValidateRuns int
	// SteadyLogBytes is the steady run's log at its trigger, all
	// partitions (clean part plus dirty section). Default 8 MiB.
	SteadyLogBytes int64
	// SteadyDuration is each steady run's measured window. Default 4 s.
	SteadyDuration time.Duration
	// SteadyWarmup is each steady run's warm-up; 0: three fills of the
	// steady log at its write rate, between 1 s and 10 s.
	SteadyWarmup time.Duration
	// SteadySampleInterval is the steady runs' sample interval; 0:
	// SteadyDuration / 40, at least 50 ms.
	SteadySampleInterval time.Duration
	// Only, when not empty, runs only the rows of these names.
	Only []string
	// Interference, when set, wraps each row's measurements (validation
	// and steady runs) and returns the machine's interference verdict over
	// them (quiet, busy or unusable: results/interference); nil:
	// MeasureInterference.
	Interference func(run func() error) (verdict string, err error)
	// Log receives progress lines; nil: none.
	Log func(format string, args ...any)
	// now is the clock of StartedAt/EndedAt (tests).
	now func() time.Time
}

func (o *Options) defaults() {
	if o.Interference == nil {
		o.Interference = MeasureInterference
	}
	if o.Cleaner == (engine.CleanerConfig{}) {
		o.Cleaner = engine.DefaultCleanerConfig()
	}
	if o.Cores <= 0 {
		o.Cores = 1
	}
	if o.ValidateLogBytes <= 0 {
		o.ValidateLogBytes = 16 << 20
	}
	if o.ValidateRuns <= 0 {
		o.ValidateRuns = 2
	}
	if o.SteadyLogBytes <= 0 {
		o.SteadyLogBytes = 8 << 20
	}
	if o.SteadyDuration <= 0 {
		o.SteadyDuration = 4 * time.Second
	}
	if o.SteadySampleInterval <= 0 {
		o.SteadySampleInterval = max(50*time.Millisecond, o.SteadyDuration/40)
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if o.now == nil {
		o.now = time.Now
	}
}

// Result is a matrix run: every row's predictions and measurements, and
// their summary.
type Result struct {
	Matrix      string    `json:"matrix"`
	Description string    `json:"description,omitempty"`
	StartedAt   time.Time `json:"started_at"`
	EndedAt     time.Time `json:"ended_at"`
	// Seconds is the wall time of the whole run (measured).
	Seconds float64 `json:"seconds"`
	// Settings are the run's sizes and durations.
	Settings Settings    `json:"settings"`
	Rows     []RowResult `json:"rows"`
	Summary  Summary     `json:"summary"`
	// Plot is the PNG of predicted vs measured clean time ("" when not written).
	Plot string `json:"plot,omitempty"`
}

// Settings are the options a result was measured with.
type Settings struct {
	ValidateLogBytes     int64   `json:"validate_log_bytes"`
	ValidateRuns         int     `json:"validate_runs"`
	Recalibrate          bool    `json:"recalibrate"`
	SteadyLogBytes       int64   `json:"steady_log_bytes"`
	SteadyDurationS      float64 `json:"steady_duration_s"`
	SteadyWarmupS        float64 `json:"steady_warmup_s"` // 0: per row (auto)
	SteadySampleInterval float64 `json:"steady_sample_interval_s"`
	Cores                int     `json:"cores"`
	OffsetMap            string  `json:"offset_map"`
	Hasher               string  `json:"hasher"`
}

// RowResult is one row: advise's prediction at full size, the scaled-down
// clean predicted and measured, the steady runs.
type RowResult struct {
	Row Row `json:"row"`
	// NotModelled says why the model cannot predict this row's clean
	// ("" when it can); its predicted figures are then absent.
	NotModelled string `json:"not_modelled,omitempty"`
	// Error is why the row could not be measured ("" when it was).
	Error string `json:"error,omitempty"`
	// Advice is advise's output for the row's workload at full size (model
	// predictions).
	Advice *sizing.Advice `json:"advice,omitempty"`
	// Calibration says which calibration the predictions used.
	Calibration string `json:"calibration,omitempty"`
	// Measured is the configuration compared: MeasureRecommended or
	// MeasureBelow; Scale the scaled-down keys over the workload's, per
	// partition; DedupeBufferBytes its scaled buffer.
	Measured          string  `json:"measured"`
	Scale             float64 `json:"scale"`
	DedupeBufferBytes int64   `json:"dedupe_buffer_bytes"`
	// Passes and clean time (one partition, all passes, seconds) of the
	// scaled-down log: the model's prediction (nil when not modelled) and
	// the measurement (the fastest of the repetitions).
	PassesPredicted       *int     `json:"passes_predicted,omitempty"`
	PassesMeasured        int      `json:"passes_measured"`
	CleanSecondsPredicted *float64 `json:"clean_seconds_predicted,omitempty"`
	CleanSecondsMeasured  float64  `json:"clean_seconds_measured"`
	// CleanSecondsError = (predicted - measured) / measured (sizing's sign).
	CleanSecondsError *float64 `json:"clean_seconds_error,omitempty"`
	// Validation is sizing.Validate's whole answer (nil when not modelled).
	Validation *sizing.Validation `json:"validation,omitempty"`
	// Steady are the steady runs: the advised threads first.
	Steady []SteadyRun `json:"steady,omitempty"`
	// SteadyNote says how the steady run was scaled from the row.
	SteadyNote string `json:"steady_note,omitempty"`
	// Interference is the machine's verdict over the row's measurements
	// (Options.Interference), "n/a" without one.
	Interference string `json:"interference"`
	// Seconds is the row's wall time (measured).
	Seconds float64 `json:"seconds"`
}

// Run runs every row of m (or Options.Only's): for each, advise at full
// size with the calibration of its record shape, sizing.Validate (or, for
// a row the model does not cover, the same scaled clean measured without
// a prediction), and the steady runs. A row that fails is kept with its
// Error and the run goes on; a cancelled ctx stops it. Errors: an Only
// name that is no row; the context's.
func Run(ctx context.Context, m *Matrix, o Options) (*Result, error) {
	o.defaults()
	rows := m.Rows
	if len(o.Only) > 0 {
		rows = nil
		for _, name := range o.Only {
			found := false
			for _, r := range m.Rows {
				if r.Name == name {
					rows = append(rows, r)
					found = true
				}
			}
			if !found {
				var names []string
				for _, r := range m.Rows {
					names = append(names, r.Name)
				}
				return nil, fmt.Errorf("matrix: %s has no row %q (rows: %s)", m.Path, name, strings.Join(names, ", "))
			}
		}
	}
	res := &Result{Matrix: m.Path, Description: m.Description, StartedAt: o.now().UTC(),
		Settings: Settings{ValidateLogBytes: o.ValidateLogBytes, ValidateRuns: o.ValidateRuns, Recalibrate: o.Recalibrate, SteadyLogBytes: o.SteadyLogBytes,
			SteadyDurationS: o.SteadyDuration.Seconds(), SteadyWarmupS: o.SteadyWarmup.Seconds(), SteadySampleInterval: o.SteadySampleInterval.Seconds(),
			Cores: o.Cores, OffsetMap: string(o.Cleaner.OffsetMap), Hasher: string(o.Cleaner.Hasher)}}
	cals := map[calKey]calib{}
	for i, r := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		o.Log("matrix row %d/%d %s\n", i+1, len(rows), r.Name)
		t0 := time.Now()
		rr := runRow(ctx, r, o, cals)
		rr.Seconds = time.Since(t0).Seconds()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Rows = append(res.Rows, rr)
	}
	res.EndedAt = o.now().UTC()
	res.Seconds = res.EndedAt.Sub(res.StartedAt).Seconds()
	res.Summary = Summarize(res.Rows)
	return res, nil
}

type calib struct {
	c    *sizing.Calibration
	note string
}

// calKey names a calibration: record shape and clean shape.
type calKey struct {
	keyBytes, valueBytes, perBatch int
	shape                          sizing.Shape
}

// calibrationFor reads or measures the calibration of r's record shape
// imitating the clean sh (the zero Shape: sizing's defaults), once per
// shape in a run.
func calibrationFor(ctx context.Context, r Row, o Options, cals map[calKey]calib, sh sizing.Shape) (calib, error) {
	key := calKey{r.Workload.KeyBytes, r.Workload.ValueBytes, r.Workload.RecordsPerBatch, sh}
	if c, ok := cals[key]; ok {
		return c, nil
	}
	co := o.calibrateOptions(r)
	co.Shape = sh
	c, note, err := sizing.LoadOrCalibrate(ctx, co)
	if err != nil {
		return calib{}, err
	}
	cals[key] = calib{c, note}
	return cals[key], nil
}

func (o *Options) calibrateOptions(r Row) sizing.CalibrateOptions {
	co := o.Calibrate
	co.Cleaner = o.Cleaner
	co.KeyBytes, co.ValueBytes, co.RecordsPerBatch = r.Workload.KeyBytes, r.Workload.ValueBytes, r.Workload.RecordsPerBatch
	if co.Log == nil {
		co.Log = o.Log
	}
	return co
}

// validateBytes is row r's scaled-down log.
func (o *Options) validateBytes(r Row) int64 {
	if r.ValidateLogBytes > 0 {
		return r.ValidateLogBytes
	}
	return o.ValidateLogBytes
}

// adviseOptions are advise's options for row r.
func (o *Options) adviseOptions(r Row, c *sizing.Calibration) sizing.AdviseOptions {
	cc := o.Cleaner
	cc.MaxIOBytesPerSecond = r.MaxIOBytesPerSecond
	cores := o.Cores
	if r.Cores > 0 {
		cores = r.Cores
	}
	return sizing.AdviseOptions{Cleaner: cc, Cores: cores, Calibration: c, BackoffMs: r.BackoffMs}
}

func runRow(ctx context.Context, r Row, o Options, cals map[calKey]calib) RowResult {
	rr := RowResult{Row: r, NotModelled: r.NotModelled(), Measured: r.Measure, Interference: "n/a"}
	// The calibration imitates the advised clean (map, fill, dirty ratio,
	// tombstones).
	var sh sizing.Shape
	if a0, err := sizing.AdviseWorkload(r.Workload, o.adviseOptions(r, nil)); err == nil {
		sh, _ = sizing.CalibrationShape(a0)
	}
	cal, err := calibrationFor(ctx, r, o, cals, sh)
	if err != nil {
		rr.Error = err.Error()
		return rr
	}
	rr.Calibration = cal.note
	ao := o.adviseOptions(r, cal.c)
	a, err := sizing.AdviseWorkload(r.Workload, ao)
	if err != nil {
		rr.Error = err.Error()
		return rr
	}
	rr.Advice = a
	measure := func() error {
		if err := rr.measureClean(ctx, o, ao, cal.c); err != nil {
			return err
		}
		calFor := func(sh sizing.Shape) (*sizing.Calibration, error) {
			c, err := calibrationFor(ctx, r, o, cals, sh)
			return c.c, err
		}
		return rr.runSteady(ctx, o, ao, calFor)
	}
	if o.Interference != nil {
		v, err := o.Interference(measure)
		rr.Interference = v
		if err != nil {
			rr.Error = err.Error()
		}
	} else if err := measure(); err != nil {
		rr.Error = err.Error()
	}
	return rr
}

// MeasureInterference runs run between two samples of the machine
// (lab.WatchPhase: this process's CPU, others' CPU, steal, memory
// pressure) and returns the verdict by lab.Thresholds, with its reasons:
// "busy (other processes' CPU 0.61 cores >= 0.25 cores (busy))".
func MeasureInterference(run func() error) (string, error) {
	w := lab.WatchPhase("")
	err := run()
	iv := w.Stop()
	v := string(iv.Verdict)
	if len(iv.Reasons) > 0 {
		v += " (" + strings.Join(iv.Reasons, "; ") + ")"
	}
	return v, err
}

// measureClean fills the scaled-down clean's figures: sizing.Validate for
// a modelled row, measureScaled for the others.
func (rr *RowResult) measureClean(ctx context.Context, o Options, ao sizing.AdviseOptions, c *sizing.Calibration) error {
	r := rr.Row
	if rr.NotModelled != "" {
		passes, secs, scale, buf, err := measureScaled(ctx, r, rr.Advice, o)
		if err != nil {
			return err
		}
		rr.PassesMeasured, rr.CleanSecondsMeasured, rr.Scale, rr.DedupeBufferBytes = passes, secs, scale, buf
		return nil
	}
	w := r.Workload
	// A max.compaction.lag.ms-bound head is cleaned at the ratio it has
	// when the lag fires (Validate scales the ratio-triggered head only).
	if eff := lagRatio(rr.Advice); eff > 0 && eff < w.MinCleanableDirtyRatio {
		w.MinCleanableDirtyRatio = eff
	}
	vo := sizing.ValidateOptions{Dir: o.Dir, LogBytes: o.validateBytes(r), Cleaner: ao.Cleaner, Calibration: c, Repetitions: o.ValidateRuns, Log: o.Log}
	if o.Recalibrate {
		co := o.calibrateOptions(r)
		vo.Recalibrate = &co
	}
	v, err := sizing.Validate(ctx, w, vo)
	if err != nil {
		return err
	}
	rr.Validation = v
	rr.Scale = v.Scale
	run := v.Runs[0]
	if r.Measure == MeasureBelow && len(v.Runs) > 1 {
		run = v.Runs[1]
	}
	p, cs, ce := run.PassesPredicted, run.CleanSecondsPredicted, run.CleanSecondsError
	rr.PassesPredicted, rr.CleanSecondsPredicted = &p, &cs
	if run.CleanSecondsMeasured > 0 {
		rr.CleanSecondsError = &ce
	}
	rr.PassesMeasured, rr.CleanSecondsMeasured, rr.DedupeBufferBytes = run.PassesMeasured, run.CleanSecondsMeasured, run.DedupeBufferBytes
	return nil
}

// lagRatio is the cleanable ratio at which a max.compaction.lag.ms-bound
// head is cleaned, D / (C + D) from the advice's inputs; 0 when the lag
// does not bound the head.
func lagRatio(a *sizing.Advice) float64 {
	c, d := a.Inputs["clean_bytes_per_partition"], a.Inputs["dirty_bytes_at_trigger"]
	r := a.Inputs["min_cleanable_dirty_ratio"]
	if c <= 0 || d <= 0 || r <= 0 || r >= 1 {
		return 0
	}
	if d >= c*r/(1-r)*(1-1e-9) {
		return 0
	}
	return d / (c + d)
}
