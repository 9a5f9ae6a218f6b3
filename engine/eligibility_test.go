package engine

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// lagLog writes t-0 with segments [0, 4) (timestamps 100..103), [4, 8)
// (timestamps 200..203) and an active segment [8, 10), one record per
// batch, keys k0..k3 again in each segment.
func lagLog(t *testing.T, cfg *LogConfig, nowMs int64) *Log {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t-0")
	var segs [][][]byte
	for s, base := range []int64{100, 200, 300} {
		var seg [][]byte
		for i := range 4 {
			o := record.Offset(4*s + i)
			if o >= 10 {
				break
			}
			seg = append(seg, testBatch(t, o, base+int64(i), fmt.Sprintf("k%d=v%d", i, o)))
		}
		segs = append(segs, seg)
	}
	writeTestLog(t, dir, cfg, segs...)
	l, err := Open(dir, Options{Config: cfg, Now: fixedClock(nowMs)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestMinCompactionLag is min.compaction.lag.ms (docs/kafka-rules.md §3): a
// dirty segment whose largest timestamp is newer than now - lag (strictly)
// and every segment after it are not cleanable. The boundaries, one ms
// either side, with lag 50: segment [4, 8) (largest timestamp 203) is
// cleanable at now = 253 (253 - 50 = 203, not newer) and not at 252;
// segment [0, 4) (largest 103) at 153 and not at 152. Lag 0 turns the rule
// off. The cleaner's clean stops where the rule says.
func TestMinCompactionLag(t *testing.T) {
	for _, c := range []struct {
		lag, now         int64
		firstUncleanable record.Offset
	}{
		{50, 253, 8},
		{50, 252, 4},
		{50, 153, 4},
		{50, 152, 0},
		{0, 152, 8},   // rule off
		{0, 0, 8},     // rule off, whatever the clock
		{1, 204, 8},   // 204 - 1 = 203: not newer
		{1, 203, 4},   // 203 - 1 = 202 < 203
		{203, 406, 8}, // a lag as large as the timestamps
		{203, 405, 4},
	} {
		t.Run(fmt.Sprintf("lag=%d/now=%d", c.lag, c.now), func(t *testing.T) {
			cfg := DefaultLogConfig()
			cfg.MinCompactionLagMs = c.lag
			l := lagLog(t, &cfg, c.now)
			lt, err := l.CleanableOffsets(NoCheckpoint, c.now)
			if err != nil {
				t.Fatal(err)
			}
			if lt.FirstUncleanableOffset != c.firstUncleanable {
				t.Fatalf("first uncleanable offset %d, want %d", lt.FirstUncleanableOffset, c.firstUncleanable)
			}
			st, err := testCleaner(t, c.now).Clean(l, CleanOptions{Force: true, NoCheckpointUpdate: true})
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case c.firstUncleanable == 0 && st.Cleaned():
				t.Errorf("cleaned [%d, %d) although nothing is cleanable", st.LogToClean.FirstDirtyOffset, st.EndOffset)
			case c.firstUncleanable > 0 && st.EndOffset != c.firstUncleanable:
				t.Errorf("clean ended at %d, want %d", st.EndOffset, c.firstUncleanable)
			}
		})
	}
}

// TestCleanerDirtyRatioBoundary is the cleaner's own eligibility check
// (Cleaner.Clean without Force or a manager's range), at the exact
// min.cleanable.dirty.ratio boundary: segments [0, 4) and [4, 8) of equal
// size (same-length records), the checkpoint at 4, an active segment at 8:
// cleanable ratio = size / (size + size) = 0.5 exactly. It is skipped at
// min.cleanable.dirty.ratio 0.5 (the ratio must be strictly greater) and
// cleaned at the next float64 below 0.5.
func TestCleanerDirtyRatioBoundary(t *testing.T) {
	for _, c := range []struct {
		min   float64
		clean bool
	}{{0.5, false}, {math.Nextafter(0.5, 0), true}, {math.Nextafter(0.5, 1), false}} {
		t.Run(fmt.Sprintf("min=%v", c.min), func(t *testing.T) {
			cfg := DefaultLogConfig()
			cfg.MinCleanableDirtyRatio = c.min
			l := lagLog(t, &cfg, 1000)
			if err := UpdateCheckpoint(nil, CheckpointPath(l.Dir()), l.TopicPartition(), 4); err != nil {
				t.Fatal(err)
			}
			segs := l.Segments()
			if segs[0].Size() != segs[1].Size() {
				t.Fatalf("segment sizes %d and %d differ", segs[0].Size(), segs[1].Size())
			}
			st, err := testCleaner(t, 1000).Clean(l, CleanOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if st.LogToClean.CleanableRatio != 0.5 {
				t.Fatalf("cleanable ratio %v, want 0.5 exactly", st.LogToClean.CleanableRatio)
			}
			if st.Cleaned() != c.clean {
				t.Errorf("cleaned %v at ratio 0.5, min.cleanable.dirty.ratio %v; want %v (skipped: %q)", st.Cleaned(), c.min, c.clean, st.Skipped)
			}
			if !c.clean && !strings.Contains(st.Skipped, "is not above min.cleanable.dirty.ratio") {
				t.Errorf("skipped %q, want the ratio named", st.Skipped)
			}
			if c.clean && st.EndOffset != 8 {
				t.Errorf("clean ended at %d, want 8", st.EndOffset)
			}
		})
	}
}
