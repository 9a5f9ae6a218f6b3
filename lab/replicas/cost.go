package replicas

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

// CostOptions are a downtime sweep and where its record goes.
type CostOptions struct {
	// Root holds the runs' clusters.
	Root string
	// DowntimesMs to sweep; each is run in both modes.
	DowntimesMs []int64
	// DeleteRetentionMs of the topic (default 10 minutes).
	DeleteRetentionMs int64
	// Cleaner, when its Threads is not 0, is every broker's cleaner config
	// in every run (replication.CostConfig.Cleaner; ProfileCleaner makes
	// one from a profile's name). Default
	// replication.DefaultCleanerConfig(): Kafka's cleaner.
	Cleaner engine.CleanerConfig
	// Profile is the name of the profile Cleaner was made from, recorded
	// beside it; "" when none was named.
	Profile  string
	Out      string
	NoRecord bool
	// CheckDone, when set, is called at every tick of every point
	// (replication.CostConfig.CheckDone): when it returns an error the
	// sweep stops there, the point in progress dropped, and the record
	// holds the points done, with CostRecord.Stopped saying how far it got.
	CheckDone func() error

	// runCost, when set (tests), runs each point instead of
	// replication.RunCost.
	runCost func(replication.CostConfig) (*replication.CostResult, error)
}

// CostRecord is the sweep's results (independent and coordinated per
// downtime, in that order) and its run record.
type CostRecord struct {
	Points []replication.CostResult
	Run    *results.Run
	// Stopped says why and how far a stopped sweep got, "" when it ran
	// every point.
	Stopped string
}

// Cost runs the workload of replication.RunCost for every downtime in both
// modes, and writes the record with cost-vs-downtime.png/.svg.
func Cost(opts CostOptions) (*CostRecord, error) {
	start := time.Now()
	rec := &CostRecord{}
	runCost := opts.runCost
	if runCost == nil {
		runCost = replication.RunCost
	}
	total := 2 * len(opts.DowntimesMs)
points:
	for _, d := range opts.DowntimesMs {
		for _, m := range []replication.Mode{replication.Independent, replication.Coordinated} {
			r, err := runCost(replication.CostConfig{Root: filepath.Join(opts.Root, "cost"), Mode: m, DowntimeMs: d, DeleteRetentionMs: opts.DeleteRetentionMs, Cleaner: opts.Cleaner, CheckDone: opts.CheckDone})
			if errors.Is(err, replication.ErrStopped) {
				rec.Stopped = fmt.Sprintf("cost sweep stopped after %d of %d points (%v)", len(rec.Points), total, err)
				break points
			}
			if err != nil {
				return nil, err
			}
			rec.Points = append(rec.Points, *r)
		}
	}
	run := &results.Run{StartedAt: start, Config: costConfigJSON(&opts), Stats: rec.Points}
	run.Phases = map[string]time.Duration{"cost": time.Since(start)}
	for _, p := range rec.Points {
		run.Rows = append(run.Rows,
			results.Row{Name: fmt.Sprintf("%s downtime=%s: tombstones held", p.Mode, fmtDur(p.DowntimeMs)), Value: fmt.Sprintf("%.0f", p.TombstoneByteSeconds), Unit: "byte-seconds"},
			results.Row{Name: fmt.Sprintf("%s downtime=%s: markers held", p.Mode, fmtDur(p.DowntimeMs)), Value: fmt.Sprintf("%.0f", p.MarkerByteSeconds), Unit: "byte-seconds"},
			results.Row{Name: fmt.Sprintf("%s downtime=%s: horizon to removal", p.Mode, fmtDur(p.DowntimeMs)), Value: fmt.Sprintf("%.0f", p.MeanDelayMs()), Unit: "ms (mean)", Meaning: fmt.Sprintf("max %d ms over %d removals", p.DelayMaxMs, p.Removals)},
			results.Row{Name: fmt.Sprintf("%s downtime=%s: disk at end", p.Mode, fmtDur(p.DowntimeMs)), Value: fmt.Sprint(p.DiskBytesAtEnd), Unit: "bytes"},
			results.Row{Name: fmt.Sprintf("%s downtime=%s: coordination", p.Mode, fmtDur(p.DowntimeMs)), Value: fmt.Sprint(p.Bytes), Unit: "bytes", Meaning: fmt.Sprintf("%d polls, %d broadcasts; payload, every follower reached", p.Polls, p.Broadcasts)},
		)
	}
	run.Notes = append(run.Notes, "virtual time; workload of replication.RunCost (3 brokers, broker 3 shut down for the downtime); figures measured in this run")
	if rec.Stopped != "" {
		run.Stopped = rec.Stopped
		run.Notes = append(run.Notes, "INTERRUPTED: "+rec.Stopped)
	}
	rec.Run = run
	if opts.NoRecord {
		return rec, nil
	}
	path, err := writeRecord(run, opts.Root, opts.Out)
	if err != nil {
		return rec, err
	}
	if len(rec.Points) == 0 {
		return rec, nil
	}
	return rec, costPlot(path, rec.Points)
}

// costConfigJSON is the sweep's config as recorded (Root, Out and NoRecord
// are where, not what: left out). "cleaner" is there only when a cleaner
// config was given, and "profile" only when one named it, so that a
// record of Kafka's cleaner reads, and hashes, as one written before the
// options existed.
func costConfigJSON(o *CostOptions) map[string]any {
	m := map[string]any{"kind": "replicas-cost", "downtimes_ms": o.DowntimesMs, "delete_retention_ms": o.DeleteRetentionMs}
	if o.Cleaner != (engine.CleanerConfig{}) {
		m["cleaner"] = o.Cleaner
	}
	if o.Profile != "" {
		m["profile"] = o.Profile
	}
	return m
}

// WriteCostTable prints the sweep as a table.
func WriteCostTable(w io.Writer, points []replication.CostResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "downtime\tmode\ttombstone B·s\tmarker B·s\tremovals\tmean delay\tmax delay\tdisk B at end\tpolls\tbroadcasts\tcoord B\tdivergences\t")
	for _, p := range points {
		div := "-"
		if len(p.Findings) > 0 {
			var s []string
			for _, k := range p.Findings {
				s = append(s, string(k))
			}
			div = strings.Join(s, ",")
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%d\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t\n", fmtDur(p.DowntimeMs), p.Mode, p.TombstoneByteSeconds, p.MarkerByteSeconds, p.Removals,
			fmtDur(int64(p.MeanDelayMs())), fmtDur(p.DelayMaxMs), p.DiskBytesAtEnd, p.Polls, p.Broadcasts, p.Bytes, div)
	}
	tw.Flush()
}

func fmtDur(ms int64) string {
	if ms == 0 {
		return "0"
	}
	return (time.Duration(ms) * time.Millisecond).String()
}

// costPlot draws tombstone+marker byte-seconds against downtime, per mode.
func costPlot(dir string, points []replication.CostResult) error {
	p := plot.New()
	p.Title.Text = "tombstone and marker bytes held vs one replica's downtime"
	p.X.Label.Text = "downtime of broker 3 (hours)"
	p.Y.Label.Text = "byte-seconds held (all replicas)"
	p.Legend.Top = true
	for i, mode := range []string{"independent", "coordinated"} {
		var xy plotter.XYs
		for _, pt := range points {
			if pt.Mode == mode {
				xy = append(xy, plotter.XY{X: float64(pt.DowntimeMs) / 3600000, Y: pt.TombstoneByteSeconds + pt.MarkerByteSeconds})
			}
		}
		l, s, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		l.Color, s.Color = plotutil.Color(i), plotutil.Color(i)
		p.Add(l, s)
		p.Legend.Add(mode, l, s)
	}
	for _, f := range []string{"cost-vs-downtime.png", "cost-vs-downtime.svg"} {
		if err := p.Save(8*vg.Inch, 4*vg.Inch, filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("replicas: save plot %s: %w", f, err)
		}
	}
	return nil
}
