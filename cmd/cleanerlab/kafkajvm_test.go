package main

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
)

// TestCompareKafka cleans copies of a generated partition with Kafka's own
// cleaner (through our driver, in a JVM) and with the Kafka profile, at
// ~100-byte and 1 KiB values with tombstones (Compare fixes one now for
// both, so both stamp the same delete horizons) and the cleaned-index rule
// of the Kafka version found, and wants every segment file byte-identical. It needs a JVM and Kafka's classes
// (CLEANERLAB_KAFKA_LIBS: a Kafka installation's libs/, or what
// scripts/build-kafka-classes.sh built): without them it skips, saying so.
func TestCompareKafka(t *testing.T) {
	libs := os.Getenv("CLEANERLAB_KAFKA_LIBS")
	if _, err := exec.LookPath("java"); err != nil || libs == "" {
		t.Skip("needs java and Kafka's classes: set CLEANERLAB_KAFKA_LIBS (scripts/build-kafka-classes.sh)")
	}
	if _, err := os.Stat(libs); err != nil {
		t.Skipf("CLEANERLAB_KAFKA_LIBS=%s: %v", libs, err)
	}
	for _, c := range []struct{ name, valueBytes, codec, perBatch string }{
		{"100B", "100", "none", "16"},
		{"1KiB", "1024", "none", "16"},
		// Rebuilt batches of ~100 KiB of records: lz4 frames of two 64 KiB
		// blocks, which must be Kafka's byte for byte.
		{"lz4-1KiB", "1024", "lz4", "100"},
		// Rebuilt batches of 16 ~100-byte records: xerial streams of one
		// short snappy block, where libsnappy's hash (which the lab's
		// compressor follows) picks other matches than golang/snappy's.
		{"snappy-100B", "100", "snappy", "16"},
		// gzip members around zlib's level 6 deflate; batches of ~100 KiB
		// of records slide the 64 KiB window.
		{"gzip-100B", "100", "gzip", "16"},
		{"gzip-1KiB", "1024", "gzip", "100"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "in")
			if out, err := cli(t, "generate", "--dir", root, "--keys", "20000", "--value-bytes", c.valueBytes, "--log-bytes", "4MiB", "--tombstone-ratio", "0.1",
				"--compression", c.codec, "--records-per-batch", c.perBatch); err != nil {
				t.Fatalf("generate: %v\n%s", err, out)
			}
			out, err := cli(t, "clean", "--dir", filepath.Join(root, "cleanerlab-0"), "--compare-kafka", "--kafka-libs", libs,
				"--rounds", "1", "--kafka-warmup", "0", "--segment.bytes", "1MiB")
			if err != nil {
				t.Fatalf("clean --compare-kafka: %v\n%s", err, out)
			}
			m := regexp.MustCompile(`(\d+) of (\d+) segment files identical`).FindStringSubmatch(out)
			if m == nil || m[1] != m[2] || m[2] == "0" || !strings.Contains(out, "Kafka's Cleaner wall") {
				t.Errorf("comparison: %v\n%s", m, out)
			}
		})
	}
}

// TestRunKafkaJVM runs the main job with Kafka's own cleaner cleaning the
// generated partition (`run --profile kafka-jvm`): the lab's verification
// against the workload's ground truth must pass on Kafka's output, and the
// record must carry doClean's own rows and the cleaner=kafka-jvm name part.
// It needs a JVM and Kafka's classes: without them it skips, saying so.
func TestRunKafkaJVM(t *testing.T) {
	libs := os.Getenv("CLEANERLAB_KAFKA_LIBS")
	if _, err := exec.LookPath("java"); err != nil || libs == "" {
		t.Skip("needs java and Kafka's classes: set CLEANERLAB_KAFKA_LIBS (scripts/build-kafka-classes.sh)")
	}
	records := t.TempDir()
	out, err := cli(t, "run", "--profile", "kafka-jvm", "--kafka-libs", libs, "--kafka-warmup", "0",
		"--keys", "20000", "--log-bytes", "4MiB", "--segment.bytes", "1MiB", "--dir", t.TempDir(), "--out", records, "--progress", "never")
	if err != nil {
		t.Fatalf("run --profile kafka-jvm: %v\n%s", err, out)
	}
	for _, want := range []string{"verification PASSED", "Kafka cleaner thread CPU", "cleaned by profile kafka-jvm"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Every row of the table has its name in the 28-character column.
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "  Kafka ") && (len(l) < 31 || l[30] != ' ') {
			t.Errorf("row out of its column: %q", l)
		}
	}
	// The benchmark line's cores are its cpu-ns/op over its ns/op: CPU
	// and wall time over the same span, doClean.
	bench, err := filepath.Glob(filepath.Join(records, "*", "bench.txt"))
	if err != nil || len(bench) != 1 {
		t.Fatalf("bench.txt: %v %v", bench, err)
	}
	b, err := os.ReadFile(bench[0])
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(` ([0-9.]+) ns/op .* ([0-9.]+) cpu-ns/op ([0-9.]+) cores`).FindStringSubmatch(string(b))
	if m == nil {
		t.Fatalf("no ns/op, cpu-ns/op, cores in\n%s", b)
	}
	ns, _ := strconv.ParseFloat(m[1], 64)
	cpu, _ := strconv.ParseFloat(m[2], 64)
	cores, _ := strconv.ParseFloat(m[3], 64)
	if ns <= 0 || math.Abs(cores-cpu/ns) > 0.001 {
		t.Errorf("bench.txt: %v ns/op, %v cpu-ns/op, %v cores: cores is not cpu/wall (%.4f)", ns, cpu, cores, cpu/ns)
	}
	if _, err := cli(t, "run", "--profile", "kafka-jvm", "--kafka-libs", libs, "--partitions", "2", "--log-bytes", "4MiB", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--partitions 1") {
		t.Errorf("two partitions: %v, want an error naming --partitions 1", err)
	}
}

// fakeKafkaLibs is a --kafka-libs that Classpath accepts (a *.jar): the
// refusals below come before any JVM is started.
func fakeKafkaLibs(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	if err := os.WriteFile(filepath.Join(d, "kafka.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

// emptyDir fails t when dir holds anything: nothing was generated.
func emptyDir(t *testing.T, dir string) {
	t.Helper()
	if es, _ := os.ReadDir(dir); len(es) != 0 {
		t.Errorf("%s is not empty: %v", dir, es)
	}
}

// nothingGenerated fails t when run's output says it generated a workload.
func nothingGenerated(t *testing.T, out string) {
	t.Helper()
	if strings.Contains(out, "generating") {
		t.Errorf("the workload was generated before the refusal:\n%s", out)
	}
}

// TestRunKafkaJVMRefusesOurSettings: Kafka's cleaner hashes with MD5 into
// its skimpy map and reads and writes its own way, so a setting of our
// cleaner alone given with --profile kafka-jvm is refused, naming its flag,
// before anything is generated (the record would otherwise claim it).
func TestRunKafkaJVMRefusesOurSettings(t *testing.T) {
	libs := fakeKafkaLibs(t)
	for _, c := range [][]string{
		{"--hasher", "xxh3-128"}, {"--offset-map", "bucket16"}, {"--key-scan"}, {"--io", "mmap"}, {"--parallel-copy"},
		// Given before --profile, which then overrides it: still refused.
		{"--hasher", "md5"},
	} {
		t.Run(c[0], func(t *testing.T) {
			data, out := t.TempDir(), t.TempDir()
			args := append([]string{"run"}, c...)
			args = append(args, "--profile", "kafka-jvm", "--kafka-libs", libs, "--log-bytes", "1MiB", "--dir", data, "--out", out, "--progress", "never")
			got, err := cli(t, args...)
			if err == nil || !strings.Contains(err.Error(), c[0]) || !strings.Contains(err.Error(), "kafka-jvm") {
				t.Fatalf("err %v, want a refusal naming %s and kafka-jvm", err, c[0])
			}
			nothingGenerated(t, got)
			emptyDir(t, data)
			emptyDir(t, out)
		})
	}
}

// TestRunKafkaJVMChecksUpFront: a --kafka-libs that does not exist or holds
// no classes, and a --dir with a blank (the driver's protocol takes none),
// are refused naming the flag before anything is generated.
func TestRunKafkaJVMChecksUpFront(t *testing.T) {
	libs := fakeKafkaLibs(t)
	blank := filepath.Join(t.TempDir(), "a b")
	if err := os.Mkdir(blank, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, libs, dir, want string
	}{
		{"libs missing", filepath.Join(t.TempDir(), "nope"), t.TempDir(), "--kafka-libs"},
		{"libs empty", t.TempDir(), t.TempDir(), "--kafka-libs"},
		{"dir with a blank", libs, blank, "--dir"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			got, err := cli(t, "run", "--profile", "kafka-jvm", "--kafka-libs", c.libs, "--log-bytes", "1MiB", "--dir", c.dir, "--out", out, "--progress", "never")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want one naming %s", err, c.want)
			}
			nothingGenerated(t, got)
			emptyDir(t, c.dir)
			emptyDir(t, out)
		})
	}
}

// TestKafkaJVMNegativeCounts: --kafka-warmup and --rounds count cleans: a
// negative one is refused, naming the flag (run: before anything is
// generated).
func TestKafkaJVMNegativeCounts(t *testing.T) {
	libs := fakeKafkaLibs(t)
	got, err := cli(t, "run", "--profile", "kafka-jvm", "--kafka-libs", libs, "--kafka-warmup", "-1", "--log-bytes", "1MiB", "--dir", t.TempDir(), "--out", t.TempDir(), "--progress", "never")
	if err == nil || !strings.Contains(err.Error(), "--kafka-warmup") {
		t.Errorf("run --kafka-warmup -1: %v, want an error naming --kafka-warmup", err)
	}
	nothingGenerated(t, got)
	part := filepath.Join(t.TempDir(), "t-0")
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{"--compare-kafka", "--rounds", "-3"},
		{"--compare-kafka", "--kafka-warmup", "-2"},
		{"--profile", "kafka-jvm", "--kafka-warmup", "-2"},
	} {
		args := append([]string{"clean", "--dir", part, "--kafka-libs", libs}, c...)
		flag := c[len(c)-2]
		if _, err := cli(t, args...); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("clean %v: %v, want an error naming %s", c, err, flag)
		}
	}
}

// TestRunFromKafkaJVMRecord: --from a record of a run cleaned by Kafka's
// own cleaner (cleaned_by kafka-jvm) reruns it with Kafka's cleaner, so it
// needs --kafka-libs; without it the rerun is refused, naming the flag,
// before anything is generated (it never falls back to our cleaner).
func TestRunFromKafkaJVMRecord(t *testing.T) {
	t.Setenv("CLEANERLAB_KAFKA_LIBS", "")
	e := lab.DefaultExperiment()
	e.CleanedBy = lab.CleanedByKafkaJVM
	cfg, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	rec := filepath.Join(t.TempDir(), "run.json")
	if err := os.WriteFile(rec, []byte(`{"schema_version": 1, "config": `+string(cfg)+`}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := cli(t, "run", "--from", rec, "--dir", t.TempDir(), "--out", t.TempDir(), "--progress", "never")
	if err == nil || !strings.Contains(err.Error(), "--kafka-libs") {
		t.Fatalf("run --from a kafka-jvm record: %v, want an error naming --kafka-libs\n%s", err, got)
	}
	nothingGenerated(t, got)
}

// TestCompareKafkaNothingToClean: --compare-kafka on a partition with
// nothing to clean says so of the user's --dir, not of a copy that is gone
// by then. It needs a JVM and Kafka's classes: without them it skips.
func TestCompareKafkaNothingToClean(t *testing.T) {
	libs := os.Getenv("CLEANERLAB_KAFKA_LIBS")
	if _, err := exec.LookPath("java"); err != nil || libs == "" {
		t.Skip("needs java and Kafka's classes: set CLEANERLAB_KAFKA_LIBS (scripts/build-kafka-classes.sh)")
	}
	root := filepath.Join(t.TempDir(), "in")
	if out, err := cli(t, "generate", "--dir", root, "--keys", "20000", "--log-bytes", "1MiB", "--segment.bytes", "128KiB"); err != nil {
		t.Fatalf("generate: %v\n%s", err, out)
	}
	part := filepath.Join(root, "cleanerlab-0")
	if out, err := cli(t, "clean", "--dir", part, "--force"); err != nil {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	_, err := cli(t, "clean", "--dir", part, "--compare-kafka", "--kafka-libs", libs, "--kafka-warmup", "0")
	if err == nil || !strings.Contains(err.Error(), part) || !strings.Contains(err.Error(), "nothing to clean") || strings.Contains(err.Error(), "cleanerlab-compare") {
		t.Errorf("err %v, want one saying %s has nothing to clean", err, part)
	}
}

// TestKafkaJVMRefusalQuotesTheValueTyped: a setting of our cleaner given
// before --profile kafka-jvm is refused (TestRunKafkaJVMRefusesOurSettings),
// and the refusal quotes the value typed, xxh3-128, not md5, the value the
// profile then set (which the profile warning names as the profile's).
func TestKafkaJVMRefusalQuotesTheValueTyped(t *testing.T) {
	libs := fakeKafkaLibs(t)
	const want, wrong = "--hasher xxh3-128 is a setting of cleanerlab's own cleaner", "--hasher md5 is"
	t.Run("run", func(t *testing.T) {
		data, out := t.TempDir(), t.TempDir()
		_, err := cli(t, "run", "--hasher", "xxh3-128", "--profile", "kafka-jvm", "--kafka-libs", libs, "--log-bytes", "1MiB", "--dir", data, "--out", out, "--progress", "never")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), wrong) {
			t.Fatalf("err %v, want one saying %q", err, want)
		}
	})
	t.Run("clean", func(t *testing.T) {
		_, err := cli(t, "clean", "--hasher", "xxh3-128", "--profile", "kafka-jvm", "--kafka-libs", libs, "--dir", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), wrong) {
			t.Fatalf("err %v, want one saying %q", err, want)
		}
	})
}
