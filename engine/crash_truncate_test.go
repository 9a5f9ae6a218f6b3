package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// truncateTemplate writes, under a fresh root, the partition t-0 with
// three segments of leader appends: offsets 0-5 in epoch 0, 6-11 in epoch
// 1 (from the second segment on), 12-17 in epoch 3, two records per batch, every key unique (so the log is compacted below
// any checkpoint): the cleaner checkpoint at 8, the recovery point at 18 (written by the
// clean close). It returns the root, the config and the batches as written.
func truncateTemplate(t *testing.T) (string, *LogConfig, []logBatch) {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "t-0")
	cfg := DefaultLogConfig()
	cfg.SegmentBytes = 250 // a roll every three two-record batches
	cfg.IndexIntervalBytes = 1
	cfg.SegmentIndexBytes = 1024
	cfg.FileDeleteDelayMs = 0
	l, err := Open(dir, Options{Config: &cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 9; i++ {
		epoch := int32(0)
		switch {
		case i >= 6:
			epoch = 3
		case i >= 3:
			epoch = 1
		}
		if _, _, err := l.AppendAsLeader(testBatch(t, 0, int64(100+i), fmt.Sprintf("k%d=v%d", i, i), fmt.Sprintf("j%d=w%d", i, i)), epoch); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(l.Segments()); n != 3 {
		t.Fatalf("%d segments, want 3", n)
	}
	if err := UpdateCheckpoint(nil, CheckpointPath(dir), l.TopicPartition(), 8); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	batches, _, _ := readPartition(t, dir)
	return root, &cfg, batches
}

// TestTruncateCrashLoop is docs/contributing.md, "Crash loops", for TruncateTo and
// TruncateFullyAndStartAt: for k = 0, 1, ... the k-th mutating file
// operation of the truncation fails (EIO, or ENOSPC after half a write),
// the process stops as a crash would, and the log is reopened. After every
// k: the reopen succeeds and Verify passes; no temporary file is left; the
// batches are a prefix of the old ones, byte for byte, holding every batch
// below the target (TruncateTo) — or, for a full truncation, a prefix of
// the old ones or the empty log at the new offset; once any batch at or
// above the target is gone, the cleaner checkpoint and the recovery point
// are already down (lowered before any data goes); the leader epoch cache
// holds only old entries below the log end offset and agrees with every
// batch's stamped epoch; the MCCO is within [log start, log end]; and an
// append at the log end offset works. When no fault hits, the result is
// exactly the truncated log. The loop stops at the first k not reached.
func TestTruncateCrashLoop(t *testing.T) {
	template, cfg, orig := truncateTemplate(t)
	for _, tc := range []struct {
		name   string
		target record.Offset
		full   bool
	}{
		{"truncate-to-9", 9, false}, // inside batch 8..9 of the second segment
		{"truncate-to-0", 0, false}, // the first segment's base: all data goes
		{"truncate-fully-at-30", 30, true},
	} {
		for _, fault := range []struct {
			name  string
			err   error
			short bool
		}{
			{"EIO", vfstest.EIO, false},
			{"ENOSPC-short-write", vfstest.ENOSPC, true},
		} {
			t.Run(tc.name+"/"+fault.name, func(t *testing.T) {
				for k := 0; ; k++ {
					if k > 200 {
						t.Fatal("still reaching operation 200")
					}
					root := t.TempDir()
					copyDir(t, template, root)
					dir := filepath.Join(root, "t-0")
					copyDir(t, filepath.Join(template, "t-0"), dir)
					armed := false
					ffs := vfstest.NewFaultFS(vfstest.NoSyncFS{}, vfstest.Fault{At: k, Err: fault.err, Short: fault.short,
						Count: func(op vfstest.Op) bool { return armed && op.Mutating() }})
					l, err := Open(dir, Options{Config: cfg, FS: ffs})
					if err != nil {
						t.Fatal(err)
					}
					armed = true
					if tc.full {
						err = l.TruncateFullyAndStartAt(tc.target)
					} else {
						err = l.TruncateTo(tc.target)
					}
					hit := ffs.Hit()
					done := err == nil
					what := fmt.Sprintf("k=%d", k)
					if hit {
						op := ffs.Ops()[k]
						what = fmt.Sprintf("k=%d (%s)", k, op)
						// Removing a .deleted file is best effort, as Kafka's
						// asynchronous delete: the next open removes what is left.
						deletedRemove := op.Kind == vfstest.OpRemove && strings.HasSuffix(op.Path, DeletedFileSuffix)
						if err == nil && !deletedRemove {
							t.Fatalf("%s: the fault was not reported", what)
						}
						if err != nil && !errors.Is(err, vfstest.ErrInjected) {
							t.Errorf("%s: %v does not wrap the injected fault", what, err)
						}
					} else if err != nil {
						t.Fatalf("k=%d: no fault, yet %v", k, err)
					}
					l.abandon() // the crash

					l, err = Open(dir, Options{Config: cfg, FS: vfstest.NoSyncFS{}, Create: true})
					if err != nil {
						t.Fatalf("%s: reopen: %v", what, err)
					}
					checkNoTempFiles(t, what, root)
					checkTruncatedLog(t, what, l, dir, orig, tc.target, tc.full, done)
					if err := l.Append(testBatch(t, l.LogEndOffset(), 500, "z=1")); err != nil {
						t.Errorf("%s: append after reopen: %v", what, err)
					}
					if err := l.Close(); err != nil {
						t.Fatalf("%s: close: %v", what, err)
					}
					mustVerify(t, dir, VerifyOptions{})
					if !hit {
						t.Logf("%d operations faulted in turn", k)
						return
					}
				}
			})
		}
	}
}

// checkTruncatedLog checks the invariants TestTruncateCrashLoop states on a
// reopened log; done says the truncation returned without error.
func checkTruncatedLog(t *testing.T, what string, l *Log, dir string, orig []logBatch, target record.Offset, full, done bool) {
	t.Helper()
	mustVerify(t, dir, VerifyOptions{})
	got, _, leo := readPartition(t, dir)
	if l.LogEndOffset() != leo {
		t.Errorf("%s: log end offset %d, the files say %d", what, l.LogEndOffset(), leo)
	}
	empty := len(got) == 0
	if full && empty {
		if done && (leo != target || l.LogStartOffset() != target) {
			t.Errorf("%s: full truncation done, yet log start %d and end %d, want %d", what, l.LogStartOffset(), leo, target)
		}
	} else {
		if len(got) > len(orig) {
			t.Fatalf("%s: %d batches, the log had %d", what, len(got), len(orig))
		}
		for i, b := range got {
			o := orig[i]
			if b.BaseOffset != o.BaseOffset || b.LastOffset() != o.LastOffset() || b.CRC != o.CRC || b.PartitionLeaderEpoch != o.PartitionLeaderEpoch {
				t.Fatalf("%s: batch %d is %d..%d crc %x, was %d..%d crc %x", what, i, b.BaseOffset, b.LastOffset(), b.CRC, o.BaseOffset, o.LastOffset(), o.CRC)
			}
		}
		if !full {
			for i, o := range orig {
				if o.LastOffset() < target && i >= len(got) {
					t.Fatalf("%s: batch %d..%d, below the target %d, is gone", what, o.BaseOffset, o.LastOffset(), target)
				}
			}
		}
	}
	if done && !full {
		want := 0
		for _, o := range orig {
			if o.LastOffset() < target {
				want++
			}
		}
		if len(got) != want {
			t.Errorf("%s: truncation done, yet %d batches, want %d", what, len(got), want)
		}
	}
	// Once data at or above the target went, the checkpoints were already down.
	lost := len(got) < len(orig)
	if lost {
		cleaner, err := ReadCheckpoint(nil, CheckpointPath(dir))
		if err != nil {
			t.Fatal(err)
		}
		recovery, err := ReadCheckpoint(nil, filepath.Join(filepath.Dir(dir), RecoveryPointCheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		tp := l.TopicPartition()
		// The segment holding a target of 9 starts at 6; a target of 0
		// (and a full truncation at 30) lower the cleaner checkpoint to 0 and 30.
		wantCleaner := map[record.Offset]record.Offset{9: 6, 0: 0, 30: 8}[target]
		if c, ok := cleaner[tp]; ok && c > wantCleaner {
			t.Errorf("%s: data went, yet the cleaner checkpoint is %d (> %d)", what, c, wantCleaner)
		}
		if r, ok := recovery[tp]; ok && r > target && !(full && r <= 18) {
			t.Errorf("%s: data went, yet the recovery point is %d (> %d)", what, r, target)
		}
	}
	// The epoch cache: old entries only, below the end, agreeing with the bytes.
	epochs := l.LeaderEpochs()
	old := map[int32]bool{0: true, 1: true, 3: true}
	// truncateFromStart may put the last entry at a log start offset equal
	// to the log end offset (a crashed full truncation raised the start).
	lso := l.LogStartOffset()
	for _, e := range epochs {
		if !old[e.Epoch] || (e.StartOffset >= leo && e.StartOffset != lso) {
			t.Errorf("%s: epoch entry %v (log end %d)", what, e, leo)
		}
	}
	for _, b := range got {
		if b.LastOffset() < lso {
			continue // below the log start offset: not readable, no epoch kept
		}
		k := -1
		for i, e := range epochs {
			if e.StartOffset <= b.BaseOffset {
				k = i
			}
		}
		if k < 0 || epochs[k].Epoch != b.PartitionLeaderEpoch {
			t.Errorf("%s: batch %d..%d has epoch %d, cache %v", what, b.BaseOffset, b.LastOffset(), b.PartitionLeaderEpoch, epochs)
		}
	}
	if m := l.MaxCleanlyCompactedOffset(); m < l.LogStartOffset() || m > leo {
		t.Errorf("%s: MCCO %d outside [%d, %d]", what, m, l.LogStartOffset(), leo)
	}
	if done {
		wantEpochs := map[record.Offset][]EpochEntry{9: {{0, 0}, {1, 6}}, 0: nil, 30: nil}[target]
		if !reflect.DeepEqual(epochs, wantEpochs) && !(len(epochs) == 0 && len(wantEpochs) == 0) {
			t.Errorf("%s: epochs %v, want %v", what, epochs, wantEpochs)
		}
	}
}

// TestLeaderAppendCrashLoop extends the append crash loop to the leader
// epoch cache: for k = 0, 1, ... the k-th mutating file operation of a
// series of AppendAsLeader calls over three epochs (each new epoch writes
// leader-epoch-checkpoint before its batches) fails, and the log is
// reopened. After every k: the log holds exactly the batches whose append
// returned nil; the cache holds only entries below the log end offset, and
// every batch's stamped epoch is the epoch of the last entry at or below
// its base offset; no temporary file is left.
func TestLeaderAppendCrashLoop(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.SegmentBytes = 250
	cfg.IndexIntervalBytes = 1
	cfg.SegmentIndexBytes = 1024
	epochOf := func(i int) int32 { return int32(2 * (i / 3)) } // 0, 0, 0, 2, 2, 2, 4, ...
	for k := 0; ; k++ {
		if k > 300 {
			t.Fatal("still reaching operation 300")
		}
		root := t.TempDir()
		dir := filepath.Join(root, "t-0")
		ffs := vfstest.NewFaultFS(vfstest.NoSyncFS{}, vfstest.Fault{At: k, Err: vfstest.EIO})
		acked := 0
		l, err := Open(dir, Options{Config: &cfg, FS: ffs, Create: true})
		if err == nil {
			for i := 0; i < 8; i++ {
				if _, _, err = l.AppendAsLeader(testBatch(t, 0, int64(i), fmt.Sprintf("k%d=v", i)), epochOf(i)); err != nil {
					break
				}
				acked++
			}
		}
		if l != nil {
			l.abandon()
		}
		if !ffs.Hit() {
			if err != nil {
				t.Fatalf("k=%d: no fault, yet %v", k, err)
			}
			t.Logf("%d operations faulted in turn", k)
			return
		}
		what := fmt.Sprintf("k=%d (%s)", k, ffs.Ops()[k])
		if k == 0 {
			continue // the directory itself was not created
		}
		l, err = Open(dir, Options{Config: &cfg, FS: vfstest.NoSyncFS{}, Create: true})
		if err != nil {
			t.Fatalf("%s: reopen: %v", what, err)
		}
		checkNoTempFiles(t, what, root)
		got, _, leo := readPartition(t, dir)
		if len(got) != acked || l.LogEndOffset() != record.Offset(acked) {
			t.Errorf("%s: %d batches, log end offset %d, want %d acknowledged", what, len(got), l.LogEndOffset(), acked)
		}
		epochs := l.LeaderEpochs()
		for _, e := range epochs {
			if e.StartOffset >= leo {
				t.Errorf("%s: entry %v at or past the log end offset %d", what, e, leo)
			}
		}
		for i, b := range got {
			j := -1
			for x, e := range epochs {
				if e.StartOffset <= b.BaseOffset {
					j = x
				}
			}
			if j < 0 || epochs[j].Epoch != b.PartitionLeaderEpoch || b.PartitionLeaderEpoch != epochOf(i) {
				t.Errorf("%s: batch %d has epoch %d (want %d), cache %v", what, b.BaseOffset, b.PartitionLeaderEpoch, epochOf(i), epochs)
			}
		}
		if err := l.Close(); err != nil {
			t.Fatalf("%s: close: %v", what, err)
		}
		mustVerify(t, dir, VerifyOptions{})
	}
}
