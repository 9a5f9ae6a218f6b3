package lab

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportColKeepsTheWorkloadInTheNames: report --col profile over two
// files whose runs differ in their workload (keys 50000 against 99999,
// dirty ratio 0.5 against 0.9) as well as in their profile must not pair
// them as one benchmark: keys and dirty stay in the row names, and only
// the hasher and map, which each profile chose, leave them.
func TestReportColKeepsTheWorkloadInTheNames(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	b := filepath.Join(dir, "b.txt")
	if err := os.WriteFile(a, []byte("BenchmarkClean/keys=50000/dirty=0.5/hasher=xxh3-128/map=bucket16/cache=cold/profile=best 1 100 ns/op 10 MB/s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte("BenchmarkClean/keys=99999/dirty=0.9/hasher=md5/map=skimpy/cache=cold/profile=kafka 1 200 ns/op 5 MB/s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Report(&out, []string{a, b}, filepath.Join(dir, "report"), "profile"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "--col profile: hasher, map left out") {
		t.Errorf("report said %q; want hasher, map (only) left out", out.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "BenchmarkClean/keys=50000/dirty=0.5/cache=cold") || !strings.Contains(string(md), "BenchmarkClean/keys=99999/dirty=0.9/cache=cold") {
		t.Errorf("the two workloads share a row:\n%s", md)
	}
}
