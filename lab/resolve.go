package lab

import (
	"errors"
	"fmt"
	"slices"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
)

// LocateError prefixes err, an error of Experiment.Validate of an
// experiment resolved with origins (Settings.Resolve's), with where the
// value at fault was given: the origin's Where ("file:line:col" of an
// experiment file, "file:line" of server.properties, "--flag") of the
// setting its *engine.ConfigError names. The error's type says the
// setting; no text is read. An error of no setting, or of a default
// value, is returned as it is.
func LocateError(err error, origins map[string]settings.Origin) error {
	var ce *engine.ConfigError
	if !errors.As(err, &ce) {
		return err
	}
	names := []string{ce.Config}
	if ce.Config == "segment.bytes" {
		names = append(names, "workload.SegmentBytes") // one setting, two keys
	}
	for _, name := range names {
		if o, ok := origins[name]; ok && o.From != settings.FromDefault && o.Where != "" {
			return fmt.Errorf("%s: %w", o.Where, err)
		}
	}
	return err
}

// ProfileFlag is the key of --profile among the flags given to
// ResolveExperiment: it sets several cleaner settings at once
// (engine.CleanerConfig.ApplyProfile) at its place in the command line, so
// that the flags after it override its settings and those before it are
// overridden.
const ProfileFlag = "profile"

// ResolveExperiment is the one merge of an experiment's values
// (Settings.Resolve), lowest first: DefaultExperiment; a broker's values
// (server, by Kafka name: topicconfig.Set.BrokerGivens; those of no
// setting of Settings are left out, as a broker has many configs the lab
// does not model); the experiment file's (file, nil for none: its values,
// then the single values of its sweep: in the file's order, over its other
// values, as a sweep applies them; a --profile there sets what it sets);
// the flags given (flags, by flag name, in the command line's
// order; a Given of ProfileFlag applies that profile at its place). It
// returns the experiment, validated, and where each setting's value came
// from, by setting name (a setting a profile changed: the profile's
// From and Where, and its name as Origin.Profile). Errors: a file that sweeps a key over several values; a value
// that does not parse (a *settings.Error naming where it was given); a
// validation error, located by LocateError (or, when no one value is at
// fault, by the file's path).
func ResolveExperiment(server []settings.Given, file *File, flags []settings.Given) (Experiment, map[string]settings.Origin, error) {
	e, origins, err := MergeExperiment(server, file, flags)
	if err != nil {
		return e, origins, err
	}
	if err := e.Validate(); err != nil {
		located := LocateError(err, origins)
		if located == err && file != nil {
			located = fmt.Errorf("%s: %w", file.Path, err)
		}
		return e, origins, located
	}
	return e, origins, nil
}

// MergeExperiment is ResolveExperiment without the validation: the
// experiment of the layers and its origins, for a sweep whose points are
// each validated (SweepPlan).
func MergeExperiment(server []settings.Given, file *File, flags []settings.Given) (Experiment, map[string]settings.Origin, error) {
	var given []settings.Given
	for _, g := range server {
		if s, ok := Settings.Lookup(g.Key); ok && s.Kafka && s.Name == g.Key {
			given = append(given, g)
		}
	}
	var fixed []Axis // the file's sweep: values, one each
	if file != nil {
		given = append(given, file.Givens()...)
		for _, a := range file.Axes {
			if len(a.Values) > 1 {
				return Experiment{}, nil, fmt.Errorf("%s: sweeps %s over %d values: run it with cleanerlab sweep --experiment", a.Where, a.Name, len(a.Values))
			}
			fixed = append(fixed, a)
		}
	}
	e, origins, err := Settings.Resolve(DefaultExperiment(), given...)
	errs := []error{err}
	// Every name of one setting (lab/identity.go) takes the origin of the
	// value applied last, layer by layer in the order they apply.
	attributeOrigins(given, origins)
	// The sweep: values over the file's others, in the file's order, as a
	// sweep applies them (a --profile there then sets what it sets).
	for _, a := range fixed {
		profile := ""
		if a.Name == ProfileFlag {
			profile = a.Values[0]
		}
		if err := changes(&e, origins, a.Name, settings.FromFile, a.Where, profile, func(e *Experiment) error { return a.apply(e, a.Values[0]) }); err != nil {
			return Experiment{}, nil, fmt.Errorf("%s: %w", a.Where, err)
		}
		attributeOrigins([]settings.Given{{Key: a.Name, Value: a.Values[0], From: settings.FromFile, Where: a.Where}}, origins)
	}
	// The flags in the command line's order, a profile at its place.
	rest := flags
	for len(rest) > 0 {
		i := slices.IndexFunc(rest, func(g settings.Given) bool { return g.Key == ProfileFlag })
		if i < 0 {
			i = len(rest)
		}
		var o map[string]settings.Origin
		e, o, err = Settings.Resolve(e, rest[:i]...)
		errs = append(errs, err)
		for name, got := range o {
			if got.From != settings.FromDefault {
				origins[name] = got
			}
		}
		attributeOrigins(rest[:i], origins)
		if i == len(rest) {
			break
		}
		p := rest[i]
		if err := changes(&e, origins, "", p.From, p.Where, p.Value, func(e *Experiment) error { return applyProfile(e, p.Value) }); err != nil {
			errs = append(errs, &settings.Error{Setting: ProfileFlag, Value: p.Value, Where: p.Where, Err: err})
		}
		rest = rest[i+1:]
	}
	for _, s := range Settings.All() {
		o := origins[s.Name]
		o.Value = s.Var(&e).String()
		origins[s.Name] = o
	}
	return e, origins, errors.Join(errs...)
}

// changes applies fn to e and records, for every setting whose value it
// changed and for the setting key names (if any), that the value came
// from (from, where); fn applies the profile named profile when it is not
// "" (each value it changed is the profile's: Origin.Profile).
func changes(e *Experiment, origins map[string]settings.Origin, key string, from settings.Source, where, profile string, fn func(*Experiment) error) error {
	before := *e
	if err := fn(e); err != nil {
		return err
	}
	if s, ok := Settings.Lookup(key); ok {
		origins[s.Name] = settings.Origin{From: from, Where: where}
	}
	for _, s := range Settings.All() {
		if s.Var(&before).String() != s.Var(e).String() {
			origins[s.Name] = settings.Origin{From: from, Where: where, Profile: profile}
		}
	}
	return nil
}

// LayerGivens are the values of ResolveExperiment's layers in the order
// it applies them: server's (those of Settings, by Kafka name), file's
// values, its sweep: values of one value, then flags (as given). A value
// of server or file is keyed by its setting's name, a profile by
// ProfileFlag: the list settings.ProfileWarningsFrom reads.
func LayerGivens(server []settings.Given, file *File, flags []settings.Given) []settings.Given {
	var out []settings.Given
	add := func(g settings.Given) {
		if s, ok := Settings.Lookup(g.Key); ok && g.Key != ProfileFlag {
			g.Key = s.Name
		}
		out = append(out, g)
	}
	for _, g := range server {
		if s, ok := Settings.Lookup(g.Key); ok && s.Kafka && s.Name == g.Key {
			add(g)
		}
	}
	if file != nil {
		for _, g := range file.Givens() {
			add(g)
		}
		for _, a := range file.Axes {
			if len(a.Values) == 1 {
				add(settings.Given{Key: a.Name, Value: a.Values[0], From: settings.FromFile, Where: a.Where})
			}
		}
	}
	return append(out, flags...)
}

// GivenSettings says, by setting name, which settings of an experiment
// resolved with origins (ResolveExperiment's) were given for themselves
// (settings.Origin.Given: by a flag, the experiment file or
// server.properties; not a default, not a profile's): what
// engine.CleanerConfig.IgnoredSettings may name. nil origins: none was.
func GivenSettings(origins map[string]settings.Origin) func(name string) bool {
	return func(name string) bool { return origins[name].Given() }
}

// SettingSources says, by setting name, who set each setting of an
// experiment resolved with origins (ResolveExperiment's), for
// engine.CleanerConfig.IgnoredSettingsBy: the user where GivenSettings
// says so, else the default. A setting a profile set (settings.Origin.
// Profile) is never engine.SourceProfile here: the one such sentence, of
// the profile's settings a throttle turns off, has been said by
// settings.ProfileWarnings (both flags), ProfileWarningsFrom (a file's or
// server.properties' value) or a sweep's PointProfileWarnings, naming
// where the throttle came from. nil origins: every one the default.
func SettingSources(origins map[string]settings.Origin) func(name string) engine.SettingSource {
	return func(name string) engine.SettingSource {
		if origins[name].Given() {
			return engine.SourceUser
		}
		return engine.SourceDefault
	}
}
