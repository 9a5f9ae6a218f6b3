package replication

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

var long = flag.Bool("long", false, "run the long campaign property: 2,000 coordinated schedules instead of 200")

// campaignDir prefers a tmpfs (/dev/shm): a campaign creates and renames
// thousands of small segment files, which a journaling file system under
// load makes ten times slower; the semantics do not depend on it.
func campaignDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "replication-test-")
		if err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// testEvents per schedule in the test suite (the benchmark uses 200).
const testEvents = 100

// TestCampaignCoordinatedNeverDiverges: with coordinated cleaning no
// schedule of the campaign's space (faults, lags, partitions, elections,
// clock jumps, cleans, transactions; acks=all, no unclean elections) ends
// with a divergence.
func TestCampaignCoordinatedNeverDiverges(t *testing.T) {
	runs := 200
	if *long {
		runs = 2000
	}
	res, err := RunCampaign(CampaignConfig{Root: campaignDir(t), Mode: Coordinated, Runs: runs, Seed: 1, Events: testEvents}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Diverged != 0 {
		t.Fatalf("coordinated: %d of %d runs diverged (%v), first seed %d", res.Diverged, runs, res.ByKind, res.FirstDiverged)
	}
}

// TestCampaignIndependentDiverges: the same schedule space with Kafka's
// independent cleaning diverges: resurrected-key in the default suite
// (100 schedules of 200 events), and with -long (1,000 schedules) also
// lso-stuck; lost-acknowledged and offsets-differ need unclean elections
// or HW truncation, which the space leaves out, so they must not appear.
func TestCampaignIndependentDiverges(t *testing.T) {
	runs, want := 100, []Kind{ResurrectedKey}
	if *long {
		runs, want = 1000, []Kind{ResurrectedKey, LSOStuck}
	}
	res, err := RunCampaign(CampaignConfig{Root: campaignDir(t), Mode: Independent, Runs: runs, Seed: 1, Events: 200}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("independent: %d of %d diverged, %v", res.Diverged, res.Runs, res.ByKind)
	for _, k := range want {
		if res.ByKind[k] == 0 {
			t.Errorf("independent: no run shows %s (%v)", k, res.ByKind)
		}
	}
	for _, k := range []Kind{LostAcknowledged, OffsetsDiffer} {
		if res.ByKind[k] != 0 {
			t.Errorf("independent: %d runs show %s, which the schedule space should not allow", res.ByKind[k], k)
		}
	}
}

// TestCampaignDeterministic: the same seed gives the same run, byte for
// byte in its result.
func TestCampaignDeterministic(t *testing.T) {
	var js [2][]byte
	for i := range js {
		res, err := RunCampaign(CampaignConfig{Root: campaignDir(t), Mode: Independent, Runs: 6, Seed: 42, Events: testEvents, Workers: 1 + i}, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res.Outcomes {
			if len(o.Schedule) != testEvents {
				t.Fatalf("seed %d: %d events", o.Seed, len(o.Schedule))
			}
		}
		if js[i], err = json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	}
	if string(js[0]) != string(js[1]) {
		t.Fatalf("same seeds, different results:\n%s\n%s", js[0], js[1])
	}
}

// TestShrinkReproduces: the shrunk schedule is a scenario file that
// reproduces its divergence when run, with matching expected blocks.
func TestShrinkReproduces(t *testing.T) {
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
	rep, err := Shrink(filepath.Join(dir, "s"), ClusterLine(Independent, 3), engine.CleanerConfig{}, out.Schedule, ResurrectedKey)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "repro")
	if err := os.WriteFile(path, []byte(rep), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := RunScenarioFile(path, filepath.Join(dir, "run"))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Mismatches) != 0 {
		t.Fatalf("reproducer does not replay: %+v", res.Mismatches[0])
	}
	if !strings.Contains(rep, "resurrected-key broker=") {
		t.Fatalf("reproducer lacks the finding:\n%s", rep)
	}
	if n := strings.Count(rep, "\n----\n"); n >= len(out.Schedule) {
		t.Fatalf("shrunk to %d directives from %d events", n, len(out.Schedule))
	}
}
