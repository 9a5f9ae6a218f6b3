package sizing

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/results"
)

// DefaultCalibrationMaxAge is how old a cached calibration may be before it
// is measured again: 7 days.
const DefaultCalibrationMaxAge = 7 * 24 * time.Hour

// Calibration holds the throughputs the clean-time model uses, measured on
// this machine by a short run, with the environment it was measured in.
type Calibration struct {
	// MapBuildBytesPerSecond: .log bytes read per second while building the
	// offset map (CleanStats.MapBytesRead / MapTime, less the map's clear),
	// of the fastest run (the least disturbed by other load).
	MapBuildBytesPerSecond float64 `json:"map_build_bytes_per_second"`
	// CopyBytesPerSecond: .log bytes read per second while recopying
	// (CleanStats.BytesRead / CopyTime), swap included, of the fastest run.
	CopyBytesPerSecond float64 `json:"copy_bytes_per_second"`
	// MapClearBytesPerSecond: bytes of offset map one Clear empties per
	// second, for layouts whose Clear zero-fills the whole map (Kafka's
	// skimpy); measured on a 128 MiB map, median of 5. 0: not measured.
	MapClearBytesPerSecond float64 `json:"map_clear_bytes_per_second"`
	// CleanOverheadSeconds is the fixed cost of one clean whatever its size
	// (files created, fsynced and swapped, the checkpoint written): the
	// fastest clean of a 64 KiB log by the engine's cleaner manager. 0: not measured.
	CleanOverheadSeconds float64 `json:"clean_overhead_seconds"`
	// CleanGapSeconds is the time between one thread's cleans that is no
	// clean's (the manager's grab, checkpoint and hand-over), the least of
	// the same five runs; Kafka's throttle counts it as elapsed time.
	CleanGapSeconds float64 `json:"clean_gap_seconds,omitempty"`
	// MapBuildSamples and CopySamples are the per-run values.
	MapBuildSamples []float64 `json:"map_build_samples"`
	CopySamples     []float64 `json:"copy_samples"`
	// OffsetMap, Hasher and IOPath are the cleaner settings measured.
	OffsetMap string `json:"offset_map"`
	Hasher    string `json:"hasher"`
	IOPath    string `json:"io_path"`
	// Settings are the other settings that set the measured speeds, as
	// JSON (CalibrateOptions' speed settings: the cleaner of the runs,
	// one thread with its sort buffer, less the dedupe buffer and the
	// throttle; the log sizes, the directory, drop_caches). A cached
	// calibration whose Settings differ from the ones asked is not used.
	// Omitted in calibrations made before it was recorded.
	Settings string `json:"settings,omitempty"`
	// Cache is the page-cache state of the measured runs ("warm" or "cold").
	Cache string `json:"cache"`
	// Runs is how many runs were made; UsableRuns how many were not judged
	// busy or unusable (all when there was no verdict).
	Runs       int `json:"runs,omitempty"`
	UsableRuns int `json:"usable_runs,omitempty"`
	// Spread is (fastest - slowest) / fastest among the fastest usable
	// runs (CalibrateOptions.Runs of them), the larger of the map-build and
	// copy rates'; SpreadBound the bound it was held to; SpreadWithinBound
	// whether it was met before CalibrateOptions.MaxRuns runs (when not,
	// Notes says so and the rates are the fastest anyway).
	Spread            float64 `json:"spread"`
	SpreadBound       float64 `json:"spread_bound,omitempty"`
	SpreadWithinBound bool    `json:"spread_within_bound"`
	// RunVerdicts are each run's interference verdict from
	// CalibrateOptions.Busy ("" when none was given), in run order;
	// Interference the records it returned. Verdict sums them up: "quiet"
	// when the kept rates come from runs not judged busy, "busy" when every
	// run was judged busy or unusable (and the rates come from them), ""
	// without a verdict hook.
	RunVerdicts  []string          `json:"run_verdicts,omitempty"`
	Interference []json.RawMessage `json:"interference,omitempty"`
	Verdict      string            `json:"verdict,omitempty"`
	// Notes say what the calibration could not do (spread, busy runs).
	Notes []string `json:"notes,omitempty"`
	// ThreadCurves are the contention curves measured (warm, then cold);
	// none when not asked (CalibrateOptions.Threads).
	ThreadCurves []ThreadCurve `json:"thread_curves,omitempty"`
	// Shape is the clean the runs imitated (CalibrateOptions.Shape, its
	// map scaled down when the log would have passed LogBytes). Omitted in
	// calibrations made before it was recorded (16 MiB, unfilled, 0.5).
	Shape
	// Workload says what was cleaned (keys, record sizes, bytes).
	Workload    string              `json:"workload"`
	MeasuredAt  time.Time           `json:"measured_at"`
	Environment results.Environment `json:"environment"`
}

// CleanSeconds is the model's prediction of one partition's clean through
// all its passes (a prediction, not a measurement):
//
//	for each pass i with dirty chunk d_i (bytes), R_i the dirty bytes not yet
//	cleaned after it:
//	  fixed   = the calibration's per-clean overhead
//	  clear_i = map bytes zeroed / clear rate (Kafka's skimpy map; 0 for O(1) clears)
//	  build_i = d_i / map build throughput
//	  copy_i  = (C + d_i + e_i) / copy throughput
//	  e_i     = R_i when R_i <= segment.bytes, else segment.bytes / 2
//
// C is the clean section's bytes. Every pass recopies the whole log below
// its end offset, and whole segments (Kafka's groupSegmentsBySize over
// [0, end)), so the segment holding the end offset is copied past it: e_i,
// all of the rest when it fits one segment, else half a segment on
// average. C stays the same from pass to pass: a dirty key replaces its
// record in the clean section (the steady state, where the clean section
// holds every live key). segmentBytes <= 0 means one segment holds the rest.
func (c *Calibration) CleanSeconds(cleanBytes int64, chunks []chunk, segmentBytes, clearBytes int64) float64 {
	secs, _ := phaseSums(c.CleanPhases(cleanBytes, chunks, segmentBytes, clearBytes))
	return secs
}

// CleanPhases are CleanSeconds' terms as phases, pass by pass: "clear"
// (clear_i, no bytes), "map" (build_i; d_i bytes read), "copy" (copy_i;
// read C + d_i + e_i plus written C + e_i bytes: every live key's record
// once, the steady state where the clean section holds every key, and the
// rest past the pass's end copied as it is) and "overhead" (fixed, no
// bytes). The bytes are those Kafka's cleaner passes to its Throttler:
// Cleaner.buildOffsetMapForSegment calls maybeThrottle with each chunk
// read, Cleaner.cleanInto with each chunk read and each chunk's retained
// bytes written. nil for a nil or unusable calibration.
func (c *Calibration) CleanPhases(cleanBytes int64, chunks []chunk, segmentBytes, clearBytes int64) []Phase {
	if c == nil || c.MapBuildBytesPerSecond <= 0 || c.CopyBytesPerSecond <= 0 {
		return nil
	}
	var rem int64
	for _, ch := range chunks {
		rem += ch.Bytes
	}
	var out []Phase
	for _, ch := range chunks {
		rem -= ch.Bytes
		out = append(out, c.passPhases(float64(cleanBytes), float64(ch.Bytes), float64(rem), segmentBytes, clearBytes)...)
	}
	return out
}

// passPhases are the phases of one pass over d dirty bytes of a log with
// clean bytes C and rest dirty bytes after the pass (CleanPhases).
func (c *Calibration) passPhases(cleanBytes, d, rest float64, segmentBytes, clearBytes int64) []Phase {
	extra := math.Max(rest, 0)
	if segmentBytes > 0 && rest > float64(segmentBytes) {
		extra = float64(segmentBytes / 2)
	}
	var out []Phase
	if clearBytes > 0 && c.MapClearBytesPerSecond > 0 {
		out = append(out, Phase{Name: "clear", Seconds: float64(clearBytes) / c.MapClearBytesPerSecond})
	}
	out = append(out, Phase{Name: "map", Seconds: d / c.MapBuildBytesPerSecond, Bytes: d})
	read := cleanBytes + d + extra
	out = append(out, Phase{Name: "copy", Seconds: read / c.CopyBytesPerSecond, Bytes: read + cleanBytes + extra})
	if c.CleanOverheadSeconds > 0 {
		out = append(out, Phase{Name: "overhead", Seconds: c.CleanOverheadSeconds})
	}
	return out
}

// Stale says why a cached calibration must be measured again, or "" when it
// may be used: older than maxAge, or measured with another offset map,
// hasher or I/O path, or in another environment (CPU model, usable cores,
// kernel release, Go version or commit).
func (c *Calibration) Stale(now time.Time, maxAge time.Duration, env results.Environment, layout, hasher, ioPath string) string {
	switch {
	case c == nil:
		return "no calibration cached"
	case now.Sub(c.MeasuredAt) > maxAge:
		return fmt.Sprintf("measured %s ago, more than %s", now.Sub(c.MeasuredAt).Round(time.Second), maxAge)
	case !strings.EqualFold(c.OffsetMap, layout) || !strings.EqualFold(c.Hasher, hasher) || !strings.EqualFold(c.IOPath, ioPath):
		return fmt.Sprintf("measured with %s/%s/%s, not %s/%s/%s", c.OffsetMap, c.Hasher, c.IOPath, layout, hasher, ioPath)
	case c.Environment.CPUModel != env.CPUModel:
		return fmt.Sprintf("measured on CPU %q, this is %q", c.Environment.CPUModel, env.CPUModel)
	case c.Environment.UsableCores != env.UsableCores:
		return fmt.Sprintf("measured with %d usable cores, now %d", c.Environment.UsableCores, env.UsableCores)
	case c.Environment.KernelRelease != env.KernelRelease:
		return fmt.Sprintf("measured on kernel %s, now %s", c.Environment.KernelRelease, env.KernelRelease)
	case c.Environment.GoVersion != env.GoVersion:
		return fmt.Sprintf("measured with %s, now %s", c.Environment.GoVersion, env.GoVersion)
	case c.Environment.Commit != env.Commit:
		return fmt.Sprintf("measured at commit %s, now %s", c.Environment.Commit, env.Commit)
	}
	return ""
}

// CalibrationPath is where the calibration of one offset map, hasher and
// I/O path is cached under out (the run records' directory, as the baseline).
func CalibrationPath(out, layout, hasher, ioPath string) string {
	return filepath.Join(out, fmt.Sprintf("calibration-%s-%s-%s.json", strings.ToLower(layout), strings.ToLower(hasher), strings.ToLower(ioPath)))
}

// WriteCalibration writes c as indented JSON to path (its directory created).
func WriteCalibration(path string, c *Calibration) error {
	js, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("sizing: calibration: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("sizing: calibration: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("sizing: calibration: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("sizing: calibration: %w", err)
	}
	return nil
}

// ReadCalibration reads a calibration written by WriteCalibration; a
// missing file is (nil, nil). Errors name the file.
func ReadCalibration(path string) (*Calibration, error) {
	js, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("sizing: calibration: %w", err)
	}
	var c Calibration
	if err := json.Unmarshal(js, &c); err != nil {
		return nil, fmt.Errorf("sizing: calibration %s: %w", path, err)
	}
	if c.MapBuildBytesPerSecond <= 0 || c.CopyBytesPerSecond <= 0 {
		return nil, fmt.Errorf("sizing: calibration %s: throughputs must be positive (map build %v, copy %v B/s)", path, c.MapBuildBytesPerSecond, c.CopyBytesPerSecond)
	}
	return &c, nil
}
