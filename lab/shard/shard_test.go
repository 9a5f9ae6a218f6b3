package shard

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/results"
)

// TestSplitCovers checks, for every N up to 9 and order lengths up to 30,
// that the shards are disjoint, cover the order and differ in length by at
// most one.
func TestSplitCovers(t *testing.T) {
	for total := 0; total <= 30; total++ {
		order := make([]int, total)
		for i := range order {
			order[i] = 100 + i
		}
		for n := 1; n <= 9; n++ {
			seen := map[int]int{}
			minLen, maxLen := total+1, -1
			for i := 0; i < n; i++ {
				got, err := Split(order, Spec{Index: i, Count: n})
				if err != nil {
					t.Fatal(err)
				}
				minLen, maxLen = min(minLen, len(got)), max(maxLen, len(got))
				for _, v := range got {
					seen[v]++
				}
			}
			for _, v := range order {
				if seen[v] != 1 {
					t.Fatalf("total %d, N %d: run %d in %d shards", total, n, v, seen[v])
				}
			}
			if len(seen) != total || maxLen-minLen > 1 {
				t.Fatalf("total %d, N %d: %d runs dealt, shard lengths %d..%d", total, n, len(seen), minLen, maxLen)
			}
		}
	}
	if _, err := Split([]int{1}, Spec{Index: 1, Count: 1}); err == nil {
		t.Fatal("Split with shard 1/1: no error")
	}
}

func testDefinition() Definition {
	return Definition{
		Experiment: "scripts/experiments/tiny.yaml", ExperimentSHA256: strings.Repeat("ab", 32),
		Base:  []results.KV{{Key: "log-bytes", Value: "1MiB"}},
		Axes:  []results.Axis{{Name: "keys", Values: []string{"2e4", "3e4"}}},
		Count: 2, Seed: 1,
		Points: []PointDef{
			{Params: []results.KV{{Key: "keys", Value: "2e4"}}, Benchmark: "BenchmarkClean/keys=2e4", Config: map[string]any{"keys": 20000}},
			{Params: []results.KV{{Key: "keys", Value: "3e4"}}, Benchmark: "BenchmarkClean/keys=3e4", Config: map[string]any{"keys": 30000}},
		},
		Order: []Run{{1, 1}, {0, 2}, {0, 1}, {1, 2}},
	}
}

// TestIdentity checks that every part of the definition but the experiment
// file's name changes the sweep's identity.
func TestIdentity(t *testing.T) {
	base := testDefinition()
	id0, err := base.Identity()
	if err != nil {
		t.Fatal(err)
	}
	if len(id0) != 64 {
		t.Fatalf("identity %q: want 64 hex digits of SHA-256", id0)
	}
	same := testDefinition()
	same.Experiment = "/tmp/elsewhere/tiny.yaml" // the same file on another host
	if id, _ := same.Identity(); id != id0 {
		t.Errorf("the experiment file's path changed the identity")
	}
	changes := map[string]func(d *Definition){
		"experiment bytes": func(d *Definition) { d.ExperimentSHA256 = strings.Repeat("cd", 32) },
		"base":             func(d *Definition) { d.Base[0].Value = "2MiB" },
		"axes":             func(d *Definition) { d.Axes[0].Values = []string{"2e4", "4e4"} },
		"count":            func(d *Definition) { d.Count = 3 },
		"seed":             func(d *Definition) { d.Seed = 2 },
		"config":           func(d *Definition) { d.Points[1].Config = map[string]any{"keys": 30001} },
		"order":            func(d *Definition) { d.Order[0], d.Order[1] = d.Order[1], d.Order[0] },
	}
	for name, change := range changes {
		d := testDefinition()
		change(&d)
		if id, _ := d.Identity(); id == id0 {
			t.Errorf("changing the %s left the identity %s", name, id)
		}
	}
}

// TestManifestRoundTrip writes a manifest, reads it back, and checks that
// a hand edit of its definition and a wrong share of runs are refused.
func TestManifestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	env := results.Environment{Hostname: "h1", CPUModel: "cpu-a", KernelRelease: "6.1"}
	m, err := NewManifest(testDefinition(), Spec{Index: 1, Count: 2}, env, time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	// Shard 1/2 of order (1,1) (0,2) (0,1) (1,2): positions 1 and 3.
	if want := []Run{{0, 2}, {1, 2}}; !slices.Equal(m.Runs, want) {
		t.Fatalf("runs %v, want %v", m.Runs, want)
	}
	m.Status = StatusComplete
	if err := m.Write(dir); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got.Sweep != m.Sweep || got.Shard != m.Shard || !slices.Equal(got.Runs, m.Runs) || got.Status != StatusComplete ||
		got.Environment.Hostname != "h1" || got.Definition.Experiment != "scripts/experiments/tiny.yaml" {
		t.Fatalf("read back %+v, wrote %+v", got, m)
	}
	if id, _ := got.Definition.Identity(); id != m.Sweep {
		t.Fatalf("read-back definition hashes to %s, want %s", id, m.Sweep)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("dir holds %d entries, want shard.json alone (no temporary left)", len(entries))
	}

	edit := func(f func(map[string]any)) error {
		b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]any
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		f(raw)
		b, _ = json.Marshal(raw)
		d2 := t.TempDir()
		if err := os.WriteFile(filepath.Join(d2, ManifestFile), b, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err = ReadManifest(d2)
		return err
	}
	// Rewritten with its keys sorted (as json.Marshal of a map, jq -S, ...):
	// the same definition, the same identity.
	if err := edit(func(map[string]any) {}); err != nil {
		t.Errorf("manifest rewritten with sorted keys: %v", err)
	}
	if err := edit(func(r map[string]any) { r["definition"].(map[string]any)["count"] = 3.0 }); err == nil || !strings.Contains(err.Error(), "does not match its definition") {
		t.Errorf("edited count: %v, want an identity mismatch", err)
	}
	if err := edit(func(r map[string]any) { r["runs"] = []any{map[string]any{"point": 0.0, "rep": 2.0}} }); err == nil || !strings.Contains(err.Error(), "not shard 1/2's share") {
		t.Errorf("wrong runs: %v, want a refusal of the share", err)
	}
	if err := edit(func(r map[string]any) { r["shard"] = map[string]any{"index": 2.0, "count": 2.0} }); err == nil || !strings.Contains(err.Error(), "i must be from 0 to 1") {
		t.Errorf("shard 2/2: %v", err)
	}
	if err := edit(func(r map[string]any) { r["version"] = 9.0 }); err == nil || !strings.Contains(err.Error(), "manifest version 9") {
		t.Errorf("version 9: %v", err)
	}
	if err := edit(func(r map[string]any) { r["status"] = "done" }); err == nil || !strings.Contains(err.Error(), `status "done"`) {
		t.Errorf("status done: %v", err)
	}
}

// TestFindAndWrite lays out two shard records on disk, finds them under a
// records directory, merges, and writes the merge.
func TestFindAndWrite(t *testing.T) {
	root := t.TempDir()
	def := testDefinition()
	values := map[Run]float64{{0, 1}: 90, {0, 2}: 100, {1, 1}: 100, {1, 2}: 110}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i := 0; i < 2; i++ {
		sp := Spec{Index: i, Count: 2}
		dir := filepath.Join(root, "host"+string(rune('a'+i)), "sweep-x-shard-"+sp.String()[:1])
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		m, err := NewManifest(def, sp, results.Environment{Hostname: "h", CPUModel: "c"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		m.Status = StatusComplete
		if err := m.Write(dir); err != nil {
			t.Fatal(err)
		}
		// Shard 0 runs 10 s from t0, shard 1 20 s from t0+5s: the merged
		// record spans t0 to t0+25s.
		sw := &results.Sweep{ID: "sweep-x", Count: def.Count, ShuffleSeed: def.Seed, Axes: def.Axes,
			StartedAt: t0.Add(time.Duration(i) * 5 * time.Second), Duration: time.Duration(10+10*i) * time.Second}
		for _, p := range def.Points {
			sw.Points = append(sw.Points, results.Point{Params: p.Params, Benchmark: p.Benchmark})
		}
		for k, r := range m.Runs {
			sw.Points[r.Point].Runs = append(sw.Points[r.Point].Runs, results.PointRun{Rep: r.Rep, Order: k + 1,
				Dir: "runs/run-" + def.Label(r), Metrics: []results.Metric{{Value: values[r], Unit: results.UnitMBps}}})
		}
		if err := sw.WriteJSON(dir); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Find([]string{t.TempDir()}); err == nil || !strings.Contains(err.Error(), "holds no shard record") {
		t.Fatalf("Find of an empty dir: %v", err)
	}
	ins, err := Find([]string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 2 {
		t.Fatalf("found %d shards, want 2", len(ins))
	}
	m, err := Merge(ins)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "merged")
	if _, err := m.Write(out); err != nil {
		t.Fatal(err)
	}
	var s Summary
	b, err := os.ReadFile(filepath.Join(out, MergeJSONFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Points) != 4 || len(s.Expected) != 4 || len(s.Missing) != 0 || len(s.Duplicated) != 0 || len(s.Classes) != 1 {
		t.Fatalf("summary %+v", s)
	}
	if !strings.Contains(string(b), `"missing": []`) {
		t.Errorf("merge.json: an empty list must be [], got\n%s", b)
	}
	sw, err := results.ReadSweep(filepath.Join(out, "class-1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sw.Points {
		for _, r := range p.Runs {
			// From out/class-1 to root/hostX/sweep-x-shard-N/runs/...
			if !strings.HasPrefix(r.Dir, "../../host") {
				t.Errorf("run dir %q: want it relative to the class record", r.Dir)
			}
		}
	}
	if !sw.StartedAt.Equal(t0) || sw.Duration != 25*time.Second {
		t.Errorf("merged record starts %v and takes %v, want %v and 25s", sw.StartedAt, sw.Duration, t0)
	}
	mb, _ := sw.Points[1].Summary(results.UnitMBps)
	if mb.N != 2 || mb.Median != 105 {
		t.Errorf("p=1 MB/s %+v, want n=2 median (100+110)/2 = 105", mb)
	}
	for _, f := range []string{"report.md", "report.html", "class-1/bench.txt", "class-1/summary.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	if _, err := Merge(nil); !errors.Is(err, ErrNoShards) {
		t.Errorf("Merge(nil): %v", err)
	}
}
