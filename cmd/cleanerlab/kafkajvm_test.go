package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
	out, err := cli(t, "run", "--profile", "kafka-jvm", "--kafka-libs", libs, "--kafka-warmup", "0",
		"--keys", "20000", "--log-bytes", "4MiB", "--segment.bytes", "1MiB", "--dir", t.TempDir(), "--out", t.TempDir(), "--progress", "never")
	if err != nil {
		t.Fatalf("run --profile kafka-jvm: %v\n%s", err, out)
	}
	for _, want := range []string{"verification PASSED", "Kafka doClean CPU time", "cleaned by profile kafka-jvm"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := cli(t, "run", "--profile", "kafka-jvm", "--kafka-libs", libs, "--partitions", "2", "--log-bytes", "4MiB", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--partitions 1") {
		t.Errorf("two partitions: %v, want an error naming --partitions 1", err)
	}
}
