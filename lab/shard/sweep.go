package shard

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
)

// DefinitionOf is the Definition of a planned sweep: the hash of its
// experiment file (plan.Source, when set), its parameters as given, its
// axes, count and seed, every point with its resolved experiment, and the
// run order plan.Schedule() gives.
func DefinitionOf(plan *lab.SweepPlan) (Definition, error) {
	def := Definition{Experiment: plan.Source, Count: plan.Count, Seed: plan.Seed, Axes: []results.Axis{}}
	if plan.Source != "" {
		sum, err := HashFile(plan.Source)
		if err != nil {
			return def, err
		}
		def.ExperimentSHA256 = sum
	}
	for _, v := range plan.Given {
		def.Base = append(def.Base, results.KV{Key: v.Name, Value: v.Value})
	}
	for _, a := range plan.Axes {
		def.Axes = append(def.Axes, results.Axis{Name: a.Name, Values: a.Values})
	}
	for _, p := range plan.Points {
		def.Points = append(def.Points, PointDef{Params: p.Params, Benchmark: p.Name, Config: p.Experiment})
	}
	for _, s := range plan.Schedule() {
		def.Order = append(def.Order, Run{Point: s.Point, Rep: s.Rep})
	}
	return def, nil
}

// Sweep is one shard of a planned sweep, ready for lab.Sweep.
type Sweep struct {
	// Manifest is the shard's shard.json (its Environment and Record are
	// filled when the sweep starts).
	Manifest *Manifest
	// Runs are the shard's runs, in order.
	Runs []lab.Scheduled
	// Total is the number of runs of the whole sweep.
	Total int
	dir   string
}

// Prepare makes shard spec of plan: its manifest and its share of the
// schedule.
func Prepare(plan *lab.SweepPlan, spec Spec) (*Sweep, error) {
	def, err := DefinitionOf(plan)
	if err != nil {
		return nil, err
	}
	m, err := NewManifest(def, spec, results.Environment{}, time.Now())
	if err != nil {
		return nil, err
	}
	order := plan.Schedule()
	runs, err := Split(order, spec)
	if err != nil {
		return nil, err
	}
	return &Sweep{Manifest: m, Runs: runs, Total: len(order)}, nil
}

// Options returns opt set to carry out the shard only: its runs, its
// record named "<sweep id>-shard-i-of-N" (with "-2", "-3", ... where
// opt.Out already holds that directory: a shard re-run within the second
// of the attempt it replaces must not write into it), and its manifest
// written when the sweep starts (status running), with a note in the
// sweep record saying it is one shard.
func (s *Sweep) Options(opt lab.SweepOptions) lab.SweepOptions {
	out := opt.Out
	if out == "" {
		out = "runs"
	}
	opt.Runs = s.Runs
	opt.ID = func(id string) string {
		id += fmt.Sprintf("-shard-%d-of-%d", s.Manifest.Shard.Index, s.Manifest.Shard.Count)
		try := id
		for k := 2; ; k++ {
			if _, err := os.Stat(filepath.Join(out, try)); errors.Is(err, os.ErrNotExist) {
				return try
			}
			try = fmt.Sprintf("%s-%d", id, k)
		}
	}
	opt.OnStart = func(sw *results.Sweep, dir string) error {
		s.dir = dir
		s.Manifest.Record, s.Manifest.Environment = sw.ID, sw.Environment
		runs := "runs"
		if s.Total == 1 {
			runs = "run"
		}
		sw.Notes = append(sw.Notes, fmt.Sprintf("Shard %s of sweep %s: %d of its %d %s; merge the shards with cleanerlab report --merge.",
			s.Manifest.Shard, short(s.Manifest.Sweep), len(s.Runs), s.Total, runs))
		return s.Manifest.Write(dir)
	}
	return opt
}

// Finish writes the manifest's final status from lab.Sweep's error:
// complete when nil (runs that failed are in the record), stopped when the
// sweep was stopped (lab.ErrStopped), else failed with the error. Nothing
// when the sweep never started.
func (s *Sweep) Finish(sweepErr error) error {
	if s == nil || s.dir == "" {
		return nil
	}
	m := s.Manifest
	m.Status, m.Error, m.UpdatedAt = StatusComplete, "", time.Now().UTC()
	switch {
	case errors.Is(sweepErr, lab.ErrStopped):
		m.Status, m.Error = StatusStopped, sweepErr.Error()
	case sweepErr != nil:
		m.Status, m.Error = StatusFailed, sweepErr.Error()
	}
	return m.Write(s.dir)
}

// WriteDryRun prints the shard's share as sweep --dry-run prints runs,
// after a line "shard i/N of T runs: K runs".
func (s *Sweep) WriteDryRun(w io.Writer, plan *lab.SweepPlan) {
	fmt.Fprintf(w, "shard %s of %d runs: %d runs\n", s.Manifest.Shard, s.Total, len(s.Runs))
	for i, r := range s.Runs {
		p := plan.Points[r.Point]
		note := ""
		if p.Err != nil {
			note = "  (invalid: " + p.Err.Error() + ")"
		}
		fmt.Fprintf(w, "%4d  %s  (rep %d)%s\n", i+1, p.Name, r.Rep, note)
	}
}
