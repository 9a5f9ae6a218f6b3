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

// swapOps selects the operations the swap crash loop fails in turn:
// renames, removals, and file and directory fsyncs.
func swapOps(op vfstest.Op) bool {
	switch op.Kind {
	case vfstest.OpRename, vfstest.OpRemove, vfstest.OpSync, vfstest.OpSyncDir:
		return true
	}
	return false
}

// crashLog drops l as a crash would: every file descriptor is closed and
// nothing more is written (no index, no pending delete).
func crashLog(l *Log) { l.abandon() }

// crashTestLog writes the C13 layout: segments @0, @10 and @20, active @30.
// Offsets 0-29 hold keys k0-k6 in turn, two records per batch, with a
// tombstone at every offset o where o % 11 == 5; the active segment holds
// k0-k4 at 30-34. It returns the .log sizes of the three inactive segments.
func crashTestLog(t *testing.T, dir string) []int64 {
	t.Helper()
	var segs [][][]byte
	for base := 0; base < 40; base += 10 {
		var batches [][]byte
		end := base + 10
		if base == 30 {
			end = 35
		}
		for o := base; o < end; o += 2 {
			var specs []string
			for i := o; i < min(o+2, end); i++ {
				v := fmt.Sprintf("v%d", i)
				if i%11 == 5 {
					v = "null"
				}
				specs = append(specs, fmt.Sprintf("k%d=%s", i%7, v))
			}
			batches = append(batches, testBatch(t, record.Offset(o), 1000+int64(o), specs...))
		}
		segs = append(segs, batches)
	}
	writeTestLog(t, dir, nil, segs...)
	var sizes []int64
	for _, base := range []record.Offset{0, 10, 20} {
		st, err := os.Stat(seg(dir, base, LogFileSuffix))
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, st.Size())
	}
	return sizes
}

const crashNowMs = 1_000_000

// crashCleaner is Kafka's cleaner with a 24 KiB map at crashNowMs, its
// groups synced and swapped behind the copy when behind is set.
func crashCleaner(t *testing.T, behind bool) *Cleaner {
	t.Helper()
	cc := DefaultCleanerConfig()
	cc.DedupeBufferBytes, cc.SyncBehind = 24<<10, behind
	c, err := NewCleaner(cc, CleanerOptions{Now: fixedClock(crashNowMs)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestCleanCrashLoop is C13: for k = 0, 1, 2, ... the k-th rename, remove,
// directory fsync or file fsync of a clean fails; the log is then dropped
// (as by a crash) or closed, and reopened, which recovers any interrupted
// swap. After every k: no temporary file is left, every record present is an
// original one at its original offset, every key's latest record is
// present, the log end offset has not moved, Verify passes, and a clean run
// to the end gives exactly the outcome of a clean without faults. The loop
// stops at the first k the clean does not reach. With SyncBehind the
// fsyncs, renames and directory fsyncs of each group run on a goroutine
// behind the next group's copy: every k and every check is the same.
func TestCleanCrashLoop(t *testing.T) {
	pristine := filepath.Join(t.TempDir(), "crash-0")
	sizes := crashTestLog(t, pristine)
	_, orig, origNext := readPartition(t, pristine)
	want := expectCleaned(orig, 0, 30, crashNowMs)

	for _, groups := range []struct {
		name         string
		segmentBytes int64
	}{
		{"one-group", DefaultLogConfig().SegmentBytes},
		{"two-groups", sizes[0] + sizes[1]}, // {0, 10} then {20}
	} {
		for _, delay := range []int64{0, 60_000} {
			for _, crash := range []bool{true, false} {
				for _, behind := range []bool{false, true} {
					name := fmt.Sprintf("%s/file.delete.delay.ms=%d/crash=%v/sync-behind=%v", groups.name, delay, crash, behind)
					t.Run(name, func(t *testing.T) {
						cfg := DefaultLogConfig()
						cfg.SegmentBytes = groups.segmentBytes
						cfg.FileDeleteDelayMs = delay
						crashLoop(t, pristine, &cfg, crash, behind, orig, want, origNext)
					})
				}
			}
		}
	}
}

func crashLoop(t *testing.T, pristine string, cfg *LogConfig, crash, behind bool, orig, want []logRecord, origNext record.Offset) {
	cleaner := func() *Cleaner { return crashCleaner(t, behind) }
	for k := 0; ; k++ {
		if k > 200 {
			t.Fatal("the clean still reaches operation 200")
		}
		root := t.TempDir()
		dir := filepath.Join(root, "crash-0")
		copyDir(t, pristine, dir)
		ffs := vfstest.NewFaultFS(vfstest.NoSyncFS{}, vfstest.Fault{At: k, Count: swapOps})
		l, err := Open(dir, Options{Config: cfg, FS: ffs, Now: fixedClock(crashNowMs)})
		if err != nil {
			t.Fatalf("k=%d: open: %v", k, err)
		}
		st, cleanErr := cleaner().Clean(l, CleanOptions{Force: true})
		if !ffs.Hit() {
			// The clean ran to the end without reaching operation k.
			if cleanErr != nil {
				t.Fatalf("k=%d: clean without fault: %v", k, cleanErr)
			}
			if st.Groups < 1 {
				t.Fatalf("clean did nothing: %+v", st)
			}
			checkSwapOrder(t, opStrings(ffs.Ops()))
			ffs.Disarm()
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			_, got, _ := readPartition(t, dir)
			compareRecords(t, "clean without fault", want, got)
			mustVerify(t, dir, VerifyOptions{})
			t.Logf("%d operations faulted in turn", k)
			return
		}
		ops := ffs.Ops()
		if cleanErr != nil && !errors.Is(cleanErr, vfstest.ErrInjected) {
			t.Errorf("k=%d (%s): clean error %v does not wrap the injected fault", k, ops[k], cleanErr)
		}
		if crash {
			crashLog(l)
		} else {
			l.Close() // may report the fault again; the reopen is what matters
		}

		l, err = Open(dir, Options{Config: cfg, FS: vfstest.NoSyncFS{}, Now: fixedClock(crashNowMs)})
		if err != nil {
			t.Fatalf("k=%d (%s): reopen: %v", k, ops[k], err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("k=%d (%s)", k, ops[k])
		checkNoTempFiles(t, what, root)
		_, got, next := readPartition(t, dir)
		if next != origNext {
			t.Errorf("%s: log end offset %d, want %d", what, next, origNext)
		}
		checkBetween(t, what, orig, want, got)
		if rep, err := Verify(dir, VerifyOptions{}); err != nil {
			t.Errorf("%s: verify after reopen: %v; problems %v", what, err, rep.Problems)
		}

		// Finish the job: the outcome is that of a clean without faults.
		l, err = Open(dir, Options{Config: cfg, FS: vfstest.NoSyncFS{}, Now: fixedClock(crashNowMs)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cleaner().Clean(l, CleanOptions{Force: true}); err != nil {
			t.Fatalf("%s: second clean: %v", what, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		_, got, _ = readPartition(t, dir)
		compareRecords(t, what+": after a second clean", want, got)
		mustVerify(t, dir, VerifyOptions{})
	}
}

// opStrings formats operations as the order checks read them.
func opStrings(ops []vfstest.Op) []string {
	out := make([]string, len(ops))
	for i, o := range ops {
		out[i] = o.String()
	}
	return out
}

// checkBetween asserts that got holds only original records and at least
// the records a finished clean keeps.
func checkBetween(t *testing.T, what string, orig, want, got []logRecord) {
	t.Helper()
	byOffset := map[record.Offset]logRecord{}
	for _, r := range orig {
		byOffset[r.Offset] = r
	}
	have := map[record.Offset]bool{}
	for _, r := range got {
		have[r.Offset] = true
		if o, ok := byOffset[r.Offset]; !ok || !o.equal(r) {
			t.Errorf("%s: record %v is not the original one (%v)", what, r, o)
		}
	}
	for _, r := range want {
		if !have[r.Offset] {
			t.Errorf("%s: lost %v, the latest record of its key", what, r)
		}
	}
}

func checkNoTempFiles(t *testing.T, what, root string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		for _, suffix := range []string{CleanedFileSuffix, SwapFileSuffix, DeletedFileSuffix, ".tmp"} {
			if strings.HasSuffix(path, suffix) {
				t.Errorf("%s: %s left after reopen", what, path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// checkSwapOrder checks the order of one fault-free clean's operations for
// each cleaned segment (docs/kafka-rules.md §2, the swap): its .log.cleaned is
// fsynced before it becomes .swap; every .cleaned -> .swap rename comes
// before the old segments' renames to .deleted, which come before the
// .swap -> final renames, which come before the directory fsync; the
// checkpoint is replaced last.
func checkSwapOrder(t *testing.T, ops []string) {
	t.Helper()
	find := func(from int, pred func(string) bool) int {
		for i := from; i < len(ops); i++ {
			if pred(ops[i]) {
				return i
			}
		}
		return -1
	}
	pos := 0
	swaps := 0
	for {
		toSwap := find(pos, func(op string) bool {
			return strings.HasPrefix(op, "rename ") && strings.HasSuffix(op, LogFileSuffix+SwapFileSuffix) && strings.Contains(op, CleanedFileSuffix)
		})
		if toSwap < 0 {
			break
		}
		swaps++
		name := strings.Fields(ops[toSwap])[1] // 000...0.log.cleaned
		if s := find(pos, func(op string) bool { return op == "sync "+name }); s < 0 || s > toSwap {
			t.Errorf("%s renamed to .swap before it was fsynced: %v", name, ops)
		}
		firstDeleted := find(toSwap, func(op string) bool { return strings.HasSuffix(op, DeletedFileSuffix) })
		fromSwap := find(toSwap, func(op string) bool {
			f := strings.Fields(op)
			return f[0] == "rename" && strings.HasSuffix(f[1], SwapFileSuffix) && !strings.HasSuffix(f[2], SwapFileSuffix)
		})
		lastToSwap := toSwap
		for i := toSwap; i < len(ops) && (fromSwap < 0 || i < fromSwap); i++ {
			if f := strings.Fields(ops[i]); f[0] == "rename" && strings.HasSuffix(f[2], SwapFileSuffix) {
				lastToSwap = i
			}
		}
		syncDir := find(max(fromSwap, 0), func(op string) bool { return strings.HasPrefix(op, "syncdir ") })
		if !(lastToSwap < firstDeleted && firstDeleted < fromSwap && fromSwap < syncDir) {
			t.Errorf("swap of %s out of order (to .swap %d, first .deleted %d, from .swap %d, syncdir %d): %v",
				name, lastToSwap, firstDeleted, fromSwap, syncDir, ops)
		}
		pos = syncDir + 1
	}
	if swaps == 0 {
		t.Errorf("no swap in %v", ops)
	}
	ckpt := find(pos, func(op string) bool { return strings.HasPrefix(op, "rename "+CleanerCheckpointFile+".tmp") })
	if ckpt < 0 {
		t.Errorf("checkpoint not replaced after the last swap: %v", ops)
	}
}
