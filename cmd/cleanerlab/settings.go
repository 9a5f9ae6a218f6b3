package main

import (
	"github.com/spf13/cobra"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newSettingsCmd() *cobra.Command {
	o := labcli.SettingsFlags.Defaults()
	cmd := &cobra.Command{
		Use:  "settings [--server-config FILE] [--experiment FILE] [cleaner flags]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Given = settings.FlagsGiven(cmd.Flags(), settings.CleanerRegistry.Knows)
			return labcli.SettingsCommand(o, cmd.OutOrStdout())
		},
	}
	labcli.SettingsFlags.Bind(cmd.Flags(), &o)
	return cmd
}
