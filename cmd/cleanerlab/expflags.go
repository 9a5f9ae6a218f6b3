package main

import (
	"fmt"
	"slices"

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
	names := []string{"profile"}
	for _, s := range lab.Settings.All() {
		names = append(names, s.Flags()...)
	}
	return names
}

// setExperimentFlag sets the run flag name of e from value, as the command
// line would: by its setting's parser (lab.Settings), or --profile's.
func setExperimentFlag(e *lab.Experiment, name, value string) error {
	var err error
	if name == "profile" {
		err = e.Cleaner.ApplyProfile(value)
	} else if s, ok := lab.Settings.Lookup(name); ok && slices.Contains(s.Flags(), name) {
		err = s.Var(e).Set(value)
	} else {
		return fmt.Errorf("unknown parameter %q%s", name, lab.Suggest(name, experimentFlagNames()))
	}
	if err != nil {
		return fmt.Errorf("%s: %q is not a valid value: %s", name, value, err)
	}
	return nil
}

// flagSetter is a lab.Setter of run flag name, for sweeps over flags; ok
// is false when no experiment flag has that name.
func flagSetter(name string) (lab.Setter, bool) {
	if !slices.Contains(experimentFlagNames(), name) {
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
