package settings

import (
	"slices"
	"sync/atomic"

	"github.com/spf13/pflag"
)

// Bind declares, on fs, a flag for each setting of list that has one (its
// Flag, and each alias "the same as --Flag"), bound to its field in r, with
// its doc line as usage: the one binder of every command, so that a flag
// has the same name, type and parser in every command that has it. A
// flag given alone means its Bare value (a boolean's: true, --verify). The flags given are recorded
// as typed, in the command line's order (FlagsGiven).
func Bind[R any](fs *pflag.FlagSet, list []Setting[R], r *R) {
	for _, s := range list {
		for i, name := range s.Flags() {
			usage := s.Doc
			if i > 0 {
				usage = "the same as --" + s.Flags()[0]
			}
			fs.Var(Record(s.Var(r)), name, usage)
			if s.Bare != "" {
				fs.Lookup(name).NoOptDefVal = s.Bare
			} else if s.Unit() == UnitBool {
				fs.Lookup(name).NoOptDefVal = "true"
			}
		}
	}
}

// Bind is Bind of a registry's settings.
func (r *Registry[R]) Bind(fs *pflag.FlagSet, v *R) { Bind(fs, r.list, v) }

// Knows says key is a name, flag or path of one of r's settings.
func (r *Registry[R]) Knows(key string) bool { _, ok := r.index[key]; return ok }

// given counts the values set through recorded flags, in every flag set:
// their order is the command line's.
var given atomic.Uint64

// recorded is a flag value that keeps each text it was set from, with its
// place in the command line.
type recorded struct {
	pflag.Value
	texts []recordedText
}

type recordedText struct {
	seq  uint64
	text string
}

func (v *recorded) Set(s string) error {
	if err := v.Value.Set(s); err != nil {
		return err
	}
	v.texts = append(v.texts, recordedText{given.Add(1), s})
	return nil
}

// recordedBool is a recorded boolean: pflag asks IsBoolFlag of it (and
// of nothing else, whose "0" default it would then print).
type recordedBool struct{ *recorded }

func (v recordedBool) IsBoolFlag() bool { return true }

// Record wraps a flag value so that FlagsGiven returns the texts it was
// set from (Bind records every setting's flag; a command records another
// flag of settings, such as --profile, with it).
func Record(v pflag.Value) pflag.Value {
	if b, ok := v.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
		return recordedBool{&recorded{Value: v}}
	}
	return &recorded{Value: v}
}

// recordedOf is the recorded value behind a flag's, if any.
func recordedOf(v pflag.Value) (*recorded, bool) {
	switch r := v.(type) {
	case *recorded:
		return r, true
	case recordedBool:
		return r.recorded, true
	}
	return nil, false
}

// FlagsGiven returns the recorded flags given on fs's command line whose
// name known accepts (nil: all), each time it was given, with the text as
// typed, in the command line's order: the flags layer of Resolve
// (FromFlag, Where "--name").
func FlagsGiven(fs *pflag.FlagSet, known func(name string) bool) []Given {
	type at struct {
		seq uint64
		g   Given
	}
	var all []at
	fs.Visit(func(f *pflag.Flag) {
		r, ok := recordedOf(f.Value)
		if !ok || (known != nil && !known(f.Name)) {
			return
		}
		for _, t := range r.texts {
			all = append(all, at{t.seq, Given{Key: f.Name, Value: t.text, From: FromFlag, Where: "--" + f.Name}})
		}
	})
	slices.SortFunc(all, func(a, b at) int {
		if a.seq < b.seq {
			return -1
		}
		return 1
	})
	out := make([]Given, len(all))
	for i, a := range all {
		out[i] = a.g
	}
	return out
}

// Unwrap is the recorded value.
func (v *recorded) Unwrap() pflag.Value { return v.Value }
