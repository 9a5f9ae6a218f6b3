package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
)

// sweepPlanOf is the plan of sweep's args (no run).
func sweepPlanOf(t *testing.T, args ...string) (*lab.SweepPlan, error) {
	t.Helper()
	cmd, sf := sweepCommand()
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return planSweep(cmd, sf)
}

// pointOf is the point of plan whose label is label.
func pointOf(t *testing.T, p *lab.SweepPlan, label string) lab.SweepPoint {
	t.Helper()
	for _, pt := range p.Points {
		if lab.PointLabel(pt.Params) == label {
			return pt
		}
	}
	t.Fatalf("no point %q", label)
	return lab.SweepPoint{}
}

// TestSweepKafkaJVMPlan: kafka-jvm is a value of sweep's --profile axis
// (it was refused as an unknown engine profile before): its points are
// cleaned by Kafka's own cleaner (cleaned_by kafka-jvm) with the kafka
// profile's settings on our side (MD5, the skimpy map, as
// run --profile kafka-jvm), named cleaner=kafka-jvm as run names them;
// what Kafka's cleaner cannot do (two partitions; a hasher other than its
// MD5) makes that point invalid, naming the flag, while the same values
// stay valid for our profiles. No JVM is needed: nothing runs.
func TestSweepKafkaJVMPlan(t *testing.T) {
	p, err := sweepPlanOf(t, "--profile", "kafka,best,kafka-jvm", "--partitions", "1,2", "--hasher", "md5,xxh3-128",
		"--keys", "2e4", "--log-bytes", "1MiB", "--count", "1")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Points) != 12 {
		t.Fatalf("%d points, want 3 x 2 x 2", len(p.Points))
	}
	jvm := pointOf(t, p, "profile=kafka-jvm partitions=1 hasher=md5")
	if jvm.Err != nil {
		t.Fatalf("kafka-jvm, 1 partition, md5: %v", jvm.Err)
	}
	if c := jvm.Experiment; c.CleanedBy != "kafka-jvm" || c.Cleaner.Hasher != "md5" || c.Cleaner.OffsetMap != "skimpy" {
		t.Errorf("kafka-jvm point: cleaned_by %q hasher %q map %q, want kafka-jvm md5 skimpy", c.CleanedBy, c.Cleaner.Hasher, c.Cleaner.OffsetMap)
	}
	if !strings.HasSuffix(jvm.Name, "/profile=kafka-jvm/partitions=1/cleaner=kafka-jvm") {
		t.Errorf("kafka-jvm point's name %s lacks cleaner=kafka-jvm", jvm.Name)
	}
	for _, c := range []struct{ label, want string }{
		{"profile=kafka-jvm partitions=2 hasher=md5", "--partitions 1"},
		{"profile=kafka-jvm partitions=1 hasher=xxh3-128", "--hasher xxh3-128"},
	} {
		if pt := pointOf(t, p, c.label); pt.Err == nil || !strings.Contains(pt.Err.Error(), c.want) || !strings.Contains(pt.Err.Error(), "kafka-jvm") {
			t.Errorf("%s: %v, want an error naming %s and kafka-jvm", c.label, pt.Err, c.want)
		}
	}
	for _, label := range []string{"profile=kafka partitions=2 hasher=xxh3-128", "profile=best partitions=2 hasher=md5"} {
		pt := pointOf(t, p, label)
		if pt.Err != nil || pt.Experiment.CleanedBy != "" || strings.Contains(pt.Name, "cleaner=") {
			t.Errorf("%s: err %v, cleaned_by %q, name %s: want our cleaner's valid point", label, pt.Err, pt.Experiment.CleanedBy, pt.Name)
		}
	}
}

// TestSweepKafkaJVMExperimentFile: an experiment file's profile: axis takes
// kafka-jvm too, and a fixed --profile kafka-jvm makes every point Kafka's.
func TestSweepKafkaJVMExperimentFile(t *testing.T) {
	file := writeYAML(t, "f.yaml", "workload:\n  Keys: 2e4\n  LogBytes: 1MiB\nsweep:\n  profile: [kafka, kafka-jvm]\n")
	p, err := sweepPlanOf(t, "--experiment", file)
	if err != nil {
		t.Fatal(err)
	}
	if pt := pointOf(t, p, "profile=kafka-jvm"); pt.Err != nil || pt.Experiment.CleanedBy != "kafka-jvm" {
		t.Errorf("file's kafka-jvm point: %v, cleaned_by %q", pt.Err, pt.Experiment.CleanedBy)
	}
	if pt := pointOf(t, p, "profile=kafka"); pt.Err != nil || pt.Experiment.CleanedBy != "" {
		t.Errorf("file's kafka point: %v, cleaned_by %q", pt.Err, pt.Experiment.CleanedBy)
	}
	p, err = sweepPlanOf(t, "--profile", "kafka-jvm", "--keys", "2e4,3e4", "--log-bytes", "1MiB")
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range p.Points {
		if pt.Err != nil || pt.Experiment.CleanedBy != "kafka-jvm" || !strings.HasSuffix(pt.Name, "/cleaner=kafka-jvm") {
			t.Errorf("point %s: %v, cleaned_by %q", pt.Name, pt.Err, pt.Experiment.CleanedBy)
		}
	}
}

// TestSweepKafkaJVMRefusals: a sweep with a kafka-jvm point and no usable
// --kafka-libs (none given and $CLEANERLAB_KAFKA_LIBS empty; a directory
// that does not exist; one with no classes) is refused before anything
// runs or is made, naming --kafka-libs and the directory; so is a sweep
// whose only kafka-jvm point is invalid (two partitions), naming it. A
// dry run lists the points without libs.
func TestSweepKafkaJVMRefusals(t *testing.T) {
	t.Setenv("CLEANERLAB_KAFKA_LIBS", "")
	missing, empty := filepath.Join(t.TempDir(), "nope"), t.TempDir()
	for _, c := range []struct {
		name  string
		libs  []string
		wants []string
	}{
		{"none", nil, []string{"--kafka-libs", "CLEANERLAB_KAFKA_LIBS"}},
		{"missing", []string{"--kafka-libs", missing}, []string{"--kafka-libs", missing}},
		{"no classes", []string{"--kafka-libs", empty}, []string{"--kafka-libs", empty, "no classes"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, data := filepath.Join(t.TempDir(), "runs"), t.TempDir()
			args := append([]string{"sweep", "--profile", "kafka,kafka-jvm", "--keys", "2e4", "--log-bytes", "1MiB", "--count", "1",
				"--out", out, "--dir", data, "--progress", "never"}, c.libs...)
			got, err := cli(t, args...)
			if err == nil {
				t.Fatalf("ran without usable libs:\n%s", got)
			}
			for _, w := range c.wants {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			if _, serr := os.Stat(out); !os.IsNotExist(serr) {
				t.Errorf("the refused sweep made %s", out)
			}
			emptyDir(t, data)
		})
	}
	out := filepath.Join(t.TempDir(), "runs")
	_, err := cli(t, "sweep", "--profile", "kafka-jvm", "--partitions", "2", "--keys", "2e4", "--log-bytes", "1MiB", "--count", "1",
		"--kafka-libs", fakeKafkaLibs(t), "--out", out, "--progress", "never")
	if err == nil || !strings.Contains(err.Error(), "no point of the sweep is a valid experiment") || !strings.Contains(err.Error(), "--partitions 1") {
		t.Errorf("kafka-jvm of 2 partitions: %v, want a refusal naming --partitions 1", err)
	}
	if _, serr := os.Stat(out); !os.IsNotExist(serr) {
		t.Errorf("the refused sweep made %s", out)
	}
	stdout, err := cli(t, "sweep", "--dry-run", "--profile", "kafka,best,kafka-jvm", "--keys", "2e4", "--log-bytes", "1MiB", "--count", "1")
	if err != nil || !strings.HasPrefix(stdout, "3 points x 1 repetitions = 3 runs\n") ||
		!strings.Contains(stdout, "/profile=kafka-jvm/cleaner=kafka-jvm  (rep 1)\n") || !strings.Contains(stdout, "/profile=best  (rep 1)\n") {
		t.Errorf("dry run: %v\n%s", err, stdout)
	}
}

// TestSweepKafkaJVM runs a sweep of the kafka and kafka-jvm profiles end
// to end: both verify against the workload's ground truth, the kafka-jvm
// run is recorded as run --profile kafka-jvm records it (cleaned_by,
// Kafka's rows, the cleaner=kafka-jvm name) and the sweep's bench.txt and
// summary name each profile. It needs a JVM and Kafka's classes: without
// them it skips, saying so.
func TestSweepKafkaJVM(t *testing.T) {
	libs := os.Getenv("CLEANERLAB_KAFKA_LIBS")
	if _, err := exec.LookPath("java"); err != nil || libs == "" {
		t.Skip("needs java and Kafka's classes: set CLEANERLAB_KAFKA_LIBS (scripts/build-kafka-classes.sh)")
	}
	records := t.TempDir()
	out, err := cli(t, "sweep", "--profile", "kafka,kafka-jvm", "--kafka-warmup", "0", "--count", "1",
		"--keys", "20000", "--log-bytes", "4MiB", "--segment.bytes", "1MiB", "--dir", t.TempDir(), "--out", records, "--progress", "never")
	if err != nil {
		t.Fatalf("sweep --profile kafka,kafka-jvm: %v\n%s", err, out)
	}
	for _, want := range []string{"sweep: 2 points x 1 repetitions = 2 runs", "profile=kafka-jvm", "profile=kafka "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	dirs, err := filepath.Glob(filepath.Join(records, "sweep-*"))
	if err != nil || len(dirs) != 1 {
		t.Fatalf("sweep dirs: %v %v", dirs, err)
	}
	bench, err := os.ReadFile(filepath.Join(dirs[0], "bench.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(bench), "/profile=kafka-jvm/cleaner=kafka-jvm 1 ") || !strings.Contains(string(bench), "/profile=kafka 1 ") {
		t.Errorf("bench.txt lacks a line of each profile:\n%s", bench)
	}
	runs, err := filepath.Glob(filepath.Join(dirs[0], "runs", "*", "run.json"))
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs: %v %v", runs, err)
	}
	byCleaner := map[string]int{}
	for _, r := range runs {
		b, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		var rec struct {
			Config       lab.Experiment `json:"config"`
			Verification *struct {
				Passed bool `json:"passed"`
			} `json:"verification"`
		}
		if err := json.Unmarshal(b, &rec); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
		byCleaner[rec.Config.CleanedBy]++
		if rec.Verification == nil || !rec.Verification.Passed {
			t.Errorf("%s (cleaned_by %q): verification did not pass", r, rec.Config.CleanedBy)
		}
		report, err := os.ReadFile(filepath.Join(filepath.Dir(r), "report.md"))
		if err != nil {
			t.Fatal(err)
		}
		kafkaRows := strings.Contains(string(report), "Kafka cleaner thread CPU") && strings.Contains(string(report), "cleaned by profile kafka-jvm")
		if kafkaRows != (rec.Config.CleanedBy == "kafka-jvm") {
			t.Errorf("%s (cleaned_by %q): Kafka's rows present: %v", r, rec.Config.CleanedBy, kafkaRows)
		}
	}
	if byCleaner["kafka-jvm"] != 1 || byCleaner[""] != 1 {
		t.Errorf("runs by cleaner: %v, want one kafka-jvm, one ours", byCleaner)
	}
}
