package engine

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// TestMapSortBufferCleansAlike: a bucket16 map holding its Puts in a sort
// buffer (MapSortBufferBytes) cleans exactly as one writing them at once:
// the same files and the same map phase (end offset, full or not, entries,
// bytes and records read, checkpoint, records kept), with the parallel map
// build on and off and the dirty records decided from the build
// (SkipDirtyLookups, which reads the superseded offsets the map records),
// over two cleans. The log (sortBufferLog): 3 segments of 40 batches of
// 250 records, keys drawn from 100,000 (so a key's records are spread over
// the log; about 25,900 distinct), one in ten a tombstone. Both tables are
// 384 KiB, 24,576 slots, MaxMapEntries 22,118: the map with the buffer
// gets a dedupe buffer of 384 KiB + 128 KiB, the buffer taking 4,096 Puts
// x 32 bytes of it (DedupeBufferBytesForTable; a quarter of 512 KiB, the
// cap). The map fills in the first clean: every full buffer (4,096 Puts)
// is written sorted, and the last, when the room check asks the map's
// exact Size, near full, holds what it holds. The second clean starts
// where the first stopped.
func TestMapSortBufferCleansAlike(t *testing.T) {
	const (
		base     = int64(1_700_000_000_000)
		mapBytes = 384 << 10
	)
	src := sortBufferLog(t, base, 100_000, 250)
	for _, ahead := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel-map-build=%v", ahead), func(t *testing.T) {
			var dirs [2]string
			for i := range dirs {
				dirs[i] = filepath.Join(t.TempDir(), "sorted-0")
				copyDir(t, src, dirs[i])
			}
			cfg := DefaultLogConfig()
			for pass, now := range []int64{base, base + cfg.DeleteRetentionMs} {
				var facts [2]string
				var full bool
				for i, dir := range dirs {
					c := fastPathCleaner(t, now, offsetmap.LayoutBucket16, func(cc *CleanerConfig) {
						cc.DedupeBufferBytes = mapBytes
						cc.ParallelMapBuild = ahead
						cc.SkipDirtyLookups = true
						if i == 1 {
							cc.MapSortBufferBytes = 4096 * 32
							cc.DedupeBufferBytes = cc.DedupeBufferBytesForTable(mapBytes)
						}
					})
					sb := c.OffsetMap().(offsetmap.SortBufferer)
					if want := []int{0, 4096}[i]; sb.SortBuffer() != want {
						t.Fatalf("sort buffer of %d puts, want %d", sb.SortBuffer(), want)
					}
					if c.OffsetMap().Slots() != 24576 || c.MaxMapEntries() != 22118 {
						t.Fatalf("%d slots, MaxMapEntries %d; want 24,576 and 22,118", c.OffsetMap().Slots(), c.MaxMapEntries())
					}
					l, err := Open(dir, Options{Config: &cfg})
					if err != nil {
						t.Fatal(err)
					}
					st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: pass == 0, FirstDirtyOffset: 0})
					if err != nil {
						t.Fatal(err)
					}
					facts[i] = mapPhaseFacts(st)
					full = st.MapFull
					if pass == 0 && st.MapEntries < 4096 {
						t.Fatalf("first clean: %d entries; the test wants a first flush of 4,096 or more Puts (sorted)", st.MapEntries)
					}
					if err := l.Close(); err != nil {
						t.Fatal(err)
					}
				}
				if pass == 0 && !full {
					t.Fatal("the first clean did not fill the map: the test does not test the full-map rule")
				}
				if facts[0] != facts[1] {
					t.Fatalf("clean %d: the map builds differ:\n without: %s\n with:    %s", pass+1, facts[0], facts[1])
				}
				if d := diffHashes(logHashes(t, dirs[0]), logHashes(t, dirs[1])); d != "" {
					t.Fatalf("clean %d: cleans without and with the sort buffer differ: %s", pass+1, d)
				}
			}
		})
	}
}

// sortBufferLog writes a log of 3 segments of 40 batches of perBatch
// records (and a last batch of one record, K00000=last, the active
// segment), keys drawn from keys at random (seeded), one in ten a
// tombstone, timestamps from base, and returns its directory.
func sortBufferLog(t *testing.T, base int64, keys, perBatch int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 23))
	src := filepath.Join(t.TempDir(), "sorted-0")
	var segs [3][][]byte
	off := 0
	for s := range segs {
		for b := range 40 {
			var specs []string
			for range perBatch {
				v := fmt.Sprintf("v%d", off)
				if rng.IntN(10) == 0 {
					v = "null"
				}
				specs = append(specs, fmt.Sprintf("K%05d=%s", rng.IntN(keys), v))
				off++
			}
			segs[s] = append(segs[s], testBatch(t, record.Offset(off-perBatch), base+int64(s*40+b), specs...))
		}
	}
	writeTestLog(t, src, nil, segs[0], segs[1], segs[2], [][]byte{testBatch(t, record.Offset(off), base+200, "K00000=last")})
	return src
}

// TestMapSortBufferCarvedCleansAlike: with the same dedupe buffer, a
// bucket16 cleaner whose sort buffer is taken out of it (a smaller table)
// writes the same files and map phase as one without, when every key fits
// both. 512 KiB: without, 32,768 slots, MaxMapEntries 29,491; with a 128
// KiB sort buffer (4,096 Puts, the cap: 512 KiB / 128), a 384 KiB table,
// 24,576 slots, MaxMapEntries 22,118, over the log's 3,000 keys, so no
// clean fills it; the 12,000 records put fill the buffer twice or more,
// and each full buffer (4,096 Puts) is sorted. Two cleans, parallel map build
// on and off.
func TestMapSortBufferCarvedCleansAlike(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := sortBufferLog(t, base, 3000, 100)
	for _, ahead := range []bool{false, true} {
		t.Run(fmt.Sprintf("parallel-map-build=%v", ahead), func(t *testing.T) {
			var dirs [2]string
			for i := range dirs {
				dirs[i] = filepath.Join(t.TempDir(), "sorted-0")
				copyDir(t, src, dirs[i])
			}
			cfg := DefaultLogConfig()
			for pass, now := range []int64{base, base + cfg.DeleteRetentionMs} {
				var facts [2]string
				for i, dir := range dirs {
					c := fastPathCleaner(t, now, offsetmap.LayoutBucket16, func(cc *CleanerConfig) {
						cc.DedupeBufferBytes = 512 << 10
						cc.ParallelMapBuild = ahead
						cc.SkipDirtyLookups = true
						if i == 1 {
							cc.MapSortBufferBytes = 128 << 10
						}
					})
					want := [][3]int{{0, 32768, 29491}, {4096, 24576, 22118}}[i]
					if got := [3]int{c.OffsetMap().(offsetmap.SortBufferer).SortBuffer(), c.OffsetMap().Slots(), c.MaxMapEntries()}; got != want {
						t.Fatalf("sort buffer, slots, MaxMapEntries %v, want %v", got, want)
					}
					l, err := Open(dir, Options{Config: &cfg})
					if err != nil {
						t.Fatal(err)
					}
					st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: pass == 0, FirstDirtyOffset: 0})
					if err != nil {
						t.Fatal(err)
					}
					if st.MapFull {
						t.Fatal("the map filled: the test wants every key to fit")
					}
					if pass == 0 && st.MapMessagesRead < 2*4096 {
						t.Fatalf("first clean: %d records put; the test wants two full, sorted buffers", st.MapMessagesRead)
					}
					facts[i] = mapPhaseFacts(st)
					if err := l.Close(); err != nil {
						t.Fatal(err)
					}
				}
				if facts[0] != facts[1] {
					t.Fatalf("clean %d: the map builds differ:\n without: %s\n with:    %s", pass+1, facts[0], facts[1])
				}
				if d := diffHashes(logHashes(t, dirs[0]), logHashes(t, dirs[1])); d != "" {
					t.Fatalf("clean %d: cleans without and with the carved sort buffer differ: %s", pass+1, d)
				}
			}
		})
	}
}

// TestPerThreadMapSortPuts: a bucket16 map's sort buffer is
// MapSortBufferBytes / Threads / 32 Puts, at most the thread's share of
// the dedupe buffer / 128 (a quarter of it) and the map's slots, taken out
// of the share; 0
// and the whole share for the table when off or for another layout.
// Worked by hand:
//
//   - 128 MiB, 1 thread, 32 MiB: 1,048,576 Puts, 33,554,432 bytes; table
//     96 MiB = 100,663,296 bytes;
//   - 128 MiB, 2 threads, 32 MiB: share 64 MiB, 524,288 Puts (16 MiB),
//     table 48 MiB = 50,331,648;
//   - 128 MiB, 3 threads, 32 MiB: share 44,739,242; 33,554,432 / 3 / 32 =
//     349,525 Puts, 11,184,800 bytes; table 33,554,442;
//   - 1 MiB, 1 thread, 32 MiB: capped at 1,048,576 / 128 = 8,192 Puts,
//     262,144 bytes; table 786,432 (49,152 slots);
//   - 32 bytes less than one Put's 32 (31): 0;
//   - skimpy (Kafka's) with 32 MiB asked: 0, the whole share.
func TestPerThreadMapSortPuts(t *testing.T) {
	for _, c := range []struct {
		layout                offsetmap.LayoutName
		dedupe, bytes         int64
		threads               int
		slots, wants          int
		sortBytes, tableBytes int64
	}{
		{offsetmap.LayoutBucket16, 128 << 20, 32 << 20, 1, 8 << 20, 1 << 20, 32 << 20, 96 << 20},
		{offsetmap.LayoutBucket16, 128 << 20, 32 << 20, 2, 8 << 20, 1 << 19, 16 << 20, 48 << 20},
		{offsetmap.LayoutBucket16, 128 << 20, 32 << 20, 3, 8 << 20, 349525, 11184800, 33554442},
		{offsetmap.LayoutBucket16, 128 << 20, 32 << 20, 1, 1000, 1000, 32 << 20, 96 << 20},
		{offsetmap.LayoutBucket16, 1 << 20, 32 << 20, 1, 1 << 20, 8192, 262144, 786432},
		{offsetmap.LayoutBucket16, 128 << 20, 0, 1, 8 << 20, 0, 0, 128 << 20},
		{offsetmap.LayoutBucket16, 128 << 20, 31, 1, 8 << 20, 0, 0, 128 << 20},
		{offsetmap.LayoutSkimpy, 128 << 20, 32 << 20, 1, 8 << 20, 0, 0, 128 << 20},
	} {
		cfg := DefaultCleanerConfig()
		cfg.OffsetMap, cfg.DedupeBufferBytes, cfg.MapSortBufferBytes, cfg.Threads = c.layout, c.dedupe, c.bytes, c.threads
		if got := cfg.PerThreadMapSortPuts(c.slots); got != c.wants {
			t.Errorf("%s %d, %d bytes, %d threads, %d slots: %d puts, want %d", c.layout, c.dedupe, c.bytes, c.threads, c.slots, got, c.wants)
		}
		if got := cfg.PerThreadMapSortBytes(); got != c.sortBytes {
			t.Errorf("%s %d, %d bytes, %d threads: sort buffer %d bytes, want %d", c.layout, c.dedupe, c.bytes, c.threads, got, c.sortBytes)
		}
		if got := cfg.PerThreadMapTableBytes(); got != c.tableBytes {
			t.Errorf("%s %d, %d bytes, %d threads: table %d bytes, want %d", c.layout, c.dedupe, c.bytes, c.threads, got, c.tableBytes)
		}
	}
	cfg := DefaultCleanerConfig()
	cfg.MapSortBufferBytes = -1
	if err := cfg.Validate(); err == nil {
		t.Error("MapSortBufferBytes -1: no error")
	}
}

// TestDedupeBufferBytesForTable: the dedupe buffer whose tables hold
// tableBytes each besides the sort buffer, worked by hand: 96 MiB with
// 32 MiB on 1 thread, 128 MiB; on 3 threads, 11,184,800 bytes of sort
// buffer each (349,525 Puts), (100,663,296 + 11,184,800) x 3 =
// 335,544,288, whose tables are 100,663,296 again; on 7 threads,
// 33,554,432 / 7 / 32 = 149,796 Puts, 4,793,472 bytes each,
// (100,663,296 + 4,793,472) x 7 = 738,197,376; skimpy, 3 x 96 MiB. Where
// the sort buffer asked is over a third of the table, the cap (a quarter
// of the share) keeps it to a third of the table, so that the table is
// tableBytes and no more: a 1 MiB table with 32 MiB asked on 1 thread gets
// 1,048,576 / 96 = 10,922 Puts, 349,504 bytes, a share of 1,398,080
// (whose quarter, 1,398,080 / 128 = 10,922 Puts, is that buffer); not
// 1 MiB + 32 MiB, whose table would be 24.75 MiB. On 2 threads, 16 MiB
// asked each, the same 1,398,080 a thread.
func TestDedupeBufferBytesForTable(t *testing.T) {
	for _, c := range []struct {
		layout  offsetmap.LayoutName
		threads int
		table   int64
		want    int64
	}{
		{offsetmap.LayoutBucket16, 1, 96 << 20, 128 << 20},
		{offsetmap.LayoutBucket16, 3, 96 << 20, 335544288},
		{offsetmap.LayoutBucket16, 7, 96 << 20, 738197376},
		{offsetmap.LayoutSkimpy, 3, 96 << 20, 3 * 96 << 20},
		{offsetmap.LayoutBucket16, 1, 1 << 20, 1398080},
		{offsetmap.LayoutBucket16, 2, 1 << 20, 2 * 1398080},
	} {
		cfg := DefaultCleanerConfig()
		cfg.OffsetMap, cfg.MapSortBufferBytes, cfg.Threads = c.layout, 32<<20, c.threads
		got := cfg.DedupeBufferBytesForTable(c.table)
		if got != c.want {
			t.Errorf("%s, %d threads, table %d: %d, want %d", c.layout, c.threads, c.table, got, c.want)
		}
		cfg.DedupeBufferBytes = got
		if tb := cfg.PerThreadMapTableBytes(); tb != c.table {
			t.Errorf("%s, %d threads: table %d, want %d", c.layout, c.threads, tb, c.table)
		}
	}
}
