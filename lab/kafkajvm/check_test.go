package kafkajvm

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCleanPartitionNeedsASegment: a directory named like a partition but
// holding no segment (*.log of a 20-digit base offset) is refused, as our
// own clean refuses it, before Kafka's UnifiedLog could create a segment
// in it; the directory is left as it was. No JVM is needed: the refusal
// comes first.
func TestCleanPartitionNeedsASegment(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "notes-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a log\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	libs := t.TempDir()
	if err := os.WriteFile(filepath.Join(libs, "kafka.jar"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	err := CleanPartition(context.Background(), io.Discard, dir, CleanOptions{Libs: libs})
	if err == nil || !strings.Contains(err.Error(), "holds no segment") || !strings.Contains(err.Error(), dir) {
		t.Fatalf("err %v, want one saying %s holds no segment", err, dir)
	}
	es, _ := os.ReadDir(dir)
	if len(es) != 1 || es[0].Name() != "notes.txt" {
		t.Errorf("directory changed: %v", es)
	}
}

// TestCleanLogDirNamesItsPartitions: a log directory (as generate writes:
// a root holding cleanerlab-0 and cleanerlab-1) is refused, before any
// JVM, saying it is a log directory and naming the partition directories
// to give instead; a new user was told only that "gen" is not named
// topic-partition.
func TestCleanLogDirNamesItsPartitions(t *testing.T) {
	root := filepath.Join(t.TempDir(), "gen")
	for _, p := range []string{"cleanerlab-0", "cleanerlab-1"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	err := CleanPartition(context.Background(), io.Discard, root, CleanOptions{Libs: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "is a log directory") ||
		!strings.Contains(err.Error(), filepath.Join(root, "cleanerlab-0")) || !strings.Contains(err.Error(), "2 partitions") {
		t.Fatalf("err %v, want it to say %s is a log directory of 2 partitions, naming %s", err, root, filepath.Join(root, "cleanerlab-0"))
	}
}
