package sizing

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// TestRuleOfThumb checks Kafka's published figure by hand: 8 GB (2^33
// bytes) / 24 bytes = 357,913,941.33 entries; x 1 KiB = 366,503,875,925
// bytes, the "~366 GB of log head" (decimal GB).
func TestRuleOfThumb(t *testing.T) {
	got := RuleOfThumbHeadBytes(8<<30, 1024)
	if !near(got, 366_503_875_925.33, 0.01) {
		t.Errorf("rule of thumb head = %.2f bytes, want 366503875925.33", got)
	}
	if got/1e9 < 366 || got/1e9 >= 367 {
		t.Errorf("%.1f GB, want about 366 GB", got/1e9)
	}
}

// TestRecordBytes: a 16-byte key and 100-byte value: attributes 1 +
// timestamp delta 1 + offset delta 1 + key length 1 + key 16 + value length
// 2 (zigzag 200) + value 100 + header count 1 = 123, length varint 2
// (zigzag 246): 125 bytes, plus 61 / 16 of the batch header = 128.8125.
// A tombstone: 1+1+1+1+16+1 (length -1)+1 = 22, +1 length = 23, + 3.8125.
func TestRecordBytes(t *testing.T) {
	if got := RecordBytes(16, 100, 16, false); got != 128.8125 {
		t.Errorf("record bytes %v, want 128.8125", got)
	}
	if got := RecordBytes(16, 100, 16, true); got != 26.8125 {
		t.Errorf("tombstone bytes %v, want 26.8125", got)
	}
	// 1 KiB values: value length zigzag 2048 = 2 bytes; body 1+1+1+1+16+2+1024+1
	// = 1047, length zigzag 2094 = 2 bytes: 1049, + 61/16.
	if got := RecordBytes(16, 1024, 16, false); got != 1049+3.8125 {
		t.Errorf("1 KiB record bytes %v, want 1052.8125", got)
	}
}

// TestAdviseWorkloadHandWorked: 1,000,000 keys, one partition, 16-byte
// keys, 100-byte values, uniform writes, min.cleanable.dirty.ratio 0.5:
//
//	r = 128.8125; C = 1e6 x r = 128,812,500; D = C; n = 1e6 records
//	K = 1e6 (1 - e^-1) = 632,120.56 dirty keys
//	ceil(K / 0.9) = 702,357 entries: skimpy 24 B -> 16,856,568 -> 17 MiB;
//	dense16 and bucket16 16 B -> 11,237,712 -> 11 MiB; dense12 12 B ->
//	8,428,284 -> 9 MiB
//	an 8 MiB skimpy map: int(349,525 x 0.9) = 314,572 keys; a pass covers
//	-1e6 ln(1 - 0.314572) = 377,712 writes; 1e6 / 377,712 = 2.65 -> 3 passes
//	rule of thumb: 1e6 records x 24 = 24,000,000 bytes
//	io buffer: a batch is 16 x 128.8125 = 2061 bytes, under 256 KiB: 2 x 256 KiB
func TestAdviseWorkloadHandWorked(t *testing.T) {
	w := DefaultWorkload()
	w.Keys, w.Partitions = 1_000_000, 1
	a, err := AdviseWorkload(w, AdviseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !near(a.Inputs["dirty_keys_at_trigger"], 632_120.56, 0.01) || a.Inputs["clean_bytes_per_partition"] != 128_812_500 {
		t.Errorf("inputs %v", a.Inputs)
	}
	want := map[string]int64{"skimpy": 17 << 20, "dense16": 11 << 20, "dense12": 9 << 20, "bucket16": 11 << 20}
	for _, la := range a.Layouts {
		if la.DedupeBufferBytes != want[la.Layout] || la.Passes != 1 {
			t.Errorf("%s: buffer %d passes %d, want %d and 1", la.Layout, la.DedupeBufferBytes, la.Passes, want[la.Layout])
		}
	}
	if a.DedupeBufferBytes != 17<<20 || a.Threads != 1 || a.Passes != 1 || a.CurrentPasses != 1 || a.IOBufferBytes != 512<<10 {
		t.Errorf("advice buffer %d threads %d passes %d current %d io %d", a.DedupeBufferBytes, a.Threads, a.Passes, a.CurrentPasses, a.IOBufferBytes)
	}
	if a.RuleOfThumbBufferBytes != 24_000_000 {
		t.Errorf("rule of thumb %d, want 24000000", a.RuleOfThumbBufferBytes)
	}
	if a.MemoryBytes != 17<<20+512<<10 {
		t.Errorf("memory %d", a.MemoryBytes)
	}
	c := engine.DefaultCleanerConfig()
	c.DedupeBufferBytes = 8 << 20
	a, err = AdviseWorkload(w, AdviseOptions{Cleaner: c})
	if err != nil {
		t.Fatal(err)
	}
	if a.CurrentPasses != 3 {
		t.Errorf("passes with 8 MiB: %d, want 3", a.CurrentPasses)
	}

	// bucket16 with a 2 MiB map sort buffer, taken out of the dedupe
	// buffer: the table still needs 11 MiB, so the advice is 11 + 2 = 13
	// MiB (skimpy, which has no sort buffer, still 17); of the current 8
	// MiB the table is 6 MiB, 6 MiB / 16 x 0.9 = 353,894 keys a pass:
	// -1e6 ln(1 - 0.353894) = 436,792 writes, 1e6 / 436,792 = 2.29 -> 3
	// passes (2 without the sort buffer: 471,859 keys, 638,392 writes).
	// The best profile's 32 MiB is over a third of the 11 MiB table, so
	// the cap (a quarter of the share) takes it down to a third of the
	// table: 11,534,336 / 96 = 120,149 Puts, 3,844,768 bytes, a buffer of
	// 15,379,104 whose table is 11 MiB (not 11 + 32 = 43 MiB, whose table
	// would be 32.25 MiB, three times the keys the advice says); of the
	// current 8 MiB the cap leaves 6 MiB, 3 passes as with 2 MiB.
	c.OffsetMap, c.Hasher = offsetmap.LayoutBucket16, offsetmap.HasherXXH3_128
	for _, sc := range []struct {
		sort, bucket16 int64
		passes         int
	}{{2 << 20, 13 << 20, 3}, {0, 11 << 20, 2}, {32 << 20, 15_379_104, 3}} {
		c.MapSortBufferBytes = sc.sort
		a, err = AdviseWorkload(w, AdviseOptions{Cleaner: c})
		if err != nil {
			t.Fatal(err)
		}
		want["bucket16"] = sc.bucket16
		for _, la := range a.Layouts {
			if la.DedupeBufferBytes != want[la.Layout] || la.Passes != 1 {
				t.Errorf("sort buffer %d: %s: buffer %d passes %d, want %d and 1", sc.sort, la.Layout, la.DedupeBufferBytes, la.Passes, want[la.Layout])
			}
		}
		if a.DedupeBufferBytes != sc.bucket16 || a.MapSortBufferBytes != sc.sort || a.PerThreadMapTableBytes() != 11<<20 || a.CurrentPasses != sc.passes {
			t.Errorf("sort buffer %d: advice buffer %d (sort %d, table %d), current passes %d; want %d (%d, 11 MiB), %d",
				sc.sort, a.DedupeBufferBytes, a.MapSortBufferBytes, a.PerThreadMapTableBytes(), a.CurrentPasses, sc.bucket16, sc.sort, sc.passes)
		}
	}
}

// TestAdviseThreadsHandWorked: 4 partitions of the workload above
// (4,000,000 keys) at 60 MB/s, calibrated at 200 MB/s map build and 100
// MB/s copy:
//
//	clean time = D / 200e6 + (C + D) / 100e6 = 0.6440625 + 2.57625 = 3.2203125 s
//	w = 15e6 B/s per partition; load = 4 x 15e6 x 3.2203125 / 128,812,500 = 1.5
//	-> 2 threads (8 cores, 4 partitions); each thread's 17 MiB: 34 MiB
//	peak dirty ratio: Dp = D + 15e6 x 3.2203125 = 1.375 D; 1.375 / 2.375 = 11/19
//	mean = 1 - ln(2.375) / 1.375 = 0.37091
//	max delay = 128,812,500 / 15e6 + 15 + 3.2203125 = 26.8078125 s
//
// With one disk and no measured curve the bound is 1 thread: it falls behind.
func TestAdviseThreadsHandWorked(t *testing.T) {
	w := DefaultWorkload()
	w.Keys, w.Partitions, w.WriteBytesPerSecond = 4_000_000, 4, 60e6
	cal := &Calibration{MapBuildBytesPerSecond: 200e6, CopyBytesPerSecond: 100e6}
	a, err := AdviseWorkload(w, AdviseOptions{Cores: 8, Calibration: cal})
	if err != nil {
		t.Fatal(err)
	}
	if !near(a.CleanSeconds, 3.2203125, 1e-9) || !near(a.ThreadsNeeded, 1.5, 1e-9) || a.Threads != 2 || a.FallsBehind {
		t.Errorf("clean %v s, load %v, threads %d, behind %v", a.CleanSeconds, a.ThreadsNeeded, a.Threads, a.FallsBehind)
	}
	if a.DedupeBufferBytes != 34<<20 || a.IOBufferBytes != 2*2*256<<10 {
		t.Errorf("buffer %d io %d, want 34 MiB and 1 MiB", a.DedupeBufferBytes, a.IOBufferBytes)
	}
	// The closed-form figures of a partition that never waits (the queue
	// model's, in a.Queue, are checked in testdata/queue).
	if al := a.Alone; !near(al.PeakDirtyRatio, 11.0/19, 1e-9) || !near(al.MeanDirtyRatio, 0.37091, 5e-5) || !near(al.MaxCompactionDelaySeconds, 26.8078125, 1e-6) {
		t.Errorf("peak %v mean %v delay %v", al.PeakDirtyRatio, al.MeanDirtyRatio, al.MaxCompactionDelaySeconds)
	}
	if a.Queue == nil || a.PeakDirtyRatio != a.Queue.PeakDirtyRatio || a.ThreadsCurveMeasured {
		t.Errorf("queue %+v, peak %v, curve measured %v", a.Queue, a.PeakDirtyRatio, a.ThreadsCurveMeasured)
	}
	w.Disks = 1
	a, err = AdviseWorkload(w, AdviseOptions{Cores: 8, Calibration: cal})
	if err != nil {
		t.Fatal(err)
	}
	if a.Threads != 1 || !a.FallsBehind || a.ThreadsBound != 1 {
		t.Errorf("one disk: threads %d bound %d behind %v", a.Threads, a.ThreadsBound, a.FallsBehind)
	}
}

// TestCleanSecondsPasses: two passes over a 100-byte clean section and
// chunks of 1000 and 600 bytes, at 100 B/s map build and 50 B/s copy.
// One segment holds the rest (segment.bytes 0 or >= 600):
//
//	pass 1: 1000/100 + (100 + 1000 + 600)/50 = 10 + 34 = 44
//	pass 2: 600/100 + (100 + 600 + 0)/50 = 6 + 14 = 20; total 64
//
// With 200-byte segments the rest (600) spans several: half a segment
// (100) past the end is copied: pass 1 = 10 + (100 + 1000 + 100)/50 = 34;
// total 54. A 24-byte map zero-filled at 12 B/s adds 2 s per pass.
func TestCleanSecondsPasses(t *testing.T) {
	c := &Calibration{MapBuildBytesPerSecond: 100, CopyBytesPerSecond: 50, MapClearBytesPerSecond: 12}
	chunks := []chunk{{Bytes: 1000, Keys: 10}, {Bytes: 600, Keys: 6}}
	if got := c.CleanSeconds(100, chunks, 0, 0); got != 64 {
		t.Errorf("clean seconds %v, want 64", got)
	}
	if got := c.CleanSeconds(100, chunks, 600, 0); got != 64 {
		t.Errorf("clean seconds with 600-byte segments %v, want 64", got)
	}
	if got := c.CleanSeconds(100, chunks, 200, 0); got != 54 {
		t.Errorf("clean seconds with 200-byte segments %v, want 54", got)
	}
	if got := c.CleanSeconds(100, chunks, 200, 24); got != 58 {
		t.Errorf("clean seconds with a 24-byte skimpy map %v, want 58", got)
	}
	if got := Makespan([]float64{5, 3, 3, 1}, 2); got != 6 {
		// thread 0: 5, then 1 at 5 -> 6; thread 1: 3 + 3 = 6.
		t.Errorf("makespan %v, want 6", got)
	}
}

// TestAdviseFromPlan: the plan's largest partition holds 4 distinct dirty
// keys (the datadriven passes case): ceil(4 / 0.9) = 5 entries x 24 =
// 120 bytes, rounded up to 1 MiB; one pass.
func TestAdviseFromPlan(t *testing.T) {
	root := t.TempDir()
	writePartition(t, filepath.Join(root, "t-0"), "ts=1000 a=1 b=2 c=3\nts=2000 a=4 b=~ d=5\nts=3000 e=6")
	p, err := MakePlan(t.Context(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, err := AdviseFromPlan(p, 0, 0, AdviseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a.DedupeBufferBytes != 1<<20 || a.Passes != 1 || a.Inputs["largest_dirty_keys"] != 4 || a.Source != "plan" {
		t.Errorf("advice %+v", a)
	}
	c := engine.DefaultCleanerConfig()
	c.DedupeBufferBytes = 72 // 2 keys per pass
	a, err = AdviseFromPlan(p, 0, 0, AdviseOptions{Cleaner: c})
	if err != nil {
		t.Fatal(err)
	}
	if a.CurrentPasses != 2 {
		t.Errorf("current passes %d, want ceil(4/2) = 2 (the plan was counted with another map)", a.CurrentPasses)
	}
	// Planned with the same 2-key map, the plan's count by Kafka's rule
	// (keys a b c a b d: [a b] [c a] [b d]) is used: 3.
	p, err = MakePlan(t.Context(), root, Options{Cleaner: c})
	if err != nil {
		t.Fatal(err)
	}
	a, err = AdviseFromPlan(p, 0, 0, AdviseOptions{Cleaner: c})
	if err != nil {
		t.Fatal(err)
	}
	if a.CurrentPasses != 3 {
		t.Errorf("current passes %d, want 3 from the plan's count", a.CurrentPasses)
	}
}

// TestAdviseNotesSegmentRolls: only segments below the active one are
// cleanable, so when segment.bytes is more than the dirty bytes of the
// trigger, a clean waits for a roll and the queue's delay and peak exceed
// the closed form, which leaves rolls out: the advice says so. 100,000
// keys of run's default records on one partition: C = D = 12,881,250
// bytes, written at 1e6 B/s: the trigger fills in 12.9 s; a 1 GiB segment
// rolls every 1073.7 s. With 4 MiB segments (below D) there is no note.
func TestAdviseNotesSegmentRolls(t *testing.T) {
	advise := func(segmentBytes int64) *Advice {
		t.Helper()
		w := DefaultWorkload()
		w.Keys, w.Partitions, w.WriteBytesPerSecond, w.SegmentBytes = 100_000, 1, 1e6, segmentBytes
		a, err := AdviseWorkload(w, AdviseOptions{Cores: 1, Calibration: &Calibration{MapBuildBytesPerSecond: 200e6, CopyBytesPerSecond: 100e6}})
		if err != nil {
			t.Fatal(err)
		}
		if a.Inputs["segment_bytes"] != float64(segmentBytes) {
			t.Errorf("inputs %v: want segment_bytes %d", a.Inputs, segmentBytes)
		}
		return a
	}
	rollNote := func(a *Advice) string {
		for _, n := range a.Notes {
			if strings.HasPrefix(n, "segment rolls:") {
				return n
			}
		}
		return ""
	}
	big := advise(1 << 30)
	if big.MaxCompactionDelaySeconds < 1073 || big.MaxCompactionDelaySeconds <= big.MaxCompactionDelayClosedFormSeconds {
		t.Errorf("1 GiB segments: delay %v s, closed form %v s: want at least the 1073.7 s of a roll, above the closed form", big.MaxCompactionDelaySeconds, big.MaxCompactionDelayClosedFormSeconds)
	}
	if n := rollNote(big); !strings.Contains(n, "1073.7 s") || !strings.Contains(n, "12.9 s") {
		t.Errorf("1 GiB segments: note %q, want the roll's 1073.7 s and the trigger's 12.9 s; notes %q", n, big.Notes)
	}
	if n := rollNote(advise(4 << 20)); n != "" {
		t.Errorf("4 MiB segments: note %q, want none", n)
	}
}

// TestCleanerPlanOfSortBuffer: a plan's keys per pass come from the table,
// the dedupe buffer less the map sort buffer: bucket16, 128 MiB, 32 MiB of
// sort buffer, one thread: a 96 MiB table, 6,291,456 slots x 0.9 =
// 5,662,310 keys (7,549,747 with the whole 128 MiB); skimpy (md5, 24
// bytes) ignores the sort buffer: 5,592,405 x 0.9 = 5,033,164.
func TestCleanerPlanOfSortBuffer(t *testing.T) {
	for _, c := range []struct {
		layout offsetmap.LayoutName
		hasher offsetmap.HasherName
		sort   int64
		want   int
	}{
		{offsetmap.LayoutBucket16, offsetmap.HasherXXH3_128, 32 << 20, 5_662_310},
		{offsetmap.LayoutBucket16, offsetmap.HasherXXH3_128, 0, 7_549_747},
		{offsetmap.LayoutSkimpy, offsetmap.HasherMD5, 32 << 20, 5_033_164},
	} {
		cfg := engine.DefaultCleanerConfig()
		cfg.OffsetMap, cfg.Hasher, cfg.MapSortBufferBytes = c.layout, c.hasher, c.sort
		p, err := CleanerPlanOf(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if p.MaxKeysPerPass != c.want {
			t.Errorf("%s, sort buffer %d: %d keys a pass, want %d", c.layout, c.sort, p.MaxKeysPerPass, c.want)
		}
	}
}
