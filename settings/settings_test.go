package settings

import (
	"errors"
	"strings"
	"testing"
)

// TestUnitsParseAndPrint: each unit's parser, and MarshalText's text
// reads back to the same value.
func TestUnitsParseAndPrint(t *testing.T) {
	var (
		i64 int64
		i   int
		u   uint64
		f   float64
		b   bool
	)
	for _, c := range []struct {
		v        Value
		in, want string // want "" : an error
	}{
		{Bytes(&i64), "64MiB", "67108864"}, {Bytes(&i), "1KiB", "1024"}, {Bytes(&i64), "1e6", "1000000"},
		{Bytes(&i64), "-1", ""}, {Bytes(&i64), "1.5", ""},
		{BytesOrNone(&i64), "-1", "-1"}, {BytesOrNone(&i64), "2KiB", "2048"}, {BytesOrNone(&i64), "-2", ""},
		{Count(&i), "1e6", "1000000"}, {Count(&i64), "-1", "-1"}, {Count(&i), "2.5", ""},
		{Millis(&i64), "60000", "60000"}, {Millis(&i64), "1m", "60000"}, {Millis(&i64), "7h", "25200000"},
		{Millis(&i64), "-1", "-1"}, {Millis(&i64), "1.5ms", ""}, {Millis(&i64), "soon", ""},
		{Unsigned(&u), "18446744073709551615", "18446744073709551615"}, {Unsigned(&u), "1e3", "1000"}, {Unsigned(&u), "-1", ""},
		{Ratio(&f), "0.5", "0.5"}, {Ratio(&f), "1e-6", "1e-06"}, {Ratio(&f), "NaN", ""}, {Ratio(&f), "half", ""},
		{Rate(&f), "50MiB/s", "52428800"}, {Rate(&f), "1048576", "1048576"}, {Rate(&f), "fast", ""},
		{Bool(&b), "true", "true"}, {Bool(&b), "0", "false"}, {Bool(&b), "maybe", ""},
	} {
		err := c.v.Set(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("%s %q: no error", c.v.Type(), c.in)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", c.v.Type(), c.in, err)
			continue
		}
		text, _ := c.v.MarshalText()
		if string(text) != c.want || c.v.String() != c.want {
			t.Errorf("%s %q: text %q, String %q, want %q", c.v.Type(), c.in, text, c.v.String(), c.want)
		}
		if err := c.v.UnmarshalText(text); err != nil {
			t.Errorf("%s: its own text %q does not read back: %v", c.v.Type(), text, err)
		}
	}
}

// TestName: a name field takes one of its choices, "" only when allowed.
func TestName(t *testing.T) {
	var s string
	choices := func() []string { return []string{"a", "b"} }
	if err := Name(&s, "letter", choices).Set("c"); err == nil || !strings.Contains(err.Error(), "valid: a, b") {
		t.Errorf("Set(c): %v", err)
	}
	if err := Name(&s, "letter", choices).Set(""); err == nil {
		t.Error(`Name: "" taken`)
	}
	if err := NameOrEmpty(&s, "letter", choices).Set(""); err != nil {
		t.Errorf(`NameOrEmpty: "": %v`, err)
	}
	if err := Name(&s, "letter", choices).Set("b"); err != nil || s != "b" {
		t.Errorf("Set(b): %v, %q", err, s)
	}
}

type part struct {
	Size  int64
	Ratio float64
}

type whole2 struct {
	Part  part
	Limit float64
}

var partSettings = []Setting[part]{
	{Name: "kafka.size", Kafka: true, Flag: "kafka.size", Aliases: []string{"size"}, Path: "Size", Doc: "a size",
		Var: func(p *part) Value { return Bytes(&p.Size) }},
	{Name: "ratio", Flag: "ratio", Path: "Ratio", Doc: "a ratio", Var: func(p *part) Value { return Ratio(&p.Ratio) }},
}

func testRegistry(t *testing.T) *Registry[whole2] {
	r, err := NewRegistry(func() whole2 { return whole2{Part: part{Size: 10, Ratio: 0.5}} },
		Lift(partSettings, "part.", func(w *whole2) *part { return &w.Part }),
		[]Setting[whole2]{{Name: "kafka.limit", Kafka: true, Flag: "limit", Path: "Limit",
			Var: func(w *whole2) Value { return Rate(&w.Limit) },
			FromKafka: func(s string) (string, error) {
				if s == "max" {
					return "0", nil
				}
				return s, nil
			}}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRegistryLookup: a setting is found by name, flag, alias and lifted
// path; its default is the defaults' value.
func TestRegistryLookup(t *testing.T) {
	r := testRegistry(t)
	for _, key := range []string{"kafka.size", "size", "part.Size"} {
		s, ok := r.Lookup(key)
		if !ok || s.Name != "kafka.size" || s.Path != "part.Size" {
			t.Errorf("Lookup(%q) = %+v, %v", key, s.Name, ok)
		}
	}
	if _, ok := r.Lookup("Size"); ok {
		t.Error(`Lookup("Size"): the unlifted path was found`)
	}
	s, _ := r.Lookup("ratio")
	if d := r.Default(s); d != "0.5" {
		t.Errorf("Default(ratio) = %q", d)
	}
	if _, err := NewRegistry(func() part { return part{} }, partSettings, partSettings[:1]); err == nil {
		t.Error("a setting declared twice was accepted")
	}
}

// TestResolve: defaults < server.properties < experiment file < flags,
// whatever the order given; each value's origin; errors typed and
// located.
func TestResolve(t *testing.T) {
	r := testRegistry(t)
	v, origins, err := r.Resolve(r.Defaults(),
		Given{Key: "size", Value: "3KiB", From: FromFlag, Where: "--size"},
		Given{Key: "part.Size", Value: "2KiB", From: FromFile, Where: "e.yaml:3:9"},
		Given{Key: "kafka.size", Value: "1024", From: FromServerProperties, Where: "server.properties:2"},
		Given{Key: "kafka.limit", Value: "max", From: FromServerProperties, Where: "server.properties:4"},
		Given{Key: "part.Ratio", Value: "0.25", From: FromFile, Where: "e.yaml:4:10"},
	)
	if err != nil {
		t.Fatal(err)
	}
	if v.Part.Size != 3072 || v.Part.Ratio != 0.25 || v.Limit != 0 {
		t.Errorf("resolved %+v", v)
	}
	want := map[string]Origin{
		"kafka.size":  {From: FromFlag, Where: "--size", Value: "3072"},
		"ratio":       {From: FromFile, Where: "e.yaml:4:10", Value: "0.25"},
		"kafka.limit": {From: FromServerProperties, Where: "server.properties:4", Value: "0"},
	}
	for name, o := range want {
		if origins[name] != o {
			t.Errorf("origin of %s = %+v, want %+v", name, origins[name], o)
		}
	}
	_, _, err = r.Resolve(r.Defaults(), Given{Key: "size", Value: "lots", From: FromFlag, Where: "--size"}, Given{Key: "nope", Value: "1", From: FromFile, Where: "e.yaml:1:1"})
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != 2 {
		t.Fatalf("Resolve(bad): %v, want two errors", err)
	}
	var se *Error
	if !errors.As(joined.Unwrap()[1], &se) || se.Setting != "size" || se.Where != "--size" || se.Value != "lots" {
		t.Errorf("Resolve(bad flag): %v", joined.Unwrap()[1])
	}
	if !strings.HasPrefix(joined.Unwrap()[0].Error(), "e.yaml:1:1: nope") {
		t.Errorf("Resolve(unknown): %v", joined.Unwrap()[0])
	}
}
