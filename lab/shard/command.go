package shard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/settings"
)

// SweepCommandOptions are the sweep command's options, as its flags give
// them.
type SweepCommandOptions struct {
	// Experiment is a YAML experiment file ("": none); Flags win over it.
	Experiment string
	// ServerConfig is a broker's server.properties whose values (by Kafka
	// name) are taken over run's defaults, under Experiment's and Flags'
	// ("": none).
	ServerConfig string
	// Count is the repetitions of each point, ShuffleSeed the seed of the
	// run order; each wins over the file's only when given (CountGiven,
	// SeedGiven).
	Count                 int
	CountGiven, SeedGiven bool
	ShuffleSeed           uint64
	// Flags are the run flags given, one axis each (a single value fixes
	// the parameter), in the command line's order.
	Flags []lab.Axis
	// Param resolves a sweep key of the experiment file that is not a
	// field path (a run flag's name).
	Param func(name string) (lab.Setter, bool)
	// Out is the directory the sweep's directory is made under; Dir the
	// data directory ("": a fresh temp dir per run).
	Out, Dir string
	// Progress is auto, always or never.
	Progress string
	// DropCaches, DryRun and RetryBusy are lab.SweepOptions' and the dry
	// run's.
	DropCaches, DryRun bool
	RetryBusy          int
	// Shard is "i/N": run only that shard of the runs ("": all).
	Shard string
	// Log receives each run's log lines; nil: none.
	Log io.Writer
	// External is the cleaner of the points cleaned by an external
	// cleaner (--profile kafka-jvm, lab/kafkajvm's SweepProfile); nil:
	// such points are invalid.
	External *lab.ExternalProfile
}

// PlanSweep merges the layers of the sweep's base (lab.MergeExperiment:
// run's defaults < ServerConfig < the experiment file, with its sweep:
// values of one value < the flags of one value) and its axes (the file's
// and the flags' lists; a flag replaces what the file said of its field)
// into a lab.SweepPlan, resolving every point before anything runs.
func PlanSweep(o SweepCommandOptions) (*lab.SweepPlan, error) {
	server, file, err := lab.LoadLayers(o.ServerConfig, o.Experiment, o.Param)
	if err != nil {
		return nil, err
	}
	var given []lab.Param
	var axes []lab.Axis
	count, seed := o.Count, o.ShuffleSeed
	if file != nil {
		given, axes = slices.Clone(file.Given), slices.Clone(file.Axes) // appended to below
		if file.RepetitionsGiven && !o.CountGiven {
			count = file.Experiment.Repetitions
		}
		if file.ShuffleSeed != nil && !o.SeedGiven {
			seed = *file.ShuffleSeed
		}
	}
	// Each flag replaces what the file said of its field; axes keep the
	// command line's order.
	for _, a := range o.Flags {
		given, axes = lab.Override(given, axes, a)
	}
	// The values of one value are the base's layers; the lists its axes.
	var fileFixed, swept []lab.Axis
	var flags []settings.Given
	for _, a := range axes {
		switch {
		case len(a.Values) != 1:
			swept = append(swept, a)
			continue
		case slices.ContainsFunc(o.Flags, func(f lab.Axis) bool { return f.Where == a.Where }):
			flags = append(flags, settings.Given{Key: a.Name, Value: a.Values[0], From: settings.FromFlag, Where: a.Where})
		default:
			fileFixed = append(fileFixed, a)
		}
		given = append(given, lab.Param{Name: a.Name, Value: a.Values[0], Where: a.Where})
	}
	if file != nil {
		f := *file
		f.Axes = fileFixed
		file = &f
	}
	base, origins, err := lab.MergeExperiment(server, file, flags)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	plan, err := lab.PlanSweepFrom(base, origins, given, swept, count, seed)
	if err != nil {
		return nil, err // "sweep: ..." already
	}
	plan.Source = o.Experiment
	// A profile of one value resets the values before it as run's does:
	// the flags' (as settings.ProfileWarnings says them), then those of
	// server.properties and the file; a point's axes can make a profile
	// meet a throttle or an offset map.
	layers := lab.LayerGivens(server, file, flags)
	fixed := append(settings.ProfileWarningsOf(flags, lab.ProfileAlias), settings.ProfileWarningsFrom(layers, lab.ProfileAlias)...)
	plan.Warnings = slices.Concat(fixed, plan.Warnings, plan.PointProfileWarnings(layers, fixed))
	plan.CheckExternal(o.External) // kafka-jvm's limits, per point
	return plan, nil
}

// SweepCommand is the sweep command: it plans the sweep, runs its runs (or
// o.Shard's, recording shard.json) with lab.Sweep and writes its table and
// record's path to out. Failed runs are an error; failed verification an
// error asking for exit status 2; a sweep of no valid point an error
// before anything runs (lab.SweepPlan.NoValidPoint; a dry run lists the
// schedule, then gives the same error); a negative --retry-busy or an
// unknown --progress an error, dry run or not.
// ctx stops it between runs.
func SweepCommand(ctx context.Context, o SweepCommandOptions, out io.Writer) error {
	var spec Spec
	if o.Shard != "" {
		var err error
		if spec, err = ParseSpec(o.Shard); err != nil {
			return fmt.Errorf("sweep: --shard: %w", err)
		}
	}
	// The flags of the running itself, checked before a dry run too.
	if o.RetryBusy < 0 {
		return fmt.Errorf("--retry-busy %d: want 0 or more", o.RetryBusy)
	}
	showProgress, err := lab.ProgressWanted(o.Progress)
	if err != nil {
		return err
	}
	plan, err := PlanSweep(o)
	if err != nil {
		return err
	}
	if o.Log != nil {
		for _, w := range plan.Warnings {
			fmt.Fprintln(o.Log, "warning: "+w)
		}
	}
	order := plan.Schedule()
	total := len(order)
	var sh *Sweep
	if o.Shard != "" {
		if sh, err = Prepare(plan, spec); err != nil {
			return fmt.Errorf("sweep: --shard %s: %w", spec, err)
		}
		order = sh.Runs
	}
	if o.DryRun {
		if sh != nil {
			fmt.Fprintf(out, "%d points x %d repetitions = %d runs\n", len(plan.Points), plan.Count, total)
			sh.WriteDryRun(out, plan)
		} else {
			lab.WriteSchedule(out, plan)
		}
		// The schedule marks each invalid point; a sweep of none valid
		// is refused as the sweep itself would be.
		return plan.NoValidPoint()
	}
	if err := plan.NoValidPoint(); err != nil {
		return err
	}
	if err := externalReady(plan, o.External); err != nil {
		return err
	}
	bar := lab.NewRunBar(showProgress, len(order))
	fmt.Fprintf(out, "sweep: %d points x %d repetitions = %d runs\n", len(plan.Points), plan.Count, total)
	logw := o.Log
	if logw == nil {
		logw = io.Discard
	}
	opt := lab.SweepOptions{Out: o.Out, Dir: o.Dir, DropCaches: o.DropCaches, Log: logw, OnRun: bar.OnRun, RetryBusy: o.RetryBusy}
	if o.External != nil {
		opt.External = o.External.New
	}
	if sh != nil {
		fmt.Fprintf(out, "shard %s: %d of the %d runs\n", spec, len(order), total)
		opt = sh.Options(opt)
	}
	sw, dir, err := lab.Sweep(ctx, plan, opt)
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
		return lab.ExitError{Code: 2, Err: fmt.Errorf("sweep: %d of %d runs failed verification (see their reports under %s)", unverified, len(order), filepath.Join(dir, results.SweepRunsDir))}
	}
	return nil
}
