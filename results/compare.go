package results

import (
	"fmt"
	"math"
	"strings"

	"golang.org/x/perf/benchmath"
)

// The comparison of benchmark sets with benchstat's statistics
// (golang.org/x/perf/benchmath, the package benchstat itself uses): for
// each benchmark and unit, the median of the set's values with its
// confidence interval, and, against the first set, the Mann-Whitney U test's
// p-value, with the change of the median when p < alpha ("~" otherwise).
// Like benchstat, it makes no assumption about the distribution.

// CompareConfidence and CompareAlpha are benchstat's defaults.
const (
	CompareConfidence = 0.95
	CompareAlpha      = 0.05
)

// BenchSet is a labelled set of benchmark lines: one column of a
// comparison.
type BenchSet struct {
	Label      string
	Benchmarks []Benchmark
}

// CompareTable compares the sets in one unit.
type CompareTable struct {
	Unit    string       `json:"unit"`
	Columns []string     `json:"columns"`
	Rows    []CompareRow `json:"rows"`
}

// CompareRow is one benchmark name across the sets.
type CompareRow struct {
	Name  string        `json:"name"`
	Cells []CompareCell `json:"cells"`
}

// CompareCell is one set's sample of one benchmark and unit.
type CompareCell struct {
	// N is the number of values (0: the set has no such benchmark).
	N int `json:"n"`
	// Center is the median; Lo and Hi bound its confidence interval.
	Center float64 `json:"center"`
	Lo     float64 `json:"lo"`
	Hi     float64 `json:"hi"`
	// Range is benchstat's "± x%" rendering of the interval.
	Range string `json:"range"`
	// Against the first set (not for the first cell itself): P is the
	// p-value and Delta the change of the median ("~" when P >= alpha, "?"
	// when either set lacks values).
	P     float64 `json:"p,omitempty"`
	Delta string  `json:"delta,omitempty"`
	// Note is benchstat's "p=0.008 n=5" (or "n=5+5").
	Note string `json:"note,omitempty"`
}

// Compare builds one table per unit (in order of first appearance) with a
// row per benchmark name (in order of first appearance over the sets) and a
// cell per set.
func Compare(sets []BenchSet) []CompareTable {
	type key struct{ name, unit string }
	values := make([]map[key][]float64, len(sets))
	var units, names []string
	seenU, seenN := map[string]bool{}, map[string]bool{}
	for i, s := range sets {
		values[i] = map[key][]float64{}
		for _, b := range s.Benchmarks {
			if !seenN[b.Name] {
				seenN[b.Name] = true
				names = append(names, b.Name)
			}
			for _, m := range b.Metrics {
				if !seenU[m.Unit] {
					seenU[m.Unit] = true
					units = append(units, m.Unit)
				}
				k := key{b.Name, m.Unit}
				values[i][k] = append(values[i][k], m.Value)
			}
		}
	}
	labels := make([]string, len(sets))
	for i, s := range sets {
		labels[i] = s.Label
	}
	thresholds := benchmath.DefaultThresholds
	thresholds.CompareAlpha = CompareAlpha
	var tables []CompareTable
	for _, u := range units {
		t := CompareTable{Unit: u, Columns: labels}
		for _, n := range names {
			row := CompareRow{Name: n}
			samples := make([]*benchmath.Sample, len(sets))
			any := false
			for i := range sets {
				vs := values[i][key{n, u}]
				cell := CompareCell{N: len(vs)}
				if len(vs) > 0 {
					any = true
					samples[i] = benchmath.NewSample(append([]float64(nil), vs...), &thresholds)
					sum := benchmath.AssumeNothing.Summary(samples[i], CompareConfidence)
					cell.Center, cell.Lo, cell.Hi = sum.Center, sum.Lo, sum.Hi
					cell.Range = rangeText(sum)
				}
				if i > 0 {
					switch {
					case samples[0] == nil || samples[i] == nil:
						cell.Delta = "?"
					default:
						c := benchmath.AssumeNothing.Compare(samples[0], samples[i])
						cell.P = c.P
						cell.Delta = c.FormatDelta(row.Cells[0].Center, cell.Center)
						cell.Note = c.String()
					}
				}
				row.Cells = append(row.Cells, cell)
			}
			if any {
				t.Rows = append(t.Rows, row)
			}
		}
		tables = append(tables, t)
	}
	return tables
}

// SplitByKey makes one set per value of the name key in benches (in order
// of first appearance), removing "/key=value" from the names so that the
// same benchmark lines up across the sets, as benchstat's -col /key. Lines
// without the key go to a set labelled "key=(none)".
func SplitByKey(benches []Benchmark, key string) []BenchSet {
	var sets []BenchSet
	index := map[string]int{}
	for _, b := range benches {
		value, name := "(none)", b.Name
		parts := strings.Split(b.Name, "/")
		for i, p := range parts {
			if k, v, ok := strings.Cut(p, "="); ok && i > 0 && k == key {
				value = v
				name = strings.Join(append(append([]string(nil), parts[:i]...), parts[i+1:]...), "/")
				break
			}
		}
		label := key + "=" + value
		i, ok := index[label]
		if !ok {
			i = len(sets)
			index[label] = i
			sets = append(sets, BenchSet{Label: label})
		}
		b.Name = name
		sets[i].Benchmarks = append(sets[i].Benchmarks, b)
	}
	return sets
}

// SplitByKeyFollowing is SplitByKey that also removes from the names the
// keys whose value follows the column's: a key that takes one value within
// each set and differs between two sets, its absence from a name counting
// as a value (a sweep over --profile names each run with the hasher and map
// its profile chose, and its kafka-jvm runs alone with cleaner=kafka-jvm,
// so no row would pair across the profiles otherwise). dropped lists those
// keys in the order they first appear in a name; a key that varies within a
// set (present in some of its names only, among others) stays, and so does
// a key that pinned says is what was measured (the workload: runs of two
// workloads never share a row, whatever the column); pinned nil pins none.
func SplitByKeyFollowing(benches []Benchmark, key string, pinned func(key string) bool) (sets []BenchSet, dropped []string) {
	sets = SplitByKey(benches, key)
	if len(sets) < 2 {
		return sets, nil
	}
	var order []string
	known := map[string]bool{}
	perSet := make([]map[string]map[string]bool, len(sets)) // set -> key -> values
	count := make([]map[string]int, len(sets))              // set -> key -> names holding it
	for s, set := range sets {
		perSet[s] = map[string]map[string]bool{}
		count[s] = map[string]int{}
		for _, b := range set.Benchmarks {
			seen := map[string]bool{}
			for i, p := range strings.Split(b.Name, "/") {
				k, v, ok := strings.Cut(p, "=")
				if !ok || i == 0 || seen[k] {
					continue
				}
				seen[k] = true
				if !known[k] {
					known[k] = true
					order = append(order, k)
				}
				count[s][k]++
				if perSet[s][k] == nil {
					perSet[s][k] = map[string]bool{}
				}
				perSet[s][k][v] = true
			}
		}
	}
	// absent is the value of a key a name does not have (benchmark names
	// are text: no value holds a NUL).
	const absent = "\x00absent"
	for s, set := range sets {
		for _, k := range order {
			if count[s][k] < len(set.Benchmarks) {
				if perSet[s][k] == nil {
					perSet[s][k] = map[string]bool{}
				}
				perSet[s][k][absent] = true
			}
		}
	}
	drop := map[string]bool{}
	for _, k := range order {
		if pinned != nil && pinned(k) {
			continue
		}
		follows, first, differs := true, "", false
		for s := range sets {
			if len(perSet[s][k]) != 1 {
				follows = false
				break
			}
			for v := range perSet[s][k] {
				if s == 0 {
					first = v
				} else if v != first {
					differs = true
				}
			}
		}
		if follows && differs {
			drop[k] = true
			dropped = append(dropped, k)
		}
	}
	if len(drop) == 0 {
		return sets, nil
	}
	for s := range sets {
		for j, b := range sets[s].Benchmarks {
			parts := strings.Split(b.Name, "/")
			kept := parts[:1]
			for _, p := range parts[1:] {
				if k, _, ok := strings.Cut(p, "="); ok && drop[k] {
					continue
				}
				kept = append(kept, p)
			}
			sets[s].Benchmarks[j].Name = strings.Join(kept, "/")
		}
	}
	return sets, dropped
}

// FormatValue renders a value of unit for a table: a time per something
// ("ns/op", "ns/key") in the fitting unit of time ("584.1ms"), a byte count
// per something ("disk-read-B/op") in binary units ("60.0 MiB"), anything
// else with FormatFigure.
func FormatValue(v float64, unit string) string {
	switch {
	case unit == UnitMBps:
		return FormatFigure(ToMiBps(v)) // shown in MiB/s (DisplayUnit)
	case strings.HasPrefix(unit, "ns/"):
		a := math.Abs(v)
		switch {
		case a >= 1e9:
			return fmt.Sprintf("%.4gs", v/1e9)
		case a >= 1e6:
			return fmt.Sprintf("%.4gms", v/1e6)
		case a >= 1e3:
			return fmt.Sprintf("%.4gµs", v/1e3)
		}
		return fmt.Sprintf("%.4gns", v)
	case strings.HasSuffix(unit, "B/op") && !strings.Contains(unit, "/s"):
		return FormatBytes(int64(v))
	}
	return FormatFigure(v)
}

// DisplayUnit is the unit a person reads for a benchmark unit: MiB/s for
// go test's MB/s (FormatValue converts the values), the unit itself
// otherwise.
func DisplayUnit(unit string) string {
	if unit == UnitMBps {
		return "MiB/s"
	}
	return unit
}

// FormatFigure renders a value with 4 significant digits and a scale
// suffix (k, M, G) for large values: "95.37", "1.235M".
func FormatFigure(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e12:
		return fmt.Sprintf("%.4gT", v/1e12)
	case a >= 1e9:
		return fmt.Sprintf("%.4gG", v/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.4gM", v/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.4gk", v/1e3)
	}
	return fmt.Sprintf("%.4g", v)
}

// rangeText is benchstat's "± x%" rendering of a summary's confidence
// interval, or, when the sample is too small for one (benchstat's
// "± ∞"), says so instead of printing an infinite range.
// The level named is the one asked for (CompareConfidence), not
// s.Confidence, which is the actual level of the order statistics
// benchmath picked (at least the one asked for, e.g. 97%).
func rangeText(s benchmath.Summary) string {
	none := fmt.Sprintf("(no %.0f%% interval: too few values, %d needed)", 100*CompareConfidence, valuesForInterval(CompareConfidence))
	if math.IsInf(s.Lo, 0) || math.IsInf(s.Hi, 0) || math.IsNaN(s.Lo) || math.IsNaN(s.Hi) {
		return none
	}
	r := s.PctRangeString()
	if strings.Contains(r, "∞") {
		return none
	}
	return "± " + r
}

// valuesForInterval is the fewest values whose median has a finite
// distribution-free interval at level c: the smallest n with the
// extremes covering the median with probability 1 - 2 x 2^-n >= c (6
// for 95%), as benchmath's medianSamples.
func valuesForInterval(c float64) int {
	n := 2
	for n < 50 && 1-2*math.Pow(0.5, float64(n)) < c {
		n++
	}
	return n
}
