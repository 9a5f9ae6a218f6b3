package results

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// File names inside a run directory.
const (
	RunJSONFile  = "run.json"
	ReportMDFile = "report.md"
)

// Row is one figure of the report's cleaner table, in the order the caller gives:
// e.g. {"read", "512.0", "MiB", "bytes of log read by the cleaner"}. Value is already
// formatted; Unit says what it counts.
type Row struct {
	Name    string `json:"name"`
	Value   string `json:"value"`
	Unit    string `json:"unit"`
	Meaning string `json:"meaning,omitempty"`
}

// Verification is the outcome of checking the cleaned log against the workload's
// ground truth.
type Verification struct {
	Passed bool   `json:"passed"`
	Detail string `json:"detail"`
}

// Run is the record of one run, written as run.json and report.md.
type Run struct {
	// SchemaVersion is the version of this record's schema (lab.SchemaVersion
	// wrote it); 0 in a record written before the field existed, which
	// readers take as version 1.
	SchemaVersion int `json:"schema_version,omitempty"`
	// ID is "<UTC start YYYYMMDD-HHMMSS>-<first 8 hex of sha256 of the config JSON>";
	// Write sets it from StartedAt and Config when empty.
	ID        string    `json:"id"`
	StartedAt time.Time `json:"started_at"`
	// Config is the resolved experiment: any JSON-marshalable value
	// (json.RawMessage included). ReadRun gives it back as json.RawMessage.
	Config      any          `json:"config"`
	Environment Environment  `json:"environment"`
	Before      Counters     `json:"counters_before"`
	After       Counters     `json:"counters_after"`
	Delta       CounterDelta `json:"counters_delta"`
	// Phases maps a phase name ("generate", "open", "cache", "clean", "verify") to its wall
	// time; JSON holds nanoseconds.
	Phases map[string]time.Duration `json:"phases_ns,omitempty"`
	// Interference maps a timed phase ("generate", "clean") to this
	// process's CPU time and the machine's interference over it, with its
	// verdict (results/interference). Absent in records written before it
	// existed.
	Interference map[string]interference.Interval `json:"interference,omitempty"`
	// Verdict is the clean phase's interference verdict (quiet, busy,
	// unusable, unknown): whether the run's timings can be trusted. A busy
	// verdict labels the figures; it never changes them.
	Verdict interference.Verdict `json:"verdict,omitempty"`
	// Stats is the cleaner's own stats struct, as the caller gives it. ReadRun gives
	// it back as json.RawMessage.
	Stats any `json:"stats,omitempty"`
	// Rows are the report's cleaner figures, in order.
	Rows []Row `json:"rows,omitempty"`
	// Verification is nil when the run was not verified.
	Verification *Verification `json:"verification,omitempty"`
	// Baseline is the data directory's device and memory limits the run is
	// set against (measured by this run, or cached by cleanerlab baseline);
	// nil when none was at hand. Efficiency is the clean's throughput
	// against it.
	Baseline   *iosched.Baseline `json:"baseline,omitempty"`
	Efficiency *Efficiency       `json:"efficiency,omitempty"`
	// Benchmarks are the run's results as Go benchmark lines; Write puts
	// them in bench.txt, with the environment as file-level configuration.
	Benchmarks []Benchmark `json:"benchmarks,omitempty"`
	Notes      []string    `json:"notes,omitempty"`
	// Stopped says why and how far a run stopped before its end (a
	// signal), "" when it ran to its end: its figures are those of the part
	// done. Absent in records of complete runs and of older versions.
	Stopped string `json:"stopped,omitempty"`

	// Path is the record's directory once written; DataDir the kept data
	// directory and UncleanedDir the kept copy of the logs before the
	// clean ("" when not kept). None is part of run.json.
	Path         string `json:"-"`
	DataDir      string `json:"-"`
	UncleanedDir string `json:"-"`
}

// NewID returns "<startedAt in UTC as YYYYMMDD-HHMMSS>-<first 8 hex digits of the
// sha256 of config's JSON>". It fails only if config cannot be marshalled.
func NewID(startedAt time.Time, config any) (string, error) {
	b, err := json.Marshal(config)
	if err != nil {
		return "", fmt.Errorf("results: run id: marshal config: %w", err)
	}
	sum := sha256.Sum256(b)
	return startedAt.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(sum[:4]), nil
}

// SetCounters records the snapshots taken around the clean and their delta.
func (r *Run) SetCounters(before, after Counters) {
	r.Before, r.After, r.Delta = before, after, after.Delta(before)
}

// Write creates dir/<ID>/ (dir itself is created if need be) holding run.json
// (indented), report.md and, when the run has Benchmarks, bench.txt, and
// returns the path of dir/<ID>. It sets ID first when
// empty (an error if StartedAt is zero too). A run directory that already exists is not overwritten: the error wraps
// fs.ErrExist.
func (r *Run) Write(dir string) (path string, err error) {
	if r.ID == "" {
		if r.StartedAt.IsZero() {
			return "", fmt.Errorf("results: run has neither ID nor StartedAt")
		}
		if r.ID, err = NewID(r.StartedAt, r.Config); err != nil {
			return "", err
		}
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return "", fmt.Errorf("results: marshal run %s: %w", r.ID, err)
	}
	js = append(js, '\n')
	report, err := r.Report()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	path = filepath.Join(dir, r.ID)
	if err := os.Mkdir(path, 0o755); err != nil {
		return "", fmt.Errorf("results: run directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(path, RunJSONFile), js, 0o644); err != nil {
		return path, fmt.Errorf("results: %w", err)
	}
	if err := os.WriteFile(filepath.Join(path, ReportMDFile), []byte(report), 0o644); err != nil {
		return path, fmt.Errorf("results: %w", err)
	}
	if len(r.Benchmarks) > 0 {
		var b bytes.Buffer
		WriteBench(&b, BenchConfig(r.Environment), r.Benchmarks)
		if err := os.WriteFile(filepath.Join(path, BenchTxtFile), b.Bytes(), 0o644); err != nil {
			return path, fmt.Errorf("results: %w", err)
		}
	}
	return path, nil
}

// WriteNew is Write that never fails for a name already taken: two records
// with the same ID (the same config started within the same second: a
// rerun, a script's loop) get "-2", "-3", ... appended to the later one's
// ID, up to "-100"; r.ID is left as written. Other errors are Write's.
func (r *Run) WriteNew(dir string) (path string, err error) {
	if r.ID == "" {
		if r.StartedAt.IsZero() {
			return "", fmt.Errorf("results: run has neither ID nor StartedAt")
		}
		if r.ID, err = NewID(r.StartedAt, r.Config); err != nil {
			return "", err
		}
	}
	base := r.ID
	for n := 2; ; n++ {
		path, err = r.Write(dir)
		if !errors.Is(err, fs.ErrExist) || n > 100 {
			return path, err
		}
		r.ID = fmt.Sprintf("%s-%d", base, n)
	}
}

// ReadRun reads dir/run.json as written by Write, with Config and Stats as compact
// json.RawMessage (nil when absent), so that NewID(r.StartedAt, r.Config) gives r.ID
// back.
func ReadRun(dir string) (*Run, error) {
	b, err := os.ReadFile(filepath.Join(dir, RunJSONFile))
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	type plain Run // no methods, so no recursion
	var raw struct {
		plain
		Config json.RawMessage `json:"config"`
		Stats  json.RawMessage `json:"stats,omitempty"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("results: %s: %w", filepath.Join(dir, RunJSONFile), err)
	}
	r := Run(raw.plain)
	for _, f := range []struct {
		raw json.RawMessage
		dst *any
	}{{raw.Config, &r.Config}, {raw.Stats, &r.Stats}} {
		if f.raw == nil {
			continue
		}
		var c bytes.Buffer
		if err := json.Compact(&c, f.raw); err != nil {
			return nil, fmt.Errorf("results: %s: %w", filepath.Join(dir, RunJSONFile), err)
		}
		*f.dst = json.RawMessage(c.Bytes())
	}
	return &r, nil
}
