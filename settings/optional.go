package settings

import (
	"fmt"
	"strconv"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// OptionalOffset is a flag of a non-negative offset or time in ms that may
// be left out (--first-dirty-offset, --high-watermark, --now-ms): a
// negative value is refused, naming the flag, rather than read as "not
// given". Flag type "offset".
type OptionalOffset struct {
	v   int64
	set bool
}

func (o *OptionalOffset) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatInt(o.v, 10)
}
func (o *OptionalOffset) Type() string { return "offset" }
func (o *OptionalOffset) Set(s string) error {
	v, err := ParseCount(s)
	if err != nil {
		return err
	}
	if v < 0 {
		return fmt.Errorf("%d is negative: want a value >= 0 (leave the flag out for the default)", v)
	}
	o.v, o.set = v, true
	return nil
}

// Clock is the fixed clock at o ms, or nil (the real clock) when not
// given.
func (o OptionalOffset) Clock() func() time.Time {
	if !o.set {
		return nil
	}
	ms := o.v
	return func() time.Time { return time.UnixMilli(ms) }
}

// Offset is o as a record offset, nil when not given.
func (o OptionalOffset) Offset() *record.Offset {
	if !o.set {
		return nil
	}
	v := record.Offset(o.v)
	return &v
}
