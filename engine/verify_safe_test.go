package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
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

// TestVerifyRecoveryPendingAfterInterruptedSwap is item 2 of issue 11: a
// clean whose swap stops after the old segments became .deleted and before
// the cleaned .swap files were renamed in (here: the first rename of a
// .swap file fails, and the process "dies") leaves a log whose read-only
// view lacks the cleaned range. Verify must not say OK: it reports
// recovery pending, naming each .deleted file (deleted) and each .swap
// file (renamed into place). A read-write open then recovers it and Verify
// passes, with every key's latest value.
func TestVerifyRecoveryPendingAfterInterruptedSwap(t *testing.T) {
	cfg := DefaultLogConfig()
	dir := filepath.Join(t.TempDir(), "swap-0")
	var segs [][][]byte
	for s := range 3 {
		var seg [][]byte
		for i := range 4 {
			o := record.Offset(4*s + i)
			seg = append(seg, testBatch(t, o, 1, fmt.Sprintf("k%d=v%d", i, o)))
		}
		segs = append(segs, seg)
	}
	writeTestLog(t, dir, &cfg, segs...)
	ffs := vfstest.NewFaultFS(nil, vfstest.Fault{At: 0, Count: func(op vfstest.Op) bool {
		return op.Kind == vfstest.OpRename && strings.HasSuffix(op.Path, SwapFileSuffix)
	}})
	l, err := Open(dir, Options{Config: &cfg, FS: ffs})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testCleaner(t, 1000).Clean(l, CleanOptions{Force: true}); err == nil || !ffs.Hit() {
		t.Fatalf("clean with the .swap rename failing: %v (fault hit %v)", err, ffs.Hit())
	}
	l.abandon() // the crash
	entries, _ := os.ReadDir(dir)
	var deleted, swaps []string
	for _, e := range entries {
		switch {
		case strings.HasSuffix(e.Name(), DeletedFileSuffix):
			deleted = append(deleted, filepath.Join(dir, e.Name()))
		case strings.HasSuffix(e.Name(), SwapFileSuffix):
			swaps = append(swaps, filepath.Join(dir, e.Name()))
		}
	}
	if len(deleted) == 0 || len(swaps) == 0 {
		t.Fatalf("after the interrupted swap: .deleted %v, .swap %v; want both", deleted, swaps)
	}
	rep, err := Verify(dir, VerifyOptions{})
	if rep.OK() || !errors.Is(err, ErrRecoveryPending) && len(rep.Problems) == 0 {
		t.Fatalf("verify of an interrupted swap: OK %v, err %v", rep.OK(), err)
	}
	pending := map[string]string{}
	for _, a := range rep.RecoveryPending {
		pending[a.Path] = a.Action
	}
	for _, p := range deleted {
		if !strings.HasPrefix(pending[p], "deleted") {
			t.Errorf("%s: pending %q, want deleted", p, pending[p])
		}
	}
	for _, p := range swaps {
		if want := "renamed to " + strings.TrimSuffix(filepath.Base(p), SwapFileSuffix); !strings.HasPrefix(pending[p], want) {
			t.Errorf("%s: pending %q, want %q", p, pending[p], want)
		}
	}
	l, err = Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, dir, VerifyOptions{})
	_, recs, _ := readPartition(t, dir)
	latest := map[string]string{}
	for _, r := range recs {
		latest[string(r.Key)] = string(r.Value)
	}
	if want := "map[k0:v8 k1:v9 k2:v10 k3:v11]"; fmt.Sprint(latest) != want {
		t.Errorf("latest values after recovery %v, want %s", latest, want)
	}
}

// TestVerifyRecoveryPendingLeftovers: a leftover .cleaned or .deleted file
// alone, and a torn tail without the clean-shutdown marker, are recovery
// pending, each named with what a read-write open does to it.
func TestVerifyRecoveryPendingLeftovers(t *testing.T) {
	for _, c := range []struct{ name, file, action string }{
		{"cleaned", "00000000000000000000.log.cleaned", "deleted: output of a clean interrupted before its swap began"},
		{"deleted", "00000000000000000003.log.deleted", "deleted: a replaced or expired segment's file that was waiting out file.delete.delay.ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := threeSegmentLog(t)
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := Verify(dir, VerifyOptions{})
			if !errors.Is(err, ErrRecoveryPending) || len(rep.RecoveryPending) != 1 || rep.RecoveryPending[0].Path != path || rep.RecoveryPending[0].Action != c.action {
				t.Errorf("verify: pending %v, err %v; want %s: %s", rep.RecoveryPending, err, path, c.action)
			}
		})
	}
	t.Run("torn tail", func(t *testing.T) {
		dir := threeSegmentLog(t)
		if err := os.Remove(filepath.Join(filepath.Dir(dir), CleanShutdownFile)); err != nil {
			t.Fatal(err)
		}
		active := seg(dir, 5, LogFileSuffix)
		data, err := os.ReadFile(active)
		if err != nil {
			t.Fatal(err)
		}
		size := int64(len(data))
		if err := os.WriteFile(active, append(data, make([]byte, 20)...), 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Verify(dir, VerifyOptions{})
		want := fmt.Sprintf("torn tail at byte %d", size)
		if err == nil || rep.OK() || len(rep.RecoveryPending) != 1 || rep.RecoveryPending[0].Path != active || !strings.HasPrefix(rep.RecoveryPending[0].Action, want) ||
			!strings.Contains(rep.RecoveryPending[0].Action, "a read-write open cuts the last 20 bytes") {
			t.Errorf("verify of a torn tail: pending %v, err %v; want %s: %s ... cuts the last 20 bytes", rep.RecoveryPending, err, active, want)
		}
	})
}
