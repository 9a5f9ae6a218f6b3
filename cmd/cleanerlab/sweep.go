package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/shard"
	"github.com/cleanerlab/cleanerlab/settings"
)

// sweepDefaultCount is the default --count: enough for a median and a
// spread; benchstat wants 10 for tight confidence intervals.
const sweepDefaultCount = 3

func newSweepCmd() *cobra.Command {
	cmd, _ := sweepCommand()
	return cmd
}

// sweepFlags are the sweep command's options and its copies of run's
// flags (one string flag each: one value or a comma-separated list).
type sweepFlags struct {
	shard.SweepCommandOptions
	params map[string]*string
}

// sweepCommand returns the sweep command and the flags it binds.
func sweepCommand() (*cobra.Command, *sweepFlags) {
	sf := &sweepFlags{SweepCommandOptions: shard.SweepCommandOptions{Count: sweepDefaultCount, ShuffleSeed: 1, Out: "runs", Progress: "auto", Param: lab.RunFlagSetter},
		params: map[string]*string{}}
	o, params := &sf.SweepCommandOptions, sf.params
	cmd := &cobra.Command{
		Use:  "sweep [--experiment FILE] [--PARAM v1,v2,...]... [--count N]",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			sf.bindGiven(cmd)
			o.Log = cmd.ErrOrStderr()
			return shard.SweepCommand(cmd.Context(), *o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&o.Experiment, "experiment", "", "YAML experiment file (see scripts/experiments/); flags given too win over it")
	f.StringVar(&o.ServerConfig, "server-config", "", "a broker's server.properties: its values of the experiment's settings (by Kafka name) over run's defaults, under --experiment's and the flags given")
	f.Var(settings.Count(&o.Count), "count", "repetitions of each point")
	f.Var(settings.Unsigned(&o.ShuffleSeed), "shuffle-seed", "seed of the order in which the runs are carried out")
	f.StringVar(&o.Out, "out", o.Out, "directory under which the sweep's directory is made")
	f.StringVar(&o.Dir, "dir", "", "data directory on the disk under test (default: a fresh temp dir per run)")
	f.StringVar(&o.Progress, "progress", o.Progress, "progress bar: auto (when stderr is a terminal), always, never")
	f.BoolVar(&o.DropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only)")
	f.BoolVar(&o.DryRun, "dry-run", false, "print the points and the run order, run nothing")
	f.IntVar(&o.RetryBusy, "retry-busy", 0, "run a point's repetition again, up to N times, when its clean was not quiet (interference verdict busy or unusable; thresholds: --interference-thresholds); the replaced runs stay in the record, marked superseded")
	f.StringVar(&o.Shard, "shard", "", "run only shard i/N of the runs (i from 0, as JOB_COMPLETION_INDEX), and write shard.json for report --merge")
	probe := pflag.NewFlagSet("run", pflag.ContinueOnError)
	e := lab.DefaultExperiment()
	bindExperimentFlags(probe, &e)
	probe.VisitAll(func(fl *pflag.Flag) {
		v := new(string)
		params[fl.Name] = v
		def := fl.DefValue
		if def == "" {
			def = "none"
		}
		f.StringVar(v, fl.Name, "", fmt.Sprintf("%s (run's default %s; a comma-separated list sweeps it)", fl.Usage, def))
		if fl.Value.Type() == "bool" {
			f.Lookup(fl.Name).NoOptDefVal = "true" // --verify alone, as for run
		}
	})
	return cmd, sf
}

// bindGiven sets the options that depend on which flags were given: the
// run flags given, one axis each in the command line's order (SortFlags
// is off), and whether --count and --shuffle-seed were.
func (sf *sweepFlags) bindGiven(cmd *cobra.Command) {
	f := cmd.Flags()
	sf.CountGiven, sf.SeedGiven, sf.Flags = f.Changed("count"), f.Changed("shuffle-seed"), nil
	f.Visit(func(fl *pflag.Flag) {
		if sf.params[fl.Name] == nil {
			return
		}
		values := strings.Split(*sf.params[fl.Name], ",")
		for i := range values {
			values[i] = strings.TrimSpace(values[i])
		}
		set, _ := lab.RunFlagSetter(fl.Name)
		sf.Flags = append(sf.Flags, lab.Axis{Name: fl.Name, Values: values, Where: "--" + fl.Name, Set: set, Path: lab.RunFlagPath(fl.Name)})
	})
}

// planSweep is the plan of the sweep command's flags (tests).
func planSweep(cmd *cobra.Command, sf *sweepFlags) (*lab.SweepPlan, error) {
	sf.bindGiven(cmd)
	return shard.PlanSweep(sf.SweepCommandOptions)
}
