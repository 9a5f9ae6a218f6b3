package faults

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"
)

var schedules = flag.Int("faults.schedules", 200, "schedules TestCampaign runs (a long campaign: 10000 and more)")

// TestCampaign runs -faults.schedules seeded schedules (200 by default)
// with faults and crashes: every one must reopen, keep every flushed
// record and every key's latest value, and verify.
func TestCampaign(t *testing.T) {
	res, err := Run(context.Background(), Options{Seed: 1, Schedules: *schedules, Steps: 40, Dir: memDir(t), Shrink: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Summary())
	if res.Schedules != *schedules || res.Counts.Crashes == 0 || res.Counts.Faults == 0 || res.Counts.Cleans == 0 {
		t.Errorf("the campaign did not exercise crashes, faults and cleans: %s", res.Summary())
	}
	for _, f := range res.Findings {
		t.Errorf("%v", &f)
		for _, s := range f.Steps {
			t.Logf("  %s", s)
		}
	}
}

// TestShrink: a finding that needs a flush followed, later, by a crash
// shrinks to exactly those two steps, and no single step of the result can
// go (1-minimal).
func TestShrink(t *testing.T) {
	run := func(steps []Step) *Finding {
		flushed := false
		for _, s := range steps {
			switch {
			case s.Kind == StepFlush:
				flushed = true
			case s.Kind == StepCrash && flushed:
				return &Finding{Kind: FindingLostFlushed, Steps: steps}
			}
		}
		return nil
	}
	in := []Step{{Kind: StepAppend, Keys: []int{1}, Tombstones: []bool{false}}, {Kind: StepFlush}, {Kind: StepRoll}, {Kind: StepCrash}, {Kind: StepClean}, {Kind: StepCrash}}
	got := shrink(run(in), run)
	want := []Step{{Kind: StepFlush}, {Kind: StepCrash}}
	if !reflect.DeepEqual(got.Steps, want) || !got.Shrunk {
		t.Errorf("shrunk to %v, want %v", got.Steps, want)
	}
}

// TestGenerate: a seed always gives the same schedule, another seed
// another one, and every step prints in a form ParseStep reads back.
func TestGenerate(t *testing.T) {
	a, b, c := Generate(7, 50, 10, 1), Generate(7, 50, 10, 1), Generate(8, 50, 10, 1)
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) || len(a) != 50 {
		t.Fatalf("Generate is not a function of its seed (%d steps)", len(a))
	}
	for _, s := range a {
		p, err := ParseStep(s.String())
		if err != nil || p.String() != s.String() {
			t.Errorf("%q: parsed back as %q, %v", s, p, err)
		}
	}
}

// memDir is a temporary directory on /dev/shm where there is one (the
// campaign checks what the file system model keeps, not a disk's speed:
// tmpfs makes its thousands of fsyncs free), else t.TempDir().
func memDir(t *testing.T) string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "cleanerlab-faults-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// TestCampaignInterrupted: a cancelled context stops the campaign before
// its next schedule, and the result says so and how far it got.
func TestCampaignInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	res, err := Run(ctx, Options{Seed: 1, Schedules: 50, Steps: 10, Dir: memDir(t)})
	if err != nil || res.Interrupted || res.Schedules != 50 {
		t.Fatalf("uncancelled: %+v, %v", res, err)
	}
	cancel()
	res, err = Run(ctx, Options{Seed: 1, Schedules: 50, Steps: 10, Dir: memDir(t)})
	if err != nil || !res.Interrupted || res.Schedules != 0 || !strings.Contains(res.Summary(), "(interrupted)") {
		t.Fatalf("cancelled: %+v, %v", res, err)
	}
}

// TestFindingsEmptyList: a campaign without findings writes "findings": []
// in its JSON (a list a script can iterate), never null.
func TestFindingsEmptyList(t *testing.T) {
	res, err := Run(context.Background(), Options{Dir: t.TempDir(), Schedules: 1, Steps: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"findings":[]`) {
		t.Errorf("JSON %s has no empty findings list", b)
	}
}
