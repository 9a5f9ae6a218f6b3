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
// over two cleans. The log: 3 segments of 40 batches of 100 records, keys
// drawn from 12,000 (so a key's records are spread over the log), one in
// ten a tombstone; a 128 KiB map has 8,192 slots, MaxMapEntries 7,372, and
// fills in the first clean: the buffer (capped at the slots, 8,192 Puts)
// holds over 7,000 Puts when the room check first asks the map's exact
// Size, so that flush is sorted (4,096 or more), and the flushes after it,
// near full, are small. The second clean starts where the first stopped.
func TestMapSortBufferCleansAlike(t *testing.T) {
	const (
		base     = int64(1_700_000_000_000)
		mapBytes = 128 << 10
	)
	rng := rand.New(rand.NewPCG(5, 23))
	src := filepath.Join(t.TempDir(), "sorted-0")
	var segs [3][][]byte
	off := 0
	for s := range segs {
		for b := range 40 {
			var specs []string
			for range 100 {
				v := fmt.Sprintf("v%d", off)
				if rng.IntN(10) == 0 {
					v = "null"
				}
				specs = append(specs, fmt.Sprintf("K%05d=%s", rng.IntN(12000), v))
				off++
			}
			segs[s] = append(segs[s], testBatch(t, record.Offset(off-100), base+int64(s*40+b), specs...))
		}
	}
	writeTestLog(t, src, nil, segs[0], segs[1], segs[2], [][]byte{testBatch(t, record.Offset(off), base+200, "K00000=last")})
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
							cc.MapSortBufferBytes = 64 << 20
						}
					})
					sb := c.OffsetMap().(offsetmap.SortBufferer)
					if want := []int{0, c.OffsetMap().Slots()}[i]; sb.SortBuffer() != want {
						t.Fatalf("sort buffer of %d puts, want %d", sb.SortBuffer(), want)
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

// TestPerThreadMapSortPuts: MapSortBufferBytes / Threads / 32 Puts, at most
// the map's slots; 0 when off.
func TestPerThreadMapSortPuts(t *testing.T) {
	for _, c := range []struct {
		bytes        int64
		threads      int
		slots, wants int
	}{
		{32 << 20, 1, 8 << 20, 1 << 20},
		{32 << 20, 2, 8 << 20, 1 << 19},
		{32 << 20, 1, 1000, 1000},
		{0, 1, 8 << 20, 0},
		{31, 1, 8 << 20, 0},
	} {
		cfg := DefaultCleanerConfig()
		cfg.MapSortBufferBytes, cfg.Threads = c.bytes, c.threads
		if got := cfg.PerThreadMapSortPuts(c.slots); got != c.wants {
			t.Errorf("%d bytes, %d threads, %d slots: %d puts, want %d", c.bytes, c.threads, c.slots, got, c.wants)
		}
	}
	cfg := DefaultCleanerConfig()
	cfg.MapSortBufferBytes = -1
	if err := cfg.Validate(); err == nil {
		t.Error("MapSortBufferBytes -1: no error")
	}
}
