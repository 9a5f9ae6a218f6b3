package workloads

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// newTestCleaner returns a cleaner with the given hasher and dedupe buffer,
// a clock fixed at nowMs, and no fsync (tests do not measure durability).
func newTestCleaner(t testing.TB, hasher string, dedupeBytes int64, nowMs int64) *engine.Cleaner {
	t.Helper()
	cfg := engine.DefaultCleanerConfig()
	cfg.Hasher = offsetmap.HasherName(hasher)
	cfg.DedupeBufferBytes = dedupeBytes
	c, err := engine.NewCleaner(cfg, engine.CleanerOptions{
		Now:         func() time.Time { return time.UnixMilli(nowMs) },
		FsyncPolicy: "none",
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// cleanAll cleans l until the cleaner skips it (nothing left to clean),
// verifying it against the truth after every clean, and fails the test if
// a clean does not move the checkpoint. It returns the number of cleans that
// ran and the figures of the last verification.
func cleanAll(t testing.TB, l *engine.Log, truth *GroundTruth, c *engine.Cleaner) (passes int, st VerifyStats) {
	t.Helper()
	ckptPath := engine.CheckpointPath(l.Dir())
	prev := truth.FirstDirtyOffset
	for passes = 0; passes < 10_000; passes++ {
		cs, err := c.Clean(l, engine.CleanOptions{Force: true})
		if err != nil {
			t.Fatalf("clean %d: %v", passes+1, err)
		}
		if !cs.Cleaned() {
			break
		}
		entries, err := engine.ReadCheckpoint(nil, ckptPath)
		if err != nil {
			t.Fatal(err)
		}
		ckpt := int64(entries[l.TopicPartition()])
		if ckpt != int64(cs.CheckpointOffset) {
			t.Fatalf("clean %d: checkpoint file says %d, stats say %d", passes+1, ckpt, cs.CheckpointOffset)
		}
		if ckpt <= prev {
			t.Fatalf("clean %d: checkpoint stopped moving at %d (was %d)", passes+1, ckpt, prev)
		}
		prev = ckpt
		if st, err = truth.VerifyLog(l, ckpt); err != nil {
			t.Fatalf("after clean %d (checkpoint %d, map full %v): %v", passes+1, ckpt, cs.MapFull, err)
		}
	}
	if prev != truth.LogEndOffset {
		t.Fatalf("after %d cleans the checkpoint is %d, want the log end offset %d", passes, prev, truth.LogEndOffset)
	}
	return passes, st
}

// checkFullyCleaned checks the figures of a log cleaned to its end before
// any delete horizon passed: every written key exactly once, tombstones kept.
func checkFullyCleaned(t testing.TB, truth *GroundTruth, st VerifyStats) {
	t.Helper()
	written, tombs := truth.WrittenKeys()
	if st.Records != written || st.DistinctKeys != written || st.LatestRecords != written ||
		st.StaleRecords != 0 || st.TombstonesKept != tombs || st.TombstonesRemoved != 0 {
		t.Errorf("fully cleaned log: %+v; want %d records, each key once, %d tombstones kept", st, written, tombs)
	}
}

// TestCleanVerify generates logs over seeds, dirty ratios and segment sizes,
// cleans each with both hashers (the map holds every key: one clean) and
// verifies the result.
func TestCleanVerify(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		for _, ratio := range []float64{0.3, 0.5, 0.8} {
			for _, seg := range []int64{256 << 10, 1 << 20} {
				for _, hasher := range []string{"md5", "xxh3-128"} {
					name := fmt.Sprintf("seed=%d/ratio=%v/segment=%d/hasher=%s", seed, ratio, seg, hasher)
					t.Run(name, func(t *testing.T) {
						s := smallSpec()
						s.Seed, s.DirtyRatio, s.SegmentBytes = seed, ratio, seg
						res := mustGenerate(t, t.TempDir(), s)
						l := openLog(t, res, 0)
						truth := res.Truth[0]
						if err := truth.Verify(l, res.FirstDirtyOffsets[0]); err != nil {
							t.Fatalf("before cleaning: %v", err)
						}
						c := newTestCleaner(t, hasher, 8<<20, s.StartTimeMs+3_600_000)
						passes, st := cleanAll(t, l, truth, c)
						if passes != 1 {
							t.Errorf("%d cleans, want 1 (the map holds every key)", passes)
						}
						checkFullyCleaned(t, truth, st)
					})
				}
			}
		}
	}
}

// TestCleanSmallMap: with an offset map far smaller than the head's keys,
// each clean stops where the map filled (mid-segment) and several cleans
// are needed; the log is valid after each.
func TestCleanSmallMap(t *testing.T) {
	for _, hasher := range []string{"md5", "xxh3-128"} {
		t.Run("hasher="+hasher, func(t *testing.T) {
			s := smallSpec()
			s.Seed = 3
			s.DirtyRatio = 0.6
			res := mustGenerate(t, t.TempDir(), s)
			l := openLog(t, res, 0)
			// 48 KiB of 24-byte entries: 2048 slots, 1843 keys per clean; the head
			// writes about 19,000 records over about 14,000 distinct keys.
			c := newTestCleaner(t, hasher, 48<<10, s.StartTimeMs+3_600_000)
			passes, st := cleanAll(t, l, res.Truth[0], c)
			if passes < 5 {
				t.Errorf("%d cleans, want several (map of %d keys)", passes, c.MaxMapEntries())
			}
			checkFullyCleaned(t, res.Truth[0], st)
			t.Logf("%d cleans with a map of %d keys", passes, c.MaxMapEntries())
		})
	}
}

// TestTombstonesPastHorizon: a clean after the delete horizon removes every
// latest tombstone, with every older record of its key.
func TestTombstonesPastHorizon(t *testing.T) {
	s := smallSpec()
	s.TombstoneRatio = 0.3
	res := mustGenerate(t, t.TempDir(), s)
	l := openLog(t, res, 0)
	truth := res.Truth[0]
	now := s.StartTimeMs + 3_600_000
	_, st := cleanAll(t, l, truth, newTestCleaner(t, "md5", 8<<20, now))
	checkFullyCleaned(t, truth, st)

	later := now + testLogConfig().DeleteRetentionMs + 1
	c := newTestCleaner(t, "md5", 8<<20, later)
	if _, err := c.Clean(l, engine.CleanOptions{FirstDirtyOffset: 0, OverrideFirstDirty: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	st, err := truth.VerifyLog(l, truth.LogEndOffset)
	if err != nil {
		t.Fatal(err)
	}
	written, tombs := truth.WrittenKeys()
	if tombs == 0 || st.TombstonesRemoved != tombs || st.Tombstones != 0 || st.Records != written-tombs {
		t.Errorf("past the horizon: %+v; want all %d tombstones removed and %d records", st, tombs, written-tombs)
	}
}

// copyTruth returns a deep copy that a test may change.
func copyTruth(t *GroundTruth) *GroundTruth {
	c := *t
	c.latest = slices.Clone(t.latest)
	c.tombstone = slices.Clone(t.tombstone)
	c.aborted = slices.Clone(t.aborted)
	return &c
}

// verifyProblems runs VerifyLog and returns its problems, failing the test
// if there are none or the error is not a *VerifyError.
func verifyProblems(t *testing.T, truth *GroundTruth, l *engine.Log, checkpoint int64) string {
	t.Helper()
	_, err := truth.VerifyLog(l, checkpoint)
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Total == 0 {
		t.Fatalf("VerifyLog = %v, want a *VerifyError", err)
	}
	if len(ve.Problems) > maxProblems || ve.Total < len(ve.Problems) {
		t.Errorf("VerifyError lists %d of %d problems", len(ve.Problems), ve.Total)
	}
	return err.Error()
}

// TestVerifyDetects: Verify reports each kind of wrong log.
func TestVerifyDetects(t *testing.T) {
	s := smallSpec()
	s.LogBytes = 1 << 20
	s.SegmentBytes = 64 << 10
	s.Partitions = 2
	s.Keys = 10_000

	t.Run("uncleaned below checkpoint", func(t *testing.T) {
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		msg := verifyProblems(t, res.Truth[0], l, res.LogEndOffsets[0])
		if !strings.Contains(msg, "below the checkpoint") {
			t.Errorf("problems do not name duplicates below the checkpoint:\n%s", msg)
		}
	})
	t.Run("lost segment", func(t *testing.T) {
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		segs := l.Segments()
		last := segs[len(segs)-2] // the newest head segment
		l.Close()
		for _, ext := range []string{".log", ".index", ".timeindex"} {
			os.Remove(filepath.Join(res.Dirs[0], fmt.Sprintf("%020d%s", last.BaseOffset(), ext)))
		}
		l = openLog(t, res, 0)
		msg := verifyProblems(t, res.Truth[0], l, res.FirstDirtyOffsets[0])
		if !strings.Contains(msg, "is missing") {
			t.Errorf("problems do not name a missing latest write:\n%s", msg)
		}
	})
	t.Run("wrong values", func(t *testing.T) {
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		tr := copyTruth(res.Truth[0])
		tr.valueSeed++
		if msg := verifyProblems(t, tr, l, res.FirstDirtyOffsets[0]); !strings.Contains(msg, "has value") {
			t.Errorf("problems do not name a wrong value:\n%s", msg)
		}
	})
	t.Run("other partition", func(t *testing.T) {
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		if msg := verifyProblems(t, res.Truth[1], l, res.FirstDirtyOffsets[0]); !strings.Contains(msg, "not a key of partition 1") {
			t.Errorf("problems do not name a foreign key:\n%s", msg)
		}
	})
	t.Run("record newer than truth", func(t *testing.T) {
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		tr := res.Truth[0]
		leo := res.LogEndOffsets[0]
		b, err := record.BuildBatch(nil, record.BatchHeader{BaseOffset: record.Offset(leo), ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1},
			[]record.Record{{Key: tr.AppendKey(nil, 7), Value: tr.AppendValue(nil, leo)}})
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Append(b); err != nil {
			t.Fatal(err)
		}
		msg := verifyProblems(t, tr, l, res.FirstDirtyOffsets[0])
		if want := fmt.Sprintf("key %q: record at offset %d", tr.AppendKey(nil, 7), leo); !strings.Contains(msg, want) || !strings.Contains(msg, "newer than") {
			t.Errorf("problems do not say %q is newer than the truth:\n%s", want, msg)
		}
	})
	t.Run("tombstone gone, older record kept", func(t *testing.T) {
		res := mustGenerate(t, t.TempDir(), s)
		l := openLog(t, res, 0)
		cleanAll(t, l, res.Truth[0], newTestCleaner(t, "md5", 8<<20, s.StartTimeMs+3_600_000))
		tr := copyTruth(res.Truth[0])
		var j uint64
		for tr.latest[j] < 0 {
			j++
		}
		tr.set(j, tr.LogEndOffset+5, true) // as if a tombstone after the log's end had been removed
		msg := verifyProblems(t, tr, l, tr.LogEndOffset)
		if !strings.Contains(msg, "is gone but older records of the key remain") {
			t.Errorf("problems do not name the resurrected key:\n%s", msg)
		}
	})
	t.Run("corrupt batch", func(t *testing.T) {
		res := mustGenerate(t, t.TempDir(), s)
		path := filepath.Join(res.Dirs[0], "00000000000000000000.log")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b[record.BatchHeaderSize+20] ^= 0xff // a value byte of the first record
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		l := openLog(t, res, 0)
		_, err = res.Truth[0].VerifyLog(l, res.FirstDirtyOffsets[0])
		var ce *record.CorruptionError
		if !errors.As(err, &ce) || ce.Path != path || !errors.Is(err, record.ErrCRCMismatch) {
			t.Errorf("VerifyLog = %v, want a CRC corruption error in %s", err, path)
		}
	})
}
