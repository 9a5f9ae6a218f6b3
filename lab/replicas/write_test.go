package replicas

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/results"
)

func TestWriteCampaign(t *testing.T) {
	k := replication.Kinds[0]
	res := &replication.CampaignResult{Mode: "independent", Runs: 4, Events: 50, Replicas: 3, Diverged: 1, ByKind: map[replication.Kind]int{k: 1},
		TombstoneByteSeconds: 12.4, MarkerByteSeconds: 7.6, MeanDelayMs: 100.4, MaxDelayMs: 300, Removals: 2, Reproducer: "scenario\n", Outcomes: []replication.RunOutcome{{}}}
	rec := &CampaignRecord{Result: res, Run: &results.Run{Path: "runs/x"}, Wall: 1500 * time.Millisecond}
	var b bytes.Buffer
	if err := WriteCampaign(&b, rec, "text", 7, 4, true); err != nil {
		t.Fatal(err)
	}
	want := "mode independent: 4 runs (50 events, 3 brokers, seeds 7..10): 1 diverged\n" +
		"  " + padRight(string(k), 18) + " 1 runs\n" +
		"tombstone bytes held 12 B·s, marker bytes held 8 B·s, horizon to removal mean 100 ms (max 300 ms, 2 removals)\n" +
		"wall time 1.5 s; record runs/x\n" +
		"\nscenario\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	if err := WriteCampaign(&b, rec, "json", 7, 4, false); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["record"] != "runs/x" || m["wall_s"] != 1.5 || m["diverged"] != 1.0 {
		t.Errorf("json: record %v, wall_s %v, diverged %v; want runs/x, 1.5, 1", m["record"], m["wall_s"], m["diverged"])
	}
	if _, ok := m["runs_detail"]; ok {
		t.Errorf("json has the per-run outcomes: %s", b.String())
	}
	// With --shrink, JSON output stays one object: the reproducer is its
	// "reproducer" field, not text printed after it.
	b.Reset()
	if err := WriteCampaign(&b, rec, "json", 7, 4, true); err != nil {
		t.Fatal(err)
	}
	m = nil
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatalf("json with shrink is not one JSON object: %v\n%s", err, b.String())
	}
	if m["reproducer"] != "scenario\n" {
		t.Errorf("json reproducer %q, want %q", m["reproducer"], "scenario\n")
	}
	if _, ok := m["cleaner_profile"]; ok {
		t.Errorf("json names a cleaner profile none was given: %s", b.String())
	}
	// A campaign whose brokers had a cleaner profile says so, in the
	// text's first line and in the JSON.
	res.Profile = "best"
	b.Reset()
	if err := WriteCampaign(&b, rec, "text", 7, 4, false); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); first != "mode independent, cleaner profile best: 4 runs (50 events, 3 brokers, seeds 7..10): 1 diverged" {
		t.Errorf("first line with a profile: %q", first)
	}
	b.Reset()
	if err := WriteCampaign(&b, rec, "json", 7, 4, false); err != nil {
		t.Fatal(err)
	}
	m = nil
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m["cleaner_profile"] != "best" {
		t.Errorf("json cleaner_profile %v, want best", m["cleaner_profile"])
	}
}

func padRight(s string, n int) string { return s + strings.Repeat(" ", max(0, n-len(s))) }

// TestWorkDir: cleanup removes the fresh replicas-* directory, keeps a
// parent that existed, and removes the parents WorkDir made.
func TestWorkDir(t *testing.T) {
	existing := t.TempDir()
	parent := filepath.Join(existing, "new", "sub")
	root, cleanup, err := WorkDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(root) != parent || !strings.HasPrefix(filepath.Base(root), "replicas-") {
		t.Errorf("root %s: want a replicas-* directory under %s", root, parent)
	}
	cleanup()
	for _, p := range []string{root, filepath.Join(existing, "new")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("after cleanup %s: %v, want not exist", p, err)
		}
	}
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("cleanup removed the parent that existed: %v", err)
	}
}

func TestParseDowntimes(t *testing.T) {
	got, err := ParseDowntimes("0, 10m,1h ,1d,500ms")
	want := []int64{0, 10 * 60 * 1000, 3600 * 1000, 24 * 3600 * 1000, 500}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %v, %v; want %v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: got %d, want %d", i, got[i], want[i])
		}
	}
	if _, err := ParseDowntimes("10m,soon"); err == nil || !strings.HasPrefix(err.Error(), `--downtime "soon": `) {
		t.Errorf("bad item: got %v, want an error naming \"soon\"", err)
	}
}

// TestCostDurationErrorsSayWhy: cost's --delete-retention and --downtime
// name their flag and say what is wrong with a duration (a missing unit),
// not only that a duration is wanted.
func TestCostDurationErrorsSayWhy(t *testing.T) {
	o := DefaultCostOptions()
	o.DeleteRetention = "1.5"
	err := CostCommand(t.Context(), o, &bytes.Buffer{})
	if err == nil || !strings.HasPrefix(err.Error(), `--delete-retention "1.5": no unit`) {
		t.Errorf("--delete-retention 1.5: %v, want it named with the missing unit", err)
	}
	o = DefaultCostOptions()
	o.Downtimes = "0,1.5"
	err = CostCommand(t.Context(), o, &bytes.Buffer{})
	if err == nil || !strings.HasPrefix(err.Error(), `--downtime "1.5": no unit`) {
		t.Errorf("--downtime 0,1.5: %v, want it named with the missing unit", err)
	}
	// A negative duration says what is wanted, naming the flag.
	o = DefaultCostOptions()
	o.DeleteRetention = "-5s"
	err = CostCommand(t.Context(), o, &bytes.Buffer{})
	if err == nil || err.Error() != `--delete-retention "-5s": negative: want a duration > 0` {
		t.Errorf("--delete-retention -5s: %v, want it named, saying the duration must be > 0", err)
	}
	o = DefaultCostOptions()
	o.Downtimes = "0,-1d"
	err = CostCommand(t.Context(), o, &bytes.Buffer{})
	if err == nil || err.Error() != `--downtime "-1d": want a duration >= 0` {
		t.Errorf("--downtime 0,-1d: %v, want it named, saying the duration must be >= 0", err)
	}
}
