package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
)

// RunFlagNames are the names of run's flags that set the experiment: every
// flag (and alias) of Settings, and ProfileFlag.
func RunFlagNames() []string {
	names := []string{ProfileFlag}
	for _, s := range Settings.All() {
		names = append(names, s.Flags()...)
	}
	return names
}

// SetRunFlag sets run's flag name of e from value, as the command line
// would: by its setting's parser (Settings), or, for ProfileFlag,
// engine.CleanerConfig.ApplyProfile (applyProfile: kafka-jvm is the kafka
// profile's settings with CleanedBy kafka-jvm). Error: a name of no run
// flag (with the nearest); a value that does not parse, a
// *settings.Error of Setting name and no Where (the caller's to fill: the
// flag, or the file's line) whose Err, for an unknown profile, is a
// *settings.ChoiceError of ProfileNames.
func SetRunFlag(e *Experiment, name, value string) error {
	var err error
	if name == ProfileFlag {
		err = applyProfile(e, value)
	} else if s, ok := Settings.Lookup(name); ok && slices.Contains(s.Flags(), name) {
		err = s.Var(e).Set(value)
	} else {
		return fmt.Errorf("unknown parameter %q%s", name, Suggest(name, RunFlagNames()))
	}
	if err != nil {
		return &settings.Error{Setting: name, Value: value, Err: err}
	}
	return nil
}

// ProfileNames are the values of run's, sweep's and an experiment file's
// profile: engine's profiles (engine.ProfileNames) and CleanedByKafkaJVM.
func ProfileNames() []string { return append(engine.ProfileNames(), CleanedByKafkaJVM) }

// ProfileAlias maps the profile names beyond engine's to the engine
// profile whose settings they give our cleaner: CleanedByKafkaJVM, the
// kafka profile's (applyProfile).
var ProfileAlias = map[string]string{CleanedByKafkaJVM: engine.ProfileKafka}

// applyProfile applies --profile value to e: engine.ApplyProfile, or, for
// CleanedByKafkaJVM (Kafka's own cleaner: a sweep's --profile axis, an
// experiment file's profile key, sweep --profile kafka-jvm), the kafka
// profile's settings with e.CleanedBy set to it, as run --profile
// kafka-jvm sets them. Another profile leaves CleanedBy as it was. A
// name of none of ProfileNames is a *settings.ChoiceError of them.
func applyProfile(e *Experiment, value string) error {
	if !slices.Contains(ProfileNames(), value) {
		return &settings.ChoiceError{Valid: ProfileNames()}
	}
	if value == CleanedByKafkaJVM {
		e.CleanedBy = CleanedByKafkaJVM
		return e.Cleaner.ApplyProfile(engine.ProfileKafka)
	}
	return e.Cleaner.ApplyProfile(value)
}

// RunFlagSetter is a Setter of run's flag name, for sweeps over flags and
// the sweep: keys of experiment files that name a flag (LoadOptions.Param);
// ok is false when no run flag has that name.
func RunFlagSetter(name string) (Setter, bool) {
	if !slices.Contains(RunFlagNames(), name) {
		return nil, false
	}
	return func(e *Experiment, value string) error { return SetRunFlag(e, name, value) }, true
}

// RunFlagPath returns the field path of the Experiment that run's flag
// name sets ("keys" -> "workload.Keys"), as Settings declares it; "" for a
// flag of no one field (cleanup.policy, profile) or of no setting.
func RunFlagPath(name string) string {
	s, ok := Settings.Lookup(name)
	if !ok || !slices.Contains(s.Flags(), name) {
		return ""
	}
	return s.Path
}

// RunFlagAxis is the sweep axis of run's flag name given to sweep as list:
// one value, or a comma-separated list of values (each trimmed), each set
// as run's flag sets it (RunFlagSetter), where "--name".
func RunFlagAxis(name, list string) Axis {
	values := strings.Split(list, ",")
	for i := range values {
		values[i] = strings.TrimSpace(values[i])
	}
	set, _ := RunFlagSetter(name)
	return Axis{Name: name, Values: values, Where: "--" + name, Set: set, Path: RunFlagPath(name)}
}
