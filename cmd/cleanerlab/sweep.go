package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
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
	sf := &sweepFlags{params: map[string]*string{}}
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
	f.IntVar(&sf.count, "count", sweepDefaultCount, "repetitions of each point")
	f.Uint64Var(&sf.shuffleSeed, "shuffle-seed", 1, "seed of the order in which the runs are carried out")
	f.StringVar(&sf.out, "out", "runs", "directory under which the sweep's directory is made")
	f.StringVar(&sf.dir, "dir", "", "data directory on the disk under test (default: a fresh temp dir per run)")
	f.StringVar(&sf.progress, "progress", "auto", "progress bar: auto (when stderr is a terminal), always, never")
	f.BoolVar(&sf.dropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only)")
	f.BoolVar(&sf.dryRun, "dry-run", false, "print the points and the run order, run nothing")
	probe := pflag.NewFlagSet("run", pflag.ContinueOnError)
	bindRunFlags(probe)
	probe.VisitAll(func(fl *pflag.Flag) {
		if runLabFlags[fl.Name] {
			return
		}
		v := new(string)
		sf.params[fl.Name] = v
		f.StringVar(v, fl.Name, "", fmt.Sprintf("%s (run's default %s; a comma-separated list sweeps it)", fl.Usage, fl.DefValue))
		if fl.Value.Type() == "bool" {
			f.Lookup(fl.Name).NoOptDefVal = "true" // --verify alone, as for run
		}
	})
	return cmd, sf
}

// sweepPlan is a resolved sweep: its points and their configurations.
type sweepPlan struct {
	base   []paramValue
	axes   []paramAxis
	count  int
	seed   uint64
	points []plannedPoint
	source string // the experiment file, if any
}

type plannedPoint struct {
	params []results.KV // one per axis
	cfg    lab.Experiment
	extra  []results.KV // name parts beyond the standard ones
	name   string       // benchmark name
}

// planSweep merges the experiment file and the flags, and resolves every
// point, so that a bad value fails before anything runs.
func planSweep(cmd *cobra.Command, sf *sweepFlags) (*sweepPlan, error) {
	plan := &sweepPlan{count: sf.count, seed: sf.shuffleSeed, source: sf.experiment}
	if sf.experiment != "" {
		e, err := loadExperiment(sf.experiment)
		if err != nil {
			return nil, err
		}
		plan.base, plan.axes = e.Base, e.Axes
		if e.Count > 0 && !cmd.Flags().Changed("count") {
			plan.count = e.Count
		}
		if e.ShuffleSeed != nil && !cmd.Flags().Changed("shuffle-seed") {
			plan.seed = *e.ShuffleSeed
		}
	}
	if plan.count < 1 {
		return nil, fmt.Errorf("sweep: --count %d must be at least 1", plan.count)
	}
	// The flags in the order the command line gave them (SortFlags is off),
	// so that axes keep that order.
	var given []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if sf.params[fl.Name] != nil {
			given = append(given, fl.Name)
		}
	})
	for _, name := range given {
		// The command line replaces whatever the file said of this flag.
		plan.base = slices.DeleteFunc(plan.base, func(v paramValue) bool { return v.Flag == name })
		plan.axes = slices.DeleteFunc(plan.axes, func(a paramAxis) bool { return a.Flag == name })
		raw := *sf.params[name]
		values := strings.Split(raw, ",")
		for i := range values {
			values[i] = strings.TrimSpace(values[i])
		}
		if len(values) == 1 {
			plan.base = append(plan.base, paramValue{Flag: name, Value: values[0], Where: "--" + name})
		} else {
			plan.axes = append(plan.axes, paramAxis{Flag: name, Values: values, Where: "--" + name})
		}
	}
	// A single-valued axis is a fixed value.
	var axes []paramAxis
	for _, a := range plan.axes {
		if len(a.Values) == 1 {
			plan.base = append(plan.base, paramValue{Flag: a.Flag, Value: a.Values[0], Where: a.Where})
			continue
		}
		seen := map[string]bool{}
		for _, v := range a.Values {
			if v == "" || seen[v] {
				return nil, fmt.Errorf("sweep: %s: %s lists %q twice or empty", a.Where, a.Flag, v)
			}
			seen[v] = true
		}
		axes = append(axes, a)
	}
	plan.axes = axes

	std := map[string]bool{}
	for _, s := range lab.StandardNameKeys {
		std[s.Flag] = true
	}
	combos := [][]results.KV{nil}
	for _, a := range plan.axes {
		var next [][]results.KV
		for _, c := range combos {
			for _, v := range a.Values {
				next = append(next, append(slices.Clone(c), results.KV{Key: a.Flag, Value: v}))
			}
		}
		combos = next
	}
	for _, c := range combos {
		fs := pflag.NewFlagSet("point", pflag.ContinueOnError)
		rf := bindRunFlags(fs)
		for _, v := range plan.base {
			if err := setRunFlag(fs, v.Flag, v.Value); err != nil {
				return nil, fmt.Errorf("sweep: %s: %w", v.Where, err)
			}
		}
		var extra []results.KV
		for _, kv := range c {
			if err := setRunFlag(fs, kv.Key, kv.Value); err != nil {
				return nil, fmt.Errorf("sweep: %w", err)
			}
			if !std[kv.Key] {
				extra = append(extra, kv)
			}
		}
		cfg, err := resolveRun(fs, rf)
		if err != nil {
			return nil, fmt.Errorf("sweep: point %s: %w", pointLabel(c), err)
		}
		plan.points = append(plan.points, plannedPoint{params: c, cfg: cfg, extra: extra,
			name: lab.BenchName(&cfg, extra...)})
	}
	return plan, nil
}

// pointLabel renders a point's parameters: "keys=1e4 hasher=md5".
func pointLabel(params []results.KV) string {
	if len(params) == 0 {
		return "(the only point)"
	}
	parts := make([]string, len(params))
	for i, kv := range params {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// schedule is the run order: every point count times, shuffled by a PCG
// seeded with seed (the same seed, the same order).
type scheduled struct{ point, rep int }

func (p *sweepPlan) schedule() []scheduled {
	var s []scheduled
	for i := range p.points {
		for r := 1; r <= p.count; r++ {
			s = append(s, scheduled{i, r})
		}
	}
	rng := rand.New(rand.NewPCG(p.seed, 0x5357454550)) // "SWEEP"
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// id is "sweep-<UTC time>-<8 hex of the sha256 of the definition>".
func (p *sweepPlan) id(start time.Time) string {
	def, _ := json.Marshal(struct {
		Base  []paramValue
		Axes  []paramAxis
		Count int
		Seed  uint64
	}{p.base, p.axes, p.count, p.seed})
	sum := sha256.Sum256(def)
	return "sweep-" + start.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(sum[:4])
}

func sweepMain(cmd *cobra.Command, sf *sweepFlags) error {
	out := cmd.OutOrStdout()
	plan, err := planSweep(cmd, sf)
	if err != nil {
		return err
	}
	order := plan.schedule()
	if sf.dryRun {
		fmt.Fprintf(out, "%d points x %d repetitions = %d runs\n", len(plan.points), plan.count, len(order))
		for i, s := range order {
			fmt.Fprintf(out, "%4d  %s  (rep %d)\n", i+1, plan.points[s.point].name, s.rep)
		}
		return nil
	}
	showProgress, err := progressWanted(sf.progress)
	if err != nil {
		return err
	}

	start := time.Now()
	sw := &results.Sweep{
		ID: plan.id(start), StartedAt: start.UTC(), Count: plan.count, ShuffleSeed: plan.seed,
		Experiment: plan.source,
	}
	for _, v := range plan.base {
		sw.Base = append(sw.Base, results.KV{Key: v.Flag, Value: v.Value})
	}
	for _, a := range plan.axes {
		sw.Axes = append(sw.Axes, results.Axis{Name: a.Flag, Values: a.Values})
	}
	for _, p := range plan.points {
		sw.Points = append(sw.Points, results.Point{Params: p.params, Benchmark: p.name, Config: p.cfg})
	}
	dir := filepath.Join(sf.out, sw.ID)
	if err := os.MkdirAll(filepath.Join(dir, results.SweepRunsDir), 0o755); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "experiment.yaml"), experimentYAML(plan.base, plan.axes, plan.count, plan.seed), 0o644); err != nil {
		return fmt.Errorf("sweep: %w", err)
	}
	envRoot := sf.dir
	if envRoot == "" {
		envRoot = os.TempDir()
	}
	sw.Environment, _ = results.CaptureEnvironment(envRoot)
	fmt.Fprintf(out, "sweep %s: %d points x %d repetitions = %d runs\n", sw.ID, len(plan.points), plan.count, len(order))

	var bar *progressbar.ProgressBar
	if showProgress {
		bar = progressbar.NewOptions(len(order),
			progressbar.OptionSetWriter(os.Stderr),
			progressbar.OptionSetDescription("sweep"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionFullWidth(),
		)
	}
	for i, s := range order {
		pp := &plan.points[s.point]
		if bar != nil {
			bar.Describe(fmt.Sprintf("%d/%d %s", i+1, len(order), pointLabel(pp.params)))
		}
		pr := results.PointRun{Rep: s.rep, Order: i + 1}
		res, err := lab.Run(cmd.Context(), pp.cfg, lab.Options{
			Dir: sf.dir, Out: filepath.Join(dir, results.SweepRunsDir), DropCaches: sf.dropCaches,
			NameParts: pp.extra, IDSuffix: fmt.Sprintf("-r%d", s.rep),
		})
		if res != nil {
			pr.ID = res.ID
			if res.Path != "" {
				pr.Dir = filepath.ToSlash(filepath.Join(results.SweepRunsDir, filepath.Base(res.Path)))
			}
			if v := res.Verification; v != nil {
				passed := v.Passed
				pr.Verified = &passed
			}
			if len(res.Benchmarks) > 0 {
				pr.Metrics = res.Benchmarks[0].Metrics
			}
		}
		if err != nil {
			pr.Error = err.Error()
			fmt.Fprintf(cmd.ErrOrStderr(), "sweep: run %d (%s, rep %d): %v\n", i+1, pointLabel(pp.params), s.rep, err)
		}
		sw.Points[s.point].Runs = append(sw.Points[s.point].Runs, pr)
		sw.Duration = time.Since(start)
		// Keep sweep.json current, so that an interrupted sweep leaves its figures.
		if err := sw.WriteJSON(dir); err != nil {
			return err
		}
		if bar != nil {
			bar.Add(1)
		}
	}
	if bar != nil {
		bar.Finish()
		fmt.Fprintln(os.Stderr)
	}
	sw.Duration = time.Since(start)
	if err := sw.Write(dir); err != nil {
		return err
	}
	printSweepTable(out, sw)
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

// printSweepTable prints each point's median throughput and spread.
func printSweepTable(w io.Writer, sw *results.Sweep) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "point\tMB/s median\tp95\tCV\tns/key\tn\t")
	for _, p := range sw.Points {
		mb, _ := p.Summary(results.UnitMBps)
		nk, _ := p.Summary(results.UnitNsPerKey)
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%.1f%%\t%.4g\t%d\t\n", pointLabel(p.Params), mb.Median, mb.P95, 100*mb.CV, nk.Median, mb.N)
	}
	tw.Flush()
}
