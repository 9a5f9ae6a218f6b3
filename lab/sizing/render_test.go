package sizing

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
)

func TestWritePlanTable(t *testing.T) {
	pred := 1.5
	total := 2.25
	p := &Plan{
		Dir: "/data", NowMs: 0,
		Cleaner: CleanerPlan{Threads: 2, DedupeBufferBytes: 4 << 20, LoadFactor: 0.9, OffsetMap: "skimpy", Hasher: "md5", EntryBytes: 24, MaxKeysPerPass: 78643},
		Partitions: []Partition{
			{Name: "a-0", Policy: "compact", PolicySource: topicconfig.SourceAssumed, SizeBytes: 2048, CleanBytes: 1024, DirtyBytes: 1024, CleanableRatio: 0.5,
				FirstDirtyOffset: 10, FirstUncleanableOffset: 20, UncleanableBound: "LSO", DirtyKeys: 1000, DirtyKeysEstimate: true, DirtyKeysError: 0.0081,
				TombstoneShare: 0.25, ControlShare: 0.125, Passes: 2, PassesEstimate: true, Order: 1, PredictedCleanSeconds: &pred},
			{Name: "b-0", Policy: "", SizeBytes: 0, NotCleanable: "delete policy"},
		},
		Order:          []string{"a-0"},
		Totals:         Totals{Partitions: 2, Eligible: 1, SizeBytes: 2048, CleanBytes: 1024, DirtyBytes: 1024, DirtyKeys: 1000, DirtyKeysEstimate: true, Passes: 2, PredictedCleanSeconds: &total},
		Warnings:       []string{"w1"},
		PredictedCache: "warm",
	}
	var b bytes.Buffer
	WritePlanTable(&b, p, "cal note")
	got := strings.Split(b.String(), "\n")
	want := []string{
		"plan of /data at 1970-01-01T00:00:00Z (read-only)",
		"cleaner: 2 thread(s), log.cleaner.dedupe.buffer.size 4.0 MiB (2.0 MiB each, skimpy/md5 map, 24 B/entry: 78643 keys per pass at load factor 0.9)",
		"calibration: cal note",
	}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("line %d: got %q, want %q", i, got[i], w)
		}
	}
	// Table rows: columns split on runs of spaces.
	row := strings.Fields(got[4])
	wantRow := []string{"a-0", "compact?", "2.0", "KiB", "1.0", "KiB", "1.0", "KiB", "0.500", "[10,", "20)", "LSO", "~1000", "±0.81%", "25.0%", "12.5%", ">=2", "1", "1.500", "s"}
	if strings.Join(row, "|") != strings.Join(wantRow, "|") {
		t.Errorf("row a-0: got %q, want %q", row, wantRow)
	}
	row = strings.Fields(got[5])
	wantRow = []string{"b-0", `""`, "0", "B", "0", "B", "0", "B", "0.000", "[0,", "0)", "-", "0", "0.0%", "0.0%", "0", "-", "-"}
	if strings.Join(row, "|") != strings.Join(wantRow, "|") {
		t.Errorf("row b-0: got %q, want %q", row, wantRow)
	}
	rest := strings.Join(got[6:], "\n")
	for _, w := range []string{
		"  b-0: delete policy\n",
		"totals: 2 partitions (1 eligible now, 0 uncleanable), 2.0 KiB, 1.0 KiB clean, 1.0 KiB dirty, ~1000 (partly estimated) dirty keys, 2 passes\n",
		"order Kafka's manager would clean them in (filthiest first): a-0\n",
		"predicted clean time of the eligible partitions with 2 thread(s): 2.250 s (a model prediction from the calibration; scope: warm page cache, as the calibration's runs: this and the PREDICTED column assume the segments are read from memory)\n",
		"warning: w1\n",
	} {
		if !strings.Contains(rest, w) {
			t.Errorf("missing %q in\n%s", w, rest)
		}
	}
}

func TestWriteAdviceTableNoCalibration(t *testing.T) {
	a := &Advice{Source: "workload", Layout: "skimpy", DedupeBufferBytes: 2 << 20, Passes: 1, CurrentPasses: 3, Threads: 2, ThreadsReason: "r",
		IOBufferBytes: 4 << 20, Layouts: []LayoutAdvice{{Layout: "skimpy", Hasher: "md5", EntryBytes: 24, DedupeBufferBytes: 2 << 20, MaxKeysPerPass: 100, Passes: 1}},
		Inputs: map[string]float64{"z": 2, "a": 1}, Formulas: []string{"f = 1"}, Notes: []string{"n"}}
	cc := engine.DefaultCleanerConfig()
	var b bytes.Buffer
	WriteAdviceTable(&b, a, cc, "none", nil)
	s := b.String()
	for _, w := range []string{
		"advice from the workload (a MODEL PREDICTION from the inputs below, not a measurement)\n",
		"  log.cleaner.dedupe.buffer.size  2.0 MiB  (skimpy/md5 map, 24 B/entry, 100 keys per pass per thread: 1 pass(es) per clean; now 128.0 MiB gives 3)\n",
		"  log.cleaner.threads             2  (r)\n",
		// 4 MiB over 2 threads x (read + write) = 1 MiB each.
		"  log.cleaner.io.buffer.size      4.0 MiB  (1.0 MiB read + 1.0 MiB write buffer per thread)\n",
		"  clean time per partition        - (none)\n",
		"model inputs:\n  a                            1\n  z                            2\nformulas:\n  f = 1\nnote: n\n",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("missing %q in\n%s", w, s)
		}
	}
	if strings.Contains(s, "max compaction delay") || strings.Contains(s, "validation") {
		t.Errorf("delay or validation shown without them:\n%s", s)
	}
}

func TestWarnKeyless(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	// Two segments: the first (3 records, 2 keyless) is dirty, the second
	// is the active segment.
	writePartition(t, dir, "a=1 =x =y\nb=2")
	var b bytes.Buffer
	WarnKeyless(t.Context(), &b, dir, nil, engine.DefaultCleanerConfig())
	want := "warning: t-0: cleanup.policy is not known (no --server-config, --topic-config, metadata log or --cleanup.policy says it; compact assumed) and 2 keyless records of its dirty section will be deleted by this clean\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	b.Reset()
	WarnKeyless(t.Context(), &b, filepath.Join(dir, "missing"), nil, engine.DefaultCleanerConfig())
	if b.Len() != 0 {
		t.Errorf("a failed plan wrote %q", b.String())
	}
}

// TestKeylessOnlyPlan: the plan clean runs for its keyless warning reads
// the dirty section for its record counts only: no distinct-key set (a
// 1 GiB log of 100-byte values held ~200 MB of key sets and took longer
// than the clean itself), and it reads no partition whose policy is known.
func TestKeylessOnlyPlan(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	writePartition(t, dir, "a=1 =x =y b=3 a=4\nb=2")
	p, err := MakePlan(t.Context(), dir, Options{KeylessOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	pt := p.Partitions[0]
	// Dirty section: a=1, two keyless, b=3, a=4: 5 records, 3 keyed, 2 keyless.
	if pt.DirtyRecords != 5 || pt.DirtyKeyedRecords != 3 || pt.KeylessRecords != 2 {
		t.Errorf("records %d keyed %d keyless %d, want 5 3 2", pt.DirtyRecords, pt.DirtyKeyedRecords, pt.KeylessRecords)
	}
	if pt.DirtyKeys != 0 {
		t.Errorf("keys counted: %d", pt.DirtyKeys)
	}
	full, err := MakePlan(t.Context(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if full.Partitions[0].DirtyKeys != 2 {
		t.Errorf("full plan: %d distinct keys, want 2 (a, b)", full.Partitions[0].DirtyKeys)
	}
	props := filepath.Join(t.TempDir(), "server.properties")
	if err := os.WriteFile(props, []byte("log.cleanup.policy=compact\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := topicconfig.Load(topicconfig.LoadOptions{ServerConfig: props})
	if err != nil {
		t.Fatal(err)
	}
	known, err := MakePlan(t.Context(), dir, Options{KeylessOnly: true, Configs: set})
	if err != nil {
		t.Fatal(err)
	}
	if known.Partitions[0].DirtyRecords != 0 {
		t.Errorf("a partition whose policy is known was read: %d records", known.Partitions[0].DirtyRecords)
	}
}

// TestWriteAdviceTableCleanTimeScope: the clean time comes from a
// calibration measured with the segments in the page cache, and its row
// says so.
func TestWriteAdviceTableCleanTimeScope(t *testing.T) {
	a := &Advice{Source: "workload", Layout: "skimpy", Threads: 1, CleanSeconds: 1.5,
		Layouts: []LayoutAdvice{{Layout: "skimpy", Hasher: "md5", EntryBytes: 24}}}
	cal := &Calibration{MapBuildBytesPerSecond: 200 << 20, CopyBytesPerSecond: 100 << 20, Cache: "warm"}
	var b bytes.Buffer
	WriteAdviceTable(&b, a, engine.DefaultCleanerConfig(), "note", cal)
	want := "  clean time per partition        1.500 s  (scope: warm page cache; calibration: map build 200.0 MiB/s, copy 100.0 MiB/s; note)\n"
	if !strings.Contains(b.String(), want) {
		t.Errorf("missing %q in\n%s", want, b.String())
	}
}

// TestWritePlanTableNamesTheSortBuffer: with a map sort buffer (the best
// profile's 32 MiB, bucket16, one thread of 128 MiB) the header's keys per
// pass come from the table, the share less the buffer: 96 MiB / 16 B x 0.9
// = 5,662,310, not 128 MiB's 7,549,747; the header says so, naming the
// table and the buffer, so its figures add up. Without one it is as
// before.
func TestWritePlanTableNamesTheSortBuffer(t *testing.T) {
	for _, c := range []struct {
		sort int64
		want string
	}{
		{32 << 20, "cleaner: 1 thread(s), log.cleaner.dedupe.buffer.size 128.0 MiB (128.0 MiB each: table 96.0 MiB + map sort buffer 32.0 MiB, bucket16/xxh3-128 map, 16 B/entry: 5662310 keys per pass at load factor 0.9)"},
		{0, "cleaner: 1 thread(s), log.cleaner.dedupe.buffer.size 128.0 MiB (128.0 MiB each, bucket16/xxh3-128 map, 16 B/entry: 7549747 keys per pass at load factor 0.9)"},
	} {
		cfg := engine.DefaultCleanerConfig()
		cfg.OffsetMap, cfg.Hasher, cfg.MapSortBufferBytes = "bucket16", "xxh3-128", c.sort
		cp, err := CleanerPlanOf(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		WritePlanTable(&b, &Plan{Dir: "/data", Cleaner: cp}, "")
		if got := strings.Split(b.String(), "\n")[1]; got != c.want {
			t.Errorf("sort buffer %d:\n got %q\nwant %q", c.sort, got, c.want)
		}
	}
}

// TestWriteAdviceTableNamesTheSortBuffer: advice for bucket16 with the
// best profile's 32 MiB map sort buffer (one thread, 1M keys, the
// hand-worked workload of TestAdviseWorkloadHandWorked) recommends
// 15,379,104 bytes, an 11 MiB table (648,806 keys a pass) and 3,844,768
// bytes of sort buffer; the line says both parts, so that 14.7 MiB / 16 B
// x 0.9 (about 865,000) is not read as the keys a pass.
func TestWriteAdviceTableNamesTheSortBuffer(t *testing.T) {
	w := DefaultWorkload()
	w.Keys, w.Partitions = 1_000_000, 1
	c := engine.DefaultCleanerConfig()
	c.OffsetMap, c.Hasher, c.MapSortBufferBytes = "bucket16", "xxh3-128", 32<<20
	a, err := AdviseWorkload(w, AdviseOptions{Cleaner: c})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	WriteAdviceTable(&b, a, c, "", nil)
	want := "  log.cleaner.dedupe.buffer.size  14.7 MiB  (bucket16/xxh3-128 map, 16 B/entry, per thread table 11.0 MiB + map sort buffer 3.7 MiB, 648806 keys per pass per thread: 1 pass(es) per clean; now 128.0 MiB gives 1)"
	if got := strings.Split(b.String(), "\n")[1]; got != want {
		t.Errorf("\n got %q\nwant %q", got, want)
	}
}
