package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
)

// tinySweepArgs is a sweep of 2 key counts x 2 hashers, 2 repetitions each:
// 8 runs of a 1 MiB log, a fraction of a second each.
func tinySweepArgs(out, data string) []string {
	return []string{"sweep", "--progress", "never", "--out", out, "--dir", data,
		"--keys", "2e4,30000", "--hasher", "md5,xxh3-128", "--log-bytes", "1MiB", "--segment.bytes", "128KiB",
		"--tombstone-ratio", "0.1", "--cache", "warm", "--count", "2", "--shuffle-seed", "7"}
}

// TestSweepEndToEnd runs a tiny sweep and checks every file it writes
// against the sweep's definition.
func TestSweepEndToEnd(t *testing.T) {
	out, data := t.TempDir(), t.TempDir()
	stdout, err := cli(t, tinySweepArgs(out, data)...)
	if err != nil {
		t.Fatalf("sweep: %v\n%s", err, stdout)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "sweep-*"))
	if len(dirs) != 1 {
		t.Fatalf("want one sweep directory in %s, got %v", out, dirs)
	}
	dir := dirs[0]
	if left, _ := os.ReadDir(data); len(left) != 0 {
		t.Errorf("data left under --dir: %v", left)
	}

	sw, err := results.ReadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sw.Axes) != 2 || sw.Axes[0].Name != "keys" || sw.Axes[1].Name != "hasher" || sw.Count != 2 || sw.ShuffleSeed != 7 {
		t.Fatalf("axes %+v count %d seed %d", sw.Axes, sw.Count, sw.ShuffleSeed)
	}
	if len(sw.Points) != 4 {
		t.Fatalf("%d points, want 4", len(sw.Points))
	}
	wantNames := map[string]bool{}
	for _, k := range []string{"20000", "30000"} {
		for _, h := range []string{"md5", "xxh3-128"} {
			wantNames["BenchmarkClean/keys="+k+"/dirty=0.5/hasher="+h+"/map=skimpy/cache=warm"] = true
		}
	}
	var orders []int
	for _, p := range sw.Points {
		if !wantNames[p.Benchmark] {
			t.Errorf("point %v has benchmark name %q", p.Params, p.Benchmark)
		}
		if len(p.Runs) != 2 {
			t.Fatalf("point %v: %d runs, want 2", p.Params, len(p.Runs))
		}
		for _, r := range p.Runs {
			orders = append(orders, r.Order)
			if r.Error != "" || r.Verified == nil || !*r.Verified {
				t.Errorf("point %v rep %d: error %q verified %v", p.Params, r.Rep, r.Error, r.Verified)
			}
			if _, err := results.ReadRun(filepath.Join(dir, r.Dir)); err != nil {
				t.Errorf("run record %s: %v", r.Dir, err)
			}
			if _, err := os.Stat(filepath.Join(dir, r.Dir, results.BenchTxtFile)); err != nil {
				t.Errorf("run %s has no bench.txt: %v", r.Dir, err)
			}
		}
		if s, ok := p.Summary(results.UnitMBps); !ok || s.N != 2 || s.Median <= 0 {
			t.Errorf("point %v: MB/s summary %+v", p.Params, s)
		}
	}
	sort.Ints(orders)
	if !slices.Equal(orders, []int{1, 2, 3, 4, 5, 6, 7, 8}) {
		t.Errorf("run orders %v, want each of 1..8 once", orders)
	}

	// bench.txt: 8 lines that benchstat's parser reads, with the
	// environment as file configuration.
	f, err := os.Open(filepath.Join(dir, results.BenchTxtFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := benchfmt.NewReader(f, "bench.txt")
	n := 0
	for r.Scan() {
		var res *benchfmt.Result
		switch rec := r.Result().(type) {
		case *benchfmt.UnitMetadata:
			continue
		case *benchfmt.Result:
			res = rec
		default:
			t.Fatalf("bench.txt: %v", rec)
		}
		n++
		if !wantNames["Benchmark"+res.Name.String()] || res.GetConfig("goos") == "" {
			t.Errorf("bench line %q, goos %q", res.Name, res.GetConfig("goos"))
		}
		if v, ok := res.Value("B/s"); !ok || v <= 0 {
			t.Errorf("bench line %q: MB/s %v %v", res.Name, v, ok)
		}
	}
	if n != 8 {
		t.Errorf("bench.txt: %d results, want 8", n)
	}

	// summary.csv: a row per point and unit.
	cf, _ := os.Open(filepath.Join(dir, results.SummaryCSVFile))
	rows, err := csv.NewReader(cf).ReadAll()
	cf.Close()
	if err != nil || len(rows) < 1+4*3 || rows[0][0] != "keys" || rows[0][1] != "hasher" {
		t.Errorf("summary.csv: %v %v", err, rows)
	}
	for _, name := range []string{"plots/throughput-vs-keys.png", "plots/throughput-vs-keys.svg", "report.md", "report.html", "runs.csv", "experiment.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("sweep wrote no %s: %v", name, err)
		}
	}
	if !strings.Contains(stdout, "keys=2e4 hasher=md5") || !strings.Contains(stdout, "sweep record: "+dir) {
		t.Errorf("sweep output:\n%s", stdout)
	}

	// experiment.yaml describes the same sweep.
	e, err := lab.LoadYAML(filepath.Join(dir, "experiment.yaml"), lab.LoadOptions{Param: lab.RunFlagSetter})
	if err != nil {
		t.Fatal(err)
	}
	if e.Experiment.Repetitions != 2 || *e.ShuffleSeed != 7 || len(e.Axes) != 2 || !slices.Equal(e.Axes[0].Values, []string{"2e4", "30000"}) ||
		e.Experiment.Workload.LogBytes != 1<<20 || e.Experiment.Log.SegmentBytes != 128<<10 || e.Experiment.Cache != lab.CacheWarm {
		t.Errorf("experiment.yaml reads back as %+v", e)
	}

	// report: the sweep, comparing the hashers as benchstat -col /hasher.
	rep := t.TempDir()
	stdout, err = cli(t, "report", "--out", rep, "--col", "hasher", dir)
	if err != nil {
		t.Fatalf("report: %v\n%s", err, stdout)
	}
	md, _ := os.ReadFile(filepath.Join(rep, "report.md"))
	for _, want := range []string{"## Comparison (benchstat statistics)", "hasher=md5", "hasher=xxh3-128", "`BenchmarkClean/keys=20000/dirty=0.5/map=skimpy/cache=warm`",
		"(plots/" + sw.ID + "/throughput-vs-keys.png)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if !strings.Contains(stdout, "keys=20000/dirty=0.5/map=skimpy/cache=warm") || !strings.Contains(stdout, "n=2") {
		t.Errorf("report output:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(rep, "plots", sw.ID, "throughput-vs-keys.svg")); err != nil {
		t.Error(err)
	}

	// report of two run directories: a two-column comparison.
	a, b := filepath.Join(dir, sw.Points[0].Runs[0].Dir), filepath.Join(dir, sw.Points[0].Runs[1].Dir)
	stdout, err = cli(t, "report", "--out", t.TempDir(), a, b)
	if err != nil || !strings.Contains(stdout, filepath.Base(a)) || !strings.Contains(stdout, filepath.Base(b)) || !strings.Contains(stdout, "n=1") {
		t.Errorf("report of two runs: %v\n%s", err, stdout)
	}
}

// TestSweepPlan: the cross product, the base values, the shuffled order
// (each run once; the same seed, the same order), and early errors.
func TestSweepPlan(t *testing.T) {
	plan := func(args ...string) (*lab.SweepPlan, error) {
		cmd, sf := sweepCommand()
		if err := cmd.ParseFlags(args); err != nil {
			t.Fatal(err)
		}
		return planSweep(cmd, sf)
	}
	p, err := plan("--keys", "2e4,3e4,4e4", "--hasher", "md5,sha1", "--log-bytes", "1MiB", "--count", "3", "--value-bytes", "50")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Points) != 6 || p.Count != 3 {
		t.Fatalf("%d points, count %d", len(p.Points), p.Count)
	}
	// First axis slowest: keys=2e4 with md5, then sha1, ...
	pt := p.Points[1]
	if lab.PointLabel(pt.Params) != "keys=2e4 hasher=sha1" || pt.Experiment.Workload.Keys != 20000 ||
		pt.Experiment.Cleaner.Hasher != "sha1" || pt.Experiment.Workload.ValueBytes != 50 || pt.Experiment.Workload.LogBytes != 1<<20 {
		t.Errorf("point 1: %s %+v", lab.PointLabel(pt.Params), pt.Experiment.Workload)
	}
	s1, s2 := p.Schedule(), p.Schedule()
	if !slices.Equal(s1, s2) {
		t.Error("the same seed gave two orders")
	}
	seen := map[lab.Scheduled]bool{}
	for _, s := range s1 {
		seen[s] = true
	}
	if len(seen) != 18 || len(s1) != 18 {
		t.Errorf("schedule of %d runs has %d distinct, want 18", len(s1), len(seen))
	}
	p.Seed++
	if slices.Equal(p.Schedule(), s1) {
		t.Error("another seed gave the same order")
	}

	// The command line wins over the file: --keys fixes what the file
	// sweeps, --count replaces its count; the file's other axis stays.
	f := writeYAML(t, "e.yaml", "repetitions: 5\nworkload:\n  LogBytes: 1MiB\nsweep:\n  workload.Keys: [2e4, 3e4]\n  cleaner.Hasher: [md5, sha1]\n")
	p, err = plan("--experiment", f, "--keys", "4e4", "--count", "2")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Axes) != 1 || p.Axes[0].Name != "cleaner.Hasher" || p.Count != 2 || len(p.Points) != 2 || p.Points[0].Experiment.Workload.Keys != 40000 {
		t.Errorf("file + flags: axes %+v count %d points %d", p.Axes, p.Count, len(p.Points))
	}
	p, err = plan("--experiment", f)
	if err != nil || p.Count != 5 || len(p.Points) != 4 {
		t.Errorf("file alone: %v, count %d, %d points", err, p.Count, len(p.Points))
	}
	// A point that is no valid experiment is kept, with its error: the
	// sweep records its runs as failed and goes on.
	p, err = plan("--keys", "10,2e4", "--log-bytes", "1MiB")
	if err != nil || len(p.Points) != 2 || p.Points[0].Err == nil || !strings.Contains(p.Points[0].Err.Error(), "point keys=10: workloads: dirty ratio 0.5 is unreachable") || p.Points[1].Err != nil {
		t.Errorf("invalid point: %v %+v", err, p)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--keys", "2e4,abc", "--log-bytes", "1MiB"}, `keys: "abc" is not a valid value: "abc" is not a whole number`},
		{[]string{"--keys", "2e4,2e4", "--log-bytes", "1MiB"}, `lists "2e4" twice`},
		{[]string{"--hasher", "md5,nope", "--log-bytes", "1MiB", "--keys", "2e4"}, `hasher: "nope" is not a valid value`},
		{[]string{"--count", "0"}, "count 0 must be at least 1"},
	} {
		if _, err := plan(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// TestSweepDryRun prints the order without running anything.
func TestSweepDryRun(t *testing.T) {
	out := t.TempDir()
	stdout, err := cli(t, "sweep", "--dry-run", "--out", out, "--keys", "2e4,3e4", "--log-bytes", "1MiB", "--count", "2")
	if err != nil || !strings.HasPrefix(stdout, "2 points x 2 repetitions = 4 runs\n") || strings.Count(stdout, "BenchmarkClean/keys=") != 4 {
		t.Errorf("dry run: %v\n%s", err, stdout)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("dry run wrote %v", left)
	}
}

// TestSweepFailedVerificationExit: a sweep whose runs cannot be cleaned
// goes on, records the failures, and exits with an error.
func TestSweepFailedRuns(t *testing.T) {
	out := t.TempDir()
	var buf bytes.Buffer
	root := newRootCmd()
	root.SetOut(&buf)
	root.SetErr(&buf)
	root.SetArgs([]string{"sweep", "--progress", "never", "--out", out, "--keys", "2e4,3e4", "--log-bytes", "1MiB",
		"--segment.bytes", "256KiB", "--min.compaction.lag.ms", "999999999999", "--count", "1"})
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "2 of 2 runs failed") {
		t.Fatalf("sweep of uncleanable logs: %v\n%s", err, buf.String())
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "sweep-*"))
	if len(dirs) != 1 {
		t.Fatalf("sweep directories %v", dirs)
	}
	sw, err := results.ReadSweep(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := sw.Failures(); e != 2 || !strings.Contains(sw.Points[0].Runs[0].Error, "was not cleaned") {
		t.Errorf("failures %d, first error %q", e, sw.Points[0].Runs[0].Error)
	}
}

// TestSweepLayers: sweep resolves its base as run does (run's defaults <
// --server-config < --experiment < flags of one value), and a point that
// validation refuses names where its value at fault was given.
func TestSweepLayers(t *testing.T) {
	server := writeYAML(t, "server.properties", "log.cleaner.dedupe.buffer.size=2097152\nlog.cleaner.threads=2\n")
	file := writeYAML(t, "f.yaml", "workload:\n  Keys: 2e4\n  LogBytes: 1MiB\ncleaner:\n  Threads: 3\n")
	cmd, sf := sweepCommand()
	if err := cmd.ParseFlags([]string{"--server-config", server, "--experiment", file, "--keys", "0,3e4", "--hasher", "sha1"}); err != nil {
		t.Fatal(err)
	}
	p, err := planSweep(cmd, sf)
	if err != nil {
		t.Fatal(err)
	}
	c := p.Base.Cleaner
	if c.DedupeBufferBytes != 2<<20 || c.Threads != 3 || c.Hasher != "sha1" || p.Base.Workload.LogBytes != 1<<20 {
		t.Errorf("base cleaner %+v, log bytes %d: want dedupe 2 MiB (server.properties), 3 threads (file), sha1 (flag)", c, p.Base.Workload.LogBytes)
	}
	if len(p.Points) != 2 || p.Points[0].Err == nil || !strings.Contains(p.Points[0].Err.Error(), "point keys=0: --keys: ") || p.Points[1].Err != nil {
		t.Errorf("points: %+v", p.Points)
	}
}

// TestSweepOfNoValidPointIsRefused: sweep --keys 10,20 of 1 MiB at a dirty
// ratio of 0.5 (each key written once cannot fill the clean half) is refused
// before anything runs, naming both points and why; nothing is made.
func TestSweepOfNoValidPointIsRefused(t *testing.T) {
	out := t.TempDir()
	_, err := cli(t, "sweep", "--progress", "never", "--out", out, "--keys", "10,20", "--log-bytes", "1MiB", "--dirty-ratio", "0.5", "--count", "2")
	if err == nil || !strings.Contains(err.Error(), "no point of the sweep is a valid experiment") ||
		!strings.Contains(err.Error(), "point keys=10: ") || !strings.Contains(err.Error(), "point keys=20: ") || !strings.Contains(err.Error(), "unreachable") {
		t.Errorf("sweep of no valid point: %v, want it refused naming keys=10 and keys=20", err)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("the refused sweep made %v", left)
	}
}

// TestSweepDryRunOfNoValidPointIsRefused: a dry run of the sweep above
// lists its schedule (each point marked invalid) and then gives the same
// refusal as the sweep, so it exits non-zero; nothing is made.
func TestSweepDryRunOfNoValidPointIsRefused(t *testing.T) {
	out := t.TempDir()
	args := []string{"sweep", "--progress", "never", "--out", out, "--keys", "10,20", "--log-bytes", "1MiB", "--dirty-ratio", "0.5", "--count", "2"}
	_, want := cli(t, args...)
	stdout, err := cli(t, append(args, "--dry-run")...)
	if want == nil || err == nil || err.Error() != want.Error() {
		t.Errorf("dry run: %v\nwant the sweep's refusal: %v", err, want)
	}
	if !strings.Contains(stdout, "(invalid: point keys=10: ") || !strings.Contains(stdout, "(invalid: point keys=20: ") {
		t.Errorf("dry run's schedule %q: want both points marked invalid", stdout)
	}
	if left, _ := os.ReadDir(out); len(left) != 0 {
		t.Errorf("the dry run made %v", left)
	}
}
