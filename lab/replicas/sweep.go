package replicas

import (
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

// SweepOptions are a campaign sweep and where its record goes.
type SweepOptions struct {
	replication.SweepConfig
	// Out is the runs directory (default "runs"); NoRecord writes nothing.
	Out      string
	NoRecord bool
}

// SweepRecord is a sweep's result and its run record.
type SweepRecord struct {
	Result *replication.SweepResult
	Run    *results.Run
	// Wall and CPU are the sweep's wall time and the process's CPU time
	// (user + system) spent in it, for the speed figure.
	Wall, CPU time.Duration
}

// Sweep runs the campaign once per cell of the grid
// (replication.RunSweep) and writes the record: run.json (the grid, the
// seeds and every cell's campaign), sweep.json (the same result alone,
// for scripts), report.md (a row per cell and kind), a heatmap of the
// divergence rate per kind seen (divergence-<kind>.png/.svg and
// divergence-any) and, when the coordination polled, of its bytes per
// schedule (coordination-bytes.png/.svg), and each cell's shrunk
// reproducer (cell-N.scenario) when Shrink found one.
func Sweep(opts SweepOptions, progress func(cell, done int)) (*SweepRecord, error) {
	start := time.Now()
	cpu0 := processCPU()
	res, err := replication.RunSweep(opts.SweepConfig, progress)
	if err != nil {
		return nil, err
	}
	rec := &SweepRecord{Result: res, Wall: time.Since(start), CPU: processCPU() - cpu0}
	c := opts.Campaign
	run := &results.Run{StartedAt: start, Config: sweepConfigJSON(&opts.SweepConfig), Stats: res}
	run.Phases = map[string]time.Duration{"sweep": rec.Wall}
	run.Rows = sweepRows(res)
	run.Rows = append(run.Rows, results.Row{Name: "speed", Value: fmt.Sprintf("%.0f", schedulesPerCPUMinute(res, rec.CPU)), Unit: "schedules/CPU-min",
		Meaning: fmt.Sprintf("%d schedules in %.1f CPU-s (user+system, this process), %.1f s wall", schedulesDone(res), rec.CPU.Seconds(), rec.Wall.Seconds())})
	run.Notes = append(run.Notes, fmt.Sprintf("every cell runs the same seeds %d..%d (schedule i uses seed+i), so cells differ only by their knobs; divergences are judged after replication.Settle", c.Seed, c.Seed+uint64(c.Runs)-1))
	if res.Stopped != "" {
		run.Stopped = res.Stopped
		run.Notes = append(run.Notes, "INTERRUPTED: "+res.Stopped)
	}
	rec.Run = run
	if opts.NoRecord {
		return rec, nil
	}
	path, err := writeRecord(run, c.Root, opts.Out)
	if err != nil {
		return rec, err
	}
	b, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return rec, err
	}
	if err := os.WriteFile(filepath.Join(path, "sweep.json"), append(b, '\n'), 0o644); err != nil {
		return rec, err
	}
	for _, cell := range res.Cells {
		if cell.Reproducer != "" {
			if err := os.WriteFile(filepath.Join(path, fmt.Sprintf("cell-%d.scenario", cell.Index)), []byte(cell.Reproducer), 0o644); err != nil {
				return rec, err
			}
		}
	}
	return rec, sweepPlots(path, res)
}

// sweepConfigJSON is the sweep as recorded: the base campaign's config
// (campaignConfigJSON), the axes with their values, and the grid's size;
// with the seeds, enough to rerun every cell exactly.
func sweepConfigJSON(s *replication.SweepConfig) map[string]any {
	m := campaignConfigJSON(&s.Campaign)
	m["kind"] = "replicas-campaign-sweep"
	m["axes"] = s.Axes
	return m
}

func schedulesDone(res *replication.SweepResult) int {
	n := 0
	for _, c := range res.Cells {
		n += c.RunsDone
	}
	return n
}

// schedulesPerCPUMinute is schedules done per minute of CPU time (0 when
// no CPU time was measured).
func schedulesPerCPUMinute(res *replication.SweepResult, cpu time.Duration) float64 {
	if cpu <= 0 {
		return 0
	}
	return float64(schedulesDone(res)) / cpu.Minutes()
}

// sweepRows are the report's rows: per cell, the schedules done, the rate
// of each kind seen in the sweep, and the coordination's load.
func sweepRows(res *replication.SweepResult) []results.Row {
	var rows []results.Row
	kinds := sweepKinds(res)
	for _, c := range res.Cells {
		rows = append(rows, results.Row{Name: c.Name() + ": diverged", Value: fmt.Sprintf("%.4g", c.Rate["any"]), Unit: "fraction of runs",
			Meaning: fmt.Sprintf("%d of %d schedules", c.Diverged, c.RunsDone)})
		for _, k := range kinds {
			rows = append(rows, results.Row{Name: c.Name() + ": " + k, Value: fmt.Sprintf("%.4g", c.Rate[k]), Unit: "fraction of runs"})
		}
		if c.Polls > 0 {
			rows = append(rows, results.Row{Name: c.Name() + ": coordination", Value: fmt.Sprint(c.Bytes), Unit: "bytes",
				Meaning: fmt.Sprintf("%d polls, %d broadcasts over %d schedules", c.Polls, c.Broadcasts, c.RunsDone)})
		}
	}
	return rows
}

// sweepKinds lists the kinds some cell saw, in replication.Kinds order.
func sweepKinds(res *replication.SweepResult) []string {
	var out []string
	for _, k := range replication.Kinds {
		for _, c := range res.Cells {
			if c.ByKind[k] > 0 {
				out = append(out, string(k))
				break
			}
		}
	}
	return out
}

// WriteSweep writes rec as "cleanerlab replicas campaign --sweep" prints
// it: format "json" is the SweepResult (every cell without its per-run
// outcomes) with "record" (the record's path), "wall_s" and "cpu_s";
// otherwise a table, one row per cell: its knobs, schedules done,
// diverged fraction, the fraction per kind seen, the coordination's polls,
// broadcasts and bytes; then the speed and the record's path.
func WriteSweep(w io.Writer, rec *SweepRecord, format string) error {
	res := rec.Result
	if format == "json" {
		short := *res
		short.Cells = make([]replication.CellResult, len(res.Cells))
		for i, c := range res.Cells {
			cr := *c.CampaignResult
			cr.Outcomes = nil
			c.CampaignResult = &cr
			short.Cells[i] = c
		}
		b, err := json.MarshalIndent(struct {
			*replication.SweepResult
			Record string  `json:"record"`
			WallS  float64 `json:"wall_s"`
			CPUS   float64 `json:"cpu_s"`
		}{&short, rec.Run.Path, rec.Wall.Seconds(), rec.CPU.Seconds()}, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintln(w, string(b))
		return err
	}
	kinds := sweepKinds(res)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := append(append([]string{"cell", "runs", "diverged"}, kinds...), "polls", "broadcasts", "coord B")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, c := range res.Cells {
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t", c.Name(), c.RunsDone, c.Rate["any"])
		for _, k := range kinds {
			fmt.Fprintf(tw, "%.3f\t", c.Rate[k])
		}
		fmt.Fprintf(tw, "%d\t%d\t%d\t\n", c.Polls, c.Broadcasts, c.Bytes)
	}
	tw.Flush()
	if res.Stopped != "" {
		fmt.Fprintf(w, "INTERRUPTED: %s\n", res.Stopped)
	}
	for _, c := range res.Cells {
		if c.Reproducer != "" {
			fmt.Fprintf(w, "cell %d (%s): %s shrunk from seed %d: cell-%d.scenario in the record\n", c.Index, c.Name(), c.ReproducerKind, c.ReproducerSeed, c.Index)
		}
	}
	fmt.Fprintf(w, "%d schedules in %.1f CPU-s (%.0f schedules per CPU-minute), %.1f s wall; record %s\n", schedulesDone(res), rec.CPU.Seconds(), schedulesPerCPUMinute(res, rec.CPU), rec.Wall.Seconds(), rec.Run.Path)
	return nil
}

// heatGrid lays a sweep's cells out for a heat map: columns are the
// values of the last axis, rows the combinations of the others (one row
// when there is a single axis), in grid order; z is a cell's value.
type heatGrid struct {
	cols, rows int
	z          []float64 // by cell index; NaN for cells not run
}

func (g heatGrid) Dims() (int, int)   { return g.cols, g.rows }
func (g heatGrid) Z(c, r int) float64 { return g.z[r*g.cols+c] }
func (g heatGrid) X(c int) float64    { return float64(c) }
func (g heatGrid) Y(r int) float64    { return float64(r) }

// sweepPlots draws the heat maps: the divergence rate of "any" and of
// every kind seen, and the coordination's bytes per schedule when it
// polled.
func sweepPlots(dir string, res *replication.SweepResult) error {
	if len(res.Cells) == 0 {
		return nil
	}
	polled := false
	for _, c := range res.Cells {
		polled = polled || c.Polls > 0
	}
	type heat struct {
		file, title string
		value       func(replication.CellResult) float64
	}
	var heats []heat
	for _, k := range append([]string{"any"}, sweepKinds(res)...) {
		heats = append(heats, heat{"divergence-" + k, "divergence rate: " + k + " (fraction of schedules)", func(c replication.CellResult) float64 { return c.Rate[k] }})
	}
	if polled {
		heats = append(heats, heat{"coordination-bytes", "coordination bytes per schedule", func(c replication.CellResult) float64 {
			if c.RunsDone == 0 {
				return math.NaN()
			}
			return float64(c.Bytes) / float64(c.RunsDone)
		}})
	}
	for _, h := range heats {
		if err := heatPlot(dir, h.file, h.title, res, h.value); err != nil {
			return err
		}
	}
	return nil
}

func heatPlot(dir, file, title string, res *replication.SweepResult, value func(replication.CellResult) float64) error {
	axes := res.Axes
	g := heatGrid{cols: 1, rows: 1}
	var xLabel string
	var xTicks, yTicks []plot.Tick
	if len(axes) > 0 {
		last := axes[len(axes)-1]
		g.cols = len(last.Values)
		g.rows = res.CellsPlanned / g.cols
		xLabel = last.Knob
		for i, v := range last.Values {
			xTicks = append(xTicks, plot.Tick{Value: float64(i), Label: v})
		}
	}
	g.z = make([]float64, g.cols*g.rows)
	for i := range g.z {
		g.z[i] = math.NaN()
	}
	var labels plotter.XYLabels
	maxZ := 0.0
	rowName := make([]string, g.rows)
	for _, c := range res.Cells {
		z := value(c)
		g.z[c.Index] = z
		if !math.IsNaN(z) {
			maxZ = max(maxZ, z)
		}
		col, row := c.Index%g.cols, c.Index/g.cols
		labels.XYs = append(labels.XYs, plotter.XY{X: float64(col), Y: float64(row)})
		labels.Labels = append(labels.Labels, fmt.Sprintf("%.3g", z))
		var parts []string
		for _, k := range c.Knobs[:max(len(c.Knobs)-1, 0)] {
			parts = append(parts, k.Knob+"="+k.Value)
		}
		rowName[row] = strings.Join(parts, " ")
	}
	for r, n := range rowName {
		if n == "" && len(axes) > 1 {
			n = "(not run)"
		}
		yTicks = append(yTicks, plot.Tick{Value: float64(r), Label: n})
	}
	hm := plotter.NewHeatMap(g, lightToDark{palette.Heat(32, 1)})
	hm.Min, hm.Max = 0, maxZ
	if maxZ == 0 {
		hm.Max = 1
	}
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xLabel
	p.Add(hm)
	lb, err := plotter.NewLabels(labels)
	if err != nil {
		return err
	}
	p.Add(lb)
	p.X.Tick.Marker = plot.ConstantTicks(xTicks)
	p.Y.Tick.Marker = plot.ConstantTicks(yTicks)
	p.X.Min, p.X.Max = -0.5, float64(g.cols)-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(g.rows)-0.5
	for _, ext := range []string{".png", ".svg"} {
		if err := p.Save(vg.Length(3+1.2*float64(g.cols))*vg.Inch, vg.Length(2+0.6*float64(g.rows))*vg.Inch, filepath.Join(dir, file+ext)); err != nil {
			return fmt.Errorf("replicas: save plot %s%s: %w", file, ext, err)
		}
	}
	return nil
}

// lightToDark is a palette in reverse order: Heat runs from dark red to
// white, so that reversed, 0 is light and the most is dark red.
type lightToDark struct{ palette.Palette }

func (p lightToDark) Colors() []color.Color {
	c := slices.Clone(p.Palette.Colors())
	slices.Reverse(c)
	return c
}
