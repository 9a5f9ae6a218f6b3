package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyRoot copies every partition directory of the fixture log directory
// root name (one level of files each) into a new temporary root.
func copyRoot(t *testing.T, name string) string {
	t.Helper()
	needFixtures(t)
	src := filepath.Join(fixtures, name)
	dst := t.TempDir()
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			copyDir(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
		}
	}
	return dst
}

// The ksql command topic of cp-kraft-ksql-txn is created by ksqlDB with
// cleanup.policy=delete, and the root's KRaft metadata log says so
// (a ConfigRecord): Kafka's cleaner never compacts it. The root clean
// printed "6 partitions" and cleaned 5 without naming the sixth.
func TestCleanRootNamesPartitionNotCompacted(t *testing.T) {
	root := copyRoot(t, "cp-kraft-ksql-txn")
	out, _ := cli(t, "clean", "--dir", root, "--force", "--roll")
	for _, tp := range []string{"__consumer_offsets-29", "__consumer_offsets-37", "__transaction_state-44", "_schemas-0", "docker-connect-configs-0"} {
		if !strings.Contains(out, tp+": cleaned [0, ") {
			t.Errorf("%s not cleaned:\n%s", tp, out)
		}
	}
	want := "_confluent-ksql-default__command_topic-0: not cleaned: cleanup.policy=delete (cluster-metadata): never compacted"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}

// Without the metadata log nothing says the ksql topic's policy: it is
// assumed compact, and its 2 records [0, 2) are cleaned.
func TestCleanRootWithoutMetadataCleansKsql(t *testing.T) {
	root := copyRoot(t, "cp-kraft-ksql-txn")
	if err := os.RemoveAll(filepath.Join(root, "__cluster_metadata-0")); err != nil {
		t.Fatal(err)
	}
	out, err := cli(t, "clean", "--dir", root, "--force", "--roll")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "_confluent-ksql-default__command_topic-0: cleaned [0, 2), checkpoint 2") {
		t.Errorf("ksql partition not cleaned [0, 2):\n%s", out)
	}
}

// __cluster_metadata-0 of cp-kraft-ksql-txn holds only a snapshot
// (.checkpoint) and checkpoint files: Kafka loads it as an empty log and
// its cleaner never touches the metadata log, so a root clean skips it,
// says why, and exits 0; its files are left byte for byte.
func TestCleanRootSkipsPartitionWithoutSegment(t *testing.T) {
	root := copyRoot(t, "cp-kraft-ksql-txn")
	meta := filepath.Join(root, "__cluster_metadata-0")
	before := hashTree(t, meta)
	out, err := cli(t, "clean", "--dir", root, "--force", "--roll")
	if err != nil {
		t.Fatalf("clean of the root failed: %v\n%s", err, out)
	}
	want := "__cluster_metadata-0: skipped: no segment file (*.log): an empty partition, as Kafka loads it; nothing to clean"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	after := hashTree(t, meta)
	if len(after) != len(before) {
		t.Errorf("%s: %d files before, %d after", meta, len(before), len(after))
	}
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed", p)
		}
	}
}

// pinterest-multisegment holds timeindex_test/, four segments in a
// directory not named topic-partition: every command on the root names it.
func TestRootCommandsNameSkippedSegmentDir(t *testing.T) {
	needFixtures(t)
	const want = "timeindex_test: skipped: holds segment files (*.log) but is not named topic-partition, so Kafka's LogManager does not load it"
	src := filepath.Join(fixtures, "pinterest-multisegment")
	for _, args := range [][]string{
		{"verify", "--dir", src},
		{"dump", "--dir", src},
		{"plan", "--dir", src},
		{"clean", "--dir", copyRoot(t, "pinterest-multisegment"), "--force", "--roll"},
	} {
		out, err := cli(t, args...)
		if err != nil {
			t.Errorf("%v: %v", args, err)
		}
		if !strings.Contains(out, want) {
			t.Errorf("%v: output lacks %q:\n%.2000s", args[0], want, out)
		}
	}
}

// clean --dir of a path that does not exist says so, naming it.
func TestCleanMissingDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nonexist")
	_, err := cli(t, "clean", "--dir", dir)
	if err == nil {
		t.Fatal("clean of a missing directory: no error")
	}
	msg := err.Error()
	if !strings.Contains(msg, dir+": no such directory") || strings.Contains(msg, "not named topic-partition") {
		t.Errorf("error %q: want %q and nothing about its name", msg, dir+": no such directory")
	}
}
