package results

import (
	"strings"
	"testing"

	"golang.org/x/perf/benchmath"
)

// TestRangeTextNamesTheRequestedLevel: with too few values for a finite
// interval, the text names the level asked for (CompareConfidence, 95%,
// as the docs and the sweep report say), not benchmath's Summary.Confidence,
// the actual level of the order statistics it picked (above 95%: with 5
// values, 1 - 2 x 2^-5 = 0.9375 is too low, so it reaches past them), and
// says how many values give one: benchmath needs 6 for 95% (the extremes
// of 6 values cover the median with probability 1 - 2 x 2^-6 = 0.969).
func TestRangeTextNamesTheRequestedLevel(t *testing.T) {
	s := benchmath.AssumeNothing.Summary(benchmath.NewSample([]float64{1, 2, 3, 4, 5}, nil), CompareConfidence)
	got := rangeText(s)
	if want := "(no 95% interval: too few values, 6 needed)"; got != want {
		t.Errorf("5 values: %q, want %q", got, want)
	}
	s = benchmath.AssumeNothing.Summary(benchmath.NewSample([]float64{1, 2, 3, 4, 5, 6}, nil), CompareConfidence)
	if got := rangeText(s); !strings.HasPrefix(got, "± ") {
		t.Errorf("6 values: %q, want a ± range", got)
	}
}
