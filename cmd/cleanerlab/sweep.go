package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/lab/shard"
)

func newSweepCmd() *cobra.Command {
	cmd, _ := sweepCommand()
	return cmd
}

// sweepFlags are the sweep command's options and its copies of run's
// flags (one string flag each: one value or a comma-separated list).
type sweepFlags struct {
	shard.SweepCommandOptions
	params map[string]*string
	// kj are Kafka's cleaner's flags (--kafka-libs ...), for the points
	// of --profile kafka-jvm.
	kj kafkajvm.CommandOptions
}

// sweepCommand returns the sweep command and the flags it binds.
func sweepCommand() (*cobra.Command, *sweepFlags) {
	sf := &sweepFlags{SweepCommandOptions: shard.DefaultSweepCommandOptions(), params: map[string]*string{}, kj: kafkajvm.DefaultCommandOptions()}
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
	shard.SweepFlags.Bind(f, o)
	kafkajvm.RunFlags.Bind(f, &sf.kj)
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
	sf.kj.Stderr = cmd.ErrOrStderr()
	sf.External = sf.kj.SweepProfile(sf.Dir)
	f.Visit(func(fl *pflag.Flag) {
		if sf.params[fl.Name] == nil {
			return
		}
		sf.Flags = append(sf.Flags, lab.RunFlagAxis(fl.Name, *sf.params[fl.Name]))
	})
}

// planSweep is the plan of the sweep command's flags (tests).
func planSweep(cmd *cobra.Command, sf *sweepFlags) (*lab.SweepPlan, error) {
	sf.bindGiven(cmd)
	return shard.PlanSweep(sf.SweepCommandOptions)
}
