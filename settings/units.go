package settings

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The one byte-size and one count parser of every command's flags and of
// experiment files.

// byteSuffixes are the binary units ParseBytes accepts, longest first; K,
// M and G are the same binary units.
var byteSuffixes = []struct {
	suffix string
	mult   float64
}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}

// ParseBytes parses a byte count: a whole number, written in digits or as
// a float that is whole ("1e9", "1.5e6"), optionally followed by KiB, MiB,
// GiB (or K, M, G, binary too) or B: "1048576", "512KiB", "64MiB", "1.5GiB".
// Negative counts, fractions of a byte and counts of 2^62 bytes or more are
// errors.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := 1.0
	for _, u := range byteSuffixes {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	bad := fmt.Errorf("%q is not a byte count (e.g. 1048576, 1e9, 512KiB, 64MiB, 1GiB)", s)
	if v, err := strconv.ParseInt(t, 10, 64); err == nil {
		if v < 0 {
			return 0, bad
		}
		if float64(v)*mult >= 1<<62 {
			return 0, fmt.Errorf("%q is too large", s)
		}
		return v * int64(mult), nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || f < 0 {
		return 0, bad
	}
	f *= mult
	if f >= 1<<62 {
		return 0, fmt.Errorf("%q is too large", s)
	}
	if f != math.Trunc(f) {
		return 0, fmt.Errorf("%q is not a whole number of bytes", s)
	}
	return int64(f), nil
}

// ParseByteRate parses bytes per second: a ParseBytes count with an
// optional "/s": "50MiB/s", "50MiB", "1048576".
func ParseByteRate(s string) (float64, error) {
	v, err := ParseBytes(strings.TrimSuffix(strings.TrimSpace(s), "/s"))
	return float64(v), err
}

// ParseCount parses a whole number, in digits or as a float that is whole
// ("1e6", "2.0"); negative numbers are allowed (a flag's -1 for "none";
// the caller checks the domain).
func ParseCount(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if v, err := strconv.ParseInt(t, 10, 64); err == nil {
		return v, nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if (err == nil || errors.Is(err, strconv.ErrRange)) && !math.IsNaN(f) && f == math.Trunc(f) && (f < math.MinInt64 || f >= math.MaxInt64) {
		return 0, fmt.Errorf("%q is out of range: a count is at most 9223372036854775807 (2^63-1) and at least -2^63", s)
	}
	if err != nil || f != math.Trunc(f) {
		return 0, fmt.Errorf("%q is not a whole number (e.g. 1000000 or 1e6)", s)
	}
	return int64(f), nil
}
