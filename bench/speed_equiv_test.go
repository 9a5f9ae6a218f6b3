package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// writeThrough is a map whose every Put is written to the table before the
// next call: it asks Size after each Put, which drains a write-behind map's
// queue (Bucket), so the cleaner sees the map as if Put wrote at once.
type writeThrough struct{ offsetmap.Map }

func (m writeThrough) Put(key []byte, offset int64) {
	m.Map.Put(key, offset)
	m.Map.Size()
}

// TestFastPathsCleanLikeKafka cleans one log with the Kafka profile's map
// (skimpy, md5) and with every faster map path: bucket16 batched (write-
// behind Puts through PutBatch), key by key (write-behind Put), write-
// through (each Put drained at once), prefaulted with huge pages, dense16,
// the best profile's copy loop (look-ahead, write-behind output, the dirty
// records decided from the map build, the other lookups made ahead on a
// second goroutine) with the batched and the key-by-key
// map, without the key scan and with O_DIRECT output, Kafka's map deciding the dirty records
// from the map build, and Kafka's profile walking records with the key
// scan (KeyScan). The head fits every map in one pass, so all must retain the same
// records: the cleaned .log files must be byte for byte Kafka's, with the
// same end offset and map entries. (Maps that fill at different points
// legitimately clean different ranges; TestBatchedLookupsCleanTheSame
// covers the mid-batch stop.)
func TestFastPathsCleanLikeKafka(t *testing.T) {
	build := func(layout, hasher string, prefault bool) offsetmap.Map {
		m, err := offsetmap.New(layout, 8<<20, mustHasher(t, hasher))
		if err != nil {
			t.Fatal(err)
		}
		if prefault {
			if err := m.(offsetmap.Prefaulter).Prefault(); err != nil {
				t.Fatal(err)
			}
		}
		return m
	}
	cases := []struct {
		name string
		m    func() offsetmap.Map
	}{
		{"kafka", func() offsetmap.Map { return build("skimpy", "md5", false) }},
		{"kafka-prefaulted", func() offsetmap.Map { return build("skimpy", "md5", true) }},
		{"bucket16-batched", func() offsetmap.Map { return build("bucket16", "xxh3-128", false) }},
		{"bucket16-key-by-key", func() offsetmap.Map { return unbatched{build("bucket16", "xxh3-128", false)} }},
		{"bucket16-write-through", func() offsetmap.Map { return unbatched{writeThrough{build("bucket16", "xxh3-128", false)}} }},
		{"bucket16-prefaulted", func() offsetmap.Map { return build("bucket16", "xxh3-128", true) }},
		{"dense16", func() offsetmap.Map { return build("dense16", "xxh3-128", false) }},
	}
	// The best profile's copy-loop settings (write-behind) plus the
	// look-ahead, with its map, batched and key by key.
	best := engine.DefaultCleanerConfig()
	if err := best.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	best.LookAhead = true
	var wantDir string
	var wantEnd int64
	var wantEntries int
	type run struct {
		name string
		m    func() offsetmap.Map
		cfg  *engine.CleanerConfig
	}
	var runs []run
	for _, tc := range cases {
		runs = append(runs, run{tc.name, tc.m, nil})
	}
	// Kafka's map with the dirty records decided from the map build.
	skip := engine.DefaultCleanerConfig()
	skip.SkipDirtyLookups = true
	// Kafka's profile with records walked by the key scan alone, and the
	// best profile with every record decoded whole.
	scan := engine.DefaultCleanerConfig()
	scan.KeyScan = true
	bestFull := best
	bestFull.KeyScan = false
	// The best profile's O_DIRECT output on this log too, whose records
	// are under its minimum record size (BestWriteDirectMinRecordBytes)
	// and whose clean is under its minimum clean size
	// (BestWriteDirectMinCleanBytes): neither minimum, so always.
	bestDirect := best
	bestDirect.WriteDirectMinRecordBytes, bestDirect.WriteDirectMinCleanBytes = 0, 0
	runs = append(runs,
		run{"best-profile", func() offsetmap.Map { return build("bucket16", "xxh3-128", true) }, &best},
		run{"best-profile-key-by-key", func() offsetmap.Map { return unbatched{build("bucket16", "xxh3-128", false)} }, &best},
		run{"best-profile-full-decode", func() offsetmap.Map { return build("bucket16", "xxh3-128", true) }, &bestFull},
		run{"best-profile-write-direct", func() offsetmap.Map { return build("bucket16", "xxh3-128", true) }, &bestDirect},
		run{"kafka-map-skip-dirty-lookups", func() offsetmap.Map { return build("skimpy", "md5", false) }, &skip},
		run{"kafka-key-scan", func() offsetmap.Map { return build("skimpy", "md5", false) }, &scan})
	for i, tc := range runs {
		l, truth := generate(t)
		st := cleanWith(t, l, tc.m(), tc.cfg)
		if err := truth.Verify(l, int64(st.CheckpointOffset)); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if st.MapFull {
			t.Fatalf("%s: the map filled; the head must fit every map in one pass", tc.name)
		}
		// A map behind a wrapper (unbatched) cannot record what its Puts
		// overwrote: those runs look every record up.
		if _, recorder := tc.m().(offsetmap.SupersedeRecorder); tc.cfg != nil && tc.cfg.SkipDirtyLookups && recorder && st.LookupsSkipped == 0 {
			t.Errorf("%s: no dirty record decided without a lookup", tc.name)
		}
		// How many keys the ParallelLookups goroutine answered depends on
		// its race with the filter (the filter does not wait for it):
		// engine's tests take the path deterministically.
		if tc.cfg == &bestDirect && (st.IO.WriteDirectBytes == 0 || st.IO.DirectWrittenBytes+st.IO.WriteFallbacks == 0) {
			t.Errorf("%s: O_DIRECT output %d bytes a write, %d bytes written direct, %d fallbacks: the direct path did not run", tc.name, st.IO.WriteDirectBytes, st.IO.DirectWrittenBytes, st.IO.WriteFallbacks)
		}
		if tc.cfg != nil && tc.cfg.ParallelLookups {
			t.Logf("%s: %d keys looked up ahead of the filter", tc.name, st.LookupsAhead)
		}
		if i == 0 {
			wantDir, wantEnd, wantEntries = l.Dir(), int64(st.EndOffset), int(st.MapEntries)
			continue
		}
		if int64(st.EndOffset) != wantEnd || int(st.MapEntries) != wantEntries {
			t.Errorf("%s: end offset %d, map entries %d; Kafka's profile %d, %d",
				tc.name, st.EndOffset, st.MapEntries, wantEnd, wantEntries)
		}
		sameLogFiles(t, tc.name, wantDir, l.Dir())
	}
}

// cleanWith is clean with cleaner config cfg (nil: Kafka's defaults).
func cleanWith(t *testing.T, l *engine.Log, m offsetmap.Map, cfg *engine.CleanerConfig) *engine.CleanStats {
	t.Helper()
	if cfg == nil {
		def := engine.DefaultCleanerConfig()
		cfg = &def
	}
	c, err := engine.NewCleaner(*cfg, engine.CleanerOptions{
		Map: m, FsyncPolicy: "none", Now: func() time.Time { return time.UnixMilli(workloads.DefaultStartTimeMs + 1e9) },
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Clean(l, engine.CleanOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// sameLogFiles fails t unless dirs a and b hold the same .log files, byte for
// byte.
func sameLogFiles(t *testing.T, what, a, b string) {
	t.Helper()
	want, _ := filepath.Glob(filepath.Join(a, "*.log"))
	got, _ := filepath.Glob(filepath.Join(b, "*.log"))
	if len(want) == 0 || len(want) != len(got) {
		t.Fatalf("%s: %d segments, Kafka's profile %d", what, len(got), len(want))
	}
	for _, p := range want {
		x, errA := os.ReadFile(p)
		y, errB := os.ReadFile(filepath.Join(b, filepath.Base(p)))
		if errA != nil || errB != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs from Kafka's profile (%v, %v)", what, filepath.Base(p), errA, errB)
		}
	}
}

// TestWriteBehindFillsLikeWriteThrough: with a map too small for the head,
// the pass ends mid-batch; bucket16's write-behind Puts (batched, or key by
// key, with records decoded whole or walked by the key scan) must end it at
// the same record as Puts written at once, and clean the same bytes.
func TestWriteBehindFillsLikeWriteThrough(t *testing.T) {
	h := mustHasher(t, "xxh3-128")
	variants := []struct {
		name string
		wrap func(offsetmap.Map) offsetmap.Map
	}{
		{"write-through", func(m offsetmap.Map) offsetmap.Map { return unbatched{writeThrough{m}} }},
		{"batched", func(m offsetmap.Map) offsetmap.Map { return m }},
		{"key-by-key", func(m offsetmap.Map) offsetmap.Map { return unbatched{m} }},
		{"batched-skip-dirty-lookups", func(m offsetmap.Map) offsetmap.Map { return m }},
		{"batched-key-scan", func(m offsetmap.Map) offsetmap.Map { return m }},
	}
	var wantDir string
	var wantEnd int64
	for i, v := range variants {
		m, err := offsetmap.New("bucket16", 32<<10, h)
		if err != nil {
			t.Fatal(err)
		}
		l, truth := generate(t)
		var st *engine.CleanStats
		if strings.HasSuffix(v.name, "skip-dirty-lookups") {
			cfg := engine.DefaultCleanerConfig()
			cfg.SkipDirtyLookups = true
			if st = cleanWith(t, l, v.wrap(m), &cfg); st.LookupsSkipped == 0 {
				t.Errorf("%s: no dirty record decided without a lookup", v.name)
			}
		} else if strings.HasSuffix(v.name, "key-scan") {
			cfg := engine.DefaultCleanerConfig()
			cfg.KeyScan = true
			st = cleanWith(t, l, v.wrap(m), &cfg)
		} else {
			st = clean(t, l, v.wrap(m))
		}
		if err := truth.Verify(l, int64(st.CheckpointOffset)); err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if !st.MapFull {
			t.Fatalf("%s: the map did not fill, so the mid-batch stop is not tested", v.name)
		}
		if i == 0 {
			wantDir, wantEnd = l.Dir(), int64(st.EndOffset)
			continue
		}
		if int64(st.EndOffset) != wantEnd {
			t.Errorf("%s: end offset %d, write-through %d", v.name, st.EndOffset, wantEnd)
		}
		sameLogFiles(t, v.name, wantDir, l.Dir())
	}
}

// TestSkipDirtyLookupsUnderCollisions: with a 12-bit digest, where hundreds
// of keys share a digest and the cleaner drops live records, deciding the
// dirty records from the map build drops exactly the records that lookups
// drop (the verdicts are the map's, digest for digest), in Kafka's layout
// and in a dense one.
func TestSkipDirtyLookupsUnderCollisions(t *testing.T) {
	for _, layout := range []string{"skimpy", "dense16"} {
		t.Run("map="+layout, func(t *testing.T) {
			var dirs [2]string
			for i, skip := range []bool{false, true} {
				l, _ := generate(t)
				m, err := offsetmap.New(layout, 1<<20, truncatedMD5{})
				if err != nil {
					t.Fatal(err)
				}
				cfg := engine.DefaultCleanerConfig()
				cfg.SkipDirtyLookups = skip
				st := cleanWith(t, l, m, &cfg)
				if st.MapFull {
					t.Fatal("the map filled: the whole head should fit in one pass")
				}
				if skip && st.LookupsSkipped == 0 {
					t.Error("no dirty record decided without a lookup")
				}
				dirs[i] = l.Dir()
			}
			sameLogFiles(t, "skip-dirty-lookups, 12-bit digests", dirs[0], dirs[1])
		})
	}
}
