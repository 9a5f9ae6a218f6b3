package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
)

func newSettingsCmd() *cobra.Command {
	format := "text"
	cmd := &cobra.Command{
		Use:   "settings",
		Short: "List every setting: Kafka name, flag, field path, unit, default and doc (docs/settings.md)",
		Long: `settings lists every setting of the lab as it is declared once (lab.Settings):
its name (Kafka's config name where Kafka has one), its flag, its path in
experiment files and run.json, its unit, its default and its doc line.
--format markdown writes docs/settings.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return lab.WriteSettings(cmd.OutOrStdout(), format) },
	}
	cmd.Flags().StringVar(&format, "format", format, "output: text (for people), json (for scripts) or markdown (docs/settings.md)")
	return cmd
}
