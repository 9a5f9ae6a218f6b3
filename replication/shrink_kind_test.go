package replication

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestCampaignShrinksChosenKind: with ShrinkKind lso-stuck, a campaign
// whose first diverging schedules show resurrected-key only shrinks the
// first one that shows lso-stuck instead, keeping lso-stuck: the
// reproducer names the kind and its seed, still shows lso-stuck when
// replayed, and loses it without any single one of its events (1-minimal
// for the kind).
func TestCampaignShrinksChosenKind(t *testing.T) {
	dir := campaignDir(t)
	res, err := RunCampaign(CampaignConfig{Root: dir, Mode: Independent, Runs: 200, Seed: 1, Events: 200, Shrink: true, ShrinkKind: LSOStuck}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.ByKind[LSOStuck] == 0 {
		t.Fatalf("no schedule of seeds 1..200 shows lso-stuck (%v): the test needs one", res.ByKind)
	}
	var first uint64
	for _, o := range res.Outcomes {
		if slices.Contains(o.Kinds, LSOStuck) {
			first = o.Seed
			break
		}
	}
	if res.FirstDiverged == int64(first) {
		t.Fatalf("seed %d is the first to diverge and shows lso-stuck: the test would not tell --kind from the default", first)
	}
	if res.ReproducerKind != LSOStuck || res.ReproducerSeed != first || !strings.Contains(res.Reproducer, "still shows lso-stuck") {
		t.Fatalf("reproducer of %s from seed %d, want lso-stuck from seed %d (first diverged %d):\n%s", res.ReproducerKind, res.ReproducerSeed, first, res.FirstDiverged, res.Reproducer)
	}
	dirs := scenarioDirectives(res.Reproducer)
	events := dirs[1 : len(dirs)-1]
	shows := func(evs []string) bool {
		kinds, _, err := replay(filepath.Join(dir, "m"), dirs[0], engine.CleanerConfig{}, evs)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(kinds, LSOStuck)
	}
	if !shows(events) {
		t.Fatalf("the shrunk schedule does not show lso-stuck on disk: %q", events)
	}
	for i := range events {
		if shows(slices.Delete(slices.Clone(events), i, i+1)) {
			t.Errorf("without event %d %q the schedule still shows lso-stuck: not 1-minimal", i+1, events[i])
		}
	}
	t.Logf("seed %d (first diverged %d): %d events", first, res.FirstDiverged, len(events))
}
