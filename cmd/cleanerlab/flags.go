package main

import (
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/settings"
)

// bindSettings binds each setting of list that has a flag (settings.Bind).
func bindSettings[R any](fs *pflag.FlagSet, list []settings.Setting[R], r *R) {
	settings.Bind(fs, list, r)
}

// flagsGiven returns the flags given on the command line that are
// settings of reg, as typed, in the command line's order.
func flagsGiven[R any](reg *settings.Registry[R], fs *pflag.FlagSet) []settings.Given {
	return settings.FlagsGiven(fs, reg.Knows)
}

// bindExperimentFlags binds the flags that set an Experiment's fields to
// e: every setting of lab.Settings that has a flag, and --profile.
func bindExperimentFlags(f *pflag.FlagSet, e *lab.Experiment) {
	bindSettings(f, lab.Settings.All(), e)
	profileFlag(f, &e.Cleaner, kafkajvm.ProfileAlias)
}

// experimentGiven are the run flags given (lab.Settings' and --profile),
// in the command line's order: the flags layer of lab.ResolveExperiment.
func experimentGiven(fs *pflag.FlagSet) []settings.Given {
	given := settings.FlagsGiven(fs, func(name string) bool { return name == lab.ProfileFlag || lab.Settings.Knows(name) })
	for i, g := range given {
		if g.Key == lab.ProfileFlag && g.Value == kafkajvm.ProfileName {
			given[i].Value = engine.ProfileKafka // Kafka's own cleaner; our settings are the kafka profile's
		}
	}
	return given
}

// logConfigFlags binds Kafka's topic configs as flags named after them
// (settings.Log).
func logConfigFlags(fs *pflag.FlagSet, cfg *engine.LogConfig) {
	bindSettings(fs, settings.Log, cfg)
}

// cleanerConfigFlags binds the cleaner's settings (settings.Cleaner:
// Kafka's log.cleaner.* configs under their names, and the lab's own) and
// --profile (with alias, profileFlag's).
func cleanerConfigFlags(fs *pflag.FlagSet, cfg *engine.CleanerConfig, alias map[string]string) {
	bindSettings(fs, settings.Cleaner, cfg)
	profileFlag(fs, cfg, alias)
}

// profileFlag binds --profile (settings.Profile; alias: the names beyond
// engine's profiles, kafkajvm.ProfileAlias for the commands that run
// Kafka's own cleaner).
func profileFlag(fs *pflag.FlagSet, cfg *engine.CleanerConfig, alias map[string]string) {
	fs.Var(settings.Record(settings.Profile(cfg, alias)), "profile", settings.ProfileDoc())
}
