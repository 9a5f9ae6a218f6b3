package results

import (
	"math"
	"strconv"

	"github.com/aclements/go-moremath/stats"
)

// Summary describes the repetitions of one figure, computed with
// github.com/aclements/go-moremath/stats, the statistics library under
// benchstat (golang.org/x/perf/benchmath), which Compare uses too: one
// library for every statistic the lab prints.
type Summary struct {
	// N is the number of repetitions.
	N int `json:"n"`
	// Mean is the arithmetic mean.
	Mean float64 `json:"mean"`
	// Median is the middle value (the mean of the two middle ones for even N).
	Median float64 `json:"median"`
	// P95 is the 95th percentile, interpolated linearly between the two
	// nearest ranks (rank 0.95 x (N-1) of the sorted values; Hyndman and
	// Fan's R7).
	P95 float64 `json:"p95"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// StdDev is the sample standard deviation (divided by N-1); 0 when N < 2.
	StdDev float64 `json:"stddev"`
	// CV is the coefficient of variation, StdDev / |Mean|; 0 when the mean
	// is 0 or N < 2, where it has no meaning: CVText says "n/a" then.
	CV float64 `json:"cv"`
}

// Summarize returns the Summary of xs (the zero Summary when xs is empty).
// xs is not changed.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	s := stats.Sample{Xs: append([]float64(nil), xs...)}
	s.Sort()
	sum := Summary{N: len(xs), Mean: s.Mean(), Median: s.Quantile(0.5)}
	sum.Min, sum.Max = s.Bounds()
	rank := 0.95 * float64(len(s.Xs)-1)
	lo := int(math.Floor(rank))
	hi := min(lo+1, len(s.Xs)-1)
	sum.P95 = s.Xs[lo] + (rank-float64(lo))*(s.Xs[hi]-s.Xs[lo])
	if len(xs) > 1 {
		sum.StdDev = s.StdDev()
		if sum.Mean != 0 {
			sum.CV = sum.StdDev / math.Abs(sum.Mean)
		}
	}
	return sum
}

// Median is Summarize(xs).Median: the middle value of xs (the mean of the
// two middle ones for an even count); 0 for none.
func Median(xs []float64) float64 { return Summarize(xs).Median }

// HasCV says whether CV is a figure: at least two repetitions and a
// non-zero mean.
func (s Summary) HasCV() bool { return s.N > 1 && s.Mean != 0 }

// CVText renders CV in percent with one decimal, "n/a" when !HasCV.
func (s Summary) CVText() string {
	if !s.HasCV() {
		return "n/a"
	}
	return fnum1(100*s.CV) + "%"
}

func fnum1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
