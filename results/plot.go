package results

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PlotFile is one plot of a sweep, written as PNG and SVG.
type PlotFile struct {
	Title string `json:"title"`
	// PNG and SVG are the files' paths (relative to the directory the
	// caller gave Plots, until the caller rewrites them).
	PNG string `json:"png"`
	SVG string `json:"svg"`
	// Caption says what the plot shows: the metric, the lines, the spread.
	Caption string `json:"caption"`
}

// plotWidth and plotHeight are the size of every plot.
const (
	plotWidth  = 16 * vg.Centimeter
	plotHeight = 10 * vg.Centimeter
	// maxFacets bounds the plots per numeric axis: one per combination of
	// the other numeric axes' values.
	maxFacets = 16
)

// ParseNumber reads a parameter value as a number: a plain or exponent
// number ("1e5", "0.5") or a byte count with a binary suffix ("64MiB",
// "512KiB", "1G"). ok is false for anything else.
func ParseNumber(s string) (v float64, ok bool) {
	t := strings.TrimSpace(s)
	for _, u := range []struct {
		suffix string
		mult   float64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}} {
		if strings.HasSuffix(t, u.suffix) {
			f, err := strconv.ParseFloat(strings.TrimSuffix(t, u.suffix), 64)
			return f * u.mult, err == nil
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// numericAxis says whether every value of a is a number.
func numericAxis(a Axis) bool {
	for _, v := range a.Values {
		if _, ok := ParseNumber(v); !ok {
			return false
		}
	}
	return len(a.Values) > 1
}

// Plots draws the sweep's throughput (the median of UnitMBps over each
// point's repetitions, with bars from the smallest to the largest
// repetition) into dir, as PNG and SVG:
//   - against each numeric axis with two or more values: one line per
//     combination of the categorical axes (hasher, offset map, I/O path,
//     ...), one plot per combination of the other numeric axes' values (at
//     most 16 per axis); a logarithmic x axis when the values span 100x
//     or more;
//   - with no numeric axis, a bar chart against the first categorical axis,
//     one bar group per combination of the others.
//
// It returns the files written, named relative to dir. Call Summarize
// first.
func (s *Sweep) Plots(dir string) ([]PlotFile, error) {
	var numeric, categorical []int
	for i, a := range s.Axes {
		switch {
		case numericAxis(a):
			numeric = append(numeric, i)
		case len(a.Values) > 0:
			categorical = append(categorical, i)
		}
	}
	var out []PlotFile
	if len(numeric) == 0 && len(categorical) == 0 {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("results: plots: %w", err)
	}
	if len(numeric) == 0 {
		f, err := s.barPlot(dir, categorical[0], categorical[1:])
		if err != nil || f == nil {
			return nil, err
		}
		return []PlotFile{*f}, nil
	}
	for _, x := range numeric {
		var others []int
		for _, o := range numeric {
			if o != x {
				others = append(others, o)
			}
		}
		facets := s.combos(others)
		if len(facets) > maxFacets {
			facets = facets[:maxFacets]
		}
		for _, facet := range facets {
			f, err := s.linePlot(dir, x, categorical, facet)
			if err != nil {
				return out, err
			}
			if f != nil {
				out = append(out, *f)
			}
		}
	}
	return out, nil
}

// combos lists the distinct combinations of the given axes' values that
// points have, in point order.
func (s *Sweep) combos(axes []int) [][]KV {
	seen := map[string]bool{}
	var out [][]KV
	for _, p := range s.Points {
		var c []KV
		for _, a := range axes {
			c = append(c, p.Params[a])
		}
		k := kvString(c, " ")
		if !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	return out
}

// matches says whether p has every value of facet.
func matches(p *Point, facet []KV) bool {
	for _, kv := range facet {
		if v, _ := p.Param(kv.Key); v != kv.Value {
			return false
		}
	}
	return true
}

func kvString(kv []KV, sep string) string {
	parts := make([]string, len(kv))
	for i, p := range kv {
		parts[i] = p.Key + "=" + p.Value
	}
	return strings.Join(parts, sep)
}

// seriesOf is the line label of p: its values of the categorical axes.
func seriesOf(p *Point, axes []int) string {
	var kv []KV
	for _, a := range axes {
		kv = append(kv, p.Params[a])
	}
	if len(kv) == 0 {
		return "throughput"
	}
	return kvString(kv, " ")
}

// errXY is a line's points with their error bars.
type errXY struct {
	plotter.XYs
	plotter.YErrors
}

func (s *Sweep) linePlot(dir string, x int, categorical []int, facet []KV) (*PlotFile, error) {
	axis := s.Axes[x]
	series := map[string]*errXY{}
	var order []string
	for i := range s.Points {
		p := &s.Points[i]
		if !matches(p, facet) {
			continue
		}
		sum, ok := p.Summary(UnitMBps)
		if !ok || sum.N == 0 {
			continue
		}
		xv, _ := ParseNumber(p.Params[x].Value)
		name := seriesOf(p, categorical)
		e := series[name]
		if e == nil {
			e = &errXY{}
			series[name] = e
			order = append(order, name)
		}
		e.XYs = append(e.XYs, plotter.XY{X: xv, Y: ToMiBps(sum.Median)})
		e.YErrors = append(e.YErrors, struct{ Low, High float64 }{ToMiBps(sum.Median - sum.Min), ToMiBps(sum.Max - sum.Median)})
	}
	if len(order) == 0 {
		return nil, nil
	}
	p := plot.New()
	title := "cleaner throughput vs " + axis.Name
	if len(facet) > 0 {
		title += " (" + kvString(facet, ", ") + ")"
	}
	p.Title.Text = title
	p.X.Label.Text = axis.Name
	p.Y.Label.Text = "MiB/s (2^20 B/s the cleaner read, median)"
	p.Legend.Top = true
	minX, maxX, maxY := math.Inf(1), math.Inf(-1), 0.0
	for i, name := range order {
		e := series[name]
		sort.Sort(byX{e})
		for k, xy := range e.XYs {
			minX, maxX = math.Min(minX, xy.X), math.Max(maxX, xy.X)
			maxY = math.Max(maxY, xy.Y+e.YErrors[k].High)
		}
		l, pts, err := plotter.NewLinePoints(e.XYs)
		if err != nil {
			return nil, fmt.Errorf("results: plot %s: %w", title, err)
		}
		l.Color = plotutil.Color(i)
		l.Dashes = plotutil.Dashes(i)
		pts.Color = plotutil.Color(i)
		pts.Shape = plotutil.Shape(i)
		bars, err := plotter.NewYErrorBars(e)
		if err != nil {
			return nil, fmt.Errorf("results: plot %s: %w", title, err)
		}
		bars.Color = plotutil.Color(i)
		p.Add(l, pts, bars)
		p.Legend.Add(name, l, pts)
	}
	if minX > 0 && maxX/minX >= 100 {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = shortLogTicks{}
	}
	p.Y.Min = 0
	// Head room for the legend, above the highest bar.
	p.Y.Max = maxY * (1.15 + 0.07*float64(len(order)))
	name := "throughput-vs-" + fileSafe(axis.Name)
	if len(facet) > 0 {
		name += "-" + fileSafe(kvString(facet, "-"))
	}
	f := &PlotFile{
		Title: title,
		Caption: fmt.Sprintf("Median throughput (MiB/s the cleaner read, map and copy phase) against %s; one line per %s; bars from the slowest to the fastest repetition.",
			axis.Name, seriesLabel(s.Axes, categorical)),
	}
	return f, savePlot(p, dir, name, f)
}

// shortLogTicks are gonum's logarithmic ticks labelled 1e4, 1e5, ... past
// 1000 (gonum writes 10000 and 1e+06 side by side).
type shortLogTicks struct{}

func (shortLogTicks) Ticks(min, max float64) []plot.Tick {
	ticks := plot.LogTicks{Prec: -1}.Ticks(min, max)
	for i := range ticks {
		if ticks[i].Label != "" && ticks[i].Value >= 1e4 {
			l := strings.Replace(strconv.FormatFloat(ticks[i].Value, 'e', -1, 64), "e+", "e", 1)
			ticks[i].Label = strings.Replace(l, "e0", "e", 1)
		}
	}
	return ticks
}

// byX sorts a line's points (and their error bars) by x.
type byX struct{ e *errXY }

func (b byX) Len() int           { return len(b.e.XYs) }
func (b byX) Less(i, j int) bool { return b.e.XYs[i].X < b.e.XYs[j].X }
func (b byX) Swap(i, j int) {
	b.e.XYs[i], b.e.XYs[j] = b.e.XYs[j], b.e.XYs[i]
	b.e.YErrors[i], b.e.YErrors[j] = b.e.YErrors[j], b.e.YErrors[i]
}

func seriesLabel(axes []Axis, categorical []int) string {
	if len(categorical) == 0 {
		return "sweep"
	}
	var names []string
	for _, c := range categorical {
		names = append(names, axes[c].Name)
	}
	return strings.Join(names, " x ")
}

func (s *Sweep) barPlot(dir string, x int, groups []int) (*PlotFile, error) {
	axis := s.Axes[x]
	p := plot.New()
	p.Title.Text = "cleaner throughput by " + axis.Name
	p.Y.Label.Text = "MiB/s (2^20 B/s the cleaner read, median)"
	p.Legend.Top = true
	combos := s.combos(groups)
	if len(combos) == 0 {
		combos = [][]KV{nil}
	}
	width := vg.Points(40) / vg.Length(len(combos))
	drawn := false
	for gi, g := range combos {
		vals := make(plotter.Values, len(axis.Values))
		for i := range s.Points {
			pt := &s.Points[i]
			if !matches(pt, g) {
				continue
			}
			if sum, ok := pt.Summary(UnitMBps); ok && sum.N > 0 {
				for vi, v := range axis.Values {
					if pt.Params[x].Value == v {
						vals[vi] = ToMiBps(sum.Median)
						drawn = true
					}
				}
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, fmt.Errorf("results: plot %s: %w", p.Title.Text, err)
		}
		bars.Color = plotutil.Color(gi)
		bars.Offset = width * vg.Length(gi-len(combos)/2)
		p.Add(bars)
		label := kvString(g, " ")
		if label == "" {
			label = "throughput"
		}
		p.Legend.Add(label, bars)
	}
	if !drawn {
		return nil, nil
	}
	p.NominalX(axis.Values...)
	f := &PlotFile{
		Title:   p.Title.Text,
		Caption: fmt.Sprintf("Median throughput (MiB/s the cleaner read, map and copy phase) for each %s; one bar per %s.", axis.Name, seriesLabel(s.Axes, groups)),
	}
	return f, savePlot(p, dir, "throughput-by-"+fileSafe(axis.Name), f)
}

// savePlot writes p as name.png and name.svg into dir and records the
// file names in f.
func savePlot(p *plot.Plot, dir, name string, f *PlotFile) error {
	f.PNG, f.SVG = name+".png", name+".svg"
	for _, file := range []string{f.PNG, f.SVG} {
		if err := p.Save(plotWidth, plotHeight, filepath.Join(dir, file)); err != nil {
			return fmt.Errorf("results: save plot %s: %w", file, err)
		}
	}
	return nil
}

// fileSafe keeps letters, digits, '.', '-' and '=' of s, '_' for the rest.
func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '=' {
			return r
		}
		return '_'
	}, s)
}
