package main

import (
	"github.com/spf13/cobra"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newPlanCmd() *cobra.Command {
	o := sizing.DefaultPlanCommandOptions()
	var nowMs settings.OptionalOffset
	cmd := &cobra.Command{
		Use:  "plan --dir LOGDIR|PARTITION_DIR",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Now, o.Sources.Given, o.Log, o.ReadOnly = nowMs.Clock(), givenSettings(cmd.Flags()), cmd.ErrOrStderr(), labcli.ReadOnly
			return sizing.PlanCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	sizing.PlanFlags.Bind(f, &o)
	f.Var(&nowMs, "now-ms", "the clock for lags and eligibility (ms since the epoch; not given: now)")
	profileFlag(f, &o.Cleaner, nil)
	return cmd
}
