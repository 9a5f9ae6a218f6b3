package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/lab/shard"
	"github.com/cleanerlab/cleanerlab/results"
)

// sweepDefinition is the sharding view of a planned sweep: what makes two
// shards parts of one sweep (lab/shard.Definition), and the whole run
// order Split deals out.
func sweepDefinition(plan *sweepPlan, order []scheduled) (shard.Definition, error) {
	def := shard.Definition{Experiment: plan.source, Count: plan.count, Seed: plan.seed}
	if plan.source != "" {
		sum, err := shard.HashFile(plan.source)
		if err != nil {
			return def, fmt.Errorf("sweep: --shard: %w", err)
		}
		def.ExperimentSHA256 = sum
	}
	for _, v := range plan.base {
		def.Base = append(def.Base, results.KV{Key: v.Flag, Value: v.Value})
	}
	def.Axes = []results.Axis{}
	for _, a := range plan.axes {
		def.Axes = append(def.Axes, results.Axis{Name: a.Flag, Values: a.Values})
	}
	for _, p := range plan.points {
		def.Points = append(def.Points, shard.PointDef{Params: p.params, Benchmark: p.name, Config: p.cfg})
	}
	for _, s := range order {
		def.Order = append(def.Order, shard.Run{Point: s.point, Rep: s.rep})
	}
	return def, nil
}

// shardOf returns shard spec's share of the sweep, and its manifest
// (status running, no environment yet).
func shardOf(plan *sweepPlan, order []scheduled, spec shard.Spec) (*shard.Manifest, []scheduled, error) {
	def, err := sweepDefinition(plan, order)
	if err != nil {
		return nil, nil, err
	}
	m, err := shard.NewManifest(def, spec, results.Environment{}, time.Now())
	if err != nil {
		return nil, nil, fmt.Errorf("sweep: --shard %s: %w", spec, err)
	}
	share, err := shard.Split(order, spec)
	if err != nil {
		return nil, nil, fmt.Errorf("sweep: --shard: %w", err)
	}
	return m, share, nil
}

// shardID names a shard's sweep record: id + "-shard-0-of-3", with "-2",
// "-3", ... added when out already has that directory (a shard re-run in
// the same second as the attempt it replaces must not write into it).
func shardID(out, id string, spec shard.Spec) string {
	id += fmt.Sprintf("-shard-%d-of-%d", spec.Index, spec.Count)
	try := id
	for k := 2; ; k++ {
		if _, err := os.Stat(filepath.Join(out, try)); os.IsNotExist(err) {
			return try
		}
		try = fmt.Sprintf("%s-%d", id, k)
	}
}

// reportMerge is report --merge: it merges the shard records under dirs
// into out (lab/shard.Merged.Write) and prints, as text, each host
// class's table, the runs missing, duplicated and failed, the shards to
// re-run and the classes' comparison; as JSON, the merge's Summary.
func reportMerge(w io.Writer, dirs []string, out, format string) error {
	if format != "text" && format != "json" {
		return fmt.Errorf("report: --format %q: want text or json", format)
	}
	ins, err := shard.Find(dirs)
	if err != nil {
		return fmt.Errorf("report --merge: %w", err)
	}
	m, err := shard.Merge(ins)
	if err != nil {
		return fmt.Errorf("report --merge: %w", err)
	}
	rep, err := m.Write(out)
	if err != nil {
		return fmt.Errorf("report --merge: %w", err)
	}
	s := m.Summary()
	if format == "json" {
		js, err := json.MarshalIndent(s, "", "  ")
		if err != nil {
			return fmt.Errorf("report --merge: %w", err)
		}
		_, err = fmt.Fprintf(w, "%s\n", js)
		return err
	}
	fmt.Fprintf(w, "sweep %s: %d shard record(s), %d of %d runs reported\n", s.Sweep[:12], len(s.Shards), len(s.Points), len(s.Expected))
	for i, c := range m.Classes {
		fmt.Fprintf(w, "\n%s: %s\n", c.Label(i+1), c.HostClass)
		printSweepTable(w, c.Sweep)
	}
	if len(rep.Comparisons) > 0 {
		fmt.Fprintf(w, "\nhost classes side by side (benchstat's statistics):\n")
		printComparisons(w, rep.Comparisons)
	}
	fmt.Fprintln(w)
	list := func(name string, l []string) {
		if len(l) > 0 {
			fmt.Fprintf(w, "%s: %s\n", name, strings.Join(l, ", "))
		}
	}
	list("missing", s.Missing)
	list("duplicated", s.Duplicated)
	for _, f := range s.Failed {
		fmt.Fprintf(w, "failed: %s (%s): %s\n", f.Run, f.Dir, f.Error)
	}
	list("superseded", s.Superseded)
	list("missing shards", s.MissingShards)
	fmt.Fprintf(w, "merged report: %s (report.md, report.html, merge.json, class-N/ per host class)\n", out)
	return nil
}

// shardRecord keeps a shard's manifest beside its sweep record: written
// when the sweep starts (status running) and when it ends.
type shardRecord struct {
	m   *shard.Manifest
	dir string
}

// start records the sweep's ID, environment and directory, says in the
// sweep's notes that it is one shard, and writes the manifest.
func (r *shardRecord) start(sw *results.Sweep, dir string, total int) error {
	if r == nil {
		return nil
	}
	r.dir = dir
	r.m.Record, r.m.Environment = sw.ID, sw.Environment
	sw.Notes = append(sw.Notes, fmt.Sprintf("Shard %s of sweep %s: %d of its %d runs; merge the shards with cleanerlab report --merge.",
		r.m.Shard, r.m.Sweep[:12], len(r.m.Runs), total))
	return r.m.Write(dir)
}

// finish writes the manifest's final status: complete when err is nil
// (failed runs are in the record), else failed with err.
func (r *shardRecord) finish(err error) error {
	if r == nil || r.dir == "" {
		return nil
	}
	r.m.Status, r.m.UpdatedAt = shard.StatusComplete, time.Now().UTC()
	if err != nil {
		r.m.Status, r.m.Error = shard.StatusFailed, err.Error()
	}
	return r.m.Write(r.dir)
}
