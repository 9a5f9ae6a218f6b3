package sizing

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
)

// Get returns the calibration c chooses for a clean with cleaner config
// cc and records of keyBytes, valueBytes and perBatch (0: sizing's
// defaults), imitating shape (the zero Shape: sizing's defaults): none
// with c.None; measured with c.Calibrate, or when measure is true and the
// cache is missing or stale; else the cached one if fresh (nil and a note
// when there is none). Measuring logs its progress to log and stops when
// ctx is done. Errors name the flag of a bad value.
func (c CalibrationChoice) Get(ctx context.Context, cc engine.CleanerConfig, keyBytes, valueBytes, perBatch int, shape Shape, measure bool, log io.Writer) (*Calibration, string, error) {
	if c.None {
		return nil, "no calibration (--no-calibration): no clean-time predictions", nil
	}
	o := c.options(cc, keyBytes, valueBytes, perBatch, log)
	o.Shape, o.MaxRuns, o.SpreadBound, o.Threads, o.DropCaches = shape, c.MaxRuns, c.Spread, c.Threads, c.DropCaches
	switch {
	case !(c.Spread > 0 && c.Spread < 1): // NaN too
		return nil, "", fmt.Errorf("--calibration-spread %v: want a share in (0, 1)", c.Spread)
	case c.Threads < 0:
		return nil, "", fmt.Errorf("--calibrate-threads %d: want 0 or more", c.Threads)
	case c.Runs < 1:
		return nil, "", fmt.Errorf("--calibration-runs %d: want 1 or more", c.Runs)
	case c.MaxRuns < 0:
		return nil, "", fmt.Errorf("--calibration-max-runs %d: want 0 (3 x --calibration-runs) or more", c.MaxRuns)
	case c.MaxRuns > 0 && c.MaxRuns < c.Runs:
		return nil, "", fmt.Errorf("--calibration-max-runs %d is below --calibration-runs %d", c.MaxRuns, c.Runs)
	}
	if !measure && !c.Calibrate {
		return ReadFreshCalibration(o)
	}
	return LoadOrCalibrate(ctx, o)
}

// options are the CalibrateOptions of c's cache, size, runs and age, for
// cleaner config cc and the records given, logging to log (nil: nowhere).
func (c CalibrationChoice) options(cc engine.CleanerConfig, keyBytes, valueBytes, perBatch int, log io.Writer) CalibrateOptions {
	return CalibrateOptions{Out: c.Out, Dir: c.Dir, Cleaner: cc, KeyBytes: keyBytes, ValueBytes: valueBytes, RecordsPerBatch: perBatch,
		MaxAge: c.MaxAge, Force: c.Calibrate, LogBytes: c.LogBytes, Runs: c.Runs, Log: Logf(log)}
}

// Logf is a printf to w (nil: nowhere), for the Log fields of options.
func Logf(w io.Writer) func(format string, args ...any) {
	if w == nil {
		w = io.Discard
	}
	return func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
}

// writeJSON writes v to w as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// PlanCommandOptions are the plan command's options, as its flags give
// them.
type PlanCommandOptions struct {
	// Dir is the log directory root or partition directory. Required.
	Dir string
	// Format is table or json.
	Format string
	// Now is the clock of lags and eligibility; nil: time.Now.
	Now func() time.Time
	// ExactKeysMemoryBytes bounds each exact distinct-key set.
	ExactKeysMemoryBytes int64
	// Sources are the config files and the settings given.
	Sources topicconfig.Sources
	// Cleaner is the cleaner config the files and the settings given
	// apply to.
	Cleaner engine.CleanerConfig
	// Calibration chooses the calibration of the predicted clean times.
	Calibration CalibrationChoice
	// Log receives the calibration's progress; nil: none.
	Log io.Writer
	// ReadOnly, when set, is called once what is left only reads (after
	// the calibration): a signal may then end the process at once.
	ReadOnly func()
}

// PlanCommand is the plan command: the read-only plan of o.Dir (MakePlan)
// with its configs resolved and a cached calibration, written to out as a
// table or JSON.
func PlanCommand(ctx context.Context, o PlanCommandOptions, out io.Writer) error {
	if o.Dir == "" {
		return errors.New("plan: --dir is required")
	}
	if o.Format != "table" && o.Format != "json" {
		return fmt.Errorf("plan: --format %q: want table or json", o.Format)
	}
	dir, err := lab.ExistingDir("plan", o.Dir)
	if err != nil {
		return err
	}
	set, resolved, err := o.Sources.Load(dir, o.Cleaner)
	if err != nil {
		return o.Sources.FlagError("plan", err)
	}
	calib, calNote, err := o.Calibration.Get(ctx, resolved, 0, 0, 0, Shape{}, false, o.Log)
	if err != nil {
		return err
	}
	po := Options{Configs: set, Cleaner: resolved, ExactKeysMemoryBytes: o.ExactKeysMemoryBytes, Calibration: calib}
	if o.Now != nil {
		po.Now = o.Now
	}
	if o.ReadOnly != nil {
		o.ReadOnly()
	}
	p, err := MakePlan(ctx, dir, po)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		return writeJSON(out, p)
	}
	WritePlanTable(out, p, calNote)
	return nil
}

// AdviseCommandOptions are the advise command's options, as its flags
// give them.
type AdviseCommandOptions struct {
	// Dir, when set, is the log directory or partition advised for (its
	// plan); else Workload is.
	Dir string
	// Format is table or json.
	Format string
	// Workload describes the topic advised for without Dir.
	Workload Workload
	// Cores bounds the threads.
	Cores int
	// BackoffMs is log.cleaner.backoff.ms (>= 1).
	BackoffMs int64
	// CurveCache is which contention curve sizes the threads: warm or
	// cold.
	CurveCache string
	// Validate runs the recommendation and one step below at
	// ValidateLogBytes, ValidateRuns times each.
	Validate         bool
	ValidateLogBytes int64
	ValidateRuns     int
	// Sources are the config files and the settings given.
	Sources topicconfig.Sources
	// Cleaner is the cleaner config the files and the settings given
	// apply to.
	Cleaner engine.CleanerConfig
	// Calibration chooses the calibration of the predicted clean times.
	Calibration CalibrationChoice
	// Changed says whether the flag of that name was given (nil: none
	// was): a workload's flags do not go with Dir.
	Changed func(flag string) bool
	// Log receives the calibration's and the validation's progress; nil:
	// none.
	Log io.Writer
}

// WorkloadFlags are advise's flags that describe a workload.
var WorkloadFlags = []string{"keys", "key-bytes", "value-bytes", "distribution", "tombstone-ratio", "partitions", "segment.bytes", "min.cleanable.dirty.ratio", "max.compaction.lag.ms", "records-per-batch"}

// changed is o.Changed(name), false without Changed.
func (o *AdviseCommandOptions) changed(name string) bool { return o.Changed != nil && o.Changed(name) }

// Prepare checks o's format and directory (made absolute, o.Dir) and
// resolves its cleaner config from the sources; it returns the config set
// and that cleaner config. A cleaner setting out of range is an error
// naming the flag that gave it ("advise: --threads: ..."), or the file
// and line.
func (o *AdviseCommandOptions) Prepare() (*topicconfig.Set, engine.CleanerConfig, error) {
	if o.Format != "table" && o.Format != "json" {
		return nil, o.Cleaner, fmt.Errorf("advise: --format %q: want table or json", o.Format)
	}
	if o.Dir != "" && o.Validate {
		return nil, o.Cleaner, errors.New("advise: --validate checks a workload description, not --dir (its keys and write pattern are not known)")
	}
	if o.Dir != "" {
		for _, name := range WorkloadFlags {
			if o.changed(name) {
				return nil, o.Cleaner, fmt.Errorf("advise: --%s describes a workload; with --dir the plan's counted figures are used", name)
			}
		}
		var err error
		if o.Dir, err = lab.ExistingDir("advise", o.Dir); err != nil {
			return nil, o.Cleaner, err
		}
	}
	set, resolved, err := o.Sources.Load(o.Dir, o.Cleaner)
	return set, resolved, o.Sources.FlagError("advise", err)
}

// topicDefaults is o.Workload with the topic configs its flags did not
// give (segment.bytes, min.cleanable.dirty.ratio, max.compaction.lag.ms)
// taken from set: a broker's server.properties or dynamic defaults by
// Kafka's synonyms, else Kafka's defaults, as clean and plan resolve a
// topic no override names.
func (o *AdviseCommandOptions) topicDefaults(set *topicconfig.Set) (Workload, error) {
	w := o.Workload
	if set == nil {
		return w, nil
	}
	r, err := set.For("")
	if err != nil {
		return w, fmt.Errorf("advise: %w", err)
	}
	if !o.changed("segment.bytes") {
		w.SegmentBytes = r.Log.SegmentBytes
	}
	if !o.changed("min.cleanable.dirty.ratio") {
		w.MinCleanableDirtyRatio = r.Log.MinCleanableDirtyRatio
	}
	if !o.changed("max.compaction.lag.ms") {
		w.MaxCompactionLagMs = r.Log.MaxCompactionLagMs
	}
	return w, nil
}

// AdviseCommand is the advise command: the recommendation for o.Dir's
// plan or o.Workload (AdviseFromPlan, AdviseWorkload), with a calibration
// imitating the recommended clean and, with o.Validate, its validation at
// a scaled-down size, written to out as a table or JSON. ctx stops the
// calibration and the validation.
func AdviseCommand(ctx context.Context, o AdviseCommandOptions, out io.Writer) error {
	set, resolved, err := o.Prepare()
	if err != nil {
		return err
	}
	w := o.Workload
	if o.Dir == "" {
		if w, err = o.topicDefaults(set); err != nil {
			return err
		}
	}
	// Checked before the calibration, which takes tens of seconds and is
	// cached: a bad value is refused before anything is measured.
	if o.CurveCache != "warm" && o.CurveCache != "cold" {
		return fmt.Errorf("advise: --thread-curve-cache %q: want warm or cold", o.CurveCache)
	}
	if o.BackoffMs < 1 {
		return fmt.Errorf("advise: --log.cleaner.backoff.ms %d: want at least 1 ms", o.BackoffMs)
	}
	if o.Dir == "" {
		if err := w.Validate(); err != nil {
			return err
		}
	}
	kb, vb, rpb := w.KeyBytes, w.ValueBytes, w.RecordsPerBatch
	// A described workload is calibrated imitating the recommended clean
	// (map, fill, dirty ratio, tombstones: each moves the cost per byte).
	var shape Shape
	if o.Dir == "" {
		if a0, err := AdviseWorkload(w, AdviseOptions{Cleaner: resolved, Cores: o.Cores, BackoffMs: max(o.BackoffMs, 1), CurveCache: "warm"}); err == nil {
			shape, _ = CalibrationShape(a0)
		}
	}
	calib, calNote, err := o.Calibration.Get(ctx, resolved, kb, vb, rpb, shape, true, o.Log)
	if err != nil {
		return err
	}
	ao := AdviseOptions{Cleaner: resolved, Cores: o.Cores, Calibration: calib, BackoffMs: o.BackoffMs, CurveCache: o.CurveCache}
	var a *Advice
	if o.Dir != "" {
		p, err := MakePlan(ctx, o.Dir, Options{Configs: set, Cleaner: resolved, Calibration: calib})
		if err != nil {
			return err
		}
		if a, err = AdviseFromPlan(p, w.WriteBytesPerSecond, w.Disks, ao); err != nil {
			return err
		}
	} else {
		if a, err = AdviseWorkload(w, ao); err != nil {
			return err
		}
		if o.Validate {
			if calib == nil {
				return errors.New("advise: --validate needs a calibration (drop --no-calibration)")
			}
			// The validation's predictions use calibration runs
			// interleaved with its own, so both see the same load.
			c := o.Calibration
			re := CalibrateOptions{Out: c.Out, Dir: c.Dir, Cleaner: resolved, KeyBytes: kb, ValueBytes: vb, RecordsPerBatch: rpb, LogBytes: c.LogBytes, Log: Logf(o.Log)}
			v, err := Validate(ctx, w, ValidateOptions{Dir: c.Dir, LogBytes: o.ValidateLogBytes, Cleaner: resolved, Calibration: calib,
				Recalibrate: &re, Repetitions: o.ValidateRuns, Log: Logf(o.Log)})
			if err != nil {
				return err
			}
			a.Validation = v
		}
	}
	if o.Format == "json" {
		return writeJSON(out, a)
	}
	WriteAdviceTable(out, a, resolved, calNote, calib)
	return nil
}
