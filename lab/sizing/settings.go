package sizing

import (
	"runtime"
	"time"

	"github.com/cleanerlab/cleanerlab/settings"
)

// CalibrationChoice is how plan and advise choose the calibration their clean
// times come from (CalibrationChoice.Get): cached, measured now, or none.
type CalibrationChoice struct {
	// Out is the directory of run records, where the calibration is
	// cached. Default "runs".
	Out string
	// Calibrate measures the calibration now, even when a fresh one is
	// cached.
	Calibrate bool
	// None uses no calibration: no clean-time predictions.
	None bool
	// MaxAge: a cached calibration older than this is measured again.
	// Default DefaultCalibrationMaxAge.
	MaxAge time.Duration
	// Dir is the parent of the calibration runs' data ("": the OS temp
	// dir).
	Dir string
	// LogBytes is each calibration run's log size. Default 64 MiB.
	LogBytes int64
	// Runs is the least calibration runs: the fastest this many must agree
	// within Spread. Default 3.
	Runs int
	// MaxRuns is the most calibration runs per thread count before it says
	// it could not meet Spread (0: 3 x Runs).
	MaxRuns int
	// Spread bounds (fastest - slowest) / fastest of the fastest Runs runs,
	// a share in (0, 1). Default DefaultSpreadBound.
	Spread float64
	// Threads: a calibration measured now also measures the contention
	// curve of 1..Threads cleaner threads (0 or 1: none). Default
	// min(cores, 4).
	Threads int
	// DropCaches: the curve's cold runs also write 3 to
	// /proc/sys/vm/drop_caches (root only).
	DropCaches bool
}

// DefaultCalibrationLogBytes is the default CalibrationChoice.LogBytes.
const DefaultCalibrationLogBytes = 64 << 20

// DefaultCalibrationChoice is plan's and advise's default choice.
func DefaultCalibrationChoice() CalibrationChoice {
	return CalibrationChoice{Out: "runs", MaxAge: DefaultCalibrationMaxAge, LogBytes: DefaultCalibrationLogBytes, Runs: 3,
		Spread: DefaultSpreadBound, Threads: min(runtime.NumCPU(), 4)}
}

// CalibrationSettings are the settings of CalibrationChoice (plan's and
// advise's calibration flags), with DefaultCalibrationChoice's defaults.
// Out and Dir are paths, bound as plain flags.
var CalibrationSettings = settings.MustRegistry(DefaultCalibrationChoice, []settings.Setting[CalibrationChoice]{
	{Name: "calibrate", Flag: "calibrate", Path: "Calibrate",
		Doc: "measure the calibration now (a few short runs), even when a fresh one is cached",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Bool(&c.Calibrate) }},
	{Name: "no-calibration", Flag: "no-calibration", Path: "None",
		Doc: "use no calibration: no clean-time predictions (and none is measured)",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Bool(&c.None) }},
	{Name: "calibration-max-age", Flag: "calibration-max-age", Path: "MaxAge",
		Doc: "a cached calibration older than this is measured again",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Duration(&c.MaxAge) }},
	{Name: "calibration-log-bytes", Flag: "calibration-log-bytes", Path: "LogBytes",
		Doc: "log size of each calibration run (bytes)",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Bytes(&c.LogBytes) }},
	{Name: "calibration-runs", Flag: "calibration-runs", Path: "Runs",
		Doc: "least calibration runs: the fastest this many must agree within --calibration-spread (the fastest is kept)",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Count(&c.Runs) }},
	{Name: "calibration-max-runs", Flag: "calibration-max-runs", Path: "MaxRuns",
		Doc: "most calibration runs (per thread count of the curve) before it says it could not meet --calibration-spread (0: 3 x --calibration-runs)",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Count(&c.MaxRuns) }},
	{Name: "calibration-spread", Flag: "calibration-spread", Path: "Spread",
		Doc: "bound on the spread (fastest - slowest) / fastest of the fastest --calibration-runs runs",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Ratio(&c.Spread) }},
	{Name: "calibrate-threads", Flag: "calibrate-threads", Path: "Threads", DefaultText: "min(cores, 4)",
		Doc: "with a calibration measured now, also measure the contention curve of 1..N cleaner threads on --calibration-dir, warm and cold cache (0 or 1: none)",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Count(&c.Threads) }},
	{Name: "calibration-drop-caches", Flag: "calibration-drop-caches", Path: "DropCaches",
		Doc: "cold runs of the curve also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise DONTNEED, always done)",
		Var: func(c *CalibrationChoice) settings.Value { return settings.Bool(&c.DropCaches) }},
})
