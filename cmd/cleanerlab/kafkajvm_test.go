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
	for _, c := range []struct{ name, valueBytes string }{
		{"100B", "100"},
		{"1KiB", "1024"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "in")
			if out, err := cli(t, "generate", "--dir", root, "--keys", "20000", "--value-bytes", c.valueBytes, "--log-bytes", "4MiB", "--tombstone-ratio", "0.1"); err != nil {
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
