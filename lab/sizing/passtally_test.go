package sizing

import (
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestPassTally: two logs; log 0 takes three passes (map full, map full,
// done) of 1 s, 2 s and 3 s; log 1 one pass of 4 s, then nothing to clean.
// Most passes 3; mean seconds (6 + 4) / 2 = 5.
func TestPassTally(t *testing.T) {
	t0 := time.Unix(0, 0)
	clean := func(secs int, full bool) *engine.CleanStats {
		return &engine.CleanStats{StartTime: t0, EndTime: t0.Add(time.Duration(secs) * time.Second), MapFull: full}
	}
	skipped := &engine.CleanStats{Skipped: "nothing to clean"}
	tally := NewPassTally(2)
	rounds := [][]*engine.CleanStats{
		{clean(1, true), clean(4, false)},
		{clean(2, true), skipped},
		{clean(3, false), skipped},
	}
	for i, r := range rounds {
		if done := tally.Add(r); done != (i == 2) {
			t.Fatalf("round %d: done %v", i, done)
		}
	}
	if p, s := tally.Result(); p != 3 || s != 5 {
		t.Errorf("Result() = %d passes, %g s; want 3, 5", p, s)
	}
	if p, s := NewPassTally(0).Result(); p != 0 || s != 0 {
		t.Errorf("empty: %d, %g", p, s)
	}
}
