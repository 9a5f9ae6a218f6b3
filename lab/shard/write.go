package shard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cleanerlab/cleanerlab/results"
)

// MergeJSONFile is the name of the merge's summary in its directory.
const MergeJSONFile = "merge.json"

// Summary is the merge in plain terms, as `cleanerlab report --merge
// --format json` prints it and merge.json holds it. Runs are labelled as
// Definition.Label does ("keys=2e4 hasher=md5 rep=1"); every list is
// present, empty when there is nothing to list.
type Summary struct {
	Sweep      string `json:"sweep"`
	Experiment string `json:"experiment,omitempty"`
	// Points are the runs some shard reported (a failed run too);
	// Expected every run of the sweep; Missing the runs no shard reported;
	// Duplicated the runs more than one shard reported.
	Points     []string `json:"points"`
	Expected   []string `json:"expected"`
	Missing    []string `json:"missing"`
	Duplicated []string `json:"duplicated"`
	// DuplicatedIn names the shards' directories of each duplicated run.
	DuplicatedIn []DuplicateSummary `json:"duplicated_in"`
	Failed       []FailedSummary    `json:"failed"`
	// MissingShards are the shards "i/N" to re-run to fill the gaps.
	MissingShards []string       `json:"missing_shards"`
	Shards        []ShardSummary `json:"shards"`
	Superseded    []string       `json:"superseded"`
	Classes       []ClassSummary `json:"classes"`
}

// DuplicateSummary is one duplicated run and the directories holding it.
type DuplicateSummary struct {
	Run  string   `json:"run"`
	Dirs []string `json:"dirs"`
}

// FailedSummary is one failed run.
type FailedSummary struct {
	Run   string `json:"run"`
	Error string `json:"error"`
	Dir   string `json:"dir"`
}

// ShardSummary is one shard record used.
type ShardSummary struct {
	Dir    string `json:"dir"`
	Shard  string `json:"shard"`
	Status Status `json:"status"`
	Error  string `json:"error,omitempty"`
	Host   string `json:"host"`
	// Class numbers the shard's host class in Classes, from 1.
	Class int `json:"class"`
	Runs  int `json:"runs"`
}

// ClassSummary is one host class.
type ClassSummary struct {
	Class     int       `json:"class"`
	Label     string    `json:"label"`
	HostClass HostClass `json:"host_class"`
	Hosts     []string  `json:"hosts"`
	// Record is the class's merged sweep record's directory, relative to
	// the merge's directory ("class-1").
	Record string `json:"record"`
}

// Summary returns the merge's summary.
func (m *Merged) Summary() *Summary {
	s := &Summary{
		Sweep: m.Sweep, Experiment: m.Definition.Experiment,
		Points: m.labels(m.Reported), Expected: m.labels(m.Expected), Missing: m.labels(m.Missing),
		Duplicated: []string{}, DuplicatedIn: []DuplicateSummary{}, Failed: []FailedSummary{},
		MissingShards: []string{}, Shards: []ShardSummary{}, Superseded: []string{}, Classes: []ClassSummary{},
	}
	for _, d := range m.Duplicated {
		l := m.Definition.Label(d.Run)
		s.Duplicated = append(s.Duplicated, l)
		s.DuplicatedIn = append(s.DuplicatedIn, DuplicateSummary{Run: l, Dirs: d.Dirs})
	}
	for _, f := range m.Failed {
		s.Failed = append(s.Failed, FailedSummary{Run: m.Definition.Label(f.Run), Error: f.Error, Dir: f.Dir})
	}
	for _, sp := range m.MissingShards {
		s.MissingShards = append(s.MissingShards, sp.String())
	}
	for i, c := range m.Classes {
		s.Classes = append(s.Classes, ClassSummary{Class: i + 1, Label: c.Label(i + 1), HostClass: c.HostClass,
			Hosts: append([]string{}, c.Hosts...), Record: classDir(i + 1)})
		for _, in := range c.Shards {
			s.Shards = append(s.Shards, ShardSummary{Dir: in.Dir, Shard: in.Manifest.Shard.String(), Status: in.Manifest.Status,
				Error: in.Manifest.Error, Host: in.Manifest.Environment.Hostname, Class: i + 1, Runs: len(in.Manifest.Runs)})
		}
	}
	for _, in := range m.Superseded {
		s.Superseded = append(s.Superseded, in.Dir)
	}
	return s
}

func classDir(n int) string { return "class-" + strconv.Itoa(n) }

// Write writes the merge into dir: merge.json (the Summary), one merged
// sweep record per host class under class-N/ (results.Sweep.Write:
// sweep.json, summary.csv, runs.csv, bench.txt, plots, report.md and
// report.html), and dir/report.md and report.html over all classes, with
// the classes compared side by side when there are two or more. Run
// directories in the records are made relative to the class's record.
func (m *Merged) Write(dir string) (*results.Report, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	js, err := json.MarshalIndent(m.Summary(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("shard: marshal merge summary: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, MergeJSONFile), append(js, '\n'), 0o644); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	rep := &results.Report{Title: "cleanerlab merged sweep " + short(m.Sweep)}
	for i, c := range m.Classes {
		sub := classDir(i + 1)
		cdir := filepath.Join(dir, sub)
		sw := *c.Sweep
		sw.Points = make([]results.Point, len(c.Sweep.Points))
		for p, pt := range c.Sweep.Points {
			pt.Runs = append([]results.PointRun(nil), pt.Runs...)
			for k := range pt.Runs {
				pt.Runs[k].Dir = relDir(cdir, pt.Runs[k].Dir)
			}
			sw.Points[p] = pt
		}
		if err := sw.Write(cdir); err != nil {
			return nil, err
		}
		plots, err := sw.Plots(filepath.Join(cdir, results.PlotsDir))
		if err != nil {
			return nil, err
		}
		for k := range plots {
			plots[k].PNG = filepath.ToSlash(filepath.Join(sub, results.PlotsDir, plots[k].PNG))
			plots[k].SVG = filepath.ToSlash(filepath.Join(sub, results.PlotsDir, plots[k].SVG))
		}
		rep.Plots = append(rep.Plots, plots...)
		rep.Sweeps = append(rep.Sweeps, c.Sweep)
	}
	if t := m.CompareClasses(); len(t) > 0 {
		rep.Comparisons = t
		rep.CompareNote = "Columns: the host classes (CPU model, disk model, file system, kernel) of the shards; each class's figures are its own."
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(rep.Markdown()), 0o644); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	html, err := rep.HTML()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.html"), html, 0o644); err != nil {
		return nil, fmt.Errorf("shard: %w", err)
	}
	return rep, nil
}

// relDir makes a run's directory relative to base where it can.
func relDir(base, dir string) string {
	if dir == "" {
		return ""
	}
	ab, err1 := filepath.Abs(base)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return filepath.ToSlash(dir)
	}
	if r, err := filepath.Rel(ab, ad); err == nil {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(ad)
}
