package replicas

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

// CampaignOptions are a campaign and where its record goes.
type CampaignOptions struct {
	replication.CampaignConfig
	// Out is the runs directory (default "runs"); "" with NoRecord set
	// writes nothing.
	Out      string
	NoRecord bool
}

// CampaignRecord is a campaign's result and its run record.
type CampaignRecord struct {
	Result *replication.CampaignResult
	Run    *results.Run
	// Wall is the campaign's wall time (for the speed figure).
	Wall time.Duration
}

// Campaign runs a random campaign and writes its record: run.json (config
// and the campaign's result), report.md (rows: runs, diverged, by kind,
// cost, speed), divergences-by-kind.png/.svg, and reproducer.scenario
// when shrunk.
func Campaign(opts CampaignOptions, progress func(done int)) (*CampaignRecord, error) {
	start := time.Now()
	res, err := replication.RunCampaign(opts.CampaignConfig, progress)
	if err != nil {
		return nil, err
	}
	rec := &CampaignRecord{Result: res, Wall: time.Since(start)}
	run := &results.Run{StartedAt: start, Config: campaignConfigJSON(&opts.CampaignConfig), Stats: res}
	run.Phases = map[string]time.Duration{"campaign": rec.Wall}
	run.Rows = campaignRows(res, rec.Wall)
	run.Notes = append(run.Notes, "divergences are judged after healing every fault, catching up and cleaning past every horizon (replication.Settle); schedules are seeded: run i uses seed "+fmt.Sprint(opts.Seed)+"+i")
	if res.Stopped != "" {
		run.Stopped = "campaign " + res.Stopped
		run.Notes = append(run.Notes, "INTERRUPTED: "+run.Stopped)
	}
	rec.Run = run
	if opts.NoRecord {
		return rec, nil
	}
	path, err := writeRecord(run, opts.Root, opts.Out)
	if err != nil {
		return rec, err
	}
	if err := kindPlot(path, res); err != nil {
		return rec, err
	}
	if res.Reproducer != "" {
		if err := os.WriteFile(filepath.Join(path, "reproducer.scenario"), []byte(res.Reproducer), 0o644); err != nil {
			return rec, err
		}
	}
	return rec, nil
}

// campaignConfigJSON is the campaign's config as recorded (Root, Workers
// and the progress callback are where and how, not what: left out, so the
// same seed gives the same config hash). "cleaner" is there only when a
// cleaner config was given, and "profile" only when one named it, so
// that a record of Kafka's cleaner reads, and hashes, as one written
// before the options existed.
func campaignConfigJSON(c *replication.CampaignConfig) map[string]any {
	m := map[string]any{"kind": "replicas-campaign", "mode": c.Mode.String(), "runs": c.Runs, "seed": c.Seed, "replicas": c.Replicas, "events": c.Events, "shrink": c.Shrink,
		"cluster": replication.ClusterLine(c.Mode, c.Replicas)}
	if c.ClusterLine != "" {
		m["cluster"] = c.ClusterLine
	}
	if c.DowntimeMs != 0 {
		m["downtime_ms"] = c.DowntimeMs
	}
	if c.ShrinkKind != "" {
		m["shrink_kind"] = c.ShrinkKind
	}
	if c.OnDisk {
		m["on_disk"] = true
	}
	if c.Cleaner != (engine.CleanerConfig{}) {
		m["cleaner"] = c.Cleaner
	}
	if c.Profile != "" {
		m["profile"] = c.Profile
	}
	return m
}

func campaignRows(res *replication.CampaignResult, wall time.Duration) []results.Row {
	rows := []results.Row{
		{Name: "runs", Value: fmt.Sprint(res.Runs), Unit: "schedules", Meaning: fmt.Sprintf("%d events each on %d brokers, mode %s", res.Events, res.Replicas, res.Mode)},
		{Name: "diverged", Value: fmt.Sprint(res.Diverged), Unit: "runs", Meaning: "runs with at least one divergence"},
	}
	if res.Stopped != "" {
		rows[0].Value = fmt.Sprint(res.RunsDone)
		rows[0].Meaning += fmt.Sprintf("; INTERRUPTED after %d of %d schedules", res.RunsDone, res.Runs)
	}
	kinds := make([]string, 0, len(res.ByKind))
	for k := range res.ByKind {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		rows = append(rows, results.Row{Name: "by kind: " + k, Value: fmt.Sprint(res.ByKind[replication.Kind(k)]), Unit: "runs"})
	}
	rows = append(rows,
		results.Row{Name: "tombstone bytes held", Value: fmt.Sprintf("%.0f", res.TombstoneByteSeconds), Unit: "byte-seconds", Meaning: "all replicas, all runs, virtual time"},
		results.Row{Name: "marker bytes held", Value: fmt.Sprintf("%.0f", res.MarkerByteSeconds), Unit: "byte-seconds", Meaning: "all replicas, all runs, virtual time"},
		results.Row{Name: "horizon to removal", Value: fmt.Sprintf("%.0f", res.MeanDelayMs), Unit: "ms (mean)", Meaning: fmt.Sprintf("over %d removals; max %d ms", res.Removals, res.MaxDelayMs)},
		results.Row{Name: "disk at end", Value: fmt.Sprint(res.DiskBytes), Unit: "bytes", Meaning: "segment bytes of every replica, summed over runs"},
		results.Row{Name: "coordination polls", Value: fmt.Sprint(res.Polls), Unit: "polls", Meaning: fmt.Sprintf("the leader's MCCO/MXFO polls, all runs; %d broadcasts of MTRO/MXRO", res.Broadcasts)},
		results.Row{Name: "coordination bytes", Value: fmt.Sprint(res.Bytes), Unit: "bytes", Meaning: "payload of polls, replies and broadcasts, every follower reached (replication.Coordination)"},
		results.Row{Name: "wall time", Value: fmt.Sprintf("%.2f", wall.Seconds()), Unit: "s", Meaning: "measured in this campaign, this machine"},
	)
	return rows
}

// kindPlot draws runs per divergence kind.
func kindPlot(dir string, res *replication.CampaignResult) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("divergences by kind, %s, %d runs", res.Mode, res.Runs)
	p.Y.Label.Text = "runs"
	vals := make(plotter.Values, len(replication.Kinds))
	names := make([]string, len(replication.Kinds))
	for i, k := range replication.Kinds {
		vals[i] = float64(res.ByKind[k])
		names[i] = string(k)
	}
	bars, err := plotter.NewBarChart(vals, vg.Points(30))
	if err != nil {
		return err
	}
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	p.NominalX(names...)
	for _, f := range []string{"divergences-by-kind.png", "divergences-by-kind.svg"} {
		if err := p.Save(9*vg.Inch, 4*vg.Inch, filepath.Join(dir, f)); err != nil {
			return fmt.Errorf("replicas: save plot %s: %w", f, err)
		}
	}
	return nil
}

// writeRecord captures the environment of root's file system into run and
// writes run under out (default "runs") with a fresh name: two records of
// one config in one second get -2, -3. It sets run.Path and returns it.
func writeRecord(run *results.Run, root, out string) (string, error) {
	env, err := results.CaptureEnvironment(root)
	run.Environment = env
	if err != nil {
		run.Notes = append(run.Notes, fmt.Sprintf("environment not fully captured: %v", err))
	}
	if out == "" {
		out = "runs"
	}
	path, err := run.WriteNew(out)
	if err != nil {
		return "", err
	}
	run.Path = path
	return path, nil
}
