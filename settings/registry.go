// Package settings declares each setting of the lab once: its name
// (Kafka's config name where Kafka has one), its flag, the field path of
// the experiment it sets, its unit, its default and its doc line. From
// that one declaration come every command's flag of it (same name, same
// type, same parser), the experiment files' keys, the mapping from a
// broker's server.properties, the `cleanerlab settings` listing and
// docs/settings.md; Resolve merges the sources of a run's values in one
// place and says where each value came from.
//
// Units, values, Registry and Resolve know nothing of the lab; table.go
// declares the settings of the engine's configs and of the workload
// (Cleaner, Log, Workload), which lab.Settings lifts into the experiment's.
// The package uses engine and workloads and is used by lab and
// lab/topicconfig (which maps a broker's configs through it).
package settings

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
)

// Setting is one setting of a struct R (the lab's Experiment, or a part of
// it such as engine.CleanerConfig).
type Setting[R any] struct {
	// Name is the setting's name: Kafka's config name where Kafka has one
	// (segment.bytes, log.cleaner.dedupe.buffer.size), else the lab's flag
	// name (hasher), else its Path.
	Name string
	// Kafka says Name is a Kafka config (a topic config, or a broker config
	// of server.properties).
	Kafka bool
	// Flag is the command-line flag (without --); "" when the setting has
	// none (it is set in experiment files only).
	Flag string
	// Aliases are other flags of the same setting (threads for
	// log.cleaner.threads).
	Aliases []string
	// Path is the field of R that the setting sets, in the names of R's
	// JSON (and of experiment files): struct field names (or json tags)
	// joined by dots, "DedupeBufferBytes", "workload.Keys".
	Path string
	// Doc is one line for a flag's help and the settings listing: what the
	// setting does, its unit and, where it is Kafka's, Kafka's meaning.
	Doc string
	// Var binds the setting to its field in r.
	Var func(r *R) Value
	// Bare, when set, is the value of the flag given alone, without a
	// value (--keep: cleaned); a boolean's is true. "": a value is needed.
	Bare string
	// DefaultText, when set, is the listing's text of a default that
	// depends on the machine ("min(cores, 4)"), so that the listing and
	// docs/settings.md are the same everywhere; "": the default's value.
	DefaultText string
	// FromKafka, when set, turns a value as Kafka's configs write it into
	// the setting's text (Kafka's Double.MaxValue rate "no limit" is 0
	// here); nil: the value is taken as it is.
	FromKafka func(string) (string, error)
}

// Unit is the setting's unit (bound to a zero R).
func (s Setting[R]) Unit() Unit { return s.Var(new(R)).Unit() }

// Flags are the setting's flag and aliases.
func (s Setting[R]) Flags() []string {
	if s.Flag == "" {
		return s.Aliases
	}
	return append([]string{s.Flag}, s.Aliases...)
}

// Lift makes the settings of a part C of R (engine.CleanerConfig in the
// Experiment) settings of R: part finds the part in an R, and prefix (with
// its dot, "cleaner.") is put before each Path.
func Lift[R, C any](sub []Setting[C], prefix string, part func(*R) *C) []Setting[R] {
	out := make([]Setting[R], len(sub))
	for i, s := range sub {
		v := s.Var
		out[i] = Setting[R]{Name: s.Name, Kafka: s.Kafka, Flag: s.Flag, Aliases: s.Aliases, Doc: s.Doc, DefaultText: s.DefaultText, Bare: s.Bare,
			Var: func(r *R) Value { return v(part(r)) }, FromKafka: s.FromKafka}
		if s.Path != "" {
			out[i].Path = prefix + s.Path
		}
	}
	return out
}

// Registry is the settings of R, looked up by name, flag or path.
type Registry[R any] struct {
	list     []Setting[R]
	index    map[string]int
	defaults func() R
}

// NewRegistry makes the registry of settings of R whose defaults are
// those of defaults(). Error: a name, flag or path declared twice, or a
// setting without Name or Var.
func NewRegistry[R any](defaults func() R, list ...[]Setting[R]) (*Registry[R], error) {
	r := &Registry[R]{index: map[string]int{}, defaults: defaults}
	for _, l := range list {
		for _, s := range l {
			if s.Name == "" || s.Var == nil {
				return nil, fmt.Errorf("settings: %q (path %q) needs a Name and a Var", s.Name, s.Path)
			}
			keys := append([]string{s.Name}, s.Flags()...)
			if s.Path != "" {
				keys = append(keys, s.Path)
			}
			slices.Sort(keys)
			for _, k := range slices.Compact(keys) {
				if j, dup := r.index[k]; dup {
					return nil, fmt.Errorf("settings: %q names both %s and %s", k, r.list[j].Name, s.Name)
				}
				r.index[k] = len(r.list)
			}
			r.list = append(r.list, s)
		}
	}
	return r, nil
}

// MustRegistry is NewRegistry for a table declared in the code, which a
// test checks: it panics on an error.
func MustRegistry[R any](defaults func() R, list ...[]Setting[R]) *Registry[R] {
	r, err := NewRegistry(defaults, list...)
	if err != nil {
		panic(err)
	}
	return r
}

// All returns the settings in declaration order.
func (r *Registry[R]) All() []Setting[R] { return slices.Clone(r.list) }

// Lookup finds a setting by its Name, a flag or its Path.
func (r *Registry[R]) Lookup(key string) (Setting[R], bool) {
	i, ok := r.index[key]
	if !ok {
		return Setting[R]{}, false
	}
	return r.list[i], true
}

// Keys are the names, flags and paths Lookup knows, sorted.
func (r *Registry[R]) Keys() []string {
	keys := make([]string, 0, len(r.index))
	for k := range r.index {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Default is the text of s's default value (its DefaultText when set).
func (r *Registry[R]) Default(s Setting[R]) string {
	if s.DefaultText != "" {
		return s.DefaultText
	}
	d := r.defaults()
	return s.Var(&d).String()
}

// Defaults returns the defaults.
func (r *Registry[R]) Defaults() R { return r.defaults() }

// FlagError names the flag of the setting a validation error is about:
// err, when it is (or wraps) an *engine.ConfigError of a setting of r
// that has a flag, becomes "cmd: --flag: " and that error ("generate:
// --keys: workloads: keys -1 out of range ..."), the typed error still
// in its chain; any other error is returned as it is. The flag is the
// one typed: the last of given (FlagsGiven's) that is a flag of the
// setting (--threads for log.cleaner.threads given so), else the
// setting's Flag. The error's type says the setting; no text is read.
func (r *Registry[R]) FlagError(cmd string, err error, given ...Given) error {
	var ce *engine.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	s, ok := r.Lookup(ce.Config)
	if !ok || s.Flag == "" {
		return err
	}
	flag := s.Flag
	for _, g := range given {
		if g.From == FromFlag && slices.Contains(s.Flags(), g.Key) {
			flag = g.Key
		}
	}
	return fmt.Errorf("%s: --%s: %w", cmd, flag, ce)
}

// Set sets the setting key (name, flag or path) of v from its text. The
// error is an *Error.
func (r *Registry[R]) Set(v *R, key, value string) error {
	s, ok := r.Lookup(key)
	if !ok {
		return &Error{Setting: key, Value: value, Err: fmt.Errorf("unknown setting")}
	}
	if err := s.Var(v).Set(value); err != nil {
		return &Error{Setting: key, Value: value, Err: err}
	}
	return nil
}

// Error is a value that does not parse, or that validation refuses, with
// the setting it is of and where it was given.
type Error struct {
	// Setting is the setting's name, flag or path, as it was given.
	Setting string
	// Value is the text given ("" for a validation error of a value that
	// was not given as text).
	Value string
	// Where is "file:line", "file:line:col" or "--flag"; "" when unknown.
	Where string
	// Err is the parser's or the check's error.
	Err error
}

// Error reads "where: setting: "value" is not a valid value: err", the
// setting left out where Where is its flag ("--keys: ..."), and err as
// "(valid: a, b)" when it is a *ChoiceError.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where + ": ")
	}
	if e.Where != "--"+e.Setting {
		b.WriteString(e.Setting + ": ")
	}
	if e.Value != "" {
		fmt.Fprintf(&b, "%q is not a valid value", e.Value)
		if c, ok := e.Err.(*ChoiceError); ok {
			fmt.Fprintf(&b, " (%v)", c)
			return b.String()
		}
		b.WriteString(": ")
	}
	fmt.Fprintf(&b, "%v", e.Err)
	return b.String()
}

// ChoiceError is the Err of an Error whose value is none of Valid, the
// values the setting takes: "valid: a, b, c".
type ChoiceError struct{ Valid []string }

func (e *ChoiceError) Error() string { return "valid: " + strings.Join(e.Valid, ", ") }

func (e *Error) Unwrap() error { return e.Err }

// Flag is a setting of a command's own (not of an experiment): named by
// its flag, with no path, bound by v.
func Flag[R any](flag, doc string, v func(r *R) Value) Setting[R] {
	return Setting[R]{Name: flag, Flag: flag, Doc: doc, Var: v}
}
