package results

import (
	"math"

	"github.com/montanaflynn/stats"
)

// Summary describes the repetitions of one figure: computed with
// github.com/montanaflynn/stats.
type Summary struct {
	// N is the number of repetitions.
	N int `json:"n"`
	// Mean is the arithmetic mean.
	Mean float64 `json:"mean"`
	// Median is the middle value (the mean of the two middle ones for even N).
	Median float64 `json:"median"`
	// P95 is the 95th percentile, interpolated linearly between the two
	// nearest ranks (rank 0.95 x (N-1) of the sorted values).
	P95 float64 `json:"p95"`
	Min float64 `json:"min"`
	Max float64 `json:"max"`
	// StdDev is the sample standard deviation (divided by N-1); 0 when N < 2.
	StdDev float64 `json:"stddev"`
	// CV is the coefficient of variation, StdDev / Mean; 0 when the mean is 0.
	CV float64 `json:"cv"`
}

// Summarize returns the Summary of xs (the zero Summary when xs is empty).
// xs is not changed.
func Summarize(xs []float64) Summary {
	if len(xs) == 0 {
		return Summary{}
	}
	d := stats.Float64Data(xs)
	s := Summary{N: len(xs)}
	s.Mean, _ = stats.Mean(d)
	s.Median, _ = stats.Median(d)
	s.P95, _ = stats.Percentile(d, 95)
	s.Min, _ = stats.Min(d)
	s.Max, _ = stats.Max(d)
	if len(xs) > 1 {
		s.StdDev, _ = stats.StandardDeviationSample(d)
	}
	if s.Mean != 0 {
		s.CV = s.StdDev / math.Abs(s.Mean)
	}
	return s
}
