package truthfile

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/workloads"
)

func TestWriteSummary(t *testing.T) {
	res := &workloads.Result{Dirs: []string{"d/t-0"}, CleanBytes: []int64{1024}, DirtyBytes: []int64{3 << 20}, FirstDirtyOffsets: []int64{10}, LogEndOffsets: []int64{40},
		Records: 40, Tombstones: 4, Batches: 2, Bytes: 2048, CheckpointPath: "d/cleaner-offset-checkpoint"}
	var b bytes.Buffer
	WriteSummary(&b, res, "d-truth.txt")
	want := "d/t-0: 1.0 KiB clean base + 3.0 MiB dirty head, first dirty offset 10, log end offset 40\n" +
		"40 records (4 tombstones) in 2 batches, 2.0 KiB; checkpoint d/cleaner-offset-checkpoint\n" +
		"ground truth: d-truth.txt\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestCheck(t *testing.T) {
	root, path, res := generate(t)
	var written, tombs int64
	for _, tr := range res.Truth {
		w, tb := tr.WrittenKeys()
		written += w
		tombs += tb
	}
	var b bytes.Buffer
	if err := Check(&b, root, path); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want := fmt.Sprintf("truth %s: %d keys (%d tombstones) of 2 partition(s): every latest record read as written\n", path, written, tombs)
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := Check(&b, root, path+".missing"); err == nil || strings.Contains(b.String(), "every latest record") {
		t.Errorf("missing truth file: err %v, output %q", err, b.String())
	}
}
