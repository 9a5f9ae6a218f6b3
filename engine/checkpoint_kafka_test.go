package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// TestCheckpointReadAsKafka pins the reading rules of Kafka's
// CheckpointFile.CheckpointReadBuffer.read, shared by
// recovery-point-offset-checkpoint, log-start-offset-checkpoint,
// cleaner-offset-checkpoint (OffsetCheckpointFile, version 0, entries
// "topic partition offset") and leader-epoch-checkpoint
// (LeaderEpochCheckpointFile, version 0, entries "epoch startOffset"):
// no first line is an empty list; a version line and no count line is an
// empty list; a version other than 0 is an error; then the entry lines up
// to the end of the file, whose number must equal the count. The expected
// values are worked out by hand from that code.
func TestCheckpointReadAsKafka(t *testing.T) {
	tp := TopicPartition{Topic: "t", Partition: 3}
	for _, c := range []struct {
		name, data string
		offsets    map[TopicPartition]record.Offset // nil: an error
		epochs     []EpochEntry                     // nil: an error
	}{
		{"empty file", "", map[TopicPartition]record.Offset{}, []EpochEntry{}},
		{"version line only", "0\n", map[TopicPartition]record.Offset{}, []EpochEntry{}},
		{"version line without newline", "0", map[TopicPartition]record.Offset{}, []EpochEntry{}},
		{"count 0", "0\n0\n", map[TopicPartition]record.Offset{}, []EpochEntry{}},
		{"blank first line", "\n", nil, nil},
		{"version 1", "1\n0\n", nil, nil},
		{"version 1 alone", "1\n", nil, nil},
		{"count above the entries", "0\n2\nt 3 5\n", nil, nil},
		{"count below the entries", "0\n0\nt 3 5\n", nil, nil},
		{"bad count", "0\nx\n", nil, nil},
		{"one offset entry", "0\n1\nt 3 5\n", map[TopicPartition]record.Offset{tp: 5}, nil},
		{"one epoch entry", "0\n1\n4 17\n", nil, []EpochEntry{{Epoch: 4, StartOffset: 17}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ckpt")
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadCheckpoint(nil, path)
			if c.offsets == nil {
				if !errors.Is(err, ErrBadCheckpoint) {
					t.Errorf("offset checkpoint %q: %v, %v; want ErrBadCheckpoint", c.data, got, err)
				}
			} else if err != nil || !reflect.DeepEqual(got, c.offsets) {
				t.Errorf("offset checkpoint %q: %v, %v; want %v", c.data, got, err, c.offsets)
			}
			eps, err := DecodeLeaderEpochCheckpoint(path, []byte(c.data))
			if c.epochs == nil {
				if !errors.Is(err, ErrBadCheckpoint) {
					t.Errorf("leader-epoch-checkpoint %q: %v, %v; want ErrBadCheckpoint", c.data, eps, err)
				}
			} else if err != nil || !reflect.DeepEqual(eps, c.epochs) {
				t.Errorf("leader-epoch-checkpoint %q: %v, %v; want %v", c.data, eps, err, c.epochs)
			}
		})
	}
}

// TestEmptyCheckpointFilesOpenCleanReopen: a root whose four checkpoint
// files are all empty (0 bytes) opens, cleans, closes and opens again,
// after a clean shutdown and after a crash, as a broker reads them (empty
// lists).
func TestEmptyCheckpointFilesOpenCleanReopen(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.Compact = true
	root := t.TempDir()
	dir := filepath.Join(root, "t-0")
	writeTestLog(t, dir, &cfg,
		[][]byte{testBatch(t, 0, 1, "a=1", "b=1")},
		[][]byte{testBatch(t, 2, 2, "a=2", "b=2")},
		[][]byte{testBatch(t, 4, 3, "c=1")})
	for _, p := range []string{
		filepath.Join(root, RecoveryPointCheckpointFile),
		filepath.Join(root, LogStartOffsetCheckpointFile),
		filepath.Join(root, CleanerCheckpointFile),
		filepath.Join(dir, LeaderEpochCheckpointFile),
	} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, crash := range []bool{false, true} {
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatalf("open (crash before: %v): %v", crash, err)
		}
		if !crash {
			st, err := testCleaner(t, 10).Clean(l, CleanOptions{Force: true})
			if err != nil {
				t.Fatalf("clean: %v", err)
			}
			if st.EndOffset != 4 {
				t.Errorf("cleaned up to %d, want 4 (the active segment's base)", st.EndOffset)
			}
			if err := l.Close(); err != nil {
				t.Fatalf("close after the clean: %v", err)
			}
		} else {
			l.abandon()
		}
		if !crash && !exists(filepath.Join(root, CleanShutdownFile)) {
			t.Errorf("no clean-shutdown marker after the close")
		}
	}
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatalf("open after a crash: %v", err)
	}
	l.Close()
	mustVerify(t, dir, VerifyOptions{})
}

// TestRefusedOpenLeavesRootAsFound: a read-write open refused for a bad
// checkpoint file (each of the root's offset checkpoints and the
// partition's leader-epoch-checkpoint) changes nothing on disk: the
// clean-shutdown marker stays, so the next open is a clean one.
func TestRefusedOpenLeavesRootAsFound(t *testing.T) {
	for _, name := range []string{RecoveryPointCheckpointFile, LogStartOffsetCheckpointFile, LeaderEpochCheckpointFile} {
		t.Run(name, func(t *testing.T) {
			cfg := DefaultLogConfig()
			root := t.TempDir()
			dir := filepath.Join(root, "t-0")
			writeTestLog(t, dir, &cfg, [][]byte{testBatch(t, 0, 1, "a=1")}, [][]byte{testBatch(t, 1, 2, "b=1")})
			path := filepath.Join(root, name)
			if name == LeaderEpochCheckpointFile {
				path = filepath.Join(dir, name)
			}
			if err := os.WriteFile(path, []byte("0\n1\nnot an entry at all\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			before := hashTree(t, root)
			if _, ok := before[CleanShutdownFile]; !ok {
				t.Fatal("no marker before the open")
			}
			_, err := Open(dir, Options{Config: &cfg})
			if !errors.Is(err, ErrBadCheckpoint) {
				t.Fatalf("open with a bad %s: %v, want ErrBadCheckpoint", name, err)
			}
			if d := diffHashes(before, hashTree(t, root)); d != "" {
				t.Errorf("the refused open changed the root:\n%s", d)
			}
			if !lockIsFree(t, root) || rootHolders(root) != 0 {
				t.Errorf("the refused open left the root held")
			}
		})
	}
}

// TestIOErrorMidCleanLeaves pins what docs/safe-operation.md says an I/O error in the
// middle of a clean leaves: for k = 0, 1, ... the k-th write of the clean
// fails with ENOSPC (a full disk, which stays full: every later write fails
// too). The clean returns the error; the log still closes without error, so
// the clean-shutdown marker is written (every file the log holds is
// complete: a group is swapped in only after its files are synced); the
// cleaner checkpoint has not moved past where it was (the clean did not
// end); the root opens again; no temporary file is left after that open;
// every record left is an original one and no key's latest record is
// lost. The loop stops at the first k the clean does not reach.
func TestIOErrorMidCleanLeaves(t *testing.T) {
	pristine := filepath.Join(t.TempDir(), "enospc-0")
	sizes := crashTestLog(t, pristine)
	_, orig, origNext := readPartition(t, pristine)
	want := expectCleaned(orig, 0, 30, crashNowMs)
	cfg := DefaultLogConfig()
	cfg.SegmentBytes = sizes[0] + sizes[1] // two groups: {0, 10} then {20}
	// The clean's writes of its cleaned segments' files (the open writes none).
	writes := func(op vfstest.Op) bool {
		return (op.Kind == vfstest.OpWrite || op.Kind == vfstest.OpWriteAt) && strings.HasSuffix(op.Path, CleanedFileSuffix)
	}
	for k := 0; ; k++ {
		if k > 500 {
			t.Fatal("the clean still reaches write 500")
		}
		root := t.TempDir()
		dir := filepath.Join(root, "enospc-0")
		copyDir(t, pristine, dir)
		if err := os.WriteFile(filepath.Join(root, CleanShutdownFile), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		ffs := vfstest.NewFaultFS(vfstest.NoSyncFS{}, vfstest.Fault{At: k, Count: writes, Err: vfstest.ENOSPC, Sticky: true})
		l, err := Open(dir, Options{Config: &cfg, FS: ffs, Now: fixedClock(crashNowMs)})
		if err != nil {
			t.Fatal(err)
		}
		_, cleanErr := crashCleaner(t, false).Clean(l, CleanOptions{Force: true})
		if !ffs.Hit() {
			if cleanErr != nil {
				t.Fatalf("k=%d: clean without fault: %v", k, cleanErr)
			}
			l.Close()
			t.Logf("%d writes faulted in turn", k)
			return
		}
		what := fmt.Sprintf("k=%d", k)
		if !errors.Is(cleanErr, syscall.ENOSPC) {
			t.Fatalf("%s: clean error %v, want ENOSPC", what, cleanErr)
		}
		ffs.Disarm()
		if err := l.Close(); err != nil {
			t.Errorf("%s: close after the failed clean: %v", what, err)
		}
		if !exists(filepath.Join(root, CleanShutdownFile)) {
			t.Errorf("%s: no clean-shutdown marker after the close", what)
		}
		if ck, err := ReadCheckpoint(nil, filepath.Join(root, CleanerCheckpointFile)); err != nil || len(ck) != 0 {
			t.Errorf("%s: cleaner checkpoint %v (%v), want no entry: the clean did not end", what, ck, err)
		}
		l, err = Open(dir, Options{Config: &cfg, FS: vfstest.NoSyncFS{}, Now: fixedClock(crashNowMs)})
		if err != nil {
			t.Fatalf("%s: reopen: %v", what, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		checkNoTempFiles(t, what, root)
		_, got, next := readPartition(t, dir)
		if next != origNext {
			t.Errorf("%s: log end offset %d, want %d", what, next, origNext)
		}
		checkBetween(t, what, orig, want, got)
		mustVerify(t, dir, VerifyOptions{})
	}
}

// TestNegativeCheckpointEntryWarns: a cleaner-offset-checkpoint entry that
// is negative (-1 included: in the file it is an entry, not "none") lies
// below the log start offset, so Kafka's
// LogCleanerManager.cleanableOffsets resets it to the log start offset
// with its warning and rewrites it. Both the direct Clean and the manager
// do so, and say it.
func TestNegativeCheckpointEntryWarns(t *testing.T) {
	for _, bad := range []record.Offset{-1, -5} {
		for _, viaManager := range []bool{false, true} {
			t.Run(fmt.Sprintf("entry=%d/manager=%v", bad, viaManager), func(t *testing.T) {
				cfg := DefaultLogConfig()
				cfg.Compact = true
				dir := filepath.Join(t.TempDir(), "t-0")
				writeTestLog(t, dir, &cfg,
					[][]byte{testBatch(t, 0, 1, "a=1"), testBatch(t, 1, 1, "a=2")},
					[][]byte{testBatch(t, 2, 1, "b=1")})
				ckptPath := CheckpointPath(dir)
				if err := os.WriteFile(ckptPath, []byte(fmt.Sprintf("0\n1\nt 0 %d\n", bad)), 0o644); err != nil {
					t.Fatal(err)
				}
				l, err := Open(dir, Options{Config: &cfg, Now: fixedClock(1000)})
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				want := fmt.Sprintf("Resetting first dirty offset of t-0 to log start offset 0 since the checkpointed offset %d is invalid.", bad)
				var warnings []string
				if viaManager {
					var mu sync.Mutex
					m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: testCleanerConfig(), Now: fixedClock(1000), Force: true,
						OnEvent: func(ev CleanerEvent) {
							mu.Lock()
							defer mu.Unlock()
							if ev.Warning != "" {
								warnings = append(warnings, ev.Warning)
							}
						}})
					if err != nil {
						t.Fatal(err)
					}
					if err := m.AddLog(l); err != nil {
						t.Fatal(err)
					}
					if err := m.RunUntilIdle(); err != nil {
						t.Fatal(err)
					}
				} else {
					st, err := testCleaner(t, 1000).Clean(l, CleanOptions{Force: true})
					if err != nil {
						t.Fatal(err)
					}
					if st.LogToClean.FirstDirtyOffset != 0 {
						t.Errorf("first dirty offset %d, want 0 (the log start offset)", st.LogToClean.FirstDirtyOffset)
					}
					if w := st.LogToClean.CheckpointWarning; w != "" {
						warnings = append(warnings, w)
					}
				}
				if len(warnings) != 1 || warnings[0] != want {
					t.Errorf("warnings %q, want %q once", warnings, want)
				}
				if off, ok, _ := checkpointEntry(nil, ckptPath, l.TopicPartition()); !ok || off != 2 {
					t.Errorf("checkpoint after the clean %d (present %v), want 2 (the active segment's base)", off, ok)
				}
			})
		}
	}
}

// TestVerifyNamesCheckpointPastLogEnd: a cleaner-offset-checkpoint entry
// past the log end offset (the log lost its head, a truncation was
// interrupted by a crash, or the entry is wrong) is named once, in a note
// giving the entry and the log end offset, not as a duplicate-key problem
// for every key written twice below it: Kafka's cleaner does not trust
// such a checkpoint (it resets it to the log start offset with a warning),
// so neither does the compaction check.
func TestVerifyNamesCheckpointPastLogEnd(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.Compact = true
	dir := filepath.Join(t.TempDir(), "t-0")
	// Keys a..e each written twice (offsets 0-9), nothing cleaned.
	var batches [][]byte
	for o := 0; o < 10; o++ {
		batches = append(batches, testBatch(t, record.Offset(o), 1, fmt.Sprintf("%c=%d", 'a'+o%5, o)))
	}
	writeTestLog(t, dir, &cfg, batches)
	ckptPath := CheckpointPath(dir)
	if err := os.WriteFile(ckptPath, []byte("0\n1\nt 0 500\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(dir, VerifyOptions{})
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("verify: %v, %d problems (%v); want none: the checkpoint is not trusted", err, len(rep.Problems), rep.Problems)
	}
	named := 0
	for _, n := range rep.Notes {
		if n.Path == ckptPath && strings.Contains(n.Message, "entry 500") && strings.Contains(n.Message, "log end offset 10") {
			named++
		}
		if strings.Contains(n.String(), "-1") {
			t.Errorf("a sentinel value in note %q", n)
		}
	}
	if named != 1 {
		t.Errorf("notes %v: want one naming entry 500 of %s and the log end offset 10", rep.Notes, ckptPath)
	}
}
