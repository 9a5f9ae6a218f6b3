package settings

import (
	"fmt"
	"strings"
	"time"
)

// UnitDuration is a Go duration of real time ("1m", "10s", "250ms").
const UnitDuration Unit = "duration"

// duration is a Value of a time.Duration field.
type duration struct{ p *time.Duration }

func (d duration) Unit() Unit                   { return UnitDuration }
func (d duration) Type() string                 { return "duration" }
func (d duration) String() string               { return d.p.String() }
func (d duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
func (d duration) UnmarshalText(b []byte) error { return d.Set(string(b)) }
func (d duration) Set(s string) error {
	v, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return fmt.Errorf("%q is not a duration (e.g. 10s, 1m, 250ms)", s)
	}
	*d.p = v
	return nil
}

// Duration binds a time.Duration field (UnitDuration, flag type
// "duration", as pflag's DurationVar).
func Duration(p *time.Duration) Value { return duration{p} }
