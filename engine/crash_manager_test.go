package engine

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

var crashEveryOp = flag.Bool("crash.every-op", false, "TestManagerCrashLoop faults every operation in turn (default: every 40th)")

// writeTxnWorkload appends a random workload of ops batches to the log dir
// (plain batches, transactions of three producers committed or aborted,
// one left open, rolls) and closes it. It returns the ground truth.
func writeTxnWorkload(t *testing.T, dir string, cfg *LogConfig, seed uint64, ops int) *txnModel {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	l, err := Open(dir, Options{Config: cfg, Create: true, FS: vfstest.NoSyncFS{}})
	if err != nil {
		t.Fatal(err)
	}
	m := &txnModel{recs: map[record.Offset]modelRecord{}, open: map[int64]record.Offset{}, pending: map[int64][]record.Offset{}}
	ts := int64(1000)
	for range ops {
		ts += 10
		switch r := rng.IntN(100); {
		case r < 55:
			pid, txn := record.NoProducerID, false
			if r < 25 {
				pid, txn = int64(1+rng.IntN(3)), true
			}
			var specs []string
			n := 1 + rng.IntN(3)
			for i := range n {
				o := m.leo + record.Offset(i)
				k := fmt.Sprintf("k%d", rng.IntN(25))
				mr := modelRecord{key: k}
				if rng.IntN(8) == 0 {
					specs = append(specs, k+"=null")
				} else {
					v := fmt.Sprintf("v%d", o)
					mr.value = &v
					specs = append(specs, k+"="+v)
				}
				m.recs[o] = mr
				if txn {
					m.pending[pid] = append(m.pending[pid], o)
				}
			}
			if err := l.Append(txnTestBatch(t, m.leo, ts, pid, txn, "", specs...)); err != nil {
				t.Fatal(err)
			}
			if _, ok := m.open[pid]; txn && !ok {
				m.open[pid] = m.leo
			}
			m.leo += record.Offset(n)
		case r < 75:
			if len(m.open) == 0 {
				continue
			}
			pids := slices.Sorted(maps.Keys(m.open))
			pid := pids[rng.IntN(len(pids))]
			if pid == 3 && rng.IntN(4) > 0 {
				continue // producer 3 keeps its transaction open longer
			}
			commit := rng.IntN(10) < 6
			control := "abort"
			if commit {
				control = "commit"
			}
			if err := l.Append(txnTestBatch(t, m.leo, ts, pid, false, control)); err != nil {
				t.Fatal(err)
			}
			if !commit {
				for _, o := range m.pending[pid] {
					mr := m.recs[o]
					mr.aborted = true
					m.recs[o] = mr
				}
			}
			delete(m.open, pid)
			delete(m.pending, pid)
			m.leo++
		case r < 80:
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return m
}

// checkAgainstTruth opens the partition dir read-write (recovering what a
// crash left), and checks it against the ground truth: the log end offset,
// the open transactions and last stable offset, and the state a
// read_committed consumer sees; then closes it and runs Verify.
func checkAgainstTruth(t *testing.T, what, dir string, cfg *LogConfig, m *txnModel) {
	t.Helper()
	l, err := Open(dir, Options{Config: cfg, FS: vfstest.NoSyncFS{}})
	if err != nil {
		t.Fatalf("%s: reopen %s: %v", what, dir, err)
	}
	checkProducerState(t, l, m, what)
	got, err := l.ReadState(ReadCommitted)
	if err != nil {
		t.Fatalf("%s: read: %v", what, err)
	}
	want := m.committedState()
	if len(got) != len(want) {
		t.Errorf("%s: %s: read_committed sees %d keys, want %d", what, dir, len(got), len(want))
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s: %s: key %s = %q, want %q", what, dir, k, got[k], v)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, dir, VerifyOptions{})
}

// TestManagerCrashLoop is the FS-seam crash loop of the cleaner manager
// with transactions: for k = 0, 40, 80, ... (every k with -crash.every-op),
// the k-th mutating file operation of opening two partitions of a root
// and cleaning them with the manager (threads, swaps, .txnindex rewrites,
// checkpoints, retention) fails with EIO, and so does every mutating
// operation after it (a dead disk: nothing more reaches it), then the logs
// are dropped as by a crash. After each k: a reopen recovers, no temporary
// file is left in the root, each partition matches its ground truth
// (read_committed state, open transactions, last stable offset, log end
// offset) and Verify passes; a fault-free manager run afterwards keeps it
// so. The loop stops at the first k the run does not reach.
func TestManagerCrashLoop(t *testing.T) {
	pristine := t.TempDir()
	cfg := DefaultLogConfig()
	cfg.SegmentBytes = 1500
	cfg.SegmentIndexBytes = 4096
	cfg.FileDeleteDelayMs = 0
	names := []string{"a-0", "b-1"}
	truth := map[string]*txnModel{}
	for i, name := range names {
		truth[name] = writeTxnWorkload(t, filepath.Join(pristine, name), &cfg, uint64(i+1), 160)
	}
	stride := 40
	if *crashEveryOp {
		stride = 1
	}
	const nowMs = 10_000
	points := 0
	for k := 0; ; k += stride {
		if k > 5000 {
			t.Fatal("still reaching operation 5000")
		}
		root := t.TempDir()
		for _, name := range names {
			copyDir(t, filepath.Join(pristine, name), filepath.Join(root, name))
		}
		ffs := vfstest.NewFaultFS(vfstest.NoSyncFS{}, vfstest.Fault{At: k, Sticky: true})
		var logs []*Log
		ccfg := DefaultCleanerConfig()
		ccfg.DedupeBufferBytes = 2 * 24 * 40 // 36 keys per thread: cleans stop mid-range
		ccfg.Threads = 2
		m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: ccfg, Now: fixedClock(nowMs)})
		if err != nil {
			t.Fatal(err)
		}
		var openErr error
		for _, name := range names {
			l, err := Open(filepath.Join(root, name), Options{Config: &cfg, FS: ffs, Now: fixedClock(nowMs)})
			if err != nil {
				openErr = err
				break
			}
			logs = append(logs, l)
			if err := m.AddLog(l); err != nil {
				t.Fatal(err)
			}
		}
		if openErr == nil {
			if err := m.RunUntilIdle(); err != nil {
				t.Fatal(err)
			}
		}
		// The run ends with the logs' closing (indexes, checkpoints, the
		// clean-shutdown marker), faulted as well.
		var closeErr error
		if !ffs.Hit() {
			for _, l := range logs {
				closeErr = errors.Join(closeErr, l.Close())
			}
		}
		if !ffs.Hit() {
			if openErr != nil || closeErr != nil || len(m.OfflineRoots()) > 0 || len(m.Uncleanable()) > 0 {
				t.Fatalf("k=%d: no fault, yet %v %v %v %v", k, openErr, closeErr, m.OfflineRoots(), m.Uncleanable())
			}
			for _, name := range names {
				checkAgainstTruth(t, "no fault", filepath.Join(root, name), &cfg, truth[name])
			}
			t.Logf("%d crash points tried (every %d of %d mutating operations)", points, stride, k)
			return
		}
		points++
		ops := ffs.Ops()
		what := fmt.Sprintf("k=%d (%s)", k, ops[k])
		if openErr != nil && !errors.Is(openErr, vfstest.ErrInjected) {
			t.Errorf("%s: open error %v does not wrap the fault", what, openErr)
		}
		for _, l := range logs {
			l.abandon() // the crash (a log already closed stays closed)
		}
		for _, name := range names {
			checkAgainstTruth(t, what, filepath.Join(root, name), &cfg, truth[name])
		}
		checkNoTempFiles(t, what, root)
		if t.Failed() {
			return
		}
		// Finish the job without faults: still the truth.
		logs, failed, err := OpenLogDir(root, Options{Config: &cfg, FS: vfstest.NoSyncFS{}, Now: fixedClock(nowMs)})
		if err != nil || len(failed) > 0 {
			t.Fatalf("%s: %v %v", what, err, failed)
		}
		m2, err := NewCleanerManager(CleanerManagerOptions{Cleaner: ccfg, Now: fixedClock(nowMs)})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range logs {
			m2.AddLog(l)
		}
		if err := m2.RunUntilIdle(); err != nil || len(m2.Uncleanable()) > 0 || len(m2.OfflineRoots()) > 0 {
			t.Fatalf("%s: fault-free run after the crash: %v %v %v", what, err, m2.Uncleanable(), m2.OfflineRoots())
		}
		for _, l := range logs {
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		}
		for _, name := range names {
			checkAgainstTruth(t, what+" then a clean run", filepath.Join(root, name), &cfg, truth[name])
		}
		if err := os.RemoveAll(root); err != nil {
			t.Fatal(err)
		}
	}
}
