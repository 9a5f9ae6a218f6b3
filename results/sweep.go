package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/cleanerlab/cleanerlab/results/interference"
)

// File names inside a sweep directory.
const (
	SweepJSONFile    = "sweep.json"
	SummaryCSVFile   = "summary.csv"
	RunsCSVFile      = "runs.csv"
	SweepReportFile  = "report.md"
	SweepHTMLFile    = "report.html"
	PlotsDir         = "plots"
	SweepRunsDir     = "runs"
	sweepJSONVersion = 1
)

// Sweep is the record of a parameter sweep: the cross product of its axes,
// each point run Count times in a shuffled order, one run record per run
// (under runs/), and the statistics over each point's repetitions.
type Sweep struct {
	// Version of the sweep.json layout.
	Version int `json:"version"`
	// ID is "sweep-<UTC start YYYYMMDD-HHMMSS>-<8 hex of the definition's sha256>".
	ID        string    `json:"id"`
	StartedAt time.Time `json:"started_at"`
	// Duration is the wall time of the whole sweep; JSON holds nanoseconds.
	Duration    time.Duration `json:"duration_ns"`
	Environment Environment   `json:"environment"`
	// Experiment is the experiment file the sweep came from, if any.
	Experiment string `json:"experiment,omitempty"`
	// Base are the parameter values every point shares (flag name = value),
	// as given; the other parameters keep their defaults.
	Base []KV `json:"base,omitempty"`
	// Axes are the swept parameters, in the order given.
	Axes []Axis `json:"axes"`
	// Count is the number of repetitions of each point.
	Count int `json:"count"`
	// ShuffleSeed seeds the order in which the runs were carried out.
	ShuffleSeed uint64   `json:"shuffle_seed"`
	Points      []Point  `json:"points"`
	Notes       []string `json:"notes,omitempty"`
}

// Axis is one swept parameter: a run flag and its values, as given.
type Axis struct {
	Name   string   `json:"name"`
	Values []string `json:"values"`
}

// Point is one combination of axis values.
type Point struct {
	// Params holds one value per axis, in axis order.
	Params []KV `json:"params"`
	// Benchmark is the benchmark name of the point's runs.
	Benchmark string `json:"benchmark"`
	// Config is the point's resolved configuration.
	Config any        `json:"config,omitempty"`
	Runs   []PointRun `json:"runs"`
	// Summaries are the statistics of each unit over the runs that
	// completed, in the order of the units' first appearance.
	Summaries []UnitSummary `json:"summaries,omitempty"`
}

// PointRun is one repetition of a point.
type PointRun struct {
	// Rep numbers the repetitions of the point from 1.
	Rep int `json:"rep"`
	// Order is the run's position in the sweep's execution order, from 1.
	Order int `json:"order"`
	// ID and Dir name the run record (Dir relative to the sweep directory).
	ID  string `json:"id,omitempty"`
	Dir string `json:"dir,omitempty"`
	// Verified is nil when the run was not verified.
	Verified *bool `json:"verified,omitempty"`
	// Error says why the run did not complete ("" when it did).
	Error   string   `json:"error,omitempty"`
	Metrics []Metric `json:"metrics,omitempty"`
	// Verdict is the run's interference verdict over its clean (quiet,
	// busy, unusable, unknown; "" in records written before it existed).
	Verdict interference.Verdict `json:"verdict,omitempty"`
	// Superseded marks a run that was not quiet and was run again
	// (sweep --retry-busy): it stays in the record with its figures, but
	// the point's summaries, benchmark lines and plots leave it out.
	Superseded bool `json:"superseded,omitempty"`
}

// UnitSummary is the Summary of one unit's values.
type UnitSummary struct {
	Unit string `json:"unit"`
	Summary
}

// Summary returns the point's summary of unit, and whether it has one.
func (p *Point) Summary(unit string) (Summary, bool) {
	for _, s := range p.Summaries {
		if s.Unit == unit {
			return s.Summary, true
		}
	}
	return Summary{}, false
}

// Param returns the point's value of axis name, and whether it has one.
func (p *Point) Param(name string) (string, bool) {
	for _, kv := range p.Params {
		if kv.Key == name {
			return kv.Value, true
		}
	}
	return "", false
}

// Summarize computes every point's Summaries from its runs' metrics.
func (s *Sweep) Summarize() {
	for i := range s.Points {
		p := &s.Points[i]
		var units []string
		values := map[string][]float64{}
		for _, r := range p.Runs {
			if r.Error != "" || r.Superseded {
				continue
			}
			for _, m := range r.Metrics {
				if _, ok := values[m.Unit]; !ok {
					units = append(units, m.Unit)
				}
				values[m.Unit] = append(values[m.Unit], m.Value)
			}
		}
		p.Summaries = p.Summaries[:0]
		for _, u := range units {
			p.Summaries = append(p.Summaries, UnitSummary{Unit: u, Summary: Summarize(values[u])})
		}
	}
}

// Benchmarks returns one benchmark line per completed run, point by point,
// repetitions in order.
func (s *Sweep) Benchmarks() []Benchmark {
	var out []Benchmark
	for _, p := range s.Points {
		runs := append([]PointRun(nil), p.Runs...)
		sort.Slice(runs, func(a, b int) bool { return runs[a].Rep < runs[b].Rep })
		for _, r := range runs {
			if r.Error == "" && !r.Superseded && len(r.Metrics) > 0 {
				out = append(out, Benchmark{Name: p.Benchmark, Iterations: 1, Metrics: r.Metrics})
			}
		}
	}
	return out
}

// Failures counts the runs that did not complete and those whose
// verification failed.
func (s *Sweep) Failures() (errors, unverified int) {
	for _, p := range s.Points {
		for _, r := range p.Runs {
			switch {
			case r.Error != "":
				errors++
			case r.Verified != nil && !*r.Verified:
				unverified++
			}
		}
	}
	return errors, unverified
}

// Verdicts counts the runs of the sweep by interference verdict, the
// superseded ones (re-run by --retry-busy) apart.
func (s *Sweep) Verdicts() (counted map[interference.Verdict]int, superseded int) {
	counted = map[interference.Verdict]int{}
	for _, p := range s.Points {
		for _, r := range p.Runs {
			switch {
			case r.Error != "":
			case r.Superseded:
				superseded++
			default:
				v := r.Verdict
				if v == "" {
					v = interference.Unknown
				}
				counted[v]++
			}
		}
	}
	return counted, superseded
}

// units lists every unit of the sweep's summaries, in order of first
// appearance.
func (s *Sweep) units() []string {
	seen := map[string]bool{}
	var units []string
	for _, p := range s.Points {
		for _, u := range p.Summaries {
			if !seen[u.Unit] {
				seen[u.Unit] = true
				units = append(units, u.Unit)
			}
		}
	}
	return units
}

// WriteJSON writes sweep.json (indented) into dir.
func (s *Sweep) WriteJSON(dir string) error {
	s.Version = sweepJSONVersion
	js, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("results: marshal sweep %s: %w", s.ID, err)
	}
	return writeFile(filepath.Join(dir, SweepJSONFile), append(js, '\n'))
}

// ReadSweep reads dir/sweep.json.
func ReadSweep(dir string) (*Sweep, error) {
	path := filepath.Join(dir, SweepJSONFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	var s Sweep
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("results: %s: %w", path, err)
	}
	if s.Version != sweepJSONVersion {
		return nil, fmt.Errorf("results: %s: sweep.json version %d, this cleanerlab reads version %d", path, s.Version, sweepJSONVersion)
	}
	return &s, nil
}

// WriteSummaryCSV writes one row per point and unit: the axis values, the
// benchmark name, the unit and the Summary's figures.
func (s *Sweep) WriteSummaryCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := axisNames(s.Axes)
	head = append(head, "benchmark", "unit", "n", "median", "mean", "p95", "min", "max", "stddev", "cv")
	cw.Write(head)
	for _, p := range s.Points {
		for _, u := range p.Summaries {
			row := paramValues(p.Params)
			row = append(row, p.Benchmark, u.Unit, strconv.Itoa(u.N), fnum(u.Median), fnum(u.Mean), fnum(u.P95),
				fnum(u.Min), fnum(u.Max), fnum(u.StdDev), cvCSV(u.Summary))
			cw.Write(row)
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteRunsCSV writes one row per run and unit: the axis values, the
// repetition, the execution order, the run ID, the verification, the
// error, the unit, the value, the interference verdict and whether the run
// was superseded by a re-run (--retry-busy).
func (s *Sweep) WriteRunsCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := axisNames(s.Axes)
	head = append(head, "rep", "order", "run", "verified", "error", "unit", "value", "verdict", "superseded")
	cw.Write(head)
	for _, p := range s.Points {
		for _, r := range p.Runs {
			verified := ""
			if r.Verified != nil {
				verified = strconv.FormatBool(*r.Verified)
			}
			base := append(paramValues(p.Params), strconv.Itoa(r.Rep), strconv.Itoa(r.Order), r.ID, verified, r.Error)
			tail := []string{string(r.Verdict), strconv.FormatBool(r.Superseded)}
			if len(r.Metrics) == 0 {
				cw.Write(append(append(base, "", ""), tail...))
			}
			for _, m := range r.Metrics {
				cw.Write(append(append(append([]string(nil), base...), m.Unit, fnum(m.Value)), tail...))
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// Write writes the sweep's combined record into dir: sweep.json,
// summary.csv, runs.csv, bench.txt, the plots (PNG and SVG) under plots/,
// report.md and report.html.
func (s *Sweep) Write(dir string) error {
	s.Summarize()
	if err := s.WriteJSON(dir); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := s.WriteSummaryCSV(&b); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, SummaryCSVFile), b.Bytes()); err != nil {
		return err
	}
	b.Reset()
	if err := s.WriteRunsCSV(&b); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, RunsCSVFile), b.Bytes()); err != nil {
		return err
	}
	b.Reset()
	if err := WriteBench(&b, BenchConfig(s.Environment), s.Benchmarks()); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, BenchTxtFile), b.Bytes()); err != nil {
		return err
	}
	plots, err := s.Plots(filepath.Join(dir, PlotsDir))
	if err != nil {
		return err
	}
	for i := range plots {
		plots[i].PNG = filepath.ToSlash(filepath.Join(PlotsDir, plots[i].PNG))
		plots[i].SVG = filepath.ToSlash(filepath.Join(PlotsDir, plots[i].SVG))
	}
	rep := &Report{Title: "cleanerlab sweep " + s.ID, Sweeps: []*Sweep{s}, Plots: plots}
	if err := writeFile(filepath.Join(dir, SweepReportFile), []byte(rep.Markdown())); err != nil {
		return err
	}
	html, err := rep.HTML()
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(dir, SweepHTMLFile), html)
}

func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	return nil
}

func axisNames(axes []Axis) []string {
	out := make([]string, len(axes))
	for i, a := range axes {
		out[i] = a.Name
	}
	return out
}

func paramValues(kv []KV) []string {
	out := make([]string, len(kv))
	for i, p := range kv {
		out[i] = p.Value
	}
	return out
}

// fnum renders a figure for CSV: shortest exact representation.
func fnum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// cvCSV is CV for summary.csv: empty when it has no meaning (one run).
func cvCSV(s Summary) string {
	if !s.HasCV() {
		return ""
	}
	return fnum(s.CV)
}
