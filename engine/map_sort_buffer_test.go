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
		// Under offsetmap.SortMinPuts (4,096) a buffer would never sort:
		// none is carved, the table keeps the whole share. 512 KiB - 128
		// = 524,160 bytes caps it at 524,160 / 128 = 4,095 Puts; 131,040
		// bytes asked are 4,095 Puts; 131,072 are 4,096, carved.
		{offsetmap.LayoutBucket16, 524160, 32 << 20, 1, 1 << 20, 0, 0, 524160},
		{offsetmap.LayoutBucket16, 128 << 20, 131040, 1, 8 << 20, 0, 0, 128 << 20},
		{offsetmap.LayoutBucket16, 128 << 20, 131072, 1, 8 << 20, 4096, 131072, 128<<20 - 131072},
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

// TestDedupeBufferBytesForTable: the dedupe buffer whose tables are
// tableBytes each, the sort buffer carved as PerThreadMapSortPuts carves
// it, worked by hand (32 MiB asked unless said):
//
//   - 96 MiB on 1 thread: 96 MiB + the whole 32 MiB, 128 MiB (a quarter);
//   - 96 MiB on 3 threads: 11,184,800 bytes of sort buffer each (349,525
//     Puts), (100,663,296 + 11,184,800) x 3 = 335,544,288;
//   - 16 MiB on 1 thread: 16 + 32 MiB would cap the buffer at a quarter of
//     48 MiB and leave a 36 MiB table; the share S whose capped buffer
//     leaves 16,777,216 is 128 q + r with q = floor(S / 128) Puts carved
//     and 96 q + r = 16,777,216, 0 <= r < 128: q = 174,762, r = 64, S =
//     22,369,600 (q = 174,761 would need r = 160);
//   - 300 KiB on 1 thread: a buffer of 4,096 Puts (128 KiB) needs a share
//     of 512 KiB at least, whose table is 384 KiB, so none fits: 307,200,
//     not 307,200 + 32 MiB;
//   - 384 KiB with 128 KiB (4,096 Puts) on 1 thread: 512 KiB, a quarter;
//   - 1 MiB with 64 KiB asked (2,048 Puts, under 4,096): 1 MiB;
//   - 96 MiB on 7 threads: 33,554,432 / 7 / 32 = 149,796 Puts, 4,793,472
//     bytes each, (100,663,296 + 4,793,472) x 7 = 738,197,376;
//   - 1 MiB on 1 thread: the cap binds, q = ceil((1,048,576 - 127) / 96) =
//     10,922 Puts, 349,504 bytes, a share of 1,398,080 (whose quarter,
//     1,398,080 / 128 = 10,922 Puts, is that buffer); on 2 threads (16 MiB
//     asked each) the same 1,398,080 a thread;
//   - skimpy, 96 MiB on 3 threads: 3 x 96 MiB.
func TestDedupeBufferBytesForTable(t *testing.T) {
	for _, c := range []struct {
		layout      offsetmap.LayoutName
		threads     int
		sort, table int64
		want        int64
	}{
		{offsetmap.LayoutBucket16, 1, 32 << 20, 96 << 20, 128 << 20},
		{offsetmap.LayoutBucket16, 3, 32 << 20, 96 << 20, 335544288},
		{offsetmap.LayoutBucket16, 1, 32 << 20, 16 << 20, 22369600},
		{offsetmap.LayoutBucket16, 1, 32 << 20, 300 << 10, 300 << 10},
		{offsetmap.LayoutBucket16, 1, 128 << 10, 384 << 10, 512 << 10},
		{offsetmap.LayoutBucket16, 1, 64 << 10, 1 << 20, 1 << 20},
		{offsetmap.LayoutBucket16, 7, 32 << 20, 96 << 20, 738197376},
		{offsetmap.LayoutBucket16, 1, 32 << 20, 1 << 20, 1398080},
		{offsetmap.LayoutBucket16, 2, 32 << 20, 1 << 20, 2 * 1398080},
		{offsetmap.LayoutSkimpy, 3, 32 << 20, 96 << 20, 3 * 96 << 20},
	} {
		cfg := DefaultCleanerConfig()
		cfg.OffsetMap, cfg.MapSortBufferBytes, cfg.Threads = c.layout, c.sort, c.threads
		got := cfg.DedupeBufferBytesForTable(c.table)
		if got != c.want {
			t.Errorf("%s, %d threads, sort %d, table %d: %d, want %d", c.layout, c.threads, c.sort, c.table, got, c.want)
		}
		cfg.DedupeBufferBytes = got
		if tb := cfg.PerThreadMapTableBytes(); tb != c.table {
			t.Errorf("%s, %d threads, sort %d: table %d, want %d", c.layout, c.threads, c.sort, tb, c.table)
		}
	}
	// Every table from 0 to 3 MiB in steps of 4,099 bytes, and around 96
	// a (where the quarter cap starts to bind), comes out exact with 32
	// MiB on 1 and 3 threads.
	for _, threads := range []int{1, 3} {
		cfg := DefaultCleanerConfig()
		cfg.OffsetMap, cfg.MapSortBufferBytes, cfg.Threads = offsetmap.LayoutBucket16, 32<<20, threads
		var tables []int64
		for tb := int64(0); tb < 3<<20; tb += 4099 {
			tables = append(tables, tb)
		}
		for _, mid := range []int64{96 << 20, 33554400} { // 96 a, 1 and 3 threads
			for tb := mid - 300; tb < mid+300; tb += 7 {
				tables = append(tables, tb)
			}
		}
		for _, tb := range tables {
			cfg.DedupeBufferBytes = cfg.DedupeBufferBytesForTable(tb)
			if got := cfg.PerThreadMapTableBytes(); got != tb {
				t.Fatalf("%d threads, table %d: dedupe buffer %d gives a table of %d", threads, tb, cfg.DedupeBufferBytes, got)
			}
		}
	}
}

// TestMapSortBufferNotCarvedUnderSortMinPuts: a cleaner whose share of the
// dedupe buffer is 512 KiB - 128 = 524,160 bytes could carve at most
// 524,160 / 128 = 4,095 Puts, fewer than a flush sorts
// (offsetmap.SortMinPuts): its map gets no sort buffer and the whole share,
// 524,160 / 64 = 8,190 buckets, 32,760 slots (not a 393,120-byte table:
// 6,142 buckets, 24,568 slots).
func TestMapSortBufferNotCarvedUnderSortMinPuts(t *testing.T) {
	cfg := DefaultCleanerConfig()
	cfg.OffsetMap, cfg.Hasher = offsetmap.LayoutBucket16, offsetmap.HasherXXH3_128
	cfg.DedupeBufferBytes, cfg.MapSortBufferBytes = 524160, 32<<20
	c, err := NewCleaner(cfg, CleanerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.OffsetMap().(offsetmap.SortBufferer).SortBuffer(); n != 0 || c.OffsetMap().Slots() != 32760 {
		t.Errorf("sort buffer of %d Puts, %d slots; want 0 and 32,760", n, c.OffsetMap().Slots())
	}
}
