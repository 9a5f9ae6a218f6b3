package engine

import (
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// verdictCleaner returns a cleaner with a 4 MiB map of layout (and a hasher
// it takes) whose SkipDirtyLookups is on when on.
func verdictCleaner(t *testing.T, nowMs int64, layout offsetmap.LayoutName, on bool) *Cleaner {
	t.Helper()
	return fastPathCleaner(t, nowMs, layout, func(cfg *CleanerConfig) { cfg.SkipDirtyLookups = on })
}

// fastPathCleaner returns a cleaner with a 4 MiB map of layout (and a
// hasher it takes), its config changed by set.
func fastPathCleaner(t *testing.T, nowMs int64, layout offsetmap.LayoutName, set func(*CleanerConfig)) *Cleaner {
	t.Helper()
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 4 << 20
	cfg.OffsetMap = layout
	if layout != offsetmap.LayoutSkimpy {
		cfg.Hasher = offsetmap.HasherXXH3_128
	}
	set(&cfg)
	c, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(nowMs)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSkipDirtyLookupsOnFixtures: on every real Kafka partition (headers,
// compression, transactions with aborts and markers, several segments),
// fully dirty, the copy phase deciding the dirty records from the map build
// writes exactly what looking each one up writes, with Kafka's map and with
// bucket16, in the clean that stamps delete horizons and in the one that
// drops the tombstones.
func TestSkipDirtyLookupsOnFixtures(t *testing.T) {
	var skipped int64
	for _, layout := range []offsetmap.LayoutName{offsetmap.LayoutSkimpy, offsetmap.LayoutBucket16} {
		eachFixturePartition(t, string(layout), func(t *testing.T, src string) {
			st := cleanCompared(t, src, fixtureNowMs, "cleans with and without lookups of the dirty records",
				func(t *testing.T, now int64, i int) *Cleaner { return verdictCleaner(t, now, layout, i == 0) })
			skipped += st.LookupsSkipped
		})
	}
	if skipped == 0 {
		t.Error("no record was decided without a lookup: the path is not exercised")
	}
}

// TestParallelLookupsOnFixtures: on every real Kafka partition, with
// bucket16, the copy phase taking its lookups from the goroutine ahead
// (waiting for them, so that every batch it looked up is taken) writes
// exactly what the filter's own lookups write, in the clean that stamps
// delete horizons and in the one that drops the tombstones. (With the
// dirty records decided by the map build, the goroutine has nothing left to
// look up in these fully dirty logs: bench's equivalence tests cover the two
// together.)
func TestParallelLookupsOnFixtures(t *testing.T) {
	var ahead int64
	eachFixturePartition(t, "", func(t *testing.T, src string) {
		st := cleanCompared(t, src, fixtureNowMs, "cleans with lookups ahead and in the filter",
			func(t *testing.T, now int64, i int) *Cleaner {
				c := fastPathCleaner(t, now, offsetmap.LayoutBucket16, func(cfg *CleanerConfig) { cfg.ParallelLookups = i == 0 })
				c.aheadWait = true // every batch the goroutine looked up is taken
				return c
			})
		ahead += st.LookupsAhead
	})
	if ahead == 0 {
		t.Error("no key was looked up ahead: the path is not exercised")
	}
}

// TestParallelLookupsCorruptSegment: a batch damaged after the log was
// opened, in a segment only the copy phase reads, stops the clean with the
// error the filter gives without the goroutine (file and byte position of
// the batch), the log unchanged, and the goroutine gone.
func TestParallelLookupsCorruptSegment(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := filepath.Join(t.TempDir(), "corrupt-0")
	var seg0 [][]byte
	for i := range 8 {
		seg0 = append(seg0, testBatch(t, record.Offset(4*i), base, "A=1", "B=1", "C=1", "D=1"))
	}
	writeTestLog(t, src, nil, seg0,
		[][]byte{testBatch(t, 32, base+10, "A=2", "B=2")},
		[][]byte{testBatch(t, 34, base+20, "F=1")})
	cleanCorrupted(t, src, record.RecordsPos+3, 32, "CRC", func(parallel bool) *Cleaner {
		c := fastPathCleaner(t, base, offsetmap.LayoutBucket16, func(cfg *CleanerConfig) { cfg.ParallelLookups = parallel })
		c.aheadWait = parallel
		return c
	})
}

// TestParallelLookupsWithoutWaiting: the filter not waiting for the
// goroutine (the default), whatever each batch's race, writes what the
// filter's own lookups write; over several cleans of every real fixture.
func TestParallelLookupsWithoutWaiting(t *testing.T) {
	eachFixturePartition(t, "", func(t *testing.T, src string) {
		cleanCompared(t, src, fixtureNowMs, "cleans with lookups ahead (not waited for) and in the filter",
			func(t *testing.T, now int64, i int) *Cleaner {
				return fastPathCleaner(t, now, offsetmap.LayoutBucket16, func(cfg *CleanerConfig) { cfg.ParallelLookups = i == 0 })
			})
	})
}

// TestParallelLookupsBehindReadsOnce: a goroutine that finds itself behind
// the filter at every batch (the filter always one batch ahead of it, as
// on two busy cores) goes on from the filter's batch using the bytes it
// already read: it reads the segment about once (each buffer once, a
// straddling batch again), where starting a new read at the filter's
// position for each batch read a whole buffer per batch.
func TestParallelLookupsBehindReadsOnce(t *testing.T) {
	const base = int64(1_700_000_000_000)
	dir := filepath.Join(t.TempDir(), "behind-0")
	var batches [][]byte
	next := map[int64]int64{} // a batch's position -> the next one's
	var size int64
	for i := range 400 {
		b := testBatch(t, record.Offset(4*i), base, "A=1234567890", "B=1234567890", "C=1234567890", "D=1234567890")
		batches = append(batches, b)
		next[size] = size + int64(len(b))
		size += int64(len(b))
	}
	writeTestLog(t, dir, nil, batches, [][]byte{testBatch(t, 1600, base, "E=1")})
	cfg := DefaultLogConfig()
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	seg := l.Segments()[0]
	if seg.size != size {
		t.Fatalf("segment holds %d bytes, want the %d of its batches", seg.size, size)
	}
	const bufBytes = 8 << 10 // IOBufferBytes 16 KiB: 8 KiB each way
	c := fastPathCleaner(t, base, offsetmap.LayoutBucket16, func(cfg *CleanerConfig) {
		cfg.ParallelLookups = true
		cfg.IOBufferBytes = 2 * bufBytes
	})
	walked := 0
	c.aheadBeforeBatch = func(a *lookupAhead, pos int64) {
		walked++
		if n, ok := next[pos]; ok {
			a.filterPos.Store(n) // the filter is at the next batch already
		}
	}
	a, err := c.startLookupAhead(seg)
	if err != nil || a == nil {
		t.Fatalf("startLookupAhead: %v, %v", a, err)
	}
	<-a.done
	a.close()
	// At batch 0 the filter is at 1: the goroutine jumps there and walks
	// it; then at 2 the filter is at 3, and so on: it stops before the
	// even batches 0..398 and at the end of the file, 201 times.
	if walked != len(batches)/2+1 {
		t.Fatalf("the goroutine stopped before %d batches, want %d", walked, len(batches)/2+1)
	}
	// Each 8 KiB buffer read once, plus the batch cut by each buffer's
	// end read again at the start of the next, less a batch jumped over
	// where a buffer ends: more than half the segment, under size +
	// size/8.
	if got := c.ahead.readBytes; got < size/2 || got > size+size/8 {
		t.Errorf("the goroutine read %d bytes of a %d-byte segment (%d batches, %d-byte buffers): want the segment about once",
			got, size, len(batches), bufBytes)
	}
}
