package results

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"
)

// TestBenchFormatGolden: the benchmark file we write is read by
// golang.org/x/perf/benchfmt, benchstat's own parser, with the names,
// configuration, units and values we meant.
func TestBenchFormatGolden(t *testing.T) {
	modified := true
	env := Environment{
		GOOS: "linux", GOARCH: "amd64", CPUModel: "AMD EPYC 7B13 64-Core Processor", KernelRelease: "6.8.0-45-generic",
		Commit: "0123abcd", CommitModified: &modified,
		DataDir: DataDir{FSType: "xfs", MountOptions: "rw,noatime", Device: "nvme0n1", Model: "Samsung SSD 980"},
	}
	benches := []Benchmark{
		{
			Name:       BenchName("Clean", KV{"keys", "100000"}, KV{"dirty", "0.5"}, KV{"hasher", "md5"}, KV{"dir", "/mnt/a b"}),
			Iterations: 1,
			Metrics: []Metric{
				{1.5e8, UnitNsPerOp}, {95.25, UnitMBps}, {123.5, UnitNsPerKey}, {24, UnitBPerKey}, {1 << 20, UnitDiskReadBPerOp},
			},
		},
		{
			Name:       BenchName("Clean", KV{"keys", "100000"}, KV{"dirty", "0.5"}, KV{"hasher", "xxh3-128"}, KV{"dir", "/mnt/a b"}),
			Iterations: 1,
			Metrics:    []Metric{{1.25e8, UnitNsPerOp}, {114.3, UnitMBps}, {98.25, UnitNsPerKey}, {24, UnitBPerKey}, {0, UnitDiskReadBPerOp}},
		},
	}
	var buf bytes.Buffer
	if err := WriteBench(&buf, BenchConfig(env), benches); err != nil {
		t.Fatal(err)
	}
	r := benchfmt.NewReader(bytes.NewReader(buf.Bytes()), "bench.txt")
	var got []*benchfmt.Result
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			t.Fatalf("benchfmt: %v\n%s", rec, buf.String())
		case *benchfmt.Result:
			got = append(got, rec.Clone())
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("benchfmt read %d results, want 2:\n%s", len(got), buf.String())
	}
	wantConfig := map[string]string{
		"goos": "linux", "goarch": "amd64", "cpu": "AMD EPYC 7B13 64-Core Processor", "kernel": "6.8.0-45-generic",
		"fs": "xfs (rw,noatime)", "device": "nvme0n1 (Samsung SSD 980)", "commit": "0123abcd-dirty",
	}
	for k, v := range wantConfig {
		if g := got[0].GetConfig(k); g != v {
			t.Errorf("config %s = %q, want %q", k, g, v)
		}
	}
	base, parts := got[0].Name.Parts()
	wantParts := []string{"/keys=100000", "/dirty=0.5", "/hasher=md5", "/dir=_mnt_a_b"}
	if string(base) != "Clean" || len(parts) != len(wantParts) {
		t.Fatalf("name %q: base %q, parts %q", got[0].Name, base, parts)
	}
	for i, p := range parts {
		if string(p) != wantParts[i] {
			t.Errorf("name part %d = %q, want %q", i, p, wantParts[i])
		}
	}
	// benchfmt tidies units to base units: ns -> sec, MB/s -> B/s (10^6).
	for i, want := range []map[string]float64{
		{"sec/op": 0.15, "B/s": 95.25e6, "sec/key": 123.5e-9, "B/key": 24, "disk-read-B/op": 1 << 20},
		{"sec/op": 0.125, "B/s": 114.3e6, "sec/key": 98.25e-9, "B/key": 24, "disk-read-B/op": 0},
	} {
		if got[i].Iters != 1 {
			t.Errorf("result %d: %d iterations, want 1", i, got[i].Iters)
		}
		for unit, v := range want {
			g, ok := got[i].Value(unit)
			if !ok || math.Abs(g-v) > 1e-9*math.Max(1, math.Abs(v)) {
				t.Errorf("result %d: %s = %v (present %v), want %v", i, unit, g, ok, v)
			}
		}
	}
	units := r.Units()
	if b := units.GetBetter("disk-read-B/op"); b != -1 {
		t.Errorf("disk-read-B/op better = %d, want -1 (lower is better)", b)
	}
}

func TestBenchNameAndValues(t *testing.T) {
	if got := BenchName("Read", KV{"path", "a/b c"}); got != "BenchmarkRead/path=a_b_c" {
		t.Errorf("BenchName = %q", got)
	}
	for v, want := range map[float64]string{24: "24", 95.25: "95.25", 1234567.8: "1.23457e+06", 0.000123456789: "0.000123457"} {
		if got := formatValue(v); got != want {
			t.Errorf("formatValue(%v) = %q, want %q", v, got, want)
		}
	}
	var buf bytes.Buffer
	WriteBench(&buf, nil, []Benchmark{{Name: "BenchmarkX", Metrics: []Metric{{1, "ns/op"}}}})
	if !strings.HasSuffix(buf.String(), "BenchmarkX 1 1 ns/op\n") {
		t.Errorf("zero iterations are written as 1:\n%s", buf.String())
	}
}

// TestSummarize: a hand-worked sample, 1 2 3 4 10.
func TestSummarize(t *testing.T) {
	s := Summarize([]float64{10, 2, 4, 1, 3})
	// Mean 20/5 = 4; median 3; p95 at rank 0.95 x 4 = 3.8: 4 + 0.8 x (10 - 4)
	// = 8.8; squared deviations 9+4+1+0+36 = 50, / (5-1) = 12.5.
	want := Summary{N: 5, Mean: 4, Median: 3, P95: 8.8, Min: 1, Max: 10, StdDev: math.Sqrt(12.5), CV: math.Sqrt(12.5) / 4}
	if math.Abs(s.P95-want.P95) > 1e-12 || math.Abs(s.StdDev-want.StdDev) > 1e-12 || math.Abs(s.CV-want.CV) > 1e-12 {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	s.P95, s.StdDev, s.CV = want.P95, want.StdDev, want.CV
	if s != want {
		t.Errorf("Summarize = %+v, want %+v", s, want)
	}
	if one := Summarize([]float64{7}); one != (Summary{N: 1, Mean: 7, Median: 7, P95: 7, Min: 7, Max: 7}) {
		t.Errorf("one value: %+v", one)
	}
	if (Summarize(nil) != Summary{}) {
		t.Error("no value: not the zero Summary")
	}
}

// TestCompare: two samples of 5 with no overlap. The Mann-Whitney U test's
// exact p-value for complete separation of 5 and 5 values, two-sided, is
// 2 / C(10, 5) = 2/252 = 0.0079; the medians are 3 and 12: +300%.
func TestCompare(t *testing.T) {
	mk := func(label string, vs ...float64) BenchSet {
		s := BenchSet{Label: label}
		for _, v := range vs {
			s.Benchmarks = append(s.Benchmarks, Benchmark{Name: "BenchmarkClean/keys=1", Iterations: 1, Metrics: []Metric{{v, UnitMBps}}})
		}
		return s
	}
	tables := Compare([]BenchSet{mk("old", 1, 2, 3, 4, 5), mk("new", 10, 11, 12, 13, 14), mk("same", 5, 4, 3, 2, 1)})
	if len(tables) != 1 || tables[0].Unit != UnitMBps || len(tables[0].Rows) != 1 {
		t.Fatalf("tables = %+v", tables)
	}
	cells := tables[0].Rows[0].Cells
	if cells[0].N != 5 || cells[0].Center != 3 || cells[1].Center != 12 {
		t.Errorf("medians %v and %v, want 3 and 12", cells[0].Center, cells[1].Center)
	}
	if math.Abs(cells[1].P-2.0/252) > 1e-9 || cells[1].Delta != "+300.00%" || cells[1].Note != "p=0.008 n=5" {
		t.Errorf("new vs old: p %v delta %q note %q; want p 2/252, +300.00%%, p=0.008 n=5", cells[1].P, cells[1].Delta, cells[1].Note)
	}
	if cells[2].Delta != "~" || cells[2].P != 1 {
		t.Errorf("identical samples: delta %q p %v, want ~ and 1", cells[2].Delta, cells[2].P)
	}
}

func TestSplitByKey(t *testing.T) {
	b := []Benchmark{
		{Name: "BenchmarkClean/keys=1/hasher=md5", Metrics: []Metric{{1, "MB/s"}}},
		{Name: "BenchmarkClean/keys=1/hasher=xxh3", Metrics: []Metric{{2, "MB/s"}}},
		{Name: "BenchmarkClean/keys=2/hasher=md5", Metrics: []Metric{{3, "MB/s"}}},
		{Name: "BenchmarkRead/keys=2", Metrics: []Metric{{4, "MB/s"}}},
	}
	sets := SplitByKey(b, "hasher")
	if len(sets) != 3 || sets[0].Label != "hasher=md5" || sets[1].Label != "hasher=xxh3" || sets[2].Label != "hasher=(none)" {
		t.Fatalf("sets %+v", sets)
	}
	if len(sets[0].Benchmarks) != 2 || sets[0].Benchmarks[1].Name != "BenchmarkClean/keys=2" || sets[1].Benchmarks[0].Name != "BenchmarkClean/keys=1" {
		t.Errorf("md5 set %+v, xxh3 set %+v", sets[0].Benchmarks, sets[1].Benchmarks)
	}
}

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{584.1e6, "ns/op", "584.1ms"}, {1196, "ns/key", "1.196µs"}, {2.5e9, "ns/op", "2.5s"}, {738.3, "ns/key", "738.3ns"},
		{60 << 20, UnitDiskReadBPerOp, "60.0 MiB"}, {107.8, UnitMBps, "102.8"}, // 107.8e6 / 2^20 = 102.8 MiB/s
		{1.5e6, "records/s", "1.5M"}, {24, UnitBPerKey, "24"},
	} {
		if got := FormatValue(c.v, c.unit); got != c.want {
			t.Errorf("FormatValue(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
}

// TestCVAndRangeForOneRun: one repetition has no coefficient of variation
// and no confidence interval; neither is printed as a number or as "± ∞".
func TestCVAndRangeForOneRun(t *testing.T) {
	if got := Summarize([]float64{7}).CVText(); got != "n/a" {
		t.Errorf("CV of one run %q, want n/a", got)
	}
	// 1 2 3 4 10: stddev sqrt(12.5) = 3.5355, mean 4: CV 88.4%.
	if got := Summarize([]float64{10, 2, 4, 1, 3}).CVText(); got != "88.4%" {
		t.Errorf("CV %q, want 88.4%%", got)
	}
	tables := Compare([]BenchSet{
		{Label: "a", Benchmarks: []Benchmark{{Name: "BenchmarkX", Iterations: 1, Metrics: []Metric{{Value: 5, Unit: UnitNsPerOp}}}}},
	})
	if len(tables) != 1 || len(tables[0].Rows) != 1 {
		t.Fatalf("tables %+v", tables)
	}
	r := tables[0].Rows[0].Cells[0].Range
	if strings.Contains(r, "∞") || !strings.Contains(r, "too few values") {
		t.Errorf("range of one value %q", r)
	}
}

// TestSplitByKeyDropsKeysThatFollowTheColumn: a sweep over profiles names
// each run with the hasher and map its profile chose, so without help no row
// pairs across the columns. Worked by hand: hasher and map take one value per
// profile and differ between the profiles, so they leave the names; keys takes
// two values within a profile and stays; cache is the same everywhere and
// stays.
func TestSplitByKeyDropsKeysThatFollowTheColumn(t *testing.T) {
	b := []Benchmark{
		{Name: "BenchmarkClean/keys=1/hasher=xxh3-128/map=bucket16/cache=cold/profile=best", Metrics: []Metric{{1, "MB/s"}}},
		{Name: "BenchmarkClean/keys=2/hasher=xxh3-128/map=bucket16/cache=cold/profile=best", Metrics: []Metric{{2, "MB/s"}}},
		{Name: "BenchmarkClean/keys=1/hasher=md5/map=skimpy/cache=cold/profile=kafka", Metrics: []Metric{{3, "MB/s"}}},
		{Name: "BenchmarkClean/keys=2/hasher=md5/map=skimpy/cache=cold/profile=kafka", Metrics: []Metric{{4, "MB/s"}}},
	}
	sets, dropped := SplitByKeyFollowing(b, "profile", nil)
	if len(sets) != 2 || sets[0].Label != "profile=best" || sets[1].Label != "profile=kafka" {
		t.Fatalf("sets %+v", sets)
	}
	if strings.Join(dropped, ",") != "hasher,map" {
		t.Errorf("dropped %q, want hasher,map", dropped)
	}
	for i, want := range []string{"BenchmarkClean/keys=1/cache=cold", "BenchmarkClean/keys=2/cache=cold"} {
		for s := range sets {
			if got := sets[s].Benchmarks[i].Name; got != want {
				t.Errorf("set %s row %d: %q, want %q", sets[s].Label, i, got, want)
			}
		}
	}
	tables := Compare(sets)
	if len(tables) != 1 || len(tables[0].Rows) != 2 || tables[0].Rows[0].Cells[1].N != 1 {
		t.Errorf("the rows do not pair across profiles: %+v", tables)
	}
	// A key that varies within a column's values is not dropped: here the
	// hasher is swept beside the profile.
	b[1].Name = "BenchmarkClean/keys=1/hasher=md5/map=bucket16/cache=cold/profile=best"
	if _, dropped := SplitByKeyFollowing(b, "profile", nil); strings.Join(dropped, ",") != "map" {
		t.Errorf("hasher swept within a profile: dropped %q, want map", dropped)
	}
}

// TestSplitByKeyKeepsTheWorkload: two files, a best run of 50000 keys and
// a kafka run of 99999 keys, have keys follow the profile by accident; the
// workload is what was measured, so keys stays in the names (the rows do
// not pair) while the map, which the profile chose, leaves them.
func TestSplitByKeyKeepsTheWorkload(t *testing.T) {
	b := []Benchmark{
		{Name: "BenchmarkClean/keys=50000/map=bucket16/profile=best", Metrics: []Metric{{1, "MB/s"}}},
		{Name: "BenchmarkClean/keys=99999/map=skimpy/profile=kafka", Metrics: []Metric{{2, "MB/s"}}},
	}
	sets, dropped := SplitByKeyFollowing(b, "profile", func(k string) bool { return k == "keys" })
	if strings.Join(dropped, ",") != "map" {
		t.Errorf("dropped %q, want map", dropped)
	}
	if len(sets) != 2 || sets[0].Benchmarks[0].Name != "BenchmarkClean/keys=50000" || sets[1].Benchmarks[0].Name != "BenchmarkClean/keys=99999" {
		t.Errorf("sets %+v", sets)
	}
}

// TestSplitByKeyDropsAKeyOnlyOneColumnHas: a sweep of --profile
// kafka,best,kafka-jvm names the kafka-jvm runs with cleaner=kafka-jvm, a
// key our cleaner's runs do not have. Its presence follows the profile
// (absent in every kafka and best name, kafka-jvm in every kafka-jvm
// name), so it leaves the names as the hasher and map do and the three
// columns pair on one row (by hand: keys=1/cache=cold in each set). A key
// present in some names of one column only and not in others of the same
// column varies within it and stays.
func TestSplitByKeyDropsAKeyOnlyOneColumnHas(t *testing.T) {
	b := []Benchmark{
		{Name: "BenchmarkClean/keys=1/hasher=md5/map=skimpy/cache=cold/profile=kafka", Metrics: []Metric{{1, "MB/s"}}},
		{Name: "BenchmarkClean/keys=1/hasher=xxh3-128/map=bucket16/cache=cold/profile=best", Metrics: []Metric{{2, "MB/s"}}},
		{Name: "BenchmarkClean/keys=1/hasher=md5/map=skimpy/cache=cold/profile=kafka-jvm/cleaner=kafka-jvm", Metrics: []Metric{{3, "MB/s"}}},
	}
	sets, dropped := SplitByKeyFollowing(b, "profile", func(k string) bool { return k == "keys" })
	if strings.Join(dropped, ",") != "hasher,map,cleaner" {
		t.Errorf("dropped %q, want hasher,map,cleaner", dropped)
	}
	for _, s := range sets {
		if len(s.Benchmarks) != 1 || s.Benchmarks[0].Name != "BenchmarkClean/keys=1/cache=cold" {
			t.Errorf("set %s: %+v, want one row BenchmarkClean/keys=1/cache=cold", s.Label, s.Benchmarks)
		}
	}
	tables := Compare(sets)
	if len(tables) != 1 || len(tables[0].Rows) != 1 {
		t.Errorf("the rows do not pair across the three profiles: %+v", tables)
	}
	// cleaner in one kafka-jvm name of two: it varies within the column.
	b = append(b, Benchmark{Name: "BenchmarkClean/keys=1/hasher=md5/map=skimpy/cache=cold/profile=kafka-jvm", Metrics: []Metric{{4, "MB/s"}}})
	if _, dropped := SplitByKeyFollowing(b, "profile", nil); strings.Join(dropped, ",") != "hasher,map" {
		t.Errorf("cleaner in one of two kafka-jvm names: dropped %q, want hasher,map", dropped)
	}
}
