package main

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab/replicas"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newReplicasCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "replicas",
		Short: "the divergence lab: replicas on real logs, scenarios, random campaigns, the cost of coordinated cleaning",
		Long: `replicas runs several replicas of one partition, each broker with its own log
directory, under a controller and a virtual clock (package replication): HW,
ISR, leader epochs, elections, transactions, and each broker's own cleaner,
independent (Kafka) or coordinated (Redpanda's MTRO/MXRO).`,
	}
	cmd.AddCommand(newReplicasRunCmd(), newReplicasCampaignCmd(), newReplicasCostCmd(), newReplicasExploreCmd())
	return cmd
}

// bindWork binds --dir (with its usage) and --profile to w, whose work
// directory a second signal's immediate exit removes too (atHardExit).
func bindWork(f *pflag.FlagSet, w *replicas.Work, dirUsage string) {
	w.AtHardExit = atHardExit
	f.StringVar(&w.Dir, "dir", "", dirUsage)
	f.StringVar(&w.Profile, "profile", "", replicas.ProfileUsage)
}

func newReplicasRunCmd() *cobra.Command {
	var w replicas.Work
	cmd := &cobra.Command{
		Use:   "run FILE...",
		Short: "run scenario files; exit 1 where an output differs from the file's expected block",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return replicas.RunCommand(cmd.Context(), args, w, cmd.OutOrStdout())
		},
	}
	bindWork(cmd.Flags(), &w, "directory to keep the brokers' log directories in (a replicas-* directory made there; default: a fresh temp dir, removed afterwards)")
	return cmd
}

func newReplicasCampaignCmd() *cobra.Command {
	o := replicas.CampaignCommandOptions{Mode: "independent", Runs: 100, Seed: 1, Replicas: 3, Events: 200, Format: "text", Out: "runs"}
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "seeded random schedules with the divergence checker after each; writes a run record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return replicas.CampaignCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Mode, "mode", o.Mode, "cleaning mode: independent (Kafka) or coordinated (Redpanda's MTRO/MXRO)")
	f.IntVar(&o.Runs, "runs", o.Runs, "number of seeded schedules")
	f.Var(settings.Unsigned(&o.Seed), "seed", "seed of the first schedule (schedule i uses seed+i)")
	f.IntVar(&o.Replicas, "replicas", o.Replicas, "brokers (replication factor)")
	f.IntVar(&o.Events, "events", o.Events, "events per schedule")
	f.StringVar(&o.Format, "format", o.Format, "output: text or json (mode, runs, diverged, by_kind, cost, record)")
	f.BoolVar(&o.Shrink, "shrink", false, "shrink the first diverging schedule and print it as a scenario file (also saved as reproducer.scenario in the record; with --sweep, one per cell: cell-N.scenario)")
	f.StringVar(&o.Kind, "kind", "", "with --shrink: shrink the first schedule showing this divergence kind, keeping it (resurrected-key, aborted-visible, committed-hidden, lso-stuck, lost-acknowledged, offsets-differ, consumer-keeps-deleted)")
	f.StringArrayVar(&o.Sweeps, "sweep", nil, "knob=v1,v2,...: run the campaign once per cell of the grid of every --sweep (repeatable; knobs delete.retention.ms, downtime, replica.lag.time.max.ms, segment.bytes, min.insync.replicas); every cell runs the same seeds")
	f.StringVar(&o.Downtime, "downtime", "", "D1,D2,...: a sweep axis of how long each fault lasts in virtual time (as --sweep downtime=D1,D2; 0: recoveries drawn at random)")
	f.BoolVar(&o.OnDisk, "on-disk", false, "put the brokers' logs on the file system under --dir (default: each schedule in its own in-memory file system, same findings, no system calls)")
	f.StringVar(&o.Out, "out", o.Out, "runs directory for the record")
	bindWork(f, &o.Work, "directory for the brokers' log directories with --on-disk (default: a temp dir; a tmpfs such as /dev/shm is much faster)")
	return cmd
}

func newReplicasCostCmd() *cobra.Command {
	var w replicas.Work
	downtimes, retention, out := "0,10m,1h,1d", "10m", "runs"
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "the cost of coordinated cleaning against one replica's downtime: table, plot and run record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return replicas.CostCommand(cmd.Context(), downtimes, retention, out, w, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.StringVar(&downtimes, "downtime", downtimes, "downtimes of broker 3 to sweep, comma-separated (500ms, 10s, 5m, 1h, 1d)")
	f.StringVar(&retention, "delete-retention", retention, "delete.retention.ms of the topic")
	f.StringVar(&out, "out", out, "runs directory for the record")
	bindWork(f, &w, "directory for the brokers' log directories (default: a temp dir)")
	return cmd
}
