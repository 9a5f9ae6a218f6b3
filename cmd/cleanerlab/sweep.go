package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/shard"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/settings"
)

// sweepFlags are the flags of cleanerlab sweep: its own, and one string
// flag per run flag, which takes one value or a comma-separated list.
type sweepFlags struct {
	experiment  string
	count       int
	shuffleSeed uint64
	out         string
	dir         string
	progress    string
	dropCaches  bool
	dryRun      bool
	shard       string
	retryBusy   int
	params      map[string]*string
}

// sweepDefaultCount is the default --count: enough for a median and a
// spread; benchstat wants 10 for tight confidence intervals.
const sweepDefaultCount = 3

func newSweepCmd() *cobra.Command {
	cmd, _ := sweepCommand()
	return cmd
}

// sweepCommand returns the sweep command and the flags it binds.
func sweepCommand() (*cobra.Command, *sweepFlags) {
	sf := &sweepFlags{params: map[string]*string{}, count: sweepDefaultCount, shuffleSeed: 1}
	cmd := &cobra.Command{
		Use:   "sweep [--experiment FILE] [--PARAM v1,v2,...]... [--count N]",
		Short: "Run the cross product of parameter lists, each point --count times, and report",
		Long: `sweep runs every combination of the parameter lists it is given (each
parameter is a flag of cleanerlab run; a comma-separated list sweeps it, a
single value fixes it; a boolean takes its list after '=', --verify=true,false),
each point --count times, in an order shuffled with
--shuffle-seed so that drift of the machine spreads over all points. Each run
is a full cleanerlab run (generate, cache, clean, verify) with its own record;
the sweep writes, under --out/sweep-<time>-<hash>/:

  runs/<run id>/   one run record per run (run.json, report.md, bench.txt)
  sweep.json       the definition, every run's figures and the statistics
  summary.csv      median, mean, p95, min, max, stddev, CV per point and unit
  runs.csv         every run's figures
  bench.txt        Go benchmark format: benchstat bench.txt, or -col /hasher
  plots/           throughput against each swept parameter, PNG and SVG
  report.md, report.html, experiment.yaml (the sweep as an experiment file)

Examples:
  cleanerlab sweep --keys 1e4,1e5,1e6 --hasher md5,xxh3-128 --log-bytes 12MiB --dirty-ratio 0.9 --count 10
  cleanerlab sweep --experiment scripts/experiments/hashers.yaml

A run that fails or fails verification is recorded and the sweep goes on; the
command then exits 1 (failed runs) or 2 (failed verification).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return sweepMain(cmd, sf) },
	}
	f := cmd.Flags()
	f.SortFlags = false
	f.StringVar(&sf.experiment, "experiment", "", "YAML experiment file (see scripts/experiments/); flags given too win over it")
	f.Var(settings.Count(&sf.count), "count", "repetitions of each point")
	f.Var(settings.Unsigned(&sf.shuffleSeed), "shuffle-seed", "seed of the order in which the runs are carried out")
	f.StringVar(&sf.out, "out", "runs", "directory under which the sweep's directory is made")
	f.StringVar(&sf.dir, "dir", "", "data directory on the disk under test (default: a fresh temp dir per run)")
	f.StringVar(&sf.progress, "progress", "auto", "progress bar: auto (when stderr is a terminal), always, never")
	f.BoolVar(&sf.dropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only)")
	f.BoolVar(&sf.dryRun, "dry-run", false, "print the points and the run order, run nothing")
	f.IntVar(&sf.retryBusy, "retry-busy", 0, "run a point's repetition again, up to N times, when its clean was not quiet (interference verdict busy or unusable; thresholds: --interference-thresholds); the replaced runs stay in the record, marked superseded")
	f.StringVar(&sf.shard, "shard", "", "run only shard i/N of the runs (i from 0, as JOB_COMPLETION_INDEX), and write shard.json for report --merge")
	probe := pflag.NewFlagSet("run", pflag.ContinueOnError)
	e := lab.DefaultExperiment()
	bindExperimentFlags(probe, &e)
	probe.VisitAll(func(fl *pflag.Flag) {
		v := new(string)
		sf.params[fl.Name] = v
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

// planSweep merges the experiment file and the flags into a lab.SweepPlan,
// resolving every point before anything runs.
func planSweep(cmd *cobra.Command, sf *sweepFlags) (*lab.SweepPlan, error) {
	base := lab.DefaultExperiment()
	var given []lab.Param
	var axes []lab.Axis
	count, seed := sf.count, sf.shuffleSeed
	if sf.experiment != "" {
		file, err := lab.LoadYAML(sf.experiment, lab.LoadOptions{Param: flagSetter})
		if err != nil {
			return nil, err
		}
		base, given, axes = file.Experiment, file.Given, file.Axes
		if file.RepetitionsGiven && !cmd.Flags().Changed("count") {
			count = file.Experiment.Repetitions
		}
		if file.ShuffleSeed != nil && !cmd.Flags().Changed("shuffle-seed") {
			seed = *file.ShuffleSeed
		}
	}
	// The flags in the order the command line gave them (SortFlags is off),
	// so that axes keep that order; each replaces what the file said of its
	// field.
	var names []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if sf.params[fl.Name] != nil {
			names = append(names, fl.Name)
		}
	})
	for _, name := range names {
		values := strings.Split(*sf.params[name], ",")
		for i := range values {
			values[i] = strings.TrimSpace(values[i])
		}
		set, _ := flagSetter(name)
		given, axes = lab.Override(given, axes, lab.Axis{Name: name, Values: values, Where: "--" + name, Set: set, Path: flagPath(name)})
	}
	plan, err := lab.PlanSweep(base, given, axes, count, seed)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	plan.Source = sf.experiment
	return plan, nil
}

func sweepMain(cmd *cobra.Command, sf *sweepFlags) error {
	out := cmd.OutOrStdout()
	var spec shard.Spec
	if sf.shard != "" {
		var err error
		if spec, err = shard.ParseSpec(sf.shard); err != nil {
			return fmt.Errorf("sweep: --shard: %w", err)
		}
	}
	plan, err := planSweep(cmd, sf)
	if err != nil {
		return err
	}
	order := plan.Schedule()
	total := len(order)
	var sh *shard.Sweep
	if sf.shard != "" {
		if sh, err = shard.Prepare(plan, spec); err != nil {
			return fmt.Errorf("sweep: --shard %s: %w", spec, err)
		}
		order = sh.Runs
	}
	if sf.dryRun {
		if sh != nil {
			fmt.Fprintf(out, "%d points x %d repetitions = %d runs\n", len(plan.Points), plan.Count, total)
			sh.WriteDryRun(out, plan)
			return nil
		}
		lab.WriteSchedule(out, plan)
		return nil
	}
	showProgress, err := lab.ProgressWanted(sf.progress)
	if err != nil {
		return err
	}
	bar := lab.NewRunBar(showProgress, len(order))
	fmt.Fprintf(out, "sweep: %d points x %d repetitions = %d runs\n", len(plan.Points), plan.Count, total)
	if sf.retryBusy < 0 {
		return fmt.Errorf("--retry-busy %d: want 0 or more", sf.retryBusy)
	}
	opt := lab.SweepOptions{Out: sf.out, Dir: sf.dir, DropCaches: sf.dropCaches, Log: cmd.ErrOrStderr(), OnRun: bar.OnRun, RetryBusy: sf.retryBusy}
	if sh != nil {
		fmt.Fprintf(out, "shard %s: %d of the %d runs\n", spec, len(order), total)
		opt = sh.Options(opt)
	}
	sw, dir, err := lab.Sweep(cmd.Context(), plan, opt)
	if ferr := sh.Finish(err); err == nil {
		err = ferr
	}
	bar.Finish()
	if err != nil {
		if dir != "" && errors.Is(err, lab.ErrStopped) {
			return fmt.Errorf("%w; the runs done are in %s", err, filepath.Join(dir, results.SweepJSONFile))
		}
		return err
	}
	lab.WriteSweepTable(out, sw)
	if v := sw.VerdictLine(); v != "" {
		fmt.Fprintf(out, "interference over the cleans: %s\n", v)
	}
	fmt.Fprintf(out, "sweep record: %s (report.md, report.html, bench.txt, summary.csv, plots/)\n", dir)
	errs, unverified := sw.Failures()
	switch {
	case errs > 0:
		return fmt.Errorf("sweep: %d of %d runs failed (see %s)", errs, len(order), filepath.Join(dir, results.SweepJSONFile))
	case unverified > 0:
		return exitError{code: 2, err: fmt.Errorf("sweep: %d of %d runs failed verification (see their reports under %s)", unverified, len(order), filepath.Join(dir, results.SweepRunsDir))}
	}
	return nil
}
