package truthfile

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/workloads"
)

func generate(t *testing.T) (string, string, *workloads.Result) {
	t.Helper()
	root := filepath.Join(t.TempDir(), "data")
	spec := workloads.DefaultSpec()
	spec.Keys, spec.LogBytes, spec.Partitions, spec.TombstoneRatio = 8000, 1<<20, 2, 0.1
	res, err := workloads.Generate(root, spec, engine.DefaultLogConfig(), nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "truth.txt")
	if err := Write(path, res); err != nil {
		t.Fatal(err)
	}
	return root, path, res
}

// TestVerifyGenerated: the generated log matches its own truth; written
// keys and tombstones are those the generator's ground truth counts.
func TestVerifyGenerated(t *testing.T) {
	root, path, res := generate(t)
	rep, err := Verify(root, path)
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(rep.Problems, "\n"))
	}
	var written, tombs int64
	for _, tr := range res.Truth {
		w, tb := tr.WrittenKeys()
		written += w
		tombs += tb
	}
	if int64(rep.Keys) != written || int64(rep.Tombstones) != tombs || rep.Partitions != 2 || tombs == 0 {
		t.Errorf("report %+v, truth: %d keys, %d tombstones", rep, written, tombs)
	}
}

// TestVerifyCatchesDeletedLatest: cutting the last batch of the head (its
// records are the latest of their keys) is caught, naming the keys.
func TestVerifyCatchesDeletedLatest(t *testing.T) {
	root, path, res := generate(t)
	dir := res.Dirs[0]
	logs, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	sort.Strings(logs)
	var last string
	var size int64
	for _, p := range logs {
		st, _ := os.Stat(p)
		if st.Size() > 0 {
			last, size = p, st.Size()
		}
	}
	var lastBatch int64 = -1
	if err := engine.ScanFile(nil, last, 0, func(pos engine.FilePos, b []byte) error {
		lastBatch = int64(pos)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if lastBatch <= 0 || lastBatch >= size {
		t.Fatalf("last batch at %d of %d", lastBatch, size)
	}
	if err := os.Truncate(last, lastBatch); err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(last, ".log")
	os.Remove(base + ".index")
	os.Remove(base + ".timeindex")
	rep, err := Verify(root, path)
	if err == nil || len(rep.Problems) == 0 || !strings.Contains(rep.Problems[0], "is missing") {
		t.Fatalf("cut batch not caught: %v %+v", err, rep)
	}
}

// TestReadBadFile: errors name the file and line.
func TestReadBadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t.txt")
	os.WriteFile(path, []byte(Header+"\nt-0 zz 1 v 00\n"), 0o644)
	if _, err := Verify(t.TempDir(), path); err == nil || !strings.Contains(err.Error(), path+":2") {
		t.Errorf("err %v, want %s:2", err, path)
	}
	os.WriteFile(path, []byte("nope\n"), 0o644)
	if _, err := Verify(t.TempDir(), path); err == nil || !strings.Contains(err.Error(), path+":1") {
		t.Errorf("err %v, want %s:1", err, path)
	}
}
