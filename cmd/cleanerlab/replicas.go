package main

import (
	"fmt"
	"github.com/cleanerlab/cleanerlab/settings"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/replicas"
	"github.com/cleanerlab/cleanerlab/replication"
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

func newReplicasRunCmd() *cobra.Command {
	var dir, profile string
	cmd := &cobra.Command{
		Use:   "run FILE...",
		Short: "run scenario files; exit 1 where an output differs from the file's expected block",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cleaner, err := profileCleaner(profile)
			if err != nil {
				return err
			}
			// --dir: the brokers' logs are what the user asked for, kept
			// (a second signal leaves them too); else a temp dir, removed.
			keep := dir != ""
			mkdir := workDir
			if keep {
				mkdir = replicas.WorkDir
			}
			root, cleanup, err := mkdir(dir)
			if err != nil {
				return err
			}
			if !keep {
				defer cleanup()
			}
			n, err := replicas.RunFilesKeep(cmd.OutOrStdout(), root, args, cleaner, keep)
			if err != nil {
				return err
			}
			if n > 0 {
				return exitError{code: 1, err: fmt.Errorf("%d outputs differ from their expected blocks", n)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "directory to keep the brokers' log directories in (a replicas-* directory made there; default: a fresh temp dir, removed afterwards)")
	cmd.Flags().StringVar(&profile, "profile", "", profileUsage)
	return cmd
}

// workDir is replicas.WorkDir with its removal also run by a second
// signal's immediate exit (atHardExit), so that no replicas-* directory is
// left behind. The returned cleanup removes it and unregisters.
func workDir(dir string) (string, func(), error) {
	root, cleanup, err := replicas.WorkDir(dir)
	if err != nil {
		return "", nil, err
	}
	unregister := atHardExit(cleanup)
	return root, func() { cleanup(); unregister() }, nil
}

// profileUsage is the help of the replicas commands' --profile.
const profileUsage = "every broker's cleaner with the speed settings of this profile: kafka or best (default: Kafka's cleaner; the brokers' small buffers are kept)"

// profileCleaner is the cleaner config of a replicas command's --profile:
// replicas.ProfileCleaner of the name, or the zero config (each broker's
// default, Kafka's cleaner) when the flag is not given. The error names
// the flag.
func profileCleaner(profile string) (engine.CleanerConfig, error) {
	if profile == "" {
		return engine.CleanerConfig{}, nil
	}
	c, err := replicas.ProfileCleaner(profile)
	if err != nil {
		return engine.CleanerConfig{}, fmt.Errorf("--profile: %w", err)
	}
	return c, nil
}

func newReplicasCampaignCmd() *cobra.Command {
	var (
		mode, format, dir, out, profile string
		runs, n, events                 int
		seed                            uint64
		shrink, onDisk                  bool
		sweeps                          []string
		downtime, kind                  string
	)
	cmd := &cobra.Command{
		Use:   "campaign",
		Short: "seeded random schedules with the divergence checker after each; writes a run record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			m, err := replication.ParseMode(mode)
			if err != nil {
				return fmt.Errorf("--mode: %w", err)
			}
			if format != "text" && format != "json" {
				return fmt.Errorf("--format %q: want text or json", format)
			}
			if runs < 1 || n < 2 || n > 9 || events < 1 {
				return fmt.Errorf("--runs %d, --replicas %d, --events %d: want runs >= 1, replicas 2..9, events >= 1", runs, n, events)
			}
			cleaner, err := profileCleaner(profile)
			if err != nil {
				return err
			}
			var shrinkKind replication.Kind
			if kind != "" {
				if !shrink {
					return fmt.Errorf("--kind %s: shrinks a schedule showing that kind: add --shrink", kind)
				}
				if shrinkKind, err = replication.ParseKind(kind); err != nil {
					return fmt.Errorf("--kind: %w", err)
				}
			}
			axes, err := sweepAxes(sweeps, downtime)
			if err != nil {
				return err
			}
			root, cleanup, err := workDir(dir)
			if err != nil {
				return err
			}
			defer cleanup()
			cc := replication.CampaignConfig{Root: root, Mode: m, Runs: runs, Seed: seed, Replicas: n, Events: events, Shrink: shrink, ShrinkKind: shrinkKind, Cleaner: cleaner, Profile: profile, OnDisk: onDisk,
				CheckDone: cmd.Context().Err}
			if len(axes) > 0 {
				rec, err := replicas.Sweep(replicas.SweepOptions{SweepConfig: replication.SweepConfig{Campaign: cc, Axes: axes}, Out: out}, nil)
				if err != nil {
					return err
				}
				if err := replicas.WriteSweep(cmd.OutOrStdout(), rec, format); err != nil {
					return err
				}
				if rec.Result.Stopped != "" {
					return fmt.Errorf("replicas campaign: %s; record %s", rec.Result.Stopped, rec.Run.Path)
				}
				return nil
			}
			rec, err := replicas.Campaign(replicas.CampaignOptions{CampaignConfig: cc, Out: out}, nil)
			if err != nil {
				return err
			}
			if err := replicas.WriteCampaign(cmd.OutOrStdout(), rec, format, seed, runs, shrink); err != nil {
				return err
			}
			if rec.Result.Stopped != "" {
				return fmt.Errorf("replicas campaign: %s; record %s", rec.Result.Stopped, rec.Run.Path)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&mode, "mode", "independent", "cleaning mode: independent (Kafka) or coordinated (Redpanda's MTRO/MXRO)")
	f.IntVar(&runs, "runs", 100, "number of seeded schedules")
	seed = 1
	f.Var(settings.Unsigned(&seed), "seed", "seed of the first schedule (schedule i uses seed+i)")
	f.IntVar(&n, "replicas", 3, "brokers (replication factor)")
	f.IntVar(&events, "events", 200, "events per schedule")
	f.StringVar(&format, "format", "text", "output: text or json (mode, runs, diverged, by_kind, cost, record)")
	f.BoolVar(&shrink, "shrink", false, "shrink the first diverging schedule and print it as a scenario file (also saved as reproducer.scenario in the record; with --sweep, one per cell: cell-N.scenario)")
	f.StringVar(&kind, "kind", "", "with --shrink: shrink the first schedule showing this divergence kind, keeping it (resurrected-key, aborted-visible, committed-hidden, lso-stuck, lost-acknowledged, offsets-differ, consumer-keeps-deleted)")
	f.StringArrayVar(&sweeps, "sweep", nil, "knob=v1,v2,...: run the campaign once per cell of the grid of every --sweep (repeatable; knobs delete.retention.ms, downtime, replica.lag.time.max.ms, segment.bytes, min.insync.replicas); every cell runs the same seeds")
	f.StringVar(&downtime, "downtime", "", "D1,D2,...: a sweep axis of how long each fault lasts in virtual time (as --sweep downtime=D1,D2; 0: recoveries drawn at random)")
	f.StringVar(&dir, "dir", "", "directory for the brokers' log directories with --on-disk (default: a temp dir; a tmpfs such as /dev/shm is much faster)")
	f.BoolVar(&onDisk, "on-disk", false, "put the brokers' logs on the file system under --dir (default: each schedule in its own in-memory file system, same findings, no system calls)")
	f.StringVar(&out, "out", "runs", "runs directory for the record")
	f.StringVar(&profile, "profile", "", profileUsage)
	return cmd
}

// sweepAxes parses the campaign's --sweep values and --downtime into the
// sweep's axes, in the order given (--downtime last); the error names the
// flag.
func sweepAxes(sweeps []string, downtime string) ([]replication.SweepAxis, error) {
	var axes []replication.SweepAxis
	for _, s := range sweeps {
		ax, err := replication.ParseSweepAxis(s)
		if err != nil {
			return nil, fmt.Errorf("--sweep: %w", err)
		}
		axes = append(axes, ax)
	}
	if downtime != "" {
		ax, err := replication.ParseSweepAxis(replication.KnobDowntime + "=" + downtime)
		if err != nil {
			return nil, fmt.Errorf("--downtime: %w", err)
		}
		axes = append(axes, ax)
	}
	return axes, nil
}

func newReplicasCostCmd() *cobra.Command {
	var (
		downtimes, retention, dir, out, profile string
	)
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "the cost of coordinated cleaning against one replica's downtime: table, plot and run record",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ds, err := replicas.ParseDowntimes(downtimes)
			if err != nil {
				return err
			}
			ret, err := replication.ParseDurationMs(retention)
			if err != nil || ret < 1 {
				return fmt.Errorf("--delete-retention %q: want a duration > 0", retention)
			}
			cleaner, err := profileCleaner(profile)
			if err != nil {
				return err
			}
			root, cleanup, err := workDir(dir)
			if err != nil {
				return err
			}
			defer cleanup()
			rec, err := replicas.Cost(replicas.CostOptions{Root: root, DowntimesMs: ds, DeleteRetentionMs: ret, Cleaner: cleaner, Profile: profile, Out: out,
				CheckDone: cmd.Context().Err})
			if err != nil {
				return err
			}
			replicas.WriteCostTable(cmd.OutOrStdout(), rec.Points)
			fmt.Fprintf(cmd.OutOrStdout(), "record %s\n", rec.Run.Path)
			if rec.Stopped != "" {
				return fmt.Errorf("replicas cost: %s; record %s", rec.Stopped, rec.Run.Path)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&downtimes, "downtime", "0,10m,1h,1d", "downtimes of broker 3 to sweep, comma-separated (500ms, 10s, 5m, 1h, 1d)")
	f.StringVar(&retention, "delete-retention", "10m", "delete.retention.ms of the topic")
	f.StringVar(&dir, "dir", "", "directory for the brokers' log directories (default: a temp dir)")
	f.StringVar(&out, "out", "runs", "runs directory for the record")
	f.StringVar(&profile, "profile", "", profileUsage)
	return cmd
}
