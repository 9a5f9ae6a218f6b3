package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
)

// bindExperimentFlags binds the flags that set an Experiment's fields to
// e: every setting of lab.Settings that has a flag (the workload's,
// Kafka's topic and cleaner configs, and the lab settings of an
// experiment: cache, fsync, hot set, verify), and --profile.
func bindExperimentFlags(f *pflag.FlagSet, e *lab.Experiment) {
	bindSettings(f, lab.Settings.All(), e)
	profileFlag(f, &e.Cleaner)
}

// experimentFlagNames are the names bindExperimentFlags binds.
func experimentFlagNames() []string {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var e lab.Experiment
	bindExperimentFlags(fs, &e)
	var names []string
	fs.VisitAll(func(fl *pflag.Flag) { names = append(names, fl.Name) })
	return names
}

// setExperimentFlag sets the run flag name of e from value, as the command
// line would.
func setExperimentFlag(e *lab.Experiment, name, value string) error {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	bindExperimentFlags(fs, e)
	fl := fs.Lookup(name)
	if fl == nil {
		return fmt.Errorf("unknown parameter %q%s", name, lab.Suggest(name, experimentFlagNames()))
	}
	if err := fs.Set(name, value); err != nil {
		msg := err.Error()
		if _, cause, ok := strings.Cut(msg, " flag: "); ok && strings.HasPrefix(msg, "invalid argument") {
			msg = cause // pflag's "invalid argument %q for %q flag: " repeats what we say
		}
		return fmt.Errorf("%s: %q is not a valid value: %s", name, value, msg)
	}
	return nil
}

// flagSetter is a lab.Setter of run flag name, for sweeps over flags; ok
// is false when no experiment flag has that name.
func flagSetter(name string) (lab.Setter, bool) {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var e lab.Experiment
	bindExperimentFlags(fs, &e)
	if fs.Lookup(name) == nil {
		return nil, false
	}
	return func(e *lab.Experiment, value string) error { return setExperimentFlag(e, name, value) }, true
}

// flagPath returns the field path of the Experiment that run flag name
// sets ("keys" -> "workload.Keys"), as lab.Settings declares it; "" for a
// flag of no one field (cleanup.policy, profile) or of no setting.
func flagPath(name string) string {
	s, ok := lab.Settings.Lookup(name)
	if !ok || !slices.Contains(s.Flags(), name) {
		return ""
	}
	return s.Path
}
