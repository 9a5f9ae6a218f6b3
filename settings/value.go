package settings

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Unit is what a setting's number counts, or the kind of text it takes.
// It decides the parser: every setting of one unit parses and prints the
// same way, whichever command, file or properties line it comes from.
type Unit string

const (
	// UnitBytes is a byte count (ParseBytes: 1048576, 1e9, 512KiB, 64MiB).
	UnitBytes Unit = "bytes"
	// UnitCount is a whole number of things (ParseCount: 1000000, 1e6).
	UnitCount Unit = "count"
	// UnitMillis is a duration in milliseconds (ParseMillis: 60000, 1e3,
	// or a Go duration of whole milliseconds: 1m, 7h, 250ms); printed in ms.
	UnitMillis Unit = "ms"
	// UnitRatio is a real number, mostly a share in [0, 1] (0.5); the
	// setting's validation states its range.
	UnitRatio Unit = "ratio"
	// UnitRate is bytes per second (ParseByteRate: 50MiB/s, 50MiB, 1048576).
	UnitRate Unit = "bytes/s"
	// UnitEnum is one name out of a list (a hasher, a cache state).
	UnitEnum Unit = "enum"
	// UnitBool is true or false.
	UnitBool Unit = "bool"
	// UnitText is a value of its own form (a size distribution
	// uniform:20-200, a codec, a list of policies).
	UnitText Unit = "text"
)

// A Value is a setting bound to the field it sets: a flag value (pflag's
// String, Set and Type) that also reads and writes its text form
// (encoding.TextUnmarshaler, TextMarshaler), by its unit's one parser.
// MarshalText's text parses back to the same value. Type names the unit
// (or the enum's kind: "hasher", "policy") for a flag's help.
type Value interface {
	String() string
	Set(string) error
	Type() string
	encoding.TextMarshaler
	encoding.TextUnmarshaler
	// Unit is the value's unit.
	Unit() Unit
}

// ParseMillis parses a duration in milliseconds: a whole number
// (ParseCount: 60000, 6e4, -1 where the setting allows it) or a Go
// duration of whole milliseconds (1m, 7h, 250ms).
func ParseMillis(s string) (int64, error) {
	v, err := ParseCount(s)
	if err == nil {
		return v, nil
	}
	d, derr := time.ParseDuration(strings.TrimSpace(s))
	if derr != nil {
		return 0, fmt.Errorf("%q is not a duration in ms (e.g. 60000, 6e4 or 1m)", s)
	}
	if d%time.Millisecond != 0 {
		return 0, fmt.Errorf("%q is not a whole number of milliseconds", s)
	}
	return d.Milliseconds(), nil
}

// parseRatio parses a real number, refusing NaN and infinities.
func parseRatio(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("%q is not a number (e.g. 0.5)", s)
	}
	return f, nil
}

// whole is a Value of a whole-number field of type T.
type whole[T ~int | ~int64] struct {
	p     *T
	unit  Unit
	parse func(string) (int64, error)
	// none: -1 is accepted too, as Kafka's "no limit" (retention.bytes).
	none bool
}

func (w whole[T]) Unit() Unit     { return w.unit }
func (w whole[T]) Type() string   { return string(w.unit) }
func (w whole[T]) String() string { return strconv.FormatInt(int64(*w.p), 10) }
func (w whole[T]) MarshalText() ([]byte, error) {
	return strconv.AppendInt(nil, int64(*w.p), 10), nil
}
func (w whole[T]) UnmarshalText(b []byte) error { return w.Set(string(b)) }
func (w whole[T]) Set(s string) error {
	var v int64
	var err error
	if w.none && strings.TrimSpace(s) == "-1" {
		v = -1
	} else if v, err = w.parse(s); err != nil {
		return err
	}
	if int64(T(v)) != v {
		return fmt.Errorf("%q is out of range", s)
	}
	*w.p = T(v)
	return nil
}

// Bytes binds a byte count field (UnitBytes).
func Bytes[T ~int | ~int64](p *T) Value { return whole[T]{p: p, unit: UnitBytes, parse: ParseBytes} }

// BytesOrNone binds a byte count field where -1 means "no limit"
// (UnitBytes; Kafka's retention.bytes).
func BytesOrNone[T ~int | ~int64](p *T) Value {
	return whole[T]{p: p, unit: UnitBytes, parse: ParseBytes, none: true}
}

// Count binds a whole-number field (UnitCount).
func Count[T ~int | ~int64](p *T) Value { return whole[T]{p: p, unit: UnitCount, parse: ParseCount} }

// Millis binds a duration field in milliseconds (UnitMillis).
func Millis[T ~int | ~int64](p *T) Value { return whole[T]{p: p, unit: UnitMillis, parse: ParseMillis} }

// unsigned is a Value of a uint64 field (a seed).
type unsigned struct{ p *uint64 }

func (u unsigned) Unit() Unit     { return UnitCount }
func (u unsigned) Type() string   { return string(UnitCount) }
func (u unsigned) String() string { return strconv.FormatUint(*u.p, 10) }
func (u unsigned) MarshalText() ([]byte, error) {
	return strconv.AppendUint(nil, *u.p, 10), nil
}
func (u unsigned) UnmarshalText(b []byte) error { return u.Set(string(b)) }
func (u unsigned) Set(s string) error {
	if v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64); err == nil {
		*u.p = v
		return nil
	}
	v, err := ParseCount(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not an unsigned whole number", s)
	}
	*u.p = uint64(v)
	return nil
}

// Unsigned binds an unsigned whole-number field (UnitCount; 1e6 is taken).
func Unsigned(p *uint64) Value { return unsigned{p} }

// real is a Value of a float64 field.
type real[T ~float64] struct {
	p     *T
	unit  Unit
	parse func(string) (float64, error)
}

func (r real[T]) Unit() Unit     { return r.unit }
func (r real[T]) Type() string   { return string(r.unit) }
func (r real[T]) String() string { return string(r.text()) }
func (r real[T]) MarshalText() ([]byte, error) {
	return r.text(), nil
}

// text is the value in digits: a rate in plain digits (52428800), any
// other number in the shortest form that reads back (0.5, 1e-06).
func (r real[T]) text() []byte {
	if r.unit == UnitRate {
		return strconv.AppendFloat(nil, float64(*r.p), 'f', -1, 64)
	}
	return strconv.AppendFloat(nil, float64(*r.p), 'g', -1, 64)
}
func (r real[T]) UnmarshalText(b []byte) error { return r.Set(string(b)) }
func (r real[T]) Set(s string) error {
	v, err := r.parse(s)
	if err != nil {
		return err
	}
	*r.p = T(v)
	return nil
}

// Ratio binds a real-number field (UnitRatio).
func Ratio[T ~float64](p *T) Value { return real[T]{p: p, unit: UnitRatio, parse: parseRatio} }

// Rate binds a bytes-per-second field (UnitRate).
func Rate[T ~float64](p *T) Value { return real[T]{p: p, unit: UnitRate, parse: ParseByteRate} }

// boolean is a Value of a bool field.
type boolean struct{ p *bool }

func (b boolean) Unit() Unit                   { return UnitBool }
func (b boolean) Type() string                 { return "bool" }
func (b boolean) String() string               { return strconv.FormatBool(*b.p) }
func (b boolean) MarshalText() ([]byte, error) { return []byte(b.String()), nil }
func (b boolean) UnmarshalText(t []byte) error { return b.Set(string(t)) }
func (b boolean) IsBoolFlag() bool             { return true }
func (b boolean) Set(s string) error {
	v, err := strconv.ParseBool(strings.TrimSpace(s))
	if err != nil {
		return errors.New("want true or false")
	}
	*b.p = v
	return nil
}

// Bool binds a bool field (UnitBool).
func Bool(p *bool) Value { return boolean{p} }

// TextField is what a field of its own text form implements
// (offsetmap.HasherName, iosched.FsyncPolicy, ...).
type TextField interface {
	encoding.TextMarshaler
	encoding.TextUnmarshaler
}

// text is a Value of a field that parses itself.
type text struct {
	v    TextField
	typ  string
	unit Unit
}

func (t text) Unit() Unit   { return t.unit }
func (t text) Type() string { return t.typ }
func (t text) String() string {
	if t.v == nil || reflect.ValueOf(t.v).IsNil() {
		return ""
	}
	b, err := t.v.MarshalText()
	if err != nil {
		return ""
	}
	return string(b)
}
func (t text) MarshalText() ([]byte, error) { return t.v.MarshalText() }
func (t text) UnmarshalText(b []byte) error { return t.v.UnmarshalText(b) }
func (t text) Set(s string) error           { return t.v.UnmarshalText([]byte(s)) }

// Enum binds a field that parses itself and names one of a list (a hasher,
// a read path): UnitEnum, flag type typ.
func Enum(v TextField, typ string) Value { return text{v: v, typ: typ, unit: UnitEnum} }

// Text binds a field that parses itself (UnitText, flag type typ).
func Text(v TextField, typ string) Value { return text{v: v, typ: typ, unit: UnitText} }

// name is a Value of a string field that names one of choices.
type name struct {
	p       *string
	typ     string
	choices func() []string
	// empty: "" is taken too (the field's "default" form).
	empty bool
}

func (n name) Unit() Unit                   { return UnitEnum }
func (n name) Type() string                 { return n.typ }
func (n name) String() string               { return *n.p }
func (n name) MarshalText() ([]byte, error) { return []byte(*n.p), nil }
func (n name) UnmarshalText(b []byte) error { return n.Set(string(b)) }
func (n name) Set(s string) error {
	if c := n.choices(); !slices.Contains(c, s) && !(n.empty && s == "") {
		return fmt.Errorf("unknown %s %q (valid: %s)", n.typ, s, strings.Join(c, ", "))
	}
	*n.p = s
	return nil
}

// Name binds a string field that must be one of choices() (UnitEnum, flag
// type typ): a typo is an error where it is written, not when a run starts.
func Name(p *string, typ string, choices func() []string) Value {
	return name{p: p, typ: typ, choices: choices}
}

// NameOrEmpty is Name that also takes "" (a field whose empty value means
// its default, written empty so that old records keep their hash).
func NameOrEmpty(p *string, typ string, choices func() []string) Value {
	return name{p: p, typ: typ, choices: choices, empty: true}
}

// funcs is a Value made of functions.
type funcs struct {
	typ  string
	unit Unit
	get  func() string
	set  func(string) error
}

func (f funcs) Unit() Unit                   { return f.unit }
func (f funcs) Type() string                 { return f.typ }
func (f funcs) String() string               { return f.get() }
func (f funcs) MarshalText() ([]byte, error) { return []byte(f.get()), nil }
func (f funcs) UnmarshalText(b []byte) error { return f.set(string(b)) }
func (f funcs) Set(s string) error           { return f.set(s) }

// Func is a Value of unit and flag type typ that reads with get and sets
// with set: for a setting of several fields (segment.bytes of the log and
// the workload, cleanup.policy's two flags) or of a type that is not its
// own text (a codec). get's text must parse back with set.
func Func(typ string, unit Unit, get func() string, set func(string) error) Value {
	return funcs{typ: typ, unit: unit, get: get, set: set}
}

// str is a Value of a plain string field (a path, a list in its own form
// that its command parses).
type str struct{ p *string }

func (s str) Unit() Unit                   { return UnitText }
func (s str) Type() string                 { return "string" }
func (s str) String() string               { return *s.p }
func (s str) MarshalText() ([]byte, error) { return []byte(*s.p), nil }
func (s str) UnmarshalText(b []byte) error { return s.Set(string(b)) }
func (s str) Set(v string) error           { *s.p = v; return nil }

// String binds a string field taken as it is (UnitText, flag type
// "string", as pflag's StringVar): a path, or a value its command parses.
func String(p *string) Value { return str{p} }

// list is a Value of a repeatable flag: each Set appends.
type list struct{ p *[]string }

func (l list) Unit() Unit                   { return UnitText }
func (l list) Type() string                 { return "stringArray" }
func (l list) String() string               { return strings.Join(*l.p, " ") }
func (l list) MarshalText() ([]byte, error) { return []byte(l.String()), nil }
func (l list) UnmarshalText(b []byte) error { return l.Set(string(b)) }
func (l list) Set(v string) error           { *l.p = append(*l.p, v); return nil }

// List binds a []string field of a repeatable flag: each value given is
// appended, as pflag's StringArrayVar (flag type "stringArray").
func List(p *[]string) Value { return list{p} }
