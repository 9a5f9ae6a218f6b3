package cli

import (
	"io"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

// SettingsCommandOptions are the settings command's options, as its flags
// give them.
type SettingsCommandOptions struct {
	// Format is text, json or markdown (the listing only).
	Format string
	// ServerConfig is a broker's server.properties; Experiment an
	// experiment file ("": none).
	ServerConfig, Experiment string
	// Cleaner is what the cleaner flags parse into (their values are
	// taken from Given).
	Cleaner engine.CleanerConfig
	// Given are the cleaner settings given (settings.CleanerRegistry's
	// keys), in the command line's order.
	Given []settings.Given
}

// SettingsFlags are the settings command's flags: its own and the
// cleaner's.
var SettingsFlags = settings.MustRegistry(func() SettingsCommandOptions {
	return SettingsCommandOptions{Format: "text", Cleaner: engine.DefaultCleanerConfig()}
}, []settings.Setting[SettingsCommandOptions]{
	settings.Flag("format", "output: text (for people), json (for scripts) or markdown (docs/settings.md; the listing only)",
		func(o *SettingsCommandOptions) settings.Value { return settings.String(&o.Format) }),
	settings.Flag("server-config", "a broker's server.properties: show the settings it resolves to, and from where",
		func(o *SettingsCommandOptions) settings.Value { return settings.String(&o.ServerConfig) }),
	settings.Flag("experiment", "an experiment file (YAML or JSON): show every setting of the experiment it resolves to, and from where",
		func(o *SettingsCommandOptions) settings.Value { return settings.String(&o.Experiment) }),
}, settings.Lift(settings.Cleaner, "Cleaner.", func(o *SettingsCommandOptions) *engine.CleanerConfig { return &o.Cleaner }))

// SettingsCommand is the settings command: every setting listed
// (WriteSettings) when no source is given; with Experiment, every setting
// of the experiment as run resolves it (lab.ResolveExperiment: defaults <
// ServerConfig < the file < the flags given) and where each value came
// from; with ServerConfig or cleaner flags alone, the cleaner settings as
// plan and advise resolve them (Kafka's defaults < server.properties <
// flags) and where each came from.
func SettingsCommand(o SettingsCommandOptions, out io.Writer) error {
	if o.ServerConfig == "" && o.Experiment == "" && len(o.Given) == 0 {
		return WriteSettings(out, o.Format)
	}
	set := new(topicconfig.Set)
	if o.ServerConfig != "" {
		var err error
		if set, err = topicconfig.Load(topicconfig.LoadOptions{ServerConfig: o.ServerConfig}); err != nil {
			return err
		}
	}
	if o.Experiment != "" {
		file, err := lab.LoadYAML(o.Experiment, lab.LoadOptions{Param: lab.RunFlagSetter})
		if err != nil {
			return err
		}
		_, origins, err := lab.ResolveExperiment(set.BrokerGivens(), file, o.Given)
		if err != nil {
			return err
		}
		return lab.WriteOrigins(out, o.Format, lab.Settings.All(), origins)
	}
	_, origins, err := set.CleanerConfig(engine.DefaultCleanerConfig(), o.Given...)
	if err != nil {
		return err
	}
	return lab.WriteOrigins(out, o.Format, settings.Cleaner, origins)
}
