package lab

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"golang.org/x/perf/benchfmt"

	"github.com/cleanerlab/cleanerlab/results"
)

// reportInput is what one PATH holds.
type reportInput struct {
	path    string
	sweeps  []*results.Sweep
	runs    []*results.Run
	runDirs []string
	benches []results.Benchmark // every benchmark line, from all of the above
}

// loadReportInput reads a sweep directory, a run directory, a directory
// of them, or a benchmark file.
func loadReportInput(path string) (*reportInput, error) {
	in := &reportInput{path: path}
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if !st.IsDir() {
		b, err := readBenchFile(path)
		if err != nil {
			return nil, err
		}
		in.benches = b
		return in, nil
	}
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if _, err := os.Stat(filepath.Join(p, results.SweepJSONFile)); err == nil {
			s, err := results.ReadSweep(p)
			if err != nil {
				return err
			}
			s.Summarize()
			in.sweeps = append(in.sweeps, s)
			in.benches = append(in.benches, s.Benchmarks()...)
			return filepath.SkipDir // its runs are in the sweep
		}
		if _, err := os.Stat(filepath.Join(p, results.RunJSONFile)); err == nil {
			r, err := results.ReadRun(p)
			if err != nil {
				return err
			}
			in.runs = append(in.runs, r)
			in.runDirs = append(in.runDirs, p)
			in.benches = append(in.benches, r.Benchmarks...)
			return filepath.SkipDir
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if len(in.sweeps) == 0 && len(in.runs) == 0 {
		return nil, fmt.Errorf("report: %s holds no sweep (sweep.json) and no run (run.json)", path)
	}
	return in, nil
}

// readBenchFile reads Go benchmark lines with golang.org/x/perf/benchfmt,
// keeping values in the units they were written in.
func readBenchFile(path string) ([]results.Benchmark, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	var out []results.Benchmark
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, fmt.Errorf("report: %v", rec)
		case *benchfmt.Result:
			b := results.Benchmark{Name: "Benchmark" + rec.Name.String(), Iterations: rec.Iters}
			for _, v := range rec.Values {
				val, unit := v.Value, v.Unit
				if v.OrigUnit != "" {
					val, unit = v.OrigValue, v.OrigUnit
				}
				b.Metrics = append(b.Metrics, results.Metric{Value: val, Unit: unit})
			}
			out = append(out, b)
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("report: %s: %w", path, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("report: %s holds no benchmark lines", path)
	}
	return out, nil
}

// Report renders what each path holds (a sweep directory, a run
// directory, a directory of those, or a Go benchmark file) into
// out/report.md and out/report.html with the sweeps' plots regenerated
// under out/plots/, and prints the comparison to w: with col, of the values
// of that benchmark name key (as benchstat -col /KEY); with two or more
// paths, of the paths as sets (benchstat's statistics); otherwise each
// sweep's table and each run's throughput.
func Report(w io.Writer, paths []string, out, col string) error {
	var inputs []*reportInput
	for _, p := range paths {
		in, err := loadReportInput(p)
		if err != nil {
			return err
		}
		inputs = append(inputs, in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	rep := &results.Report{Title: "cleanerlab report"}
	for _, in := range inputs {
		rep.Sweeps = append(rep.Sweeps, in.sweeps...)
		rep.Runs = append(rep.Runs, in.runs...)
		for _, d := range in.runDirs {
			rep.RunLabels = append(rep.RunLabels, d)
		}
	}
	for _, s := range rep.Sweeps {
		sub := filepath.Join(results.PlotsDir, s.ID)
		plots, err := s.Plots(filepath.Join(out, sub))
		if err != nil {
			return err
		}
		for i := range plots {
			plots[i].PNG = filepath.ToSlash(filepath.Join(sub, plots[i].PNG))
			plots[i].SVG = filepath.ToSlash(filepath.Join(sub, plots[i].SVG))
		}
		rep.Plots = append(rep.Plots, plots...)
	}
	switch {
	case col != "":
		var all []results.Benchmark
		for _, in := range inputs {
			all = append(all, in.benches...)
		}
		sets, dropped := results.SplitByKeyFollowing(all, col, IsWorkloadNameKey)
		if len(sets) < 2 {
			return fmt.Errorf("report: --col %s: the results have %d value(s) of %s; nothing to compare", col, len(sets), col)
		}
		rep.Comparisons = results.Compare(sets)
		rep.CompareNote = fmt.Sprintf("Columns: the values of %s in the benchmark names (as benchstat -col /%s).", col, col)
		if len(dropped) > 0 {
			rep.CompareNote += fmt.Sprintf(" Left out of the row names, as their values follow %s's: %s.", col, strings.Join(dropped, ", "))
			fmt.Fprintf(w, "report: --col %s: %s left out of the row names (their values follow %s's)\n", col, strings.Join(dropped, ", "), col)
		}
	case len(inputs) >= 2:
		sets := make([]results.BenchSet, len(inputs))
		for i, in := range inputs {
			sets[i] = results.BenchSet{Label: setLabel(in.path, paths), Benchmarks: in.benches}
		}
		rep.Comparisons = results.Compare(sets)
		rep.CompareNote = "Columns: " + strings.Join(paths, ", ") + "."
	}
	md := rep.Markdown()
	html, err := rep.HTML()
	if err != nil {
		return err
	}
	for name, b := range map[string][]byte{"report.md": []byte(md), "report.html": html} {
		if err := os.WriteFile(filepath.Join(out, name), b, 0o644); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	if len(rep.Comparisons) > 0 {
		printComparisons(w, rep.Comparisons)
	} else {
		printReportSummary(w, rep)
	}
	fmt.Fprintf(w, "report: %s (report.md, report.html, %d plots)\n", out, len(rep.Plots))
	return nil
}

// setLabel is a short label for a PATH: its base name, or the whole path
// when two PATHs share a base name.
func setLabel(path string, all []string) string {
	base := filepath.Base(filepath.Clean(path))
	n := 0
	for _, p := range all {
		if filepath.Base(filepath.Clean(p)) == base {
			n++
		}
	}
	if n > 1 {
		return path
	}
	return base
}

// WriteComparisons prints each unit's comparison table in benchstat's
// layout: per column the median and its interval, and after the first
// column the change against it with its p-value and counts.
func WriteComparisons(w io.Writer, tables []results.CompareTable) { printComparisons(w, tables) }

// printComparisons prints each unit's table, benchstat's layout.
func printComparisons(w io.Writer, tables []results.CompareTable) {
	for _, t := range tables {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\t", results.DisplayUnit(t.Unit))
		for i, c := range t.Columns {
			fmt.Fprintf(tw, "%s\t", c)
			if i > 0 {
				fmt.Fprint(tw, "vs base\t")
			}
		}
		fmt.Fprintln(tw)
		for _, r := range t.Rows {
			fmt.Fprintf(tw, "%s\t", strings.TrimPrefix(r.Name, "Benchmark"))
			for i, c := range r.Cells {
				if c.N == 0 {
					fmt.Fprint(tw, "-\t")
				} else {
					fmt.Fprintf(tw, "%s %s\t", results.FormatValue(c.Center, t.Unit), c.Range)
				}
				if i > 0 {
					fmt.Fprintf(tw, "%s (%s)\t", c.Delta, c.Note)
				}
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
		fmt.Fprintln(w)
	}
}

// printReportSummary prints each sweep's and run's throughput.
func printReportSummary(w io.Writer, rep *results.Report) {
	for _, s := range rep.Sweeps {
		fmt.Fprintf(w, "sweep %s\n", s.ID)
		WriteSweepTable(w, s)
	}
	type line struct{ label, name string }
	var lines []line
	for i, r := range rep.Runs {
		for _, b := range r.Benchmarks {
			mb, _ := b.Value(results.UnitMBps)
			lines = append(lines, line{rep.RunLabels[i], fmt.Sprintf("%s %.1f MiB/s", strings.TrimPrefix(b.Name, "Benchmark"), mb*1e6/(1<<20))})
		}
	}
	sort.Slice(lines, func(a, b int) bool { return lines[a].label < lines[b].label })
	for _, l := range lines {
		fmt.Fprintf(w, "%s: %s\n", l.label, l.name)
	}
}
