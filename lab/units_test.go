package lab

import "testing"

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
