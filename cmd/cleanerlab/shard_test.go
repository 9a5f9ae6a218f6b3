package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/results"
)

// childCLI runs the test binary as `cleanerlab args...` in a process of its
// own (TestMain's childEnv).
func childCLI(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	return cmd
}

// runShards runs shards of the tiny sweep as separate processes at once,
// each writing under out.
func runShards(t *testing.T, out, data string, n int, which ...int) {
	t.Helper()
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for _, i := range which {
		args := append(tinySweepArgs(out, data), "--shard", fmt.Sprintf("%d/%d", i, n))
		cmd := childCLI(args...)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &b)
	}
	for k, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d/%d: %v\n%s", which[k], n, err, outs[k])
		}
	}
}

// mergeJSON is what report --merge --format json prints (the fields the
// tests read).
type mergeJSON struct {
	Points        []string `json:"points"`
	Expected      []string `json:"expected"`
	Missing       []string `json:"missing"`
	Duplicated    []string `json:"duplicated"`
	MissingShards []string `json:"missing_shards"`
	Superseded    []string `json:"superseded"`
	Failed        []struct {
		Run string `json:"run"`
	} `json:"failed"`
	Shards []struct {
		Shard  string `json:"shard"`
		Status string `json:"status"`
	} `json:"shards"`
	Classes []struct {
		Record string `json:"record"`
	} `json:"classes"`
}

func merge(t *testing.T, out string, dirs ...string) mergeJSON {
	t.Helper()
	stdout, err := cli(t, append([]string{"report", "--merge", "--format", "json", "--out", out}, dirs...)...)
	if err != nil {
		t.Fatalf("report --merge: %v\n%s", err, stdout)
	}
	var m mergeJSON
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("report --merge --format json: %v\n%s", err, stdout)
	}
	return m
}

// sweepRuns lists a sweep record's completed runs as the merge labels them
// ("keys=2e4 hasher=md5 rep=1"), and its benchmark names, one per run.
func sweepRuns(t *testing.T, dir string) (runs, names []string) {
	t.Helper()
	sw, err := results.ReadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range sw.Points {
		var label string
		for _, kv := range p.Params {
			label += kv.Key + "=" + kv.Value + " "
		}
		for _, r := range p.Runs {
			if r.Error != "" || len(r.Metrics) == 0 {
				t.Fatalf("%s: run %s rep %d did not complete: %s", dir, label, r.Rep, r.Error)
			}
			runs = append(runs, fmt.Sprintf("%srep=%d", label, r.Rep))
			names = append(names, p.Benchmark)
		}
	}
	sort.Strings(runs)
	sort.Strings(names)
	return runs, names
}

// TestShardedSweepMatchesUnsharded runs the tiny sweep whole, then as N =
// 1, 2 and 3 shards in separate processes, and checks that each merge has
// exactly the runs of the whole sweep, none missing or duplicated, with
// the same benchmark lines.
func TestShardedSweepMatchesUnsharded(t *testing.T) {
	base := t.TempDir()
	data := t.TempDir()
	whole := filepath.Join(base, "whole")
	if stdout, err := cli(t, tinySweepArgs(whole, data)...); err != nil {
		t.Fatalf("sweep: %v\n%s", err, stdout)
	}
	dirs, _ := filepath.Glob(filepath.Join(whole, "sweep-*"))
	if len(dirs) != 1 {
		t.Fatalf("whole sweep: %v", dirs)
	}
	wantRuns, wantNames := sweepRuns(t, dirs[0])
	if len(wantRuns) != 8 {
		t.Fatalf("the whole sweep has %d runs, want 2 keys x 2 hashers x 2 reps = 8", len(wantRuns))
	}
	for n := 1; n <= 3; n++ {
		out := filepath.Join(base, fmt.Sprintf("n%d", n))
		all := make([]int, n)
		for i := range all {
			all[i] = i
		}
		runShards(t, out, data, n, all...)
		shardDirs, _ := filepath.Glob(filepath.Join(out, "sweep-*"))
		if len(shardDirs) != n {
			t.Fatalf("N=%d: %d shard directories under %s, want %d", n, len(shardDirs), out, n)
		}
		m := merge(t, filepath.Join(base, fmt.Sprintf("merged%d", n)), out)
		got := slices.Clone(m.Points)
		sort.Strings(got)
		if !slices.Equal(got, wantRuns) {
			t.Errorf("N=%d: merged runs\n%q\nwant the whole sweep's\n%q", n, got, wantRuns)
		}
		exp := slices.Clone(m.Expected)
		sort.Strings(exp)
		if !slices.Equal(exp, wantRuns) || len(m.Missing) != 0 || len(m.Duplicated) != 0 || len(m.MissingShards) != 0 {
			t.Errorf("N=%d: expected %q missing %q duplicated %q missing shards %q", n, exp, m.Missing, m.Duplicated, m.MissingShards)
		}
		if len(m.Shards) != n || len(m.Classes) != 1 {
			t.Fatalf("N=%d: %d shards, %d host classes; want %d and 1 (one machine)", n, len(m.Shards), len(m.Classes), n)
		}
		_, names := sweepRuns(t, filepath.Join(base, fmt.Sprintf("merged%d", n), m.Classes[0].Record))
		if !slices.Equal(names, wantNames) {
			t.Errorf("N=%d: merged benchmark names %q, want %q", n, names, wantNames)
		}
	}
}

// TestShardMissingAndRerun: a shard that never reports and a shard killed
// mid-way leave their runs missing, the merge still renders and names the
// shards; re-running just those fills the gaps.
func TestShardMissingAndRerun(t *testing.T) {
	base, data := t.TempDir(), t.TempDir()
	out := filepath.Join(base, "records")
	runShards(t, out, data, 3, 0)

	// Shard 1/3 is killed as soon as its manifest is written; 2/3 never runs.
	args := append(tinySweepArgs(out, data), "--shard", "1/3")
	killed := childCLI(args...)
	var b bytes.Buffer
	killed.Stdout, killed.Stderr = &b, &b
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "shard 1/3's shard.json", func() bool {
		m, _ := filepath.Glob(filepath.Join(out, "*-shard-1-of-3", "shard.json"))
		return len(m) == 1
	})
	killed.Process.Kill()
	killed.Wait()

	// Which runs shards 1/3 and 2/3 own, by the CLI's dry run.
	owned := func(i int) []string {
		stdout, err := cli(t, append(tinySweepArgs(out, data), "--shard", fmt.Sprintf("%d/3", i), "--dry-run")...)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, line := range strings.Split(stdout, "\n") {
			if f := strings.Fields(line); len(f) == 4 && strings.HasPrefix(f[1], "Benchmark") {
				names = append(names, f[1]+" "+f[2]+" "+f[3])
			}
		}
		return names
	}
	own1, own2 := owned(1), owned(2)
	if len(own1)+len(own2) == 0 || len(own1)+len(own2) > 6 {
		t.Fatalf("shards 1/3 and 2/3 own %d and %d runs of 8", len(own1), len(own2))
	}

	mergedDir := filepath.Join(base, "merged")
	m := merge(t, mergedDir, out)
	if len(m.Expected) != 8 || len(m.Missing) < len(own2) || len(m.Missing) > len(own1)+len(own2) || len(m.Points)+len(m.Missing) != 8 {
		t.Fatalf("expected %d, reported %d, missing %d %q; shards 1/3 and 2/3 own %d+%d runs", len(m.Expected), len(m.Points), len(m.Missing), m.Missing, len(own1), len(own2))
	}
	if !slices.Contains(m.MissingShards, "2/3") {
		t.Errorf("missing shards %q: want 2/3 (never ran)", m.MissingShards)
	}
	if len(m.Missing) > len(own2) && !slices.Contains(m.MissingShards, "1/3") {
		t.Errorf("missing shards %q: want 1/3 too (killed before its last run)", m.MissingShards)
	}
	if _, err := os.Stat(filepath.Join(mergedDir, "report.md")); err != nil {
		t.Errorf("the merge with gaps did not render: %v", err)
	}
	text, err := cli(t, "report", "--merge", "--out", filepath.Join(base, "merged-text"), out)
	if err != nil || !strings.Contains(text, "missing shards: ") || !strings.Contains(text, "2/3") {
		t.Errorf("report --merge (text): %v\n%s", err, text)
	}

	// Re-run only the shards it names.
	var rerun []int
	for _, s := range m.MissingShards {
		var i, n int
		if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || n != 3 {
			t.Fatalf("missing shard %q", s)
		}
		rerun = append(rerun, i)
	}
	runShards(t, out, data, 3, rerun...)
	m = merge(t, filepath.Join(base, "merged-again"), out)
	if len(m.Points) != 8 || len(m.Missing) != 0 || len(m.Duplicated) != 0 || len(m.MissingShards) != 0 {
		t.Fatalf("after the re-run: %d reported, missing %q, duplicated %q, missing shards %q", len(m.Points), m.Missing, m.Duplicated, m.MissingShards)
	}
	if !slices.Contains(rerun, 1) {
		return // shard 1/3 had finished before it was killed
	}
	if len(m.Superseded) != 1 || !strings.Contains(m.Superseded[0], "-shard-1-of-3") {
		t.Errorf("superseded %q: want the killed shard 1/3's record; shards %+v; rerun %v", m.Superseded, m.Shards, rerun)
	}
}

// TestMergeRefusals: a shard of another sweep, and a complete shard given
// twice, are refused with errors naming the directories; bad --shard and
// --format values are refused naming the flag.
func TestMergeRefusals(t *testing.T) {
	base, data := t.TempDir(), t.TempDir()
	one := func(out, shard string, extra ...string) string {
		args := []string{"sweep", "--progress", "never", "--out", out, "--dir", data, "--keys", "2e4", "--log-bytes", "1MiB",
			"--segment.bytes", "128KiB", "--cache", "warm", "--count", "2", "--shard", shard}
		stdout, err := cli(t, append(args, extra...)...)
		if err != nil {
			t.Fatalf("sweep --shard %s: %v\n%s", shard, err, stdout)
		}
		d, _ := filepath.Glob(filepath.Join(out, "sweep-*"))
		if len(d) != 1 {
			t.Fatalf("%s: %v", out, d)
		}
		return d[0]
	}
	a := one(filepath.Join(base, "a"), "0/2")
	foreign := one(filepath.Join(base, "foreign"), "1/2", "--hasher", "xxh3-128")
	_, err := cli(t, "report", "--merge", "--out", filepath.Join(base, "m1"), a, foreign)
	if err == nil || !strings.Contains(err.Error(), "shard of another sweep") || !strings.Contains(err.Error(), foreign) {
		t.Errorf("merge with a foreign shard: %v", err)
	}
	twice := filepath.Join(base, "copy", filepath.Base(a))
	copyDir(t, a, twice)
	_, err = cli(t, "report", "--merge", "--out", filepath.Join(base, "m2"), a, twice)
	if err == nil || !strings.Contains(err.Error(), "shard given twice") || !strings.Contains(err.Error(), twice) {
		t.Errorf("merge with a shard twice: %v", err)
	}
	// Shard 1/2 of a's sweep on "another machine" (its manifest's CPU
	// model changed; the environment is not part of the sweep's identity):
	// two host classes, each its own record, compared side by side.
	b := one(filepath.Join(base, "b"), "1/2")
	mf := filepath.Join(b, "shard.json")
	raw, err := os.ReadFile(mf)
	if err != nil {
		t.Fatal(err)
	}
	// Rewritten as another tool would: keys sorted, numbers as written.
	var man map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&man); err != nil {
		t.Fatal(err)
	}
	man["environment"].(map[string]any)["cpu_model"] = "Other CPU 9000"
	raw, _ = json.Marshal(man)
	if err := os.WriteFile(mf, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	text, err := cli(t, "report", "--merge", "--out", filepath.Join(base, "m4"), a, b)
	if err != nil || !strings.Contains(text, "class 2") || !strings.Contains(text, "cpu Other CPU 9000") || !strings.Contains(text, "host classes side by side") {
		t.Errorf("merge of two host classes: %v\n%s", err, text)
	}
	m := merge(t, filepath.Join(base, "m5"), a, b)
	if len(m.Classes) != 2 || len(m.Points) != 2 || len(m.Missing) != 0 {
		t.Errorf("two host classes: %d classes, points %q, missing %q", len(m.Classes), m.Points, m.Missing)
	}
	for k, c := range m.Classes {
		sw, err := results.ReadSweep(filepath.Join(base, "m5", c.Record))
		if err != nil {
			t.Fatal(err)
		}
		if n := len(sw.Benchmarks()); n != 1 {
			t.Errorf("class %d's record holds %d runs, want its own shard's 1", k+1, n)
		}
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--keys", "2e4", "--log-bytes", "1MiB", "--shard", "2/2", "--dry-run"}, "i must be from 0 to 1"},
		{[]string{"sweep", "--keys", "2e4", "--log-bytes", "1MiB", "--shard", "two", "--dry-run"}, "want i/N"},
		{[]string{"report", "--merge", "--format", "yaml", a}, `--format "yaml": want text or json`},
		{[]string{"report", "--format", "json", a}, "--format json is for --merge"},
		{[]string{"report", "--merge", "--out", filepath.Join(base, "m3"), data}, "holds no shard record"},
	} {
		if _, err := cli(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want an error with %q", c.args, err, c.want)
		}
	}
}

// waitUntil polls cond every 10 ms for up to 60 s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
