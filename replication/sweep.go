package replication

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// The knobs a campaign sweep can vary (docs/replication-campaigns.md §2).
// Every one but Downtime is a key of the scenario "cluster" line, so a
// cell's cluster line is the campaign's with that key's value replaced.
const (
	KnobDeleteRetention = "delete.retention.ms"
	KnobReplicaLag      = "replica.lag.time.max.ms"
	KnobSegmentBytes    = "segment.bytes"
	KnobMinISR          = "min.insync.replicas"
	// KnobDowntime is how long a fault lasts: a crashed, offline or cut
	// broker recovers at the first event once this much virtual time has
	// passed since the fault (CampaignConfig.DowntimeMs). 0: recoveries
	// are drawn at random, as a campaign without a sweep.
	KnobDowntime = "downtime"
)

// SweepKnobs lists the knobs a sweep accepts, in the order help prints
// them.
var SweepKnobs = []string{KnobDeleteRetention, KnobDowntime, KnobReplicaLag, KnobSegmentBytes, KnobMinISR}

// SweepAxis is one knob of a sweep and its values, in the order given.
type SweepAxis struct {
	Knob string `json:"knob"`
	// Values as given (a duration such as "10m" or a count).
	Values []string `json:"values"`
	// Nums are the values in the knob's unit: milliseconds for the
	// durations (delete.retention.ms, replica.lag.time.max.ms,
	// downtime), bytes for segment.bytes, replicas for
	// min.insync.replicas.
	Nums []int64 `json:"nums"`
}

// ParseSweepAxis parses "knob=v1,v2,...": a knob of SweepKnobs and at
// least one value, each distinct and within the knob's range (durations >
// 0, downtime >= 0, segment.bytes >= 100, min.insync.replicas >= 1). The
// error names the knob and the value.
func ParseSweepAxis(spec string) (SweepAxis, error) {
	knob, list, ok := strings.Cut(spec, "=")
	knob = strings.TrimSpace(knob)
	if !ok || knob == "" {
		return SweepAxis{}, fmt.Errorf("sweep %q: want knob=value,value,... (knobs: %s)", spec, strings.Join(SweepKnobs, ", "))
	}
	known := false
	for _, k := range SweepKnobs {
		known = known || k == knob
	}
	if !known {
		return SweepAxis{}, fmt.Errorf("sweep %q: unknown knob %q (knobs: %s)", spec, knob, strings.Join(SweepKnobs, ", "))
	}
	ax := SweepAxis{Knob: knob}
	seen := map[int64]string{}
	for _, v := range strings.Split(list, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return SweepAxis{}, fmt.Errorf("sweep %s: empty value in %q", knob, list)
		}
		n, err := parseKnob(knob, v)
		if err != nil {
			return SweepAxis{}, fmt.Errorf("sweep %s: value %q: %v", knob, v, err)
		}
		if prev, dup := seen[n]; dup {
			return SweepAxis{}, fmt.Errorf("sweep %s: values %q and %q are the same", knob, prev, v)
		}
		seen[n] = v
		ax.Values = append(ax.Values, v)
		ax.Nums = append(ax.Nums, n)
	}
	return ax, nil
}

// parseKnob is one value of knob in the knob's unit.
func parseKnob(knob, v string) (int64, error) {
	switch knob {
	case KnobSegmentBytes, KnobMinISR:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, errors.New("want a whole number")
		}
		if knob == KnobSegmentBytes && n < 100 {
			return 0, errors.New("want at least 100 bytes (a segment must hold a batch)")
		}
		if knob == KnobMinISR && n < 1 {
			return 0, errors.New("want at least 1")
		}
		return n, nil
	}
	ms, err := ParseDurationMs(v)
	if err != nil {
		return 0, err
	}
	if ms < 0 || (ms == 0 && knob != KnobDowntime) {
		return 0, errors.New("want a duration > 0 (downtime may be 0)")
	}
	return ms, nil
}

// SweepGrid checks a sweep's axes (each knob once, min.insync.replicas
// at most replicas) and returns its cells: the cross product, the first
// axis varying slowest, as nested loops in the order the axes were given.
// No axes is one cell with no knobs (the campaign as it is).
func SweepGrid(axes []SweepAxis, replicas int) ([]SweepCell, error) {
	seen := map[string]bool{}
	for _, ax := range axes {
		if seen[ax.Knob] {
			return nil, fmt.Errorf("sweep: knob %s given twice", ax.Knob)
		}
		seen[ax.Knob] = true
		if ax.Knob == KnobMinISR {
			for i, n := range ax.Nums {
				if n > int64(replicas) {
					return nil, fmt.Errorf("sweep %s: value %q: more than the %d replicas", ax.Knob, ax.Values[i], replicas)
				}
			}
		}
	}
	cells := []SweepCell{{}}
	for _, ax := range axes {
		var next []SweepCell
		for _, c := range cells {
			for i := range ax.Values {
				k := append(append([]KnobValue(nil), c.Knobs...), KnobValue{Knob: ax.Knob, Value: ax.Values[i], Num: ax.Nums[i]})
				next = append(next, SweepCell{Knobs: k})
			}
		}
		cells = next
	}
	for i := range cells {
		cells[i].Index = i
	}
	return cells, nil
}

// KnobValue is one knob's value in a cell.
type KnobValue struct {
	Knob  string `json:"knob"`
	Value string `json:"value"`
	Num   int64  `json:"num"`
}

// SweepCell is one point of a sweep's grid.
type SweepCell struct {
	// Index in the grid (row-major, first axis slowest).
	Index int         `json:"index"`
	Knobs []KnobValue `json:"knobs"`
}

// Name is the cell's knobs as "k=v k=v" ("default" for no knobs).
func (c SweepCell) Name() string {
	if len(c.Knobs) == 0 {
		return "default"
	}
	s := make([]string, len(c.Knobs))
	for i, k := range c.Knobs {
		s[i] = k.Knob + "=" + k.Value
	}
	return strings.Join(s, " ")
}

// apply returns base with the cell's knobs: the cluster line's keys
// replaced (or appended) and the downtime set.
func (c SweepCell) apply(base CampaignConfig) CampaignConfig {
	line := base.clusterLine()
	for _, k := range c.Knobs {
		if k.Knob == KnobDowntime {
			base.DowntimeMs = k.Num
			continue
		}
		line = setLineKey(line, k.Knob, k.Value)
	}
	base.ClusterLine = line
	return base
}

// setLineKey replaces key's value in a scenario line, or appends
// key=value when the line has no such key.
func setLineKey(line, key, value string) string {
	f := strings.Fields(line)
	for i, w := range f {
		if k, _, ok := strings.Cut(w, "="); ok && k == key {
			f[i] = key + "=" + value
			return strings.Join(f, " ")
		}
	}
	return strings.Join(append(f, key+"="+value), " ")
}

// SweepConfig is a campaign run once per cell of a grid.
type SweepConfig struct {
	// Campaign is every cell's campaign before the cell's knobs: its
	// Runs, Seed, Mode, Replicas, Events, Cleaner, Shrink, ShrinkKind,
	// Workers and CheckDone. Every cell runs the same seeds (Seed ..
	// Seed+Runs-1), so cells differ only by their knobs.
	Campaign CampaignConfig
	Axes     []SweepAxis
}

// CellResult is one cell's campaign.
type CellResult struct {
	SweepCell
	ClusterLine string `json:"cluster"`
	DowntimeMs  int64  `json:"downtime_ms"`
	// Rate is, per kind, the fraction of the cell's schedules done that
	// ended with that kind (0..1); "any" is the fraction that diverged.
	Rate map[string]float64 `json:"divergence_rate"`
	*CampaignResult
}

// SweepResult is a whole sweep.
type SweepResult struct {
	Axes  []SweepAxis  `json:"axes"`
	Cells []CellResult `json:"cells"`
	// CellsPlanned is the grid's size; len(Cells) is smaller when the
	// sweep was stopped (the last cell then says how far it got).
	CellsPlanned int `json:"cells_planned"`
	// Stopped says why and how far a stopped sweep got; "" when it ran
	// every cell to its end.
	Stopped string `json:"stopped,omitempty"`
}

// RunSweep runs the campaign of every cell in grid order, each in its own
// directory under Campaign.Root. progress, when set, is called after each
// schedule with the cell's index and the schedules it has done. A stop
// (CheckDone) ends the sweep at the next safe point; the cell in progress
// is kept with the schedules it finished, and SweepResult.Stopped says
// how far the sweep got.
func RunSweep(cfg SweepConfig, progress func(cell, done int)) (*SweepResult, error) {
	base := cfg.Campaign
	if err := base.defaults(); err != nil {
		return nil, err
	}
	cells, err := SweepGrid(cfg.Axes, base.Replicas)
	if err != nil {
		return nil, err
	}
	res := &SweepResult{Axes: cfg.Axes, CellsPlanned: len(cells)}
	for _, cell := range cells {
		cc := cell.apply(base)
		cc.Root = filepath.Join(base.Root, fmt.Sprintf("cell-%d", cell.Index))
		var p func(int)
		if progress != nil {
			p = func(done int) { progress(cell.Index, done) }
		}
		r, err := RunCampaign(cc, p)
		if err != nil {
			return res, fmt.Errorf("replication: sweep cell %d (%s): %w", cell.Index, cell.Name(), err)
		}
		res.Cells = append(res.Cells, CellResult{SweepCell: cell, ClusterLine: cc.clusterLine(), DowntimeMs: cc.DowntimeMs, Rate: r.Rates(), CampaignResult: r})
		if r.Stopped != "" {
			res.Stopped = fmt.Sprintf("sweep stopped in cell %d of %d (%s): %s", cell.Index+1, len(cells), cell.Name(), r.Stopped)
			break
		}
	}
	return res, nil
}

// Rates is, per kind in Kinds, the fraction of the schedules done that
// ended with it, and under "any" the fraction that diverged at all
// (all 0 when none was done).
func (r *CampaignResult) Rates() map[string]float64 {
	m := map[string]float64{"any": 0}
	for _, k := range Kinds {
		m[string(k)] = 0
	}
	if r.RunsDone == 0 {
		return m
	}
	n := float64(r.RunsDone)
	m["any"] = float64(r.Diverged) / n
	for k, c := range r.ByKind {
		m[string(k)] = float64(c) / n
	}
	return m
}
