package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsKRaftPlanExample runs the KRaft plan example of docs/sizing.md
// from the repository alone (the fixture in testdata/kafka-real, the inputs
// in docs/examples/kraft-plan) and compares its output, line by line, with
// the block the page shows, the data directory's path aside: the page must
// stay true.
func TestDocsKRaftPlanExample(t *testing.T) {
	needFixtures(t)
	readme, err := os.ReadFile("../../docs/sizing.md")
	if err != nil {
		t.Fatal(err)
	}
	const cmdLine = "$ cleanerlab plan --dir kafka-data --server-config server.properties --topic-config topics.txt --no-calibration --now-ms 1733097600000\n"
	i := strings.Index(string(readme), cmdLine)
	if i < 0 {
		t.Fatal("docs/sizing.md lacks the KRaft plan example")
	}
	block := string(readme)[i+len(cmdLine):]
	block = block[:strings.Index(block, "```")]

	dir := filepath.Join(t.TempDir(), "kafka-data")
	src := filepath.Join(fixtures, "cp-kraft-ksql-txn")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			copyDir(t, filepath.Join(src, e.Name()), filepath.Join(dir, e.Name()))
		}
	}
	// plan names its inputs as given: run it from their directory.
	ex, err := filepath.Abs("../../docs/examples/kraft-plan")
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := os.Chdir(ex); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	out, err := cli(t, "plan", "--dir", dir, "--server-config", "server.properties", "--topic-config", "topics.txt", "--no-calibration", "--now-ms", "1733097600000")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := strings.ReplaceAll(out, dir, "kafka-data")
	if got != block {
		t.Errorf("docs/sizing.md's KRaft plan example differs from a run from the repository:\n--- docs/sizing.md\n%s--- run\n%s", block, got)
	}
}
