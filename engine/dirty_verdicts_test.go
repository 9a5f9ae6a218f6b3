package engine

import (
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// verdictCleaner returns a cleaner with a 4 MiB map of layout (and a hasher
// it takes) whose SkipDirtyLookups is on.
func verdictCleaner(t *testing.T, nowMs int64, layout offsetmap.LayoutName, on bool) *Cleaner {
	t.Helper()
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 4 << 20
	cfg.OffsetMap = layout
	if layout != offsetmap.LayoutSkimpy {
		cfg.Hasher = offsetmap.HasherXXH3_128
	}
	cfg.SkipDirtyLookups = on
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
		for _, set := range fixtureSets(t) {
			for _, src := range subdirs(t, set) {
				if len(logFiles(t, src)) == 0 {
					continue
				}
				t.Run(string(layout)+"/"+filepath.Base(set)+"/"+filepath.Base(src), func(t *testing.T) {
					st := cleanCompared(t, src, fixtureNowMs, "cleans with and without lookups of the dirty records",
						func(t *testing.T, now int64, i int) *Cleaner { return verdictCleaner(t, now, layout, i == 0) })
					skipped += st.LookupsSkipped
				})
			}
		}
	}
	if skipped == 0 {
		t.Error("no record was decided without a lookup: the path is not exercised")
	}
}

// TestSkipDirtyLookups works a log by hand. Segment 0 (clean, below the
// first dirty offset 4): A@0 B@1 C@2 D@3. Dirty: A@4 B@5 (tombstone) A@6
// E@7, and the active segment F@8. The map build puts 4, 5, 6, 7 and the
// Put of A@6 overwrites A@4. So without a lookup: 4 goes (superseded), 5
// stays as a tombstone whose horizon is ahead, 6 and 7 stay; below the
// first dirty offset A@0 and B@1 are looked up and go, C@2 and D@3 stay.
func TestSkipDirtyLookups(t *testing.T) {
	const base = int64(1_700_000_000_000)
	dir := filepath.Join(t.TempDir(), "verdicts-0")
	writeTestLog(t, dir, nil,
		[][]byte{testBatch(t, 0, base, "A=1", "B=1", "C=1", "D=1")},
		[][]byte{testBatch(t, 4, base+10, "A=2", "B=null", "A=3", "E=1")},
		[][]byte{testBatch(t, 8, base+20, "F=1")})
	cfg := DefaultLogConfig()
	for _, layout := range []offsetmap.LayoutName{offsetmap.LayoutSkimpy, offsetmap.LayoutDense16, offsetmap.LayoutBucket16} {
		t.Run("layout="+string(layout), func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "verdicts-0")
			copyDir(t, dir, d)
			l, err := Open(d, Options{Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			c := verdictCleaner(t, base+1000, layout, true)
			st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 4})
			if err != nil {
				t.Fatal(err)
			}
			if st.LookupsSkipped != 4 {
				t.Errorf("LookupsSkipped = %d, want 4 (offsets 4 to 7)", st.LookupsSkipped)
			}
			var got []record.Offset
			var dec record.Decoder
			err = l.ReadBatches(0, func(_ *Segment, _ FilePos, b []byte) error {
				h, recs, err := dec.Records(b)
				if err != nil {
					return err
				}
				var r record.Record
				for {
					ok, err := recs.Next(&r)
					if err != nil || !ok {
						return err
					}
					got = append(got, r.Offset(&h))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []record.Offset{2, 3, 5, 6, 7, 8}
			if len(got) != len(want) {
				t.Fatalf("offsets after the clean %v, want %v", got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("offsets after the clean %v, want %v", got, want)
				}
			}
		})
	}
}
