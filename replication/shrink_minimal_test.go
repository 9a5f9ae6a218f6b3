package replication

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// scenarioDirectives returns the directive lines of a scenario file as
// Shrink renders it: each block's first line that is not a comment, in
// order (the cluster line first, "check" last).
func scenarioDirectives(text string) []string {
	var out []string
	for _, block := range strings.Split(text, "\n\n") {
		for _, line := range strings.Split(block, "\n") {
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if line != "----" {
				out = append(out, line)
			}
			break
		}
	}
	return out
}

// TestShrinkIsOneMinimal pins Shrink's promise: the shrunk schedule still
// shows the kind, and deleting any single one of its events loses it
// (1-minimal, as delta debugging's ddmin ends at chunks of one).
func TestShrinkIsOneMinimal(t *testing.T) {
	dir := campaignDir(t)
	var out *RunOutcome
	for seed := uint64(1); seed < 200 && out == nil; seed++ {
		o, err := RandomRun(filepath.Join(dir, "r"), Independent, 3, 200, seed, engine.CleanerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(o.Kinds, ResurrectedKey) {
			out = o
		}
	}
	if out == nil {
		t.Fatal("no seed below 200 shows resurrected-key")
	}
	line := ClusterLine(Independent, 3)
	rep, err := Shrink(filepath.Join(dir, "s"), line, engine.CleanerConfig{}, out.Schedule, ResurrectedKey)
	if err != nil {
		t.Fatal(err)
	}
	dirs := scenarioDirectives(rep)
	if len(dirs) < 3 || dirs[0] != line || dirs[len(dirs)-1] != "check" {
		t.Fatalf("reproducer's directives %q: want the cluster line, events, check", dirs)
	}
	events := dirs[1 : len(dirs)-1]
	shows := func(evs []string) bool {
		kinds, _, err := replay(filepath.Join(dir, "m"), line, engine.CleanerConfig{}, evs)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(kinds, ResurrectedKey)
	}
	if !shows(events) {
		t.Fatalf("the shrunk schedule %q does not show %s", events, ResurrectedKey)
	}
	for i := range events {
		cand := slices.Delete(slices.Clone(events), i, i+1)
		if shows(cand) {
			t.Errorf("without event %d %q the schedule still shows %s: not 1-minimal", i+1, events[i], ResurrectedKey)
		}
	}
	t.Logf("%d events shrunk to %d: %s", len(out.Schedule), len(events), fmt.Sprint(events))
}
