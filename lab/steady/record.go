package steady

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/results"
)

// Files of a steady run's record, beside run.json and report.md.
const (
	SeriesCSVFile  = "series.csv"
	SeriesJSONFile = "series.json"
	SummaryMDFile  = "summary.md"
	EventLogFile   = "log-cleaner.log"
	PlotsDir       = "plots"
)

// RecordInfo is what WriteRecord needs beside the Result.
type RecordInfo struct {
	// Config is the run's configuration as it should appear in run.json
	// (and its id's hash).
	Config      any
	Environment results.Environment
	// EventLogPath is the file the run's event log was written to; it is
	// moved into the record ("" for none).
	EventLogPath string
	// Advice is the --from-advice check (nil without one).
	Advice *AdviceCheck
	// Interference is the machine's interference over the run, as the
	// caller measured it around Run (the results/interference verdict):
	// run.json's stats hold it as "interference" (nil: not measured, no
	// field). When it is a fmt.Stringer its line is also a note of the run
	// (report.md) and the last line of summary.md.
	Interference any
}

// recordStats is run.json's "stats" of a steady run.
type recordStats struct {
	Summary Summary       `json:"summary"`
	Verdict Verdict       `json:"verdict"`
	Advice  *AdviceCheck  `json:"advice,omitempty"`
	Stopped string        `json:"stopped,omitempty"`
	Dirs    []string      `json:"dirs"`
	Events  int           `json:"events"`
	Cleans  []CleanRecord `json:"cleans"`
	// Interference is RecordInfo.Interference.
	Interference any `json:"interference,omitempty"`
}

// WriteRecord writes the run's record under out: out/<run id>/ with
// run.json and report.md (results.Run), series.csv and series.json (every
// sample), summary.md (FormatSummary), plots/ (dirty ratio, compaction
// delay and throughput over time, PNG) and log-cleaner.log. It returns the
// record's directory.
func WriteRecord(out string, res *Result, info RecordInfo) (string, error) {
	run := &results.Run{StartedAt: res.StartedAt, Config: info.Config, Environment: info.Environment,
		Stats: recordStats{Summary: res.Summary, Verdict: res.Verdict, Advice: info.Advice, Stopped: res.Stopped, Dirs: res.Dirs, Events: res.Events, Cleans: res.Cleans,
			Interference: info.Interference}}
	run.SetCounters(res.CountersBefore, res.CountersAfter)
	for _, r := range res.Summary.Rows {
		run.Rows = append(run.Rows, results.Row{Name: r.Name + " median", Value: strconv.FormatFloat(r.Median, 'g', 6, 64), Unit: r.Unit, Meaning: "median after the warm-up"})
		run.Rows = append(run.Rows, results.Row{Name: r.Name + " max", Value: strconv.FormatFloat(r.Max, 'g', 6, 64), Unit: r.Unit, Meaning: "maximum after the warm-up"})
	}
	run.Notes = append(run.Notes, "verdict: "+res.Verdict.Line)
	interference := ""
	if st, ok := info.Interference.(fmt.Stringer); ok {
		interference = "interference: " + st.String()
		run.Notes = append(run.Notes, interference)
	}
	id, err := results.NewID(run.StartedAt, run.Config)
	if err != nil {
		return "", err
	}
	// Runs of one configuration started in the same second get -2, -3, ...
	var dir string
	for n := 1; ; n++ {
		run.ID = id
		if n > 1 {
			run.ID = fmt.Sprintf("%s-%d", id, n)
		}
		dir, err = run.Write(out)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || n >= 100 {
			return dir, err
		}
	}
	write := func(name string, fn func(w io.Writer) error) error {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("steady: %w", err)
		}
		if err := fn(f); err != nil {
			f.Close()
			return fmt.Errorf("steady: write %s: %w", name, err)
		}
		return f.Close()
	}
	if err := write(SeriesCSVFile, func(w io.Writer) error { return WriteCSV(w, res.Samples) }); err != nil {
		return dir, err
	}
	if err := write(SeriesJSONFile, func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", " ")
		return e.Encode(res.Samples)
	}); err != nil {
		return dir, err
	}
	if err := write(SummaryMDFile, func(w io.Writer) error {
		summary := FormatSummary(res, info.Advice)
		if interference != "" {
			summary += "\n" + interference + "\n"
		}
		_, err := io.WriteString(w, summary)
		return err
	}); err != nil {
		return dir, err
	}
	if err := os.MkdirAll(filepath.Join(dir, PlotsDir), 0o755); err != nil {
		return dir, fmt.Errorf("steady: %w", err)
	}
	if err := WritePlots(filepath.Join(dir, PlotsDir), res.Samples); err != nil {
		return dir, err
	}
	if info.EventLogPath != "" {
		dst := filepath.Join(dir, EventLogFile)
		if err := os.Rename(info.EventLogPath, dst); err != nil {
			return dir, fmt.Errorf("steady: move the event log into the record: %w", err)
		}
	}
	return dir, nil
}

// WriteCSV writes one row per sample: warmup and final flags, the Columns,
// then for each partition N the PartitionColumns as pN_<name>.
func WriteCSV(w io.Writer, samples []*Sample) error {
	cw := csv.NewWriter(w)
	parts := 0
	for _, s := range samples {
		parts = max(parts, len(s.Partitions))
	}
	head := []string{"time_ms", "warmup", "final"}
	for _, c := range Columns {
		head = append(head, c.Name)
	}
	for p := range parts {
		for _, c := range PartitionColumns {
			head = append(head, "p"+strconv.Itoa(p)+"_"+c.Name)
		}
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, s := range samples {
		row := []string{strconv.FormatInt(s.TimeMs, 10), strconv.FormatBool(s.Warmup), strconv.FormatBool(s.Final)}
		for _, c := range Columns {
			row = append(row, f(c.Get(s)))
		}
		for p := range parts {
			for _, c := range PartitionColumns {
				if p < len(s.Partitions) {
					row = append(row, f(c.Get(&s.Partitions[p])))
				} else {
					row = append(row, "")
				}
			}
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// FormatSummary renders the summary table (median and max of each summary
// column after the warm-up), the window's rates, the verdict line and,
// with an advice, the predicted and measured dirty ratio and compaction
// delay, as Markdown.
func FormatSummary(res *Result, adv *AdviceCheck) string {
	var b strings.Builder
	s := res.Summary
	fmt.Fprintf(&b, "steady state after the warm-up: %d samples over %.1f s, %d cleans\n\n", s.Samples, s.WindowSeconds, s.Cleans)
	fmt.Fprintf(&b, "| figure | unit | median | max |\n|---|---|---:|---:|\n")
	for _, r := range s.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.Name, r.Unit, fig(r.Median, r.Unit), fig(r.Max, r.Unit))
	}
	fmt.Fprintf(&b, "\n| window rate | value |\n|---|---:|\n")
	// A window of one sample (or none) has no duration: its rates were not
	// measured, and a zero would read as one.
	rate := func(v float64) string {
		if s.WindowSeconds <= 0 {
			return "n/a (no window after the warm-up)"
		}
		return results.FormatBytes(int64(v)) + "/s"
	}
	duty := "n/a (no window after the warm-up)"
	if s.WindowSeconds > 0 {
		duty = fmt.Sprintf("%.1f%%", 100*s.CleanerDutyCycle)
	}
	fmt.Fprintf(&b, "| producers wrote | %s |\n", rate(s.ProducerBytesPerSec))
	fmt.Fprintf(&b, "| cleaner read (copy) | %s |\n", rate(s.CleanerReadBytesPerSec))
	fmt.Fprintf(&b, "| cleaner wrote | %s |\n", rate(s.CleanerWrittenBytesPerSec))
	fmt.Fprintf(&b, "| cleaner duty cycle | %s |\n", duty)
	if adv != nil {
		a := adv.Advice
		// measured prints a figure of the window, n/a without one; chosen
		// one of the cleans that ended in it, n/a without a clean.
		measured := func(v float64, format string) string {
			if adv.WindowSamples == 0 {
				return "n/a"
			}
			return fmt.Sprintf(format, v)
		}
		chosen := func(v float64) string {
			if adv.WindowSamples == 0 || adv.ChosenCleans == 0 {
				return "n/a"
			}
			return fmt.Sprintf("%.3f", v)
		}
		fmt.Fprintf(&b, "\nadvice %s (model predictions, from advise) vs this run (measured):\n\n", a.Path)
		if adv.WindowSamples == 0 {
			fmt.Fprintf(&b, "(no sample after the warm-up: nothing measured to compare)\n\n")
		}
		fmt.Fprintf(&b, "| figure | predicted | measured | error |\n|---|---:|---:|---:|\n")
		fmt.Fprintf(&b, "| mean dirty ratio (time average of the partitions' cleanable ratio) | %s | %s | %s |\n", optional(a.SteadyDirtyRatio, "%.3f"), measured(adv.MeasuredDirtyRatio, "%.3f"), optionalPct(adv.DirtyRatioError))
		fmt.Fprintf(&b, "| peak dirty ratio (median cleanable ratio at the %d cleans' choices) | %s | %s | %s |\n", adv.ChosenCleans, optional(a.PeakDirtyRatio, "%.3f"), chosen(adv.MeasuredChosenRatio), optionalPct(adv.PeakDirtyRatioError))
		fmt.Fprintf(&b, "| largest cleanable ratio at a choice / in any sample | | %s / %s | |\n", chosen(adv.MeasuredMaxChosenRatio), measured(adv.MeasuredPeakDirtyRatio, "%.3f"))
		fmt.Fprintf(&b, "| max compaction delay (oldest dirty record's age, s) | %s | %s | %s |\n", optional(a.CompactionDelaySeconds, "%.1f"), measured(adv.MeasuredMaxCompactionDelaySeconds, "%.1f"), optionalPct(adv.CompactionDelayError))
		fmt.Fprintf(&b, "| median compaction delay (s) | | %s | |\n", measured(adv.MeasuredCompactionDelaySeconds, "%.1f"))
		fmt.Fprintf(&b, "| median dirty bytes / log bytes (active segment included) | | %s | |\n", measured(adv.MeasuredDirtyBytesRatio, "%.3f"))
		if a.FallsBehind != nil {
			measured := "undecided"
			if res.Verdict.Decided {
				measured = map[bool]string{true: "yes", false: "no"}[res.Verdict.KeepsUp]
			}
			fmt.Fprintf(&b, "| keeps up | %v | %s | |\n", !*a.FallsBehind, measured)
		}
	}
	if res.Stopped != "" {
		fmt.Fprintf(&b, "\nstopped early: %s\n", res.Stopped)
	}
	fmt.Fprintf(&b, "\nverdict: %s\n", res.Verdict.Line)
	return b.String()
}

func optional(v *float64, format string) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf(format, *v)
}

func optionalPct(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return fmt.Sprintf("%+.0f%%", 100**v)
}

// fig formats a summary value in its unit.
func fig(v float64, unit string) string {
	switch unit {
	case "B":
		return results.FormatBytes(int64(v))
	case "B/s":
		return results.FormatBytes(int64(v)) + "/s"
	case "ratio":
		return strconv.FormatFloat(v, 'f', 3, 64)
	case "ms":
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
