package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newSteadyCmd() *cobra.Command {
	o := steady.DefaultOptions()
	cmd := &cobra.Command{
		Use:  "steady",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given, o.Progress = settings.FlagsGiven(cmd.Flags(), settings.CleanerRegistry.Knows), cmd.ErrOrStderr()
			return steady.Command(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	steady.Settings.Bind(f, &o)
	for _, name := range steady.GeneratorFlags {
		f.MarkHidden(name)
	}
	profileFlag(f, &o.Cleaner, nil)
	steady.PlaceFlags.Bind(f, &o)
	return cmd
}
