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
