package main

import (
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

// The flags every command binds from the registries (settings.Bind):
// a flag has one name, type and parser in every command that has it.

// bindExperimentFlags binds the flags that set an Experiment's fields to
// e: every setting of lab.Settings that has a flag, and --profile.
func bindExperimentFlags(f *pflag.FlagSet, e *lab.Experiment) {
	lab.Settings.Bind(f, e)
	profileFlag(f, &e.Cleaner, kafkajvm.ProfileAlias, kafkajvm.ProfileDoc)
}

// experimentGiven are the run flags given (lab.Settings' and --profile),
// in the command line's order: the flags layer of lab.ResolveExperiment.
func experimentGiven(fs *pflag.FlagSet) []settings.Given {
	given := settings.FlagsGiven(fs, func(name string) bool { return name == lab.ProfileFlag || lab.Settings.Knows(name) })
	for i, g := range given {
		if alias, ok := kafkajvm.ProfileAlias[g.Value]; ok && g.Key == lab.ProfileFlag {
			given[i].Value = alias // Kafka's own cleaner; our settings are the kafka profile's
		}
	}
	return given
}

// givenSettings are the cleaner and topic settings given on the command
// line and --profile (topicconfig.ProfileKey; kafka-jvm as the kafka
// profile it applies, kafkajvm.ProfileAlias), in the command line's
// order: topicconfig.Sources.Given, which applies them over
// --server-config in that order, a profile at its place.
func givenSettings(f *pflag.FlagSet) []settings.Given {
	given := settings.FlagsGiven(f, func(name string) bool {
		return name == topicconfig.ProfileKey || settings.CleanerRegistry.Knows(name) || settings.LogRegistry.Knows(name)
	})
	for i, g := range given {
		if alias, ok := kafkajvm.ProfileAlias[g.Value]; ok && g.Key == topicconfig.ProfileKey {
			given[i].Value = alias
		}
	}
	return given
}

// profileFlag binds --profile (settings.Profile; alias: the names beyond
// engine's profiles, kafkajvm.ProfileAlias for the commands that run
// Kafka's own cleaner, documented by more, kafkajvm.ProfileDoc).
func profileFlag(fs *pflag.FlagSet, cfg *engine.CleanerConfig, alias map[string]string, more ...string) {
	fs.Var(settings.Record(settings.Profile(cfg, alias)), "profile", settings.ProfileDoc(more...))
}
