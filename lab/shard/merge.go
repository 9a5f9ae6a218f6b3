package shard

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/results"
)

// Errors of Merge, each wrapped with the directories concerned.
var (
	// ErrForeignShard: a shard belongs to another sweep than the first one
	// given (another experiment file, parameters, count, seed or
	// configuration).
	ErrForeignShard = errors.New("shard: shard of another sweep")
	// ErrDuplicateShard: two complete records of the same shard i/N.
	ErrDuplicateShard = errors.New("shard: shard given twice")
	// ErrNoShards: nothing to merge.
	ErrNoShards = errors.New("shard: no shard records")
)

// Input is one shard's record: its directory, manifest and sweep record.
// Sweep is nil when the shard wrote its manifest but no sweep.json yet.
type Input struct {
	Dir      string
	Manifest *Manifest
	Sweep    *results.Sweep
}

// Load reads a shard's directory: shard.json and, when present, sweep.json.
func Load(dir string) (*Input, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	in := &Input{Dir: dir, Manifest: m}
	if _, err := os.Stat(filepath.Join(dir, results.SweepJSONFile)); err == nil {
		s, err := results.ReadSweep(dir)
		if err != nil {
			return nil, err
		}
		in.Sweep = s
	}
	return in, nil
}

// Find loads every shard record under paths: each path is a shard's
// directory or a directory holding them at any depth (a records volume).
// A path that holds no shard.json is an error naming it.
func Find(paths []string) ([]*Input, error) {
	var out []*Input
	for _, root := range paths {
		n := 0
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return err
			}
			if _, err := os.Stat(filepath.Join(p, ManifestFile)); err != nil {
				return nil
			}
			in, err := Load(p)
			if err != nil {
				return err
			}
			out = append(out, in)
			n++
			return filepath.SkipDir
		})
		if err != nil {
			return nil, fmt.Errorf("shard: %s: %w", root, err)
		}
		if n == 0 {
			return nil, fmt.Errorf("shard: %s holds no shard record (%s): was the sweep run with --shard i/N?", root, ManifestFile)
		}
	}
	return out, nil
}

// Merged is the merge of a sweep's shards.
type Merged struct {
	// Sweep is the sweep's identity; Definition its definition.
	Sweep      string
	Definition Definition
	// Shards are the inputs used, sorted by N, i and directory;
	// Superseded the incomplete records of a shard that also has a
	// complete one (their runs are not used).
	Shards     []*Input
	Superseded []*Input
	// Expected is every run of the sweep; Reported those some shard
	// recorded (a failed run too); Missing the others; all point by point,
	// repetitions in order.
	Expected, Reported, Missing []Run
	// Failed are reported runs that did not complete, with their error.
	Failed []FailedRun
	// Duplicated are runs recorded by more than one shard (shards of
	// different N overlap); the first shard's figures are kept.
	Duplicated []Duplicate
	// MissingShards are the shards i/N (for each N given) without a
	// complete record that own a missing run: re-running just these fills
	// the gaps.
	MissingShards []Spec
	// Classes hold the figures, one sweep record per host class.
	Classes []*Class
}

// FailedRun is a run that was carried out and failed.
type FailedRun struct {
	Run   Run
	Error string
	Dir   string // the shard's directory
}

// Duplicate is a run two or more shards recorded.
type Duplicate struct {
	Run  Run
	Dirs []string // the shards' directories; the first one's figures are kept
}

// Merge merges the records of one sweep's shards. It refuses, with an
// error naming both directories, a shard of another sweep than the first
// (ErrForeignShard) and two complete records of one shard i/N
// (ErrDuplicateShard); an incomplete record of a shard that also has a
// complete one is superseded by it. Runs no shard reported are Missing,
// and the merge still succeeds: a failed, stopped or silent shard leaves a
// gap the report shows and a re-run of MissingShards fills.
func Merge(inputs []*Input) (*Merged, error) {
	if len(inputs) == 0 {
		return nil, ErrNoShards
	}
	ins := slices.Clone(inputs)
	sort.SliceStable(ins, func(a, b int) bool {
		sa, sb := ins[a].Manifest.Shard, ins[b].Manifest.Shard
		if sa.Count != sb.Count {
			return sa.Count < sb.Count
		}
		if sa.Index != sb.Index {
			return sa.Index < sb.Index
		}
		return ins[a].Dir < ins[b].Dir
	})
	first := inputs[0].Manifest
	m := &Merged{Sweep: first.Sweep, Definition: first.Definition}
	for _, in := range ins {
		if in.Manifest.Sweep != first.Sweep {
			return nil, fmt.Errorf("%w: %s is shard %s of sweep %s, but %s is of sweep %s (another experiment file, parameters, count, seed or configuration)",
				ErrForeignShard, in.Dir, in.Manifest.Shard, short(in.Manifest.Sweep), inputs[0].Dir, short(first.Sweep))
		}
	}
	// One record per shard i/N: complete ones must be unique; an
	// incomplete one gives way to a complete one.
	bySpec := map[Spec][]*Input{}
	var specs []Spec
	for _, in := range ins {
		s := in.Manifest.Shard
		if bySpec[s] == nil {
			specs = append(specs, s)
		}
		bySpec[s] = append(bySpec[s], in)
	}
	for _, s := range specs {
		var complete, partial []*Input
		for _, in := range bySpec[s] {
			if in.Manifest.Status == StatusComplete {
				complete = append(complete, in)
			} else {
				partial = append(partial, in)
			}
		}
		switch {
		case len(complete) > 1:
			return nil, fmt.Errorf("%w: %s and %s are both complete records of shard %s of sweep %s; give one of them",
				ErrDuplicateShard, complete[0].Dir, complete[1].Dir, s, short(first.Sweep))
		case len(complete) == 1:
			m.Shards = append(m.Shards, complete[0])
			m.Superseded = append(m.Superseded, partial...)
		default:
			m.Shards = append(m.Shards, partial...)
		}
	}

	def := &m.Definition
	type source struct {
		in  *Input
		run results.PointRun
	}
	got := map[Run][]source{}
	for _, in := range m.Shards {
		if in.Sweep == nil {
			continue
		}
		if err := checkRecord(in, def); err != nil {
			return nil, err
		}
		assigned := map[Run]bool{}
		for _, r := range in.Manifest.Runs {
			assigned[r] = true
		}
		for p, pt := range in.Sweep.Points {
			for _, pr := range pt.Runs {
				r := Run{Point: p, Rep: pr.Rep}
				if !assigned[r] {
					return nil, fmt.Errorf("shard: %s: its record holds run %s, which is not one of shard %s's runs", in.Dir, def.Label(r), in.Manifest.Shard)
				}
				got[r] = append(got[r], source{in, pr})
			}
		}
	}

	classIndex := map[HostClass]*Class{}
	classOf := func(in *Input) *Class {
		hc := ClassOf(in.Manifest.Environment)
		c, ok := classIndex[hc]
		if !ok {
			c = &Class{HostClass: hc, Sweep: m.classSweep(in, len(m.Classes)+1)}
			classIndex[hc] = c
			m.Classes = append(m.Classes, c)
		}
		if h := in.Manifest.Environment.Hostname; h != "" && !slices.Contains(c.Hosts, h) {
			c.Hosts = append(c.Hosts, h)
		}
		c.Shards = append(c.Shards, in)
		// The class's record spans its shards' wall time: the first start
		// to the last end.
		if sw := in.Sweep; sw != nil && !sw.StartedAt.IsZero() {
			end := c.Sweep.StartedAt.Add(c.Sweep.Duration)
			if len(c.Shards) == 1 || sw.StartedAt.Before(c.Sweep.StartedAt) {
				c.Sweep.StartedAt = sw.StartedAt
			}
			if e := sw.StartedAt.Add(sw.Duration); len(c.Shards) == 1 || e.After(end) {
				end = e
			}
			c.Sweep.Duration = end.Sub(c.Sweep.StartedAt)
		}
		return c
	}
	classOfDir := map[*Input]*Class{}
	for _, in := range m.Shards {
		classOfDir[in] = classOf(in)
	}

	m.Expected = def.Runs()
	for _, r := range m.Expected {
		srcs := got[r]
		if len(srcs) == 0 {
			m.Missing = append(m.Missing, r)
			continue
		}
		m.Reported = append(m.Reported, r)
		if len(srcs) > 1 {
			d := Duplicate{Run: r}
			for _, s := range srcs {
				d.Dirs = append(d.Dirs, s.in.Dir)
			}
			m.Duplicated = append(m.Duplicated, d)
		}
		s := srcs[0]
		pr := s.run
		if pr.Dir != "" {
			pr.Dir = filepath.Join(s.in.Dir, filepath.FromSlash(pr.Dir))
		}
		if pr.Error != "" {
			m.Failed = append(m.Failed, FailedRun{Run: r, Error: pr.Error, Dir: s.in.Dir})
		}
		c := classOfDir[s.in]
		c.Sweep.Points[r.Point].Runs = append(c.Sweep.Points[r.Point].Runs, pr)
	}

	missing := map[Run]bool{}
	for _, r := range m.Missing {
		missing[r] = true
	}
	var counts []int
	for _, in := range ins {
		if !slices.Contains(counts, in.Manifest.Shard.Count) {
			counts = append(counts, in.Manifest.Shard.Count)
		}
	}
	for _, n := range counts {
		for i := 0; i < n; i++ {
			s := Spec{Index: i, Count: n}
			done := false
			for _, in := range bySpec[s] {
				done = done || in.Manifest.Status == StatusComplete
			}
			if done {
				continue
			}
			runs, _ := Split(def.Order, s)
			for _, r := range runs {
				if missing[r] {
					m.MissingShards = append(m.MissingShards, s)
					break
				}
			}
		}
	}
	for _, c := range m.Classes {
		c.Sweep.Notes = append(c.Sweep.Notes, m.notes(c)...)
		c.Sweep.Summarize()
	}
	return m, nil
}

// checkRecord checks that a shard's sweep record has the definition's
// points.
func checkRecord(in *Input, def *Definition) error {
	s := in.Sweep
	if len(s.Points) != len(def.Points) || s.Count != def.Count || s.ShuffleSeed != def.Seed {
		return fmt.Errorf("shard: %s: sweep.json has %d points x %d repetitions (seed %d), its shard.json %d x %d (seed %d): the record is not the manifest's",
			in.Dir, len(s.Points), s.Count, s.ShuffleSeed, len(def.Points), def.Count, def.Seed)
	}
	for i, p := range s.Points {
		if !slices.Equal(p.Params, def.Points[i].Params) || p.Benchmark != def.Points[i].Benchmark {
			return fmt.Errorf("shard: %s: sweep.json point %d is %s (%s), its shard.json says %s (%s)",
				in.Dir, i, kvs(p.Params), p.Benchmark, kvs(def.Points[i].Params), def.Points[i].Benchmark)
		}
	}
	return nil
}

func kvs(params []results.KV) string {
	parts := make([]string, len(params))
	for i, kv := range params {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// classSweep starts the merged sweep record of a host class, from the
// sweep's definition and the environment of its first shard.
func (m *Merged) classSweep(in *Input, n int) *results.Sweep {
	def := &m.Definition
	sw := &results.Sweep{
		ID:          fmt.Sprintf("merged-%s-class%d", short(m.Sweep)[:8], n),
		StartedAt:   in.Manifest.StartedAt,
		Environment: in.Manifest.Environment,
		Experiment:  def.Experiment,
		Base:        slices.Clone(def.Base),
		Axes:        slices.Clone(def.Axes),
		Count:       def.Count,
		ShuffleSeed: def.Seed,
	}
	for _, p := range def.Points {
		sw.Points = append(sw.Points, results.Point{Params: p.Params, Benchmark: p.Benchmark, Config: p.Config})
	}
	return sw
}

// notes are the lines a class's record says about the merge.
func (m *Merged) notes(c *Class) []string {
	var shards []string
	for _, in := range c.Shards {
		shards = append(shards, fmt.Sprintf("%s (%s, %s, %s)", in.Manifest.Shard, in.Manifest.Environment.Hostname, in.Manifest.Status, in.Dir))
	}
	out := []string{
		fmt.Sprintf("Merged from shards %s of sweep %s; host class: %s. Run order numbers are within each shard.", strings.Join(shards, "; "), short(m.Sweep), c.HostClass),
		fmt.Sprintf("Runs: %d expected, %d reported (this class and others), %d missing, %d duplicated, %d failed.",
			len(m.Expected), len(m.Reported), len(m.Missing), len(m.Duplicated), len(m.Failed)),
	}
	if len(m.Classes) > 1 {
		out = append(out, fmt.Sprintf("The sweep ran on %d host classes: each has its own record; figures of different classes are not averaged.", len(m.Classes)))
	}
	if len(m.Missing) > 0 {
		out = append(out, "Missing: "+strings.Join(m.labels(m.Missing), ", ")+".")
	}
	if len(m.MissingShards) > 0 {
		var s []string
		for _, sp := range m.MissingShards {
			s = append(s, sp.String())
		}
		out = append(out, "Re-run shards "+strings.Join(s, ", ")+" to fill the gaps.")
	}
	for _, d := range m.Duplicated {
		out = append(out, fmt.Sprintf("Duplicated: %s in %s (the first kept).", m.Definition.Label(d.Run), strings.Join(d.Dirs, ", ")))
	}
	for _, in := range m.Superseded {
		out = append(out, fmt.Sprintf("Superseded: %s (shard %s, %s) by a complete record of the same shard.", in.Dir, in.Manifest.Shard, in.Manifest.Status))
	}
	return out
}

// labels are the runs' labels; never nil (JSON lists are [] when empty).
func (m *Merged) labels(runs []Run) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = m.Definition.Label(r)
	}
	return out
}
