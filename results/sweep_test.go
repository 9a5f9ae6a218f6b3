package results

import (
	"encoding/csv"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// testSweep is a sweep of keys (numeric) x hasher (categorical), two
// repetitions each, with throughputs chosen so that the statistics are easy
// to work by hand: point (keys k, hasher h) ran at base(k,h) and base+2 MB/s.
func testSweep() *Sweep {
	s := &Sweep{
		ID: "sweep-20250101-000000-abcdef01", StartedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Duration: 90 * time.Second,
		Axes:  []Axis{{Name: "keys", Values: []string{"1e4", "1e6"}}, {Name: "hasher", Values: []string{"md5", "xxh3-128"}}},
		Count: 2, ShuffleSeed: 1, Base: []KV{{"log-bytes", "8MiB"}},
		Environment: Environment{GOOS: "linux", GOARCH: "amd64", CPUModel: "test cpu"},
	}
	passed := true
	order := 1
	for _, k := range []string{"1e4", "1e6"} {
		for hi, h := range []string{"md5", "xxh3-128"} {
			base := 100.0 + 50*float64(hi)
			if k == "1e6" {
				base /= 2
			}
			p := Point{Params: []KV{{"keys", k}, {"hasher", h}}, Benchmark: BenchName("Clean", KV{"keys", k}, KV{"hasher", h})}
			for rep := 1; rep <= 2; rep++ {
				mb := base + 2*float64(rep-1)
				p.Runs = append(p.Runs, PointRun{Rep: rep, Order: order, ID: "r", Verified: &passed,
					Metrics: []Metric{{1e9 / mb, UnitNsPerOp}, {mb, UnitMBps}}})
				order++
			}
			s.Points = append(s.Points, p)
		}
	}
	// A failed run is recorded but not counted in the statistics.
	s.Points[0].Runs = append(s.Points[0].Runs, PointRun{Rep: 3, Order: 9, Error: "boom"})
	return s
}

func TestSweepWrite(t *testing.T) {
	dir := t.TempDir()
	s := testSweep()
	if err := s.Write(dir); err != nil {
		t.Fatal(err)
	}
	// Statistics: keys=1e4 md5 ran at 100 and 102 MB/s.
	sum, ok := s.Points[0].Summary(UnitMBps)
	if !ok || sum.N != 2 || sum.Median != 101 || sum.Min != 100 || sum.Max != 102 {
		t.Errorf("keys=1e4 md5: %+v", sum)
	}
	if errs, unverified := s.Failures(); errs != 1 || unverified != 0 {
		t.Errorf("failures %d, %d; want 1, 0", errs, unverified)
	}

	back, err := ReadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != s.ID || !reflect.DeepEqual(back.Axes, s.Axes) || len(back.Points) != 4 || len(back.Points[0].Runs) != 3 {
		t.Errorf("sweep.json reads back as %+v", back)
	}

	f, err := os.Open(filepath.Join(dir, SummaryCSVFile))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rows[0], ",") != "keys,hasher,benchmark,unit,n,median,mean,p95,min,max,stddev,cv" || len(rows) != 1+4*2 {
		t.Fatalf("summary.csv: %v", rows)
	}
	// keys=1e6, xxh3-128 at MB/s: (100+50)/2 = 75 and 77.
	found := false
	for _, r := range rows[1:] {
		if r[0] == "1e6" && r[1] == "xxh3-128" && r[3] == UnitMBps {
			found = true
			if r[4] != "2" || r[5] != "76" || r[8] != "75" || r[9] != "77" {
				t.Errorf("summary row %v: want n 2, median 76, min 75, max 77", r)
			}
		}
	}
	if !found {
		t.Error("summary.csv has no row for keys=1e6 xxh3-128 MB/s")
	}

	runsCSV, _ := os.ReadFile(filepath.Join(dir, RunsCSVFile))
	if n := strings.Count(string(runsCSV), "\n"); n != 1+8*2+1 {
		t.Errorf("runs.csv has %d lines, want 18 (header, 8 runs x 2 units, the failed run)", n)
	}
	if !strings.Contains(string(runsCSV), "1e4,md5,3,9,,,boom,,") {
		t.Errorf("runs.csv lacks the failed run:\n%s", runsCSV)
	}

	bench, _ := os.ReadFile(filepath.Join(dir, BenchTxtFile))
	if n := strings.Count(string(bench), "\nBenchmarkClean/"); n != 8 {
		t.Errorf("bench.txt has %d benchmark lines, want 8:\n%s", n, bench)
	}

	// The plot against keys (numeric, spanning 100x: log scale), one line
	// per hasher, as PNG and SVG.
	png1 := filepath.Join(dir, PlotsDir, "throughput-vs-keys.png")
	pf, err := os.Open(png1)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(pf)
	pf.Close()
	if err != nil || img.Bounds().Dx() < 400 {
		t.Fatalf("plot PNG: %v, %v", err, img)
	}
	svg, err := os.ReadFile(filepath.Join(dir, PlotsDir, "throughput-vs-keys.svg"))
	if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "hasher=xxh3-128") {
		t.Errorf("plot SVG lacks the svg element or the legend: %v", err)
	}

	md, _ := os.ReadFile(filepath.Join(dir, SweepReportFile))
	for _, want := range []string{
		"![cleaner throughput vs keys](plots/throughput-vs-keys.png)",
		"| 1e4 | md5 | 96.32 |", // 101 MB/s = 101e6 / 2^20 = 96.32 MiB/s
		"4 points x 2 repetitions = 9 runs",
		"1 failed",
		"Fixed for every point: log-bytes=8MiB.",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, SweepHTMLFile))
	if !strings.Contains(string(html), `<img src="plots/throughput-vs-keys.svg"`) || !strings.Contains(string(html), "<td>1e4</td><td>md5</td>") {
		t.Errorf("report.html lacks the plot or the table:\n%s", html)
	}
}

// TestPlotsCategorical: with no numeric axis, a bar chart against the first
// categorical axis.
func TestPlotsCategorical(t *testing.T) {
	s := testSweep()
	s.Axes = s.Axes[1:]
	for i := range s.Points {
		s.Points[i].Params = s.Points[i].Params[1:]
	}
	s.Points = s.Points[:2]
	s.Summarize()
	plots, err := s.Plots(t.TempDir())
	if err != nil || len(plots) != 1 || plots[0].PNG != "throughput-by-hasher.png" {
		t.Fatalf("plots %+v, %v", plots, err)
	}
}

func TestParseNumber(t *testing.T) {
	for in, want := range map[string]float64{"1e4": 1e4, "0.5": 0.5, "64MiB": 64 << 20, "512KiB": 512 << 10, "2G": 2 << 30} {
		if got, ok := ParseNumber(in); !ok || got != want {
			t.Errorf("ParseNumber(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, bad := range []string{"md5", "", "NaN", "1e4x"} {
		if _, ok := ParseNumber(bad); ok {
			t.Errorf("ParseNumber(%q) accepted", bad)
		}
	}
}
