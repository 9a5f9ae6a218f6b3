package engine

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestVerifyNoDuplicateVerdictBelowLogStart is item 3 of issue 11, worked
// by hand. Keys k1..k5 twice, one record per batch, in three segments:
//
//	segment 0: k1@0 k2@1 k3@2 k4@3
//	segment 4: k5@4 k1@5 k2@6 k3@7
//	segment 8: k4@8 k5@9            (then rolled: active segment 10, empty)
//
// DeleteRecords(6) puts the log start offset inside segment 4. A clean
// (no checkpoint: first dirty = log start offset 6) maps k2@6 k3@7 k4@8
// k5@9 and recopies everything below 10, as Kafka does: k1@0 and k1@5 stay
// (k1 is not in the map), k2@1 k3@2 k4@3 k5@4 go. The checkpoint is then
// 10 and k1 appears twice below it, both times below the log start offset,
// where the records are logically deleted: Verify must not call that a
// compaction problem. A key twice at or above the log start offset still is.
func TestVerifyNoDuplicateVerdictBelowLogStart(t *testing.T) {
	cfg := DefaultLogConfig()
	dir := filepath.Join(t.TempDir(), "lso-0")
	keys := []string{"k1", "k2", "k3", "k4", "k5", "k1", "k2", "k3", "k4", "k5"}
	var segs [][][]byte
	for _, span := range [][2]int{{0, 4}, {4, 8}, {8, 10}} {
		var seg [][]byte
		for o := span[0]; o < span[1]; o++ {
			seg = append(seg, testBatch(t, record.Offset(o), 1, fmt.Sprintf("%s=v%d", keys[o], o)))
		}
		segs = append(segs, seg)
	}
	writeTestLog(t, dir, &cfg, segs...)
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if lso, err := l.DeleteRecords(6); err != nil || lso != 6 {
		t.Fatalf("DeleteRecords(6): %d, %v", lso, err)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	st, err := testCleaner(t, 1000).Clean(l, CleanOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if st.LogToClean.FirstDirtyOffset != 6 || st.EndOffset != 10 {
		t.Fatalf("clean of [%d, %d), want [6, 10)", st.LogToClean.FirstDirtyOffset, st.EndOffset)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	_, recs, _ := readPartition(t, dir)
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%s@%d", r.Key, r.Offset))
	}
	if want := "[k1@0 k1@5 k2@6 k3@7 k4@8 k5@9]"; fmt.Sprint(got) != want {
		t.Fatalf("records after the clean %v, want %s (the hand-worked example)", got, want)
	}
	rep := mustVerify(t, dir, VerifyOptions{})
	if rep.CheckpointOffset != 10 || rep.LogStartOffset != 6 {
		t.Errorf("verify used checkpoint %d, log start offset %d; want 10 and 6", rep.CheckpointOffset, rep.LogStartOffset)
	}
	if rep.Keys != 5 {
		t.Errorf("verify counted %d keys, want 5", rep.Keys)
	}

	// At or above the log start offset a key twice below the checkpoint is
	// still a problem: k1 again at 10 and 11, checkpoint 12.
	l, err = Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	for o := record.Offset(10); o < 12; o++ {
		if err := l.Append(testBatch(t, o, 1, fmt.Sprintf("k1=w%d", o))); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(dir, VerifyOptions{Checkpoint: 12})
	if err == nil || len(rep.Problems) != 1 || rep.Problems[0].Check != CheckCompaction {
		t.Fatalf("k1 at 10 and 11 below checkpoint 12: problems %v, err %v; want one compaction problem", rep.Problems, err)
	}
}
