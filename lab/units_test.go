package lab

import (
	"strings"
	"testing"
)

func TestParseBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1048576", 1048576, true}, {"1e9", 1_000_000_000, true}, {"512KiB", 512 * 1024, true},
		{"64MiB", 64 << 20, true}, {"1GiB", 1 << 30, true}, {"1.5GiB", 3 << 29, true}, {"2G", 2 << 30, true},
		{" 7B ", 7, true}, {"0", 0, true},
		{"-1", 0, false}, {"1.5", 0, false}, {"lots", 0, false}, {"64MB", 0, false}, {"4611686018427387904", 0, false}, {"8GiB0", 0, false},
	} {
		got, err := ParseBytes(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseCount(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"1000000", 1000000, true}, {"1e6", 1000000, true}, {"2.0", 2, true}, {"-1", -1, true},
		{"1.5", 0, false}, {"1e19", 0, false}, {"ten", 0, false}, {"64MiB", 0, false},
	} {
		got, err := ParseCount(c.in)
		if (err == nil) != c.ok || (c.ok && got != c.want) {
			t.Errorf("ParseCount(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestSuggest: the closest name within two edits, a swap of neighbours
// counting one.
func TestSuggest(t *testing.T) {
	names := []string{"keep", "keys", "key-bytes", "hasher"}
	for _, c := range []struct{ in, want string }{
		{"kyes", `; did you mean "keys"?`}, {"hashr", `; did you mean "hasher"?`}, {"zzzzzz", ""}, {"kep", `; did you mean "keep"?`},
	} {
		if got := Suggest(c.in, names); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestParseCountTooLarge: a whole number past int64 (2^63 - 1 =
// 9223372036854775807) is said to be too large, not "not a whole number".
func TestParseCountTooLarge(t *testing.T) {
	for _, in := range []string{"1e19", "9223372036854775808", "-1e19"} {
		_, err := ParseCount(in)
		if err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("ParseCount(%q): %v, want an out of range error", in, err)
		}
	}
	if _, err := ParseCount("1.5"); err == nil || !strings.Contains(err.Error(), "not a whole number") {
		t.Errorf("ParseCount(1.5): %v, want not a whole number", err)
	}
}
