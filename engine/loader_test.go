package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// TestCleanShutdownMarker: Close writes .kafka_cleanshutdown in the log
// directory root once the last read-write Log of that root is closed; a
// read-write open removes it; a read-only open leaves it; a crash leaves
// none, so the next open recovers.
func TestCleanShutdownMarker(t *testing.T) {
	root := t.TempDir()
	marker := filepath.Join(root, CleanShutdownFile)
	a, b := filepath.Join(root, "a-0"), filepath.Join(root, "b-0")
	writeTestLog(t, a, nil, [][]byte{testBatch(t, 0, 1, "k=v")})
	if !exists(marker) {
		t.Fatal("no marker after a clean close")
	}
	la, err := Open(a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !la.Recovery().CleanShutdown || exists(marker) {
		t.Errorf("open: clean shutdown %v, marker still there %v", la.Recovery().CleanShutdown, exists(marker))
	}
	lb, err := Open(b, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	ro, err := Open(a, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if err := la.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(marker) {
		t.Error("marker written while b-0 of the same root is still open")
	}
	if err := lb.Close(); err != nil {
		t.Fatal(err)
	}
	if !exists(marker) {
		t.Error("no marker after the last log of the root closed")
	}
	// A crash: no marker, so the next open recovers.
	la, err = Open(a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	la.abandon()
	if exists(marker) {
		t.Error("marker after a crash")
	}
	la, err = Open(a, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer la.Close()
	if la.Recovery().CleanShutdown || len(la.Recovery().RecoveredSegments) != 1 {
		t.Errorf("after a crash: %+v", la.Recovery())
	}
}

// TestRecoveryFromRecoveryPoint: without the marker only the segments from
// the one holding the recovery point (recovery-point-offset-checkpoint,
// written at close and flush) on are recovered.
func TestRecoveryFromRecoveryPoint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rp-0")
	b := func(o record.Offset) []byte { return testBatch(t, o, 1, "k=v") }
	writeTestLog(t, dir, nil, [][]byte{b(0), b(1)}, [][]byte{b(2), b(3)}, [][]byte{b(4)})
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Append(b(5)); err != nil {
		t.Fatal(err)
	}
	l.abandon() // the recovery point stays 5, written by the last close
	l, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := l.Recovery()
	if rep.CleanShutdown || rep.RecoveryPoint != 5 || len(rep.RecoveredSegments) != 1 || rep.RecoveredSegments[0] != 4 {
		t.Errorf("recovery %+v, want recovery point 5 and seg@4 recovered", rep)
	}
	if l.LogEndOffset() != 6 {
		t.Errorf("log end offset %d, want 6", l.LogEndOffset())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	entries, err := ReadCheckpoint(nil, filepath.Join(filepath.Dir(dir), RecoveryPointCheckpointFile))
	if err != nil || entries[TopicPartition{"rp", 0}] != 6 {
		t.Errorf("recovery point after close: %v %v, want 6", entries, err)
	}
}

// TestOrphanIndexes: index files without their .log are deleted by a
// read-write open and noted by Verify.
func TestOrphanIndexes(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "orphan-0")
	writeTestLog(t, dir, nil, [][]byte{testBatch(t, 0, 1, "k=v")})
	orphans := []string{seg(dir, 7, IndexFileSuffix), seg(dir, 7, TimeIndexFileSuffix), seg(dir, 7, TxnIndexFileSuffix)}
	for _, p := range orphans {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	before := hashTree(t, root)
	rep := mustVerify(t, dir, VerifyOptions{})
	notes := 0
	for _, n := range rep.Notes {
		if containsString(orphans, n.Path) {
			notes++
		}
	}
	if notes != 3 || diffHashes(before, hashTree(t, root)) != "" {
		t.Errorf("verify: %d orphan notes, files changed: %q", notes, diffHashes(before, hashTree(t, root)))
	}
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if len(l.Recovery().RemovedOrphans) != 3 {
		t.Errorf("removed %v", l.Recovery().RemovedOrphans)
	}
	for _, p := range orphans {
		if exists(p) {
			t.Errorf("%s still there", p)
		}
	}
}

// TestOpenUsesOnlyTheFS: every file the engine touches while opening,
// appending, rolling, cleaning, applying retention and closing goes through
// the FS it was given (LoggingFS sees each of them), and a read-only open
// and Verify make no mutating operation.
func TestOpenUsesOnlyTheFS(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "fs-0")
	lfs := vfstest.NewLoggingFS(nil, nil)
	cfg := DefaultLogConfig()
	cfg.FileDeleteDelayMs = 0
	l, err := Open(dir, Options{Config: &cfg, FS: lfs, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for o := record.Offset(0); o < 4; o++ {
		if err := l.Append(testBatch(t, o, 1, "k=v")); err != nil {
			t.Fatal(err)
		}
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := testCleaner(t, 1000).Clean(l, CleanOptions{Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.DeleteRecords(2); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Every file now under root was created (or renamed into place) through lfs.
	made := map[string]bool{}
	for _, op := range lfs.Ops(nil) {
		switch op.Kind {
		case vfstest.OpCreate:
			made[op.Path] = true
		case vfstest.OpRename:
			made[op.Path2] = true
		}
	}
	err = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !made[p] {
			t.Errorf("%s was made outside the FS", p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	lfs.Reset()
	ro, err := Open(dir, Options{FS: lfs, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ro.Close()
	if _, err := Verify(dir, VerifyOptions{FS: lfs}); err != nil {
		t.Fatal(err)
	}
	if m := lfs.Ops(vfstest.Op.Mutating); len(m) != 0 {
		t.Errorf("read-only open and Verify made mutating operations: %v", m)
	}
	if len(lfs.Ops(nil)) == 0 {
		t.Error("read-only open and Verify read nothing through the FS")
	}
}

// TestFaultFSWrappers checks the test wrappers themselves: the N-th
// counted operation fails with the chosen error, a short write lands half
// its bytes, sticky faults keep failing.
func TestFaultFSWrappers(t *testing.T) {
	dir := t.TempDir()
	ffs := vfstest.NewFaultFS(nil, vfstest.Fault{At: 1, Err: vfstest.ENOSPC, Short: true})
	f, err := ffs.Create(filepath.Join(dir, "x")) // operation 0
	if err != nil {
		t.Fatal(err)
	}
	n, err := f.Write([]byte("abcdef")) // operation 1: fails after 3 bytes
	if n != 3 || !errors.Is(err, vfstest.ErrInjected) || !errors.Is(err, vfstest.ENOSPC) {
		t.Errorf("short write: %d, %v", n, err)
	}
	if _, err := f.Write([]byte("gh")); err != nil { // operation 2: not failed
		t.Errorf("write after the fault: %v", err)
	}
	f.Close()
	if got := string(mustRead(t, filepath.Join(dir, "x"))); got != "abcgh" {
		t.Errorf("file holds %q, want abcgh", got)
	}
	if ops := ffs.Ops(); len(ops) != 3 || ops[1].String() != "write x len=6" {
		t.Errorf("ops %v", ops)
	}
	sticky := vfstest.NewFaultFS(nil, vfstest.Fault{At: 0, Sticky: true})
	if err := sticky.MkdirAll(filepath.Join(dir, "a")); !errors.Is(err, vfstest.EIO) {
		t.Errorf("sticky 0: %v", err)
	}
	if err := sticky.SyncDir(dir); !errors.Is(err, vfstest.EIO) {
		t.Errorf("sticky 1: %v", err)
	}
}
