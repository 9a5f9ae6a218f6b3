package steady

import (
	"math"
	"testing"
)

// TestJudgeBoundaries pins each condition of Judge at its boundary, on
// hand-made series (1 s apart, 1000 B/s written, a clean every second, so
// never idle); slopes worked by hand over 9 samples (x - 4 = -4..4,
// sum((x-4)^2) = 60, slope = sum((x-4)y)/60):
//   - growth needs the slope STRICTLY above 10% of the write rate: a line
//     at exactly 100 B/s with thirds apart (first max 200, last min 600)
//     keeps up;
//   - growth needs BOTH tests: a slope of 175 B/s (sum 10500) whose last
//     third's min (500) is below the first third's max (2000) keeps up;
//   - the last third's min must be STRICTLY above the first third's max:
//     slope 200 B/s (sum 12000), both thirds at 1000, keeps up;
//   - late needs MORE than half the samples: 4 of 8 is not late, 5 of 8 is.
func TestJudgeBoundaries(t *testing.T) {
	const w = 1000
	everySecond := func(i int) int64 { return int64(i) }
	for _, c := range []struct {
		name  string
		dirty []int64
	}{
		{"slope exactly 10% of the write rate", []int64{0, 100, 200, 300, 400, 500, 600, 700, 800}},
		{"steep slope, thirds overlap", []int64{0, 1000, 2000, 0, 1000, 2000, 500, 1500, 2500}},
		{"steep slope, last third's min equals first third's max", []int64{0, 500, 1000, 1000, 1500, 2000, 1000, 1500, 2000}},
	} {
		v := Judge(series(2, c.dirty, w, everySecond, 100), math.MaxInt64)
		if !v.Decided || !v.KeepsUp || v.Growing {
			t.Errorf("%s: %+v, want keeps up (not growing)", c.name, v)
		}
	}
	saw := []int64{0, 1000, 2000, 0, 1000, 2000, 0, 1000}
	for late, want := range map[int]bool{4: false, 5: true} {
		s := series(2, saw, w, everySecond, 100)
		for _, x := range Window(s)[:late] {
			x.MaxCompactionDelayMs = 1
		}
		if v := Judge(s, 60_000); v.Late != want || v.KeepsUp == want {
			t.Errorf("%d of 8 samples late: late %v keeps up %v, want late %v", late, v.Late, v.KeepsUp, want)
		}
	}
}
