package matrix

import (
	"fmt"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlotName is the plot's file name in the output directory.
const PlotName = "clean-time-predicted-vs-measured.png"

// WritePlot writes a PNG of predicted (x) vs measured (y) clean time of
// the modelled rows, log-log, each point labelled with its row, beside the
// line measured = predicted and the +-20% band, into dir; it returns the
// file's path ("" and no file when no row has both figures).
func WritePlot(dir string, res *Result) (string, error) {
	var xys plotter.XYs
	var labels []string
	lo, hi := math.Inf(1), 0.0
	for _, r := range res.Rows {
		if r.CleanSecondsPredicted == nil || *r.CleanSecondsPredicted <= 0 || r.CleanSecondsMeasured <= 0 {
			continue
		}
		x, y := *r.CleanSecondsPredicted, r.CleanSecondsMeasured
		xys = append(xys, plotter.XY{X: x, Y: y})
		labels = append(labels, r.Row.Name)
		lo, hi = math.Min(lo, math.Min(x, y)), math.Max(hi, math.Max(x, y))
	}
	if len(xys) == 0 {
		return "", nil
	}
	lo, hi = lo/1.5, hi*1.5
	p := plot.New()
	p.Title.Text = fmt.Sprintf("clean time of the scaled-down logs, %s", res.Matrix)
	p.X.Label.Text = "predicted (model), s"
	p.Y.Label.Text = "measured, s"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = lo, hi, lo, hi
	p.Legend.Top, p.Legend.Left = true, true
	for _, l := range []struct {
		name string
		f    float64
	}{{"measured = predicted", 1}, {"+-20%", 1.2}, {"", 1 / 1.2}} {
		ln, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo * l.f}, {X: hi, Y: hi * l.f}})
		if err != nil {
			return "", fmt.Errorf("matrix: plot: %w", err)
		}
		if l.f != 1 {
			ln.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
		}
		p.Add(ln)
		if l.name != "" {
			p.Legend.Add(l.name, ln)
		}
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return "", fmt.Errorf("matrix: plot: %w", err)
	}
	sc.GlyphStyle.Radius = vg.Points(3)
	p.Add(sc)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return "", fmt.Errorf("matrix: plot: %w", err)
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font.Size = vg.Points(7)
		lb.TextStyle[i].XAlign = 0.1
	}
	p.Add(lb)
	path := filepath.Join(dir, PlotName)
	if err := p.Save(7*vg.Inch, 7*vg.Inch, path); err != nil {
		return "", fmt.Errorf("matrix: save plot %s: %w", path, err)
	}
	return path, nil
}
