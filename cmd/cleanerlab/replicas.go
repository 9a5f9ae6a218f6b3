package main

import (
	"github.com/spf13/cobra"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/replicas"
)

func newReplicasCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use: "replicas",
	}
	cmd.AddCommand(newReplicasRunCmd(), newReplicasCampaignCmd(), newReplicasCostCmd(), newReplicasExploreCmd())
	return cmd
}

func newReplicasRunCmd() *cobra.Command {
	w := replicas.Work{AtHardExit: labcli.AtHardExit}
	cmd := &cobra.Command{
		Use:   "run FILE...",
		Short: "run scenario files; exit 1 where an output differs from the file's expected block",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return replicas.RunCommand(cmd.Context(), args, w, cmd.OutOrStdout())
		},
	}
	replicas.RunSettings.Bind(cmd.Flags(), &w)
	return cmd
}

func newReplicasCampaignCmd() *cobra.Command {
	o := replicas.DefaultCampaignOptions()
	o.AtHardExit = labcli.AtHardExit
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "seeded random schedules with the divergence checker after each; writes a run record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return replicas.CampaignCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	replicas.CampaignSettings.Bind(cmd.Flags(), &o)
	return cmd
}

func newReplicasCostCmd() *cobra.Command {
	o := replicas.DefaultCostOptions()
	o.AtHardExit = labcli.AtHardExit
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "the cost of coordinated cleaning against one replica's downtime: table, plot and run record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return replicas.CostCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	replicas.CostSettings.Bind(cmd.Flags(), &o)
	return cmd
}
