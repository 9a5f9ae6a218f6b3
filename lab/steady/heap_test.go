package steady

import "testing"

// TestGCPercentFor: the GOGC that puts the next collection 64 MiB above
// the live heap, worked by hand: 64/128 = 50%; a small heap keeps Go's
// default 100; a 1 GiB heap would need 6.25%, floored at 10.
func TestGCPercentFor(t *testing.T) {
	for _, c := range []struct {
		live, headroom int64
		want           int
	}{
		{128 << 20, 64 << 20, 50},
		{32 << 20, 64 << 20, 100},
		{64 << 20, 64 << 20, 100},
		{1 << 30, 64 << 20, 10},
		{0, 64 << 20, 100},
		{192 << 20, 64 << 20, 33},
	} {
		if got := gcPercentFor(c.live, c.headroom); got != c.want {
			t.Errorf("gcPercentFor(%d, %d) = %d, want %d", c.live, c.headroom, got, c.want)
		}
	}
}
