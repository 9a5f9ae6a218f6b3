package steady

import (
	"fmt"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot files WritePlots writes.
const (
	PlotDirtyRatio      = "dirty-ratio.png"
	PlotCompactionDelay = "compaction-delay.png"
	PlotThroughput      = "throughput.png"
)

type line struct {
	name string
	y    func(*Sample) (float64, bool)
}

// WritePlots draws three time series of samples into dir (x: seconds since
// the producers started; a dashed vertical line ends the warm-up):
// each partition's cleanable ratio and its dirty bytes / log bytes
// (PlotDirtyRatio); the oldest dirty record's age and Kafka's
// max-compaction-delay-secs (PlotCompactionDelay); and the producers', the
// cleaner's and the disk's bytes per second (PlotThroughput).
func WritePlots(dir string, samples []*Sample) error {
	var s []*Sample
	for _, x := range samples {
		if !x.Final {
			s = append(s, x)
		}
	}
	if len(s) < 2 {
		return nil
	}
	parts := len(s[0].Partitions)
	var ratio []line
	for p := range parts {
		ratio = append(ratio, line{"p" + strconv.Itoa(p) + " cleanable ratio", func(x *Sample) (float64, bool) {
			if p >= len(x.Partitions) {
				return 0, false
			}
			return x.Partitions[p].CleanableRatio, true
		}})
	}
	ratio = append(ratio, line{"all: dirty / log bytes", func(x *Sample) (float64, bool) {
		if x.LogBytes == 0 {
			return 0, false
		}
		return float64(x.DirtyBytes) / float64(x.LogBytes), true
	}})
	if err := timePlot(filepath.Join(dir, PlotDirtyRatio), "dirty ratio over time", "ratio", s, ratio); err != nil {
		return err
	}
	delay := []line{
		{"oldest dirty record's age (s)", func(x *Sample) (float64, bool) { return float64(x.OldestDirtyAgeMs) / 1000, true }},
		{"delay past max.compaction.lag.ms (s)", func(x *Sample) (float64, bool) { return float64(x.MaxCompactionDelayMs) / 1000, true }},
		{"max-compaction-delay-secs", func(x *Sample) (float64, bool) { return float64(x.MaxCompactionDelaySecs), true }},
	}
	if err := timePlot(filepath.Join(dir, PlotCompactionDelay), "compaction delay over time", "s", s, delay); err != nil {
		return err
	}
	// Cumulative producer and cleaner bytes become rates between samples.
	rate := func(get func(*Sample) int64) func(*Sample) (float64, bool) {
		prev := map[*Sample]*Sample{}
		for i := 1; i < len(s); i++ {
			prev[s[i]] = s[i-1]
		}
		return func(x *Sample) (float64, bool) {
			p := prev[x]
			if p == nil || x.ElapsedSeconds <= p.ElapsedSeconds {
				return 0, false
			}
			return float64(get(x)-get(p)) / (x.ElapsedSeconds - p.ElapsedSeconds) / (1 << 20), true
		}
	}
	tput := []line{
		{"producers wrote", rate(func(x *Sample) int64 { return x.ProducerBytes })},
		{"cleaner wrote", rate(func(x *Sample) int64 { return x.CleanerBytesWritten })},
		{"cleaner read", rate(func(x *Sample) int64 { return x.CleanerBytesRead + x.CleanerMapBytesRead })},
		{"disk written", func(x *Sample) (float64, bool) { return perSecond(x.DiskWrittenBytes, x) / (1 << 20), x.DiskNote == "" }},
		{"disk read", func(x *Sample) (float64, bool) { return perSecond(x.DiskReadBytes, x) / (1 << 20), x.DiskNote == "" }},
	}
	return timePlot(filepath.Join(dir, PlotThroughput), "producer, cleaner and disk throughput over time", "MiB/s", s, tput)
}

func timePlot(path, title, ylabel string, s []*Sample, lines []line) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "seconds since the producers started"
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	maxY := 0.0
	for i, l := range lines {
		var xy plotter.XYs
		for _, x := range s {
			if y, ok := l.y(x); ok {
				xy = append(xy, plotter.XY{X: x.ElapsedSeconds, Y: y})
				maxY = max(maxY, y)
			}
		}
		if len(xy) == 0 {
			continue
		}
		ln, err := plotter.NewLine(xy)
		if err != nil {
			return fmt.Errorf("steady: plot %s: %w", title, err)
		}
		ln.Color = plotutil.Color(i)
		ln.Dashes = plotutil.Dashes(i)
		ln.Width = vg.Points(1.2)
		p.Add(ln)
		p.Legend.Add(l.name, ln)
	}
	p.Y.Min = 0
	p.Y.Max = max(maxY*(1.15+0.08*float64(len(lines))), 1e-9)
	// The end of the warm-up.
	for i, x := range s {
		if !x.Warmup && i > 0 {
			w, err := plotter.NewLine(plotter.XYs{{X: x.ElapsedSeconds, Y: 0}, {X: x.ElapsedSeconds, Y: p.Y.Max}})
			if err == nil {
				w.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
				p.Add(w)
				p.Legend.Add("end of warm-up", w)
			}
			break
		}
	}
	if err := p.Save(8*vg.Inch, 4.5*vg.Inch, path); err != nil {
		return fmt.Errorf("steady: save plot %s: %w", path, err)
	}
	return nil
}
