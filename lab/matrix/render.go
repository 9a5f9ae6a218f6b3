package matrix

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
)

// header are the error table's columns.
var header = []string{"row", "measured", "passes pred/meas", "clean s pred", "clean s meas", "error",
	"threads: keeps up model/measured", "dirty ratio pred/meas", "error", "delay s pred/meas", "error", "interference"}

func pct(e *float64) string {
	if e == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100**e)
}

func secs(v float64) string {
	switch {
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.1:
		return fmt.Sprintf("%.3f", v)
	default:
		return fmt.Sprintf("%.4f", v)
	}
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// threadsCell is "T: model/measured" for each steady run; measured is
// "?" when steady could not decide, "err" when the run failed.
func threadsCell(runs []SteadyRun) string {
	var parts []string
	for _, r := range runs {
		m := yesNo(r.KeepsUp)
		switch {
		case r.Error != "":
			m = "err"
		case !r.Decided:
			m = "?"
		}
		parts = append(parts, fmt.Sprintf("%d: %s/%s", r.Threads, yesNo(r.PredictedKeepsUp), m))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ")
}

// cells are one row's table cells, in header's order.
func cells(r RowResult) []string {
	c := []string{r.Row.Name, r.Measured, "-", "-", "-", "-", threadsCell(r.Steady), "-", "-", "-", "-", r.Interference}
	if r.Error != "" && r.PassesMeasured == 0 {
		c[2] = "failed"
		return c
	}
	switch {
	case r.NotModelled != "":
		c[2] = fmt.Sprintf("not modelled/%d", r.PassesMeasured)
		c[3] = "not modelled"
	case r.PassesPredicted != nil:
		c[2] = fmt.Sprintf("%d/%d", *r.PassesPredicted, r.PassesMeasured)
		if *r.PassesPredicted != r.PassesMeasured {
			c[2] += " (differ)"
		}
	}
	if r.CleanSecondsPredicted != nil {
		c[3] = secs(*r.CleanSecondsPredicted)
	}
	if r.CleanSecondsMeasured > 0 {
		c[4] = secs(r.CleanSecondsMeasured)
	}
	c[5] = pct(r.CleanSecondsError)
	for _, s := range r.Steady {
		if s.Role != RoleAdvised || s.Error != "" {
			continue
		}
		pred := "-"
		if s.DirtyRatioPredicted != nil {
			pred = fmt.Sprintf("%.3f", *s.DirtyRatioPredicted)
		}
		c[7] = fmt.Sprintf("%s/%.3f", pred, s.DirtyRatioMeasured)
		c[8] = pct(s.DirtyRatioError)
		pred = "-"
		if s.CompactionDelayPredicted != nil {
			pred = secs(*s.CompactionDelayPredicted)
		}
		c[9] = fmt.Sprintf("%s/%s", pred, secs(s.CompactionDelayMeasured))
		c[10] = pct(s.CompactionDelayError)
	}
	return c
}

// WriteText writes the error table, the notes (rows not modelled, failed
// rows and runs) and the summary for people.
func WriteText(w io.Writer, res *Result) {
	fmt.Fprintf(w, "advise --validate --matrix %s: %d rows; clean time of a scaled-down log (one partition, all passes) and short steady runs; every \"pred\" is a model prediction, every \"meas\" measured in this run\n\n", res.Matrix, len(res.Rows))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, r := range res.Rows {
		fmt.Fprintln(tw, strings.Join(cells(r), "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, line := range notes(res) {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	for _, line := range summaryLines(res) {
		fmt.Fprintln(w, line)
	}
}

// WriteMarkdown writes the same table, notes and summary as Markdown.
func WriteMarkdown(w io.Writer, res *Result) {
	fmt.Fprintf(w, "# advise --validate --matrix %s\n\n", res.Matrix)
	if res.Description != "" {
		fmt.Fprintf(w, "%s\n\n", res.Description)
	}
	fmt.Fprintf(w, "Clean time of a scaled-down log (one partition, all passes) and short steady runs. Every \"pred\" is a model prediction (lab/sizing), every \"meas\" measured in this run.\n\n")
	fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range res.Rows {
		c := cells(r)
		for i := range c {
			c[i] = strings.ReplaceAll(c[i], "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
	}
	fmt.Fprintln(w)
	if n := notes(res); len(n) > 0 {
		for _, line := range n {
			fmt.Fprintf(w, "- %s\n", line)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "## Summary\n\n")
	for _, line := range summaryLines(res) {
		fmt.Fprintf(w, "- %s\n", line)
	}
	if res.Plot != "" {
		fmt.Fprintf(w, "\n![predicted vs measured clean time](%s)\n", res.Plot)
	}
}

// notes are the lines under the table: rows not modelled, errors, how
// the steady runs were scaled.
func notes(res *Result) []string {
	var out []string
	for _, r := range res.Rows {
		if r.NotModelled != "" {
			out = append(out, fmt.Sprintf("%s: not modelled: %s", r.Row.Name, r.NotModelled))
		}
		if r.Error != "" {
			out = append(out, fmt.Sprintf("%s: error: %s", r.Row.Name, r.Error))
		}
		for _, s := range r.Steady {
			if s.Error != "" {
				out = append(out, fmt.Sprintf("%s: steady %s (%d threads): error: %s", r.Row.Name, s.Role, s.Threads, s.Error))
			}
		}
	}
	return out
}

func summaryLines(res *Result) []string {
	s := res.Summary
	lines := []string{
		fmt.Sprintf("clean time, %d modelled rows (%d not modelled, %d failed): median |error| %.1f%%, max |error| %.1f%%%s; passes exact in %d of %d%s",
			s.Modelled, s.NotModelled, s.Failed, 100*s.CleanMedianAbsError, 100*s.CleanMaxAbsError, rowOf(s.CleanMaxRow), s.PassesExact, s.Modelled, listOf("differ", s.PassesWrong)),
		fmt.Sprintf("steady, %d advised runs with predictions: dirty ratio median |error| %.1f%%, max %.1f%%; compaction delay median |error| %.1f%%, max %.1f%%",
			s.SteadyRuns, 100*s.DirtyRatioMedianAbsError, 100*s.DirtyRatioMaxAbsError, 100*s.DelayMedianAbsError, 100*s.DelayMaxAbsError),
		fmt.Sprintf("threads: the advised count kept up in %d of %d decided runs; the model's keeps-up matched %d of %d decided runs%s",
			s.AdvisedKeptUp, s.AdvisedDecided, s.ThreadRunsMatched, s.ThreadRunsDecided, listOf("wrong", s.ThreadsWrong)),
	}
	if s.SteadyCleanSlowdown > 0 {
		lines = append(lines, fmt.Sprintf("steady cleans beside the producers: median measured / predicted clean time %.2f (the model times a clean alone)", s.SteadyCleanSlowdown))
	}
	var kinds []string
	for k, n := range s.Interference {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(kinds)
	lines = append(lines, "interference: "+strings.Join(kinds, ", "))
	if res.Seconds > 0 {
		lines = append(lines, fmt.Sprintf("runtime: %.0f s (measured)", res.Seconds))
	}
	return lines
}

func rowOf(name string) string {
	if name == "" {
		return ""
	}
	return " (" + name + ")"
}

func listOf(what string, names []string) string {
	if len(names) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s: %s)", what, strings.Join(names, ", "))
}

// WriteRecord writes the plot (WritePlot), matrix.md and matrix.json
// into dir (created); res.Plot is set to the plot's file name.
func WriteRecord(dir string, res *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	p, err := WritePlot(dir, res)
	if err != nil {
		return err
	}
	if p != "" {
		res.Plot = filepath.Base(p)
	}
	var md strings.Builder
	WriteMarkdown(&md, res)
	if err := os.WriteFile(filepath.Join(dir, "matrix.md"), []byte(md.String()), 0o644); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	js, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "matrix.json"), append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("matrix: %w", err)
	}
	return nil
}
