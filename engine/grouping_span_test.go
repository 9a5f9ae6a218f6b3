package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestGroupingInt32SpanFromGroupStart pins the grouping guard of Kafka's
// LogCleaner.groupSegmentsBySize: a segment joins the group only while its
// estimated last offset (the next segment's base offset - 1, or the first
// uncleanable offset - 1 for the last one) minus the base offset of the
// group's FIRST segment is <= Int.MaxValue (2^31 - 1): a cleaned segment
// stores offsets relative to its base in int32. An empty segment skips the
// check. Hand-worked on segments of sparse offsets (a compacted log) with
// bases far apart; sizes and indexes far below every other limit.
func TestGroupingInt32SpanFromGroupStart(t *testing.T) {
	const big = 1 << 31 // 2^31 = Int.MaxValue + 1
	seg := func(base record.Offset, size int64) *Segment { return &Segment{base: base, size: size} }
	for _, c := range []struct {
		name             string
		segs             []*Segment
		firstUncleanable record.Offset
		want             string
	}{
		// A(0), B(100), C(2^31-50), D(2^31+50), first uncleanable 2^31+60.
		// B: C.base-1 - 0 = 2^31-51 <= max: joins. C: D.base-1 - 0 =
		// 2^31+49 > max: a new group (from B's base it would fit: the span
		// is from the group's first segment). D: 2^31+59 - C.base = 109.
		{"span from the first segment", []*Segment{seg(0, 100), seg(100, 100), seg(big-50, 100), seg(big+50, 100)}, big + 60, "[0 100] [2147483598 2147483698]"},
		// B's estimated last offset is exactly 2^31-1 from A: it joins (<=).
		{"span of exactly Int.MaxValue", []*Segment{seg(0, 100), seg(10, 100), seg(big, 100)}, big + 10, "[0 10] [2147483648]"},
		// One more and it does not.
		{"span of Int.MaxValue + 1", []*Segment{seg(0, 100), seg(10, 100), seg(big+1, 100)}, big + 10, "[0] [10 2147483649]"},
		// An empty next segment joins whatever its span.
		{"empty segment skips the check", []*Segment{seg(0, 100), seg(10, 0), seg(big+100, 100)}, big + 200, "[0 10] [2147483748]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			groups := groupSegmentsBySize(c.segs, math.MaxInt32, math.MaxInt32, c.firstUncleanable)
			got := ""
			for i, g := range groups {
				if i > 0 {
					got += " "
				}
				bases := make([]record.Offset, len(g))
				for j, s := range g {
					bases[j] = s.base
				}
				got += fmt.Sprint(bases)
			}
			if got != c.want {
				t.Errorf("groups %s, want %s", got, c.want)
			}
		})
	}
}
