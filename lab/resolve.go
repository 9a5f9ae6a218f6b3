package lab

import (
	"errors"
	"fmt"

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

// ResolveExperiment is the one merge of an experiment's values
// (Settings.Resolve), lowest first: DefaultExperiment; a broker's values
// (server, by Kafka name: topicconfig.Set.BrokerGivens; those of no
// setting of Settings are left out, as a broker has many configs the lab
// does not model); the experiment file's (file, nil for none: its values
// and the single values of its sweep:); the flags given (flags, by flag
// name). It returns the experiment, validated, and where each setting's
// value came from, by setting name. Errors: a file that sweeps a key over
// several values; a value that does not parse (a *settings.Error naming
// where it was given); a validation error, located by LocateError (or,
// when no one value is at fault, by the file's path).
func ResolveExperiment(server []settings.Given, file *File, flags []settings.Given) (Experiment, map[string]settings.Origin, error) {
	base := DefaultExperiment()
	var given []settings.Given
	for _, g := range server {
		if s, ok := Settings.Lookup(g.Key); ok && s.Kafka && s.Name == g.Key {
			given = append(given, g)
		}
	}
	if file != nil {
		given = append(given, file.Givens()...)
		for _, a := range file.Axes {
			if len(a.Values) > 1 {
				return Experiment{}, nil, fmt.Errorf("%s: sweeps %s over %d values: run it with cleanerlab sweep --experiment", a.Where, a.Name, len(a.Values))
			}
			if _, ok := Settings.Lookup(a.Name); ok {
				given = append(given, settings.Given{Key: a.Name, Value: a.Values[0], From: settings.FromFile, Where: a.Where})
				continue
			}
			// A run flag of no one setting (--profile in a recorded
			// sweep): applied under every layer, as the base.
			if err := a.apply(&base, a.Values[0]); err != nil {
				return Experiment{}, nil, fmt.Errorf("%s: %w", a.Where, err)
			}
		}
	}
	given = append(given, flags...)
	e, origins, err := Settings.Resolve(base, given...)
	if err != nil {
		return e, origins, err
	}
	attributeOrigins(given, origins)
	if err := e.Validate(); err != nil {
		located := LocateError(err, origins)
		if located == err && file != nil {
			located = fmt.Errorf("%s: %w", file.Path, err)
		}
		return e, origins, located
	}
	return e, origins, nil
}
