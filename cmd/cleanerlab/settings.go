package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newSettingsCmd() *cobra.Command {
	format := "text"
	var server, experiment string
	cc := engine.DefaultCleanerConfig()
	cmd := &cobra.Command{
		Use:  "settings [--server-config FILE] [--experiment FILE] [cleaner flags]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags := flagsGiven(settings.CleanerRegistry, cmd.Flags())
			if server == "" && experiment == "" && len(flags) == 0 {
				return labcli.WriteSettings(cmd.OutOrStdout(), format)
			}
			set := new(topicconfig.Set)
			if server != "" {
				var err error
				if set, err = topicconfig.Load(topicconfig.LoadOptions{ServerConfig: server}); err != nil {
					return err
				}
			}
			if experiment != "" {
				file, err := lab.LoadYAML(experiment, lab.LoadOptions{Param: lab.RunFlagSetter})
				if err != nil {
					return err
				}
				_, origins, err := lab.ResolveExperiment(set.BrokerGivens(), file, flagsGiven(lab.Settings, cmd.Flags()))
				if err != nil {
					return err
				}
				return lab.WriteOrigins(cmd.OutOrStdout(), format, lab.Settings.All(), origins)
			}
			_, origins, err := set.CleanerConfig(cc, flags...)
			if err != nil {
				return err
			}
			return lab.WriteOrigins(cmd.OutOrStdout(), format, settings.Cleaner, origins)
		},
	}
	f := cmd.Flags()
	f.StringVar(&format, "format", format, "output: text (for people), json (for scripts) or markdown (docs/settings.md; the listing only)")
	f.StringVar(&server, "server-config", "", "a broker's server.properties: show the settings it resolves to, and from where")
	f.StringVar(&experiment, "experiment", "", "an experiment file (YAML or JSON): show every setting of the experiment it resolves to, and from where")
	bindSettings(f, settings.Cleaner, &cc)
	return cmd
}
