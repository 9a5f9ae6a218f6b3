package settings

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// Source is where a setting's value came from. Sources are ordered: a
// later one wins over an earlier one.
type Source int

const (
	// FromDefault: the registry's default.
	FromDefault Source = iota
	// FromServerProperties: a broker's server.properties (or a dynamic
	// broker config), by the setting's Kafka name.
	FromServerProperties
	// FromFile: an experiment file, or a run record.
	FromFile
	// FromFlag: a flag given on the command line.
	FromFlag
)

func (s Source) String() string {
	switch s {
	case FromDefault:
		return "default"
	case FromServerProperties:
		return "server.properties"
	case FromFile:
		return "experiment file"
	case FromFlag:
		return "flag"
	}
	return fmt.Sprintf("source(%d)", int(s))
}

// Given is one value given for a setting.
type Given struct {
	// Key is the setting's name, flag or path.
	Key   string
	Value string
	From  Source
	// Where is "file:line[:col]" or "--flag"; "" when From says enough.
	Where string
}

// Origin says where a resolved setting's value came from.
type Origin struct {
	From  Source
	Where string
	// Value is the value's text (MarshalText of the resolved value).
	Value string
	// Profile is the profile (--profile's value, From and Where its own)
	// that set the value among others; "" when a value was given for the
	// setting itself, or for none (FromDefault).
	Profile string
}

// Given says the value was given for the setting itself, in a layer above
// the defaults: not a default, and not one a profile set among others.
func (o Origin) Given() bool { return o.From != FromDefault && o.Profile == "" }

// Resolve merges values into base (the registry's defaults when the
// caller has no other): every value of a lower Source first, so that
// defaults < server.properties < experiment file < flags given, whatever
// the order of givens; among values of one Source the later wins. It
// returns the result and, by setting Name, where each value came from
// (FromDefault for those nobody gave). A value given for no setting, or
// that does not parse, is an *Error naming the setting and Where; all such
// errors are returned together.
func (r *Registry[R]) Resolve(base R, givens ...Given) (R, map[string]Origin, error) {
	ordered := slices.Clone(givens)
	slices.SortStableFunc(ordered, func(a, b Given) int { return cmp.Compare(a.From, b.From) })
	origins := map[string]Origin{}
	var errs []error
	for _, g := range ordered {
		s, ok := r.Lookup(g.Key)
		if !ok {
			errs = append(errs, &Error{Setting: g.Key, Value: g.Value, Where: g.Where, Err: errors.New("unknown setting")})
			continue
		}
		value := g.Value
		if g.From == FromServerProperties && s.FromKafka != nil {
			v, err := s.FromKafka(value)
			if err != nil {
				errs = append(errs, &Error{Setting: s.Name, Value: g.Value, Where: g.Where, Err: err})
				continue
			}
			value = v
		}
		if err := s.Var(&base).Set(value); err != nil {
			errs = append(errs, &Error{Setting: g.Key, Value: g.Value, Where: g.Where, Err: err})
			continue
		}
		origins[s.Name] = Origin{From: g.From, Where: g.Where}
	}
	for _, s := range r.list {
		o := origins[s.Name]
		o.Value = s.Var(&base).String()
		origins[s.Name] = o
	}
	return base, origins, errors.Join(errs...)
}
