// Package scripts_test runs the shell scripts of scripts/ at a tiny scale:
// their --help, their refusals, and one real run of each.
package scripts_test

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// scripts are the scripts under test, relative to this directory.
var scripts = []string{"sweep.sh", "compare-commits.sh", "baseline.sh", "sweep-parallel.sh"}

// run runs a script (or any command) in dir with extra environment, and
// returns its combined output and exit code.
func run(t *testing.T, dir string, env []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	return "", -1
}

func needBash(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
}

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

// binaries builds cleanerlab and benchstat (pinned in go.mod as a tool)
// once for all tests.
func binaries(t *testing.T) (cleanerlab, benchstat string) {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "cleanerlab-scripts-test-")
		if buildErr != nil {
			return
		}
		for _, pkg := range []string{"./cmd/cleanerlab", "golang.org/x/perf/cmd/benchstat"} {
			cmd := exec.Command("go", "build", "-o", binDir+"/", pkg)
			cmd.Dir = ".."
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = errors.New(string(out))
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatalf("build: %v", buildErr)
	}
	return filepath.Join(binDir, "cleanerlab"), filepath.Join(binDir, "benchstat")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// TestHelpAndRefusals: every script has --help, is strict bash, and stops
// with status 2 and a message on an unknown argument.
func TestHelpAndRefusals(t *testing.T) {
	needBash(t)
	for _, s := range scripts {
		body, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(body), "set -euo pipefail") {
			t.Errorf("%s does not set -euo pipefail", s)
		}
		out, code := run(t, ".", nil, "./"+s, "--help")
		if code != 0 || !strings.HasPrefix(out, "Usage: scripts/"+s) {
			t.Errorf("%s --help: status %d\n%s", s, code, out)
		}
		out, code = run(t, ".", nil, "./"+s, "--no-such-flag")
		if code != 2 || !strings.Contains(out, s+": unknown") {
			t.Errorf("%s --no-such-flag: status %d\n%s", s, code, out)
		}
	}
	out, code := run(t, ".", nil, "./compare-commits.sh", "HEAD")
	if code != 2 || !strings.Contains(out, "want two commits A and B, got 1") {
		t.Errorf("compare-commits.sh with one commit: status %d\n%s", code, out)
	}
	out, code = run(t, ".", nil, "./sweep.sh", "--scale", "huge", "--bin", "/bin/true")
	if code != 2 || !strings.Contains(out, "want tiny, small or full") {
		t.Errorf("sweep.sh --scale huge: status %d\n%s", code, out)
	}
}

// TestSweepScriptTiny runs sweep.sh at its tiny scale: one sweep of 4
// points and its report.
func TestSweepScriptTiny(t *testing.T) {
	needBash(t)
	bin, _ := binaries(t)
	out := t.TempDir()
	log, code := run(t, ".", nil, "./sweep.sh", "--scale", "tiny", "--bin", bin, "--out", out, "--count", "1", "--dir", t.TempDir())
	if code != 0 {
		t.Fatalf("sweep.sh: status %d\n%s", code, log)
	}
	sweeps, _ := filepath.Glob(filepath.Join(out, "sweep-*", "bench.txt"))
	reports, _ := filepath.Glob(filepath.Join(out, "report-*", "report.md"))
	if len(sweeps) != 1 || len(reports) != 1 {
		t.Fatalf("sweeps %v, reports %v\n%s", sweeps, reports, log)
	}
	b, _ := os.ReadFile(sweeps[0])
	if n := strings.Count(string(b), "\nBenchmarkClean/"); n != 4 {
		t.Errorf("bench.txt holds %d lines, want 4 (2 keys x 2 hashers x 1)", n)
	}
}

// TestCompareCommitsScript builds a throwaway repository with two commits
// of a module holding one benchmark, and compares them: benchstat's table,
// both commits as columns, and no worktree left behind.
func TestCompareCommitsScript(t *testing.T) {
	needBash(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	cleanerlab, benchstat := binaries(t)
	repo := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		if out, code := run(t, repo, nil, "git", append([]string{"-c", "user.email=t@example.com", "-c", "user.name=t"}, args...)...); code != 0 {
			t.Fatalf("git %v: %s", args, out)
		}
	}
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "--quiet")
	write("go.mod", "module example.com/tiny\n\ngo 1.22\n")
	bench := `package tiny

import "testing"

func work(n int) int {
	s := 0
	for i := range n {
		s += i % 7
	}
	return s
}

func BenchmarkWork(b *testing.B) {
	for range b.N {
		work(NNN)
	}
	b.ReportMetric(1, "things/op")
}
`
	write("tiny_test.go", strings.Replace(bench, "NNN", "1000", 1))
	git("add", ".")
	git("commit", "--quiet", "-m", "one")
	write("tiny_test.go", strings.Replace(bench, "NNN", "3000", 1))
	git("commit", "--quiet", "-am", "two")

	script, _ := filepath.Abs("compare-commits.sh")
	results := t.TempDir()
	env := []string{"BENCHSTAT=" + benchstat, "CLEANERLAB=" + cleanerlab}
	// Limits no machine reaches: every round is quiet, whatever the load.
	never := "busy-other-cores=1000,unusable-other-cores=1000,busy-steal=100,unusable-steal=100,busy-memory-full=100,unusable-memory-full=100,busy-other-disk-mibps=1e9,unusable-other-disk-mibps=1e9"
	out, code := run(t, repo, env, script,
		"--pkg", ".", "--bench", "Work", "--count", "3", "--benchtime", "100x", "--out", results, "--thresholds", never, "HEAD~1", "HEAD")
	if code != 0 {
		t.Fatalf("compare-commits.sh: status %d\n%s", code, out)
	}
	if strings.Count(out, "compare-commits.sh: round ") < 6 || !strings.Contains(out, "(HEAD~1): interference: ") || strings.Contains(out, "NOT calling") {
		t.Errorf("want an interference line per round and side, and a difference called:\n%s", out)
	}
	for _, want := range []string{"HEAD_1.txt", "HEAD.txt", "sec/op", "Work", "things/op", "round 1/3 (seed 1)", "round 3/3 (seed 1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Three rounds of -count 1, in shuffled orders: both orders appear
	// with seed 1 (each round's order is printed), so neither commit
	// always ran second.
	if !strings.Contains(out, ": a b, go test") || !strings.Contains(out, ": b a, go test") {
		t.Errorf("rounds not interleaved both ways with seed 1:\n%s", out)
	}
	for _, f := range []string{"HEAD_1.txt", "HEAD.txt"} {
		b, err := os.ReadFile(filepath.Join(results, f))
		if err != nil || strings.Count(string(b), "BenchmarkWork") != 3 {
			t.Errorf("%s: %v\n%s", f, err, b)
		}
	}
	// A cleanerlab whose interference verdict is always busy (it runs the
	// command as the real one does): the table is printed, the difference
	// is not called, exit 3; with --retry-busy 1 each round is run twice
	// and the first kept apart.
	fake := filepath.Join(t.TempDir(), "cleanerlab")
	if err := os.WriteFile(fake, []byte(`#!/usr/bin/env bash
while [[ $1 != -- ]]; do shift; done
shift
"$@"; rc=$?
echo "interference: busy (other processes' CPU 0.90 cores >= 0.25 cores (busy)); test" >&2
exit $rc
`), 0o755); err != nil {
		t.Fatal(err)
	}
	busyOut := t.TempDir()
	busy, code := run(t, repo, []string{"BENCHSTAT=" + benchstat, "CLEANERLAB=" + fake}, script,
		"--pkg", ".", "--bench", "Work", "--count", "2", "--benchtime", "10x", "--out", busyOut, "--retry-busy", "1", "HEAD~1", "HEAD")
	if code != 3 || !strings.Contains(busy, "NOT calling a difference: 4 round(s)") || !strings.Contains(busy, "sec/op") ||
		strings.Count(busy, "running it again (1 of --retry-busy 1)") != 4 {
		t.Errorf("busy rounds: status %d\n%s", code, busy)
	}
	for _, f := range []string{"HEAD_1", "HEAD"} {
		kept, err1 := os.ReadFile(filepath.Join(busyOut, f+".txt"))
		apart, err2 := os.ReadFile(filepath.Join(busyOut, f+".busy.txt"))
		if err1 != nil || err2 != nil || strings.Count(string(kept), "BenchmarkWork") != 2 || strings.Count(string(apart), "BenchmarkWork") != 2 {
			t.Errorf("%s: kept %v %q, apart %v %q", f, err1, kept, err2, apart)
		}
	}
	if _, code := run(t, repo, env, script, "--thresholds", "busy-x=1", "HEAD~1", "HEAD"); code != 2 {
		t.Errorf("bad --thresholds: status %d, want 2", code)
	}
	if _, code := run(t, repo, env, script, "--retry-busy", "-1", "HEAD~1", "HEAD"); code != 2 {
		t.Errorf("bad --retry-busy: status %d, want 2", code)
	}
	list, _ := run(t, repo, nil, "git", "worktree", "list")
	if n := strings.Count(strings.TrimSpace(list), "\n") + 1; n != 1 {
		t.Errorf("worktrees left behind:\n%s", list)
	}
	out, code = run(t, repo, []string{"BENCHSTAT=" + benchstat}, script, "HEAD", "no-such-commit")
	if code == 0 || !strings.Contains(out, "no-such-commit") {
		t.Errorf("a commit that does not exist: status %d\n%s", code, out)
	}
}

// TestBaselineScript measures a tiny baseline (4 MiB file, 1 run).
func TestBaselineScript(t *testing.T) {
	needBash(t)
	data := t.TempDir()
	// Skip only where the probe finds no O_DIRECT, and never under CI=true.
	if err := iosched.ProbeDirectIO(data); err != nil {
		if errors.Is(err, iosched.ErrDirectUnsupported) && os.Getenv("CI") != "true" {
			t.Skipf("the file system of %s has no O_DIRECT (probed): %v", data, err)
		}
		t.Fatalf("O_DIRECT probe of %s: %v", data, err)
	}
	bin, _ := binaries(t)
	out := t.TempDir()
	log, code := run(t, ".", nil, "./baseline.sh", "--bin", bin, "--dir", data, "--out", out,
		"--", "--file-bytes", "4MiB", "--runs", "1", "--mem-bytes", "4MiB", "--drop-caches=false")
	if code != 0 {
		t.Fatalf("baseline.sh: status %d\n%s", code, log)
	}
	files, _ := filepath.Glob(filepath.Join(out, "baseline-*.json"))
	if len(files) != 1 || !strings.Contains(log, "device sequential read") {
		t.Errorf("baseline files %v\n%s", files, log)
	}
}

// TestSweepParallelScript runs sweep-parallel.sh with GNU parallel and the
// local login ":": first shards 0 and 2 of 3, which leaves shard 1/3
// missing (status 1, the merge written and naming it), then only 1/3,
// which fills the gap. Without GNU parallel it skips, but fails under
// CI=true (.ci/run installs it).
func TestSweepParallelScript(t *testing.T) {
	needBash(t)
	if out, err := exec.Command("parallel", "--version").Output(); err != nil || !strings.Contains(string(out), "GNU parallel") {
		if os.Getenv("CI") == "true" {
			t.Fatalf("GNU parallel is not installed (CI=true; .ci/run installs it with apt-get install parallel): %v", err)
		}
		t.Skipf("no GNU parallel (apt-get install parallel): %v", err)
	}
	bin, _ := binaries(t)
	dir := t.TempDir()
	logins := filepath.Join(dir, "logins")
	if err := os.WriteFile(logins, []byte("# this machine\n:\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	args := []string{"--sshloginfile", logins, "--experiment", "experiments/tiny.yaml", "--shards", "3", "--out", out, "--bin", bin, "--dir", t.TempDir()}
	type summary struct {
		Points, Expected, Missing, Duplicated, MissingShards []string
		Shards                                               []struct{ Shard, Status string }
	}
	read := func() summary {
		b, err := os.ReadFile(filepath.Join(out, "merged", "merge.json"))
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]json.RawMessage
		var s summary
		if err := json.Unmarshal(b, &raw); err != nil {
			t.Fatal(err)
		}
		for key, into := range map[string]any{"points": &s.Points, "expected": &s.Expected, "missing": &s.Missing,
			"duplicated": &s.Duplicated, "missing_shards": &s.MissingShards, "shards": &s.Shards} {
			if err := json.Unmarshal(raw[key], into); err != nil {
				t.Fatalf("merge.json %s: %v", key, err)
			}
		}
		return s
	}

	log, code := run(t, ".", nil, "./sweep-parallel.sh", append(args, "--only", "0,2")...)
	if code != 1 || !strings.Contains(log, "missing shards: 1/3") || !strings.Contains(log, "--only 1 ") {
		t.Fatalf("shards 0,2 of 3: status %d, want 1 naming shard 1/3 and --only 1\n%s", code, log)
	}
	s := read()
	// tiny.yaml: 2 key counts x 2 hashers x count 2 = 8 runs; shard 1/3
	// owns positions 1, 4 and 7 of the order.
	if len(s.Expected) != 8 || len(s.Missing) != 3 || len(s.Points) != 5 || !slices.Equal(s.MissingShards, []string{"1/3"}) || len(s.Shards) != 2 {
		t.Fatalf("after shards 0,2: expected %d, points %d, missing %q, missing shards %q, %d shards", len(s.Expected), len(s.Points), s.Missing, s.MissingShards, len(s.Shards))
	}

	// "1,01" names shard 1 twice: it runs once (two complete records of one
	// shard would make the merge refuse them both).
	log, code = run(t, ".", nil, "./sweep-parallel.sh", append(args, "--only", "1,01")...)
	if code != 0 || !strings.Contains(log, "8 of 8 runs reported") || !strings.Contains(log, "shards 1 of 3") {
		t.Fatalf("shard 1 of 3 (--only 1,01): status %d\n%s", code, log)
	}
	s = read()
	if len(s.Points) != 8 || len(s.Missing) != 0 || len(s.Duplicated) != 0 || len(s.MissingShards) != 0 || len(s.Shards) != 3 {
		t.Fatalf("after the re-run: points %d, missing %q, duplicated %q, missing shards %q, %d shards", len(s.Points), s.Missing, s.Duplicated, s.MissingShards, len(s.Shards))
	}
	for _, sh := range s.Shards {
		if sh.Status != "complete" {
			t.Errorf("shard %s: status %s", sh.Shard, sh.Status)
		}
	}
	bench, err := os.ReadFile(filepath.Join(out, "merged", "class-1", "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(bench), "\nBenchmarkClean/"); n != 8 {
		t.Errorf("merged bench.txt has %d benchmark lines, want 8\n%s", n, bench)
	}
	if _, code := run(t, ".", nil, "./sweep-parallel.sh", append(args, "--only", "3")...); code != 2 {
		t.Errorf("--only 3 of 3 shards: status %d, want 2", code)
	}
}
