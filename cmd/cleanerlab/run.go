package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newRunCmd() *cobra.Command {
	o, kj := lab.DefaultRunCommandOptions(), kafkajvm.DefaultCommandOptions()
	cmd := &cobra.Command{
		Use:  "run",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			o.FlagsGiven, o.Given, o.Warnings = nil, experimentGiven(f), cmd.ErrOrStderr()
			f.Visit(func(fl *pflag.Flag) { o.FlagsGiven = append(o.FlagsGiven, fl.Name) })
			kj.Profile, kj.Changed, kj.Given, kj.Stderr = f.Lookup("profile").Value.String(), f.Changed, settings.FlagsGiven(f, settings.CleanerRegistry.Knows), cmd.ErrOrStderr()
			o.External, o.CleanedBy = kj.RunCleaner(), ""
			if kj.Profile == kafkajvm.ProfileName {
				o.CleanedBy = kafkajvm.ProfileName // Kafka's own cleaner; --profile's alias gives the kafka profile's settings
			}
			return lab.RunCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	e := lab.DefaultExperiment() // the flags' parse; lab.ResolveExperiment applies them as given
	bindExperimentFlags(f, &e)
	lab.RunFlags.Bind(f, &o)
	kafkajvm.RunFlags.Bind(f, &kj)
	return cmd
}
