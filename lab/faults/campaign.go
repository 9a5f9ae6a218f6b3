package faults

import (
	"context"
	"fmt"
	"time"
)

// Options configure a campaign.
type Options struct {
	// Seed is the first schedule's seed; schedule i runs seed Seed + i.
	Seed uint64
	// Schedules to run. Default 200.
	Schedules int
	// Steps per schedule. Default 60.
	Steps int
	// Keys is the key space of the appends. Default 24.
	Keys int
	// FaultRate is the chance that a fault step drawn is kept (about 4% of
	// the steps are fault steps at 1). Default 1.
	FaultRate float64
	// Dir is the parent of the schedules' directories ("": the OS temp
	// dir); each is removed after its schedule.
	Dir string
	// Shrink shrinks each failing schedule to a 1-minimal one.
	Shrink bool
	// Log receives a line per finding and a progress line every 100
	// schedules; nil: none.
	Log func(format string, args ...any)
}

// Result is a campaign's outcome.
type Result struct {
	FirstSeed uint64 `json:"first_seed"`
	Schedules int    `json:"schedules"`
	// Interrupted: the context ended the campaign early (Schedules says
	// how far it got).
	Interrupted bool      `json:"interrupted,omitempty"`
	Counts      Counts    `json:"counts"`
	Findings    []Finding `json:"findings"`
	// Seconds is the campaign's wall time (measured).
	Seconds float64 `json:"seconds"`
}

// Run runs the campaign: schedule after schedule until o.Schedules or ctx
// ends (between schedules). Errors: the campaign's own (a directory it
// cannot make), never the engine's, which are findings.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.Schedules <= 0 {
		o.Schedules = 200
	}
	if o.Steps <= 0 {
		o.Steps = 60
	}
	if o.Keys <= 0 {
		o.Keys = 24
	}
	if o.FaultRate <= 0 {
		o.FaultRate = 1
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	t0 := time.Now()
	res := &Result{FirstSeed: o.Seed, Findings: []Finding{}}
	for i := 0; i < o.Schedules; i++ {
		if ctx.Err() != nil {
			res.Interrupted = true
			break
		}
		seed := o.Seed + uint64(i)
		steps := Generate(seed, o.Steps, o.Keys, o.FaultRate)
		f, c, err := runSchedule(o.Dir, seed, steps)
		if err != nil {
			return nil, err
		}
		res.Schedules++
		res.Counts.add(c)
		if f != nil {
			if o.Shrink {
				if s, err := Shrink(o.Dir, f); err == nil {
					f = s
				}
			}
			o.Log("finding: %v\n", f)
			res.Findings = append(res.Findings, *f)
		}
		if (i+1)%100 == 0 {
			o.Log("%d schedules, %d findings\n", i+1, len(res.Findings))
		}
	}
	res.Seconds = time.Since(t0).Seconds()
	return res, nil
}

// Shrink removes steps from f's schedule one at a time, keeping each
// removal after which the schedule still finds the same kind, until no
// single removal does (1-minimal). Errors: the campaign's own.
func Shrink(dir string, f *Finding) (*Finding, error) {
	var err error
	g := shrink(f, func(steps []Step) *Finding {
		if err != nil {
			return nil
		}
		var g *Finding
		g, _, err = runSchedule(dir, f.Seed, steps)
		return g
	})
	return g, err
}

// shrink is Shrink over any run: run(steps) is the finding of a schedule
// (nil: none).
func shrink(f *Finding, run func([]Step) *Finding) *Finding {
	best := f
	for changed := true; changed; {
		changed = false
		for i := 0; i < len(best.Steps); i++ {
			try := append(append([]Step(nil), best.Steps[:i]...), best.Steps[i+1:]...)
			if g := run(try); g != nil && g.Kind == f.Kind {
				g.Steps = try
				best, changed = g, true
				i--
			}
		}
	}
	out := *best
	out.Shrunk = true
	return &out
}

// Summary is the campaign in one line.
func (r *Result) Summary() string {
	s := fmt.Sprintf("%d schedules (seeds %d..%d), %d steps, %d faults injected, %d crashes, %d reopens, %d cleans, %d records appended, %d checks: %d findings, %.1f s (measured)",
		r.Schedules, r.FirstSeed, r.FirstSeed+uint64(max(r.Schedules, 1))-1, r.Counts.Steps, r.Counts.Faults, r.Counts.Crashes, r.Counts.Reopens, r.Counts.Cleans, r.Counts.Appended, r.Counts.Checks, len(r.Findings), r.Seconds)
	if r.Interrupted {
		s += " (interrupted)"
	}
	return s
}
