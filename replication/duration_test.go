package replication

import (
	"errors"
	"strings"
	"testing"
)

// TestParseDurationMsLimits: a duration longer than MaxDurationMs (100
// years of virtual time) is an error saying so, never a value that
// overflows into a negative number further on; NaN and infinities are
// errors; the longest duration is accepted.
func TestParseDurationMsLimits(t *testing.T) {
	for _, s := range []string{"1e300d", "200000000000d", "9223372036854775807", "2562047h", "36501d", "3153600000001", "NaNd", "+Infd", "Infd"} {
		ms, err := ParseDurationMs(s)
		if err == nil {
			t.Errorf("%q: %d ms, want an error", s, ms)
		} else if strings.Contains(err.Error(), "-") {
			t.Errorf("%q: error %q holds a negative number", s, err)
		}
	}
	for s, want := range map[string]int64{"36500d": 36500 * 86400000, "3153600000000": 3153600000000, "1d": 86400000, "10m": 600000, "0": 0} {
		if ms, err := ParseDurationMs(s); err != nil || ms != want {
			t.Errorf("%q: %d, %v; want %d", s, ms, err, want)
		}
	}
}

// TestParseDurationMsSaysTheUnit: a number without a unit (other than a
// whole number of milliseconds) is an error saying the unit is missing,
// and an unknown unit is named; both list the units taken, as Go's
// time.ParseDuration's (ns, us, ms, s, m, h) and d. Neither speaks of the
// longest duration, which they do not exceed.
func TestParseDurationMsSaysTheUnit(t *testing.T) {
	const units = "ns, us, ms, s, m, h or d"
	for s, want := range map[string]string{
		"1.5":  "no unit",
		"1e3":  "no unit",
		"2s5":  "no unit",
		"5pc":  `unknown unit "pc"`,
		"10x":  `unknown unit "x"`,
		"1d2h": `d is taken alone`,
		"1h2d": `d is taken alone`,
	} {
		_, err := ParseDurationMs(s)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), units) || strings.Contains(err.Error(), "36500d") {
			t.Errorf("%q: %v, want an error saying %s and listing %s, without the longest duration", s, err, want, units)
		}
	}
}

// TestParseDurationMsSaysNegative: a negative duration of any shape (with
// a unit, in days, in milliseconds) is an error saying a duration must be
// >= 0, matching ErrNegativeDuration, not one asking for a duration's
// shape, which it has.
func TestParseDurationMsSaysNegative(t *testing.T) {
	for _, s := range []string{"-5s", "-1d", "-1.5h", "-500ms", "-5", "-1m30s"} {
		_, err := ParseDurationMs(s)
		if err == nil || !strings.Contains(err.Error(), "want a duration >= 0") || !errors.Is(err, ErrNegativeDuration) {
			t.Errorf("%q: %v, want an error saying a duration must be >= 0", s, err)
		}
	}
	for _, s := range []string{"-", "-x", "--5s", "--0", "--0s", "-" + strings.Repeat("-", 1000) + "5s"} {
		if _, err := ParseDurationMs(s); err == nil || errors.Is(err, ErrNegativeDuration) {
			t.Errorf("%q: %v, want an error that is not of a negative duration", s, err)
		}
	}
}

// TestParseDurationMsTakesMinusZero: a zero written with a minus sign
// ("-0s", "-0d", "-0.0ms") is 0, as Go's time.ParseDuration reads "-0s"
// and as ParseDurationMs reads "-0": it is not below 0, so it is not
// ErrNegativeDuration. A negative duration under a millisecond ("-500us")
// still is one, and so is -Infd (an infinity, not a zero).
func TestParseDurationMsTakesMinusZero(t *testing.T) {
	for _, s := range []string{"-0", "-0s", "-0d", "-0ms", "-0.0s", "-0h0m"} {
		if ms, err := ParseDurationMs(s); err != nil || ms != 0 {
			t.Errorf("%q: %d, %v; want 0", s, ms, err)
		}
	}
	for _, s := range []string{"-500us", "-0.5ms", "-1ns", "-Infd", "-0.1d"} {
		if _, err := ParseDurationMs(s); !errors.Is(err, ErrNegativeDuration) {
			t.Errorf("%q: %v, want ErrNegativeDuration", s, err)
		}
	}
}
