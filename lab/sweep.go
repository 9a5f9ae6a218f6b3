package lab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
	"github.com/cleanerlab/cleanerlab/settings"
)

// SweepPlan is a resolved sweep: the cross product of its axes over a base
// experiment, each point run Count times in an order shuffled with Seed.
type SweepPlan struct {
	// Base is the experiment every point starts from.
	Base Experiment
	// Given are the base values as given (file and command line), for the
	// record.
	Given []Param
	// Axes are the swept parameters with at least two values.
	Axes []Axis
	// Count is the repetitions of each point; Seed the shuffle's seed.
	Count int
	Seed  uint64
	// Source is the experiment file, if any.
	Source string
	// Points are the combinations, in axis order.
	Points []SweepPoint
	// Warnings are the settings given (a flag, the file, server.properties;
	// not a default or a profile's) that the cleaner configs of the valid
	// points ignore (engine.CleanerConfig.IgnoredSettings), followed by
	// the hint of the offset map when that is why (MapLayoutHint), and the
	// throttles predicted to hold a point's clean past SlowThrottleSeconds
	// (ThrottleWarning), one sentence each, once however many points it is
	// about; a sentence about some of the points only ends with them:
	// "(point keys=1e4)", "(points a; b)". The sweep command adds the
	// profile's (settings.ProfileWarningsOf, PointProfileWarnings).
	Warnings []string
}

// SweepPoint is one combination of axis values.
type SweepPoint struct {
	// Params holds one value per axis, in axis order.
	Params []results.KV
	// Experiment is the point's experiment; Err, when not nil, says why it
	// is not a valid one (the point's runs are then recorded as failed and
	// the sweep goes on).
	Experiment Experiment
	Err        error
	// Extra are the name parts beyond the standard ones; Name the
	// benchmark name.
	Extra []results.KV
	Name  string
}

// PlanSweep resolves every point of the cross product of axes over base,
// so that the schedule and the names are known before anything runs.
// Axes of one value are fixed values; an axis listing a value twice or an
// empty value is an error ("sweep: ..."); count must be at least 1. A point whose
// experiment is not valid is kept with its Err.
func PlanSweep(base Experiment, given []Param, axes []Axis, count int, seed uint64) (*SweepPlan, error) {
	return PlanSweepFrom(base, nil, given, axes, count, seed)
}

// PlanSweepFrom is PlanSweep of a base whose origins (MergeExperiment's,
// by setting name; nil: unknown) say where each of its values was given:
// a point's validation error then names where the value at fault was
// given (LocateError): the axis's flag or file line for a swept setting,
// else the base value's origin.
func PlanSweepFrom(base Experiment, origins map[string]settings.Origin, given []Param, axes []Axis, count int, seed uint64) (*SweepPlan, error) {
	if count < 1 {
		return nil, fmt.Errorf("sweep: count %d must be at least 1", count)
	}
	plan := &SweepPlan{Base: base, Given: slices.Clone(given), Count: count, Seed: seed}
	for _, a := range axes {
		if len(a.Values) == 1 {
			if err := a.apply(&plan.Base, a.Values[0]); err != nil {
				return nil, axisError(a, err)
			}
			plan.Given = append(plan.Given, Param{Name: a.Name, Value: a.Values[0], Where: a.Where})
			continue
		}
		seen := map[string]bool{}
		for _, v := range a.Values {
			if v == "" || seen[v] {
				return nil, fmt.Errorf("sweep: %s: %s lists %q twice or empty", a.Where, a.Name, v)
			}
			seen[v] = true
		}
		plan.Axes = append(plan.Axes, a)
	}
	combos := [][]results.KV{nil}
	for _, a := range plan.Axes {
		var next [][]results.KV
		for _, c := range combos {
			for _, v := range a.Values {
				next = append(next, append(slices.Clone(c), results.KV{Key: a.Name, Value: v}))
			}
		}
		combos = next
	}
	for _, c := range combos {
		p := SweepPoint{Params: c, Experiment: plan.Base}
		for i, kv := range c {
			if err := plan.Axes[i].apply(&p.Experiment, kv.Value); err != nil {
				return nil, axisError(plan.Axes[i], err)
			}
			if !IsStandardName(kv.Key) {
				p.Extra = append(p.Extra, kv)
			}
		}
		p.Experiment.Repetitions = count
		if err := p.Experiment.Validate(); err != nil {
			p.Err = fmt.Errorf("point %s: %w", PointLabel(c), LocateError(err, pointOrigins(origins, plan.Axes)))
		}
		p.Extra = cleanerNamePart(&p.Experiment, p.Extra) // cleaner=kafka-jvm, as run names it
		p.Name = BenchName(&p.Experiment, p.Extra...)
		plan.Points = append(plan.Points, p)
	}
	po := pointOrigins(origins, plan.Axes)
	plan.Warnings = append(profileResets(plan, po), ignoredSettings(plan.Points, SettingSources(po))...)
	plan.Warnings = append(plan.Warnings, throttleWarnings(plan.Points)...)
	return plan, nil
}

// axisError is the sweep's error of a value of axis a that err refuses:
// "sweep: WHERE: ...", WHERE (a flag, a file's line) named once, in the
// *settings.Error where that is err's.
func axisError(a Axis, err error) error {
	var se *settings.Error
	if errors.As(err, &se) && se.Where == "" {
		se.Where = a.Where
		return fmt.Errorf("sweep: %w", err)
	}
	return fmt.Errorf("sweep: %s: %w", a.Where, err)
}

// profileResets are the SweepPlan.Warnings of a swept profile (an axis of
// ProfileFlag): at each valid point it is applied after the base and the
// axes before it, so it resets the settings given there (origins,
// pointOrigins': by a flag, the file or server.properties, or an earlier
// axis) to its own values, whatever the command line's order. A setting
// is named where its value at a point differs from the point's without
// the profile axis, one sentence per setting and value, ending with the
// points it is about when not all (as ignoredSettings).
func profileResets(plan *SweepPlan, origins map[string]settings.Origin) []string {
	return pointSentences(plan.Points, func(p SweepPoint) []string {
		var ws []string
		for i, a := range plan.Axes {
			if a.Name != ProfileFlag {
				continue
			}
			without := plan.Base
			for j, kv := range p.Params {
				if j != i {
					plan.Axes[j].apply(&without, kv.Value) // applied without error to the point
				}
			}
			label := "--profile"
			if !strings.HasPrefix(a.Where, "--") {
				label = "profile (" + a.Where + ")"
			}
			for _, s := range Settings.All() {
				o := origins[s.Name]
				now := s.Var(&p.Experiment).String()
				if !o.Given() || now == s.Var(&without).String() {
					continue
				}
				flag := s.Name
				if f := s.Flags(); len(f) > 0 {
					flag = f[0]
				}
				keep := fmt.Sprintf("a swept %s is applied at each point after the values given once; to keep %s, sweep each profile on its own with --%s after --profile", label, s.Name, flag)
				if slices.ContainsFunc(plan.Axes[:i], func(x Axis) bool { return x.Where == o.Where }) {
					keep = fmt.Sprintf("a swept %s is applied at each point after the axes listed before it; list --%s after --profile to keep it", label, flag)
				}
				ws = append(ws, fmt.Sprintf("the swept %s sets %s to %s, resetting the value given by %s (%s)", label, s.Name, now, o.Where, keep))
			}
		}
		return ws
	})
}

// PointProfileWarnings are the warnings of the valid points at which a
// profile meets a throttle or an offset map that leaves some of its
// settings ignored (settings.ProfileLossesOf of layers, the values of the
// base's layers as LayerGivens lists them, then the point's axis values in
// axis order, as the point applies them), one sentence per case however
// many points and runs, ending with its points when not all (as
// Warnings); a sentence in known (those of the values of one value,
// already said) is left out.
func (p *SweepPlan) PointProfileWarnings(layers []settings.Given, known []string) []string {
	return pointSentences(p.Points, func(pt SweepPoint) []string {
		given := slices.Clone(layers)
		for i, kv := range pt.Params {
			a := p.Axes[i]
			g := settings.Given{Key: a.Name, Value: kv.Value, From: settings.FromFlag, Where: a.Where}
			if !strings.HasPrefix(a.Where, "--") {
				g.From = settings.FromFile
				if s, ok := Settings.Lookup(a.Name); ok && a.Name != ProfileFlag {
					g.Key = s.Name
				}
			}
			given = append(given, g)
		}
		var ws []string
		for _, w := range settings.ProfileLossesOf(given, ProfileAlias) {
			if !slices.Contains(known, w) {
				ws = append(ws, w)
			}
		}
		return ws
	})
}

// ignoredSettings are the SweepPlan.Warnings of points whose settings
// source says who set (engine.CleanerConfig.IgnoredSettingsBy), each
// point's followed by clean's and run's hint of its offset map when that is
// why they are ignored (MapLayoutHint).
func ignoredSettings(points []SweepPoint, source func(string) engine.SettingSource) []string {
	given := func(name string) bool { return source(name) == engine.SourceUser }
	return pointSentences(points, func(p SweepPoint) []string {
		ws := p.Experiment.Cleaner.IgnoredSettingsBy(source)
		if h := MapLayoutHint(p.Experiment.Cleaner, given); h != "" {
			ws = append(ws, h)
		}
		return ws
	})
}

// pointSentences are the sentences of (a point's warnings) over the valid
// points of points, each once, in the order first said, ending with the
// points it is about when not all valid ones: "(point a)", "(points a;
// b)".
func pointSentences(points []SweepPoint, of func(SweepPoint) []string) []string {
	var sentences []string
	about := map[string][]string{}
	valid := 0
	for _, p := range points {
		if p.Err != nil {
			continue
		}
		valid++
		for _, w := range of(p) {
			if about[w] == nil {
				sentences = append(sentences, w)
			}
			about[w] = append(about[w], PointLabel(p.Params))
		}
	}
	out := make([]string, len(sentences))
	for i, w := range sentences {
		switch labels := about[w]; {
		case len(labels) == valid:
			out[i] = w
		case len(labels) == 1:
			out[i] = w + " (point " + labels[0] + ")"
		default:
			out[i] = w + " (points " + strings.Join(labels, "; ") + ")"
		}
	}
	return out
}

// throttleWarnings are the SweepPlan.Warnings of valid points whose
// throttle is predicted to hold their clean past SlowThrottleSeconds
// (ThrottleWarning), one sentence per prediction, ending with the points
// it is about when not all (as ignoredSettings).
func throttleWarnings(points []SweepPoint) []string {
	return pointSentences(points, func(p SweepPoint) []string {
		if w := ThrottleWarning(p.Experiment); w != "" {
			return []string{w}
		}
		return nil
	})
}

// pointOrigins are origins with each swept setting's origin its axis's
// Where.
func pointOrigins(origins map[string]settings.Origin, axes []Axis) map[string]settings.Origin {
	o := maps.Clone(origins)
	if o == nil {
		o = map[string]settings.Origin{}
	}
	for _, a := range axes {
		if s, ok := Settings.Lookup(a.Name); ok {
			o[s.Name] = settings.Origin{From: settings.FromFlag, Where: a.Where}
		}
	}
	return o
}

// PointLabel renders a point's parameters: "keys=1e4 hasher=md5".
func PointLabel(params []results.KV) string {
	if len(params) == 0 {
		return "(the only point)"
	}
	parts := make([]string, len(params))
	for i, kv := range params {
		parts[i] = kv.Key + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// NoValidPoint is the error of a plan none of whose points is a valid
// experiment: "no point of the sweep is a valid experiment, so nothing
// runs:" and each point's reason on a line of its own ("point keys=10:
// workloads: dirty ratio 0.5 is unreachable ..."). nil when a point is
// valid (the invalid ones are then recorded as failed, Sweep).
func (p *SweepPlan) NoValidPoint() error {
	var errs []error
	for _, pt := range p.Points {
		if pt.Err == nil {
			return nil
		}
		errs = append(errs, pt.Err)
	}
	if len(errs) == 0 {
		return nil
	}
	return fmt.Errorf("sweep: no point of the sweep is a valid experiment, so nothing runs:\n%w", errors.Join(errs...))
}

// Scheduled is one run of a sweep: point index and repetition (from 1).
type Scheduled struct{ Point, Rep int }

// Schedule is the run order: every point Count times, shuffled by a PCG
// seeded with Seed (the same seed, the same order).
func (p *SweepPlan) Schedule() []Scheduled {
	var s []Scheduled
	for i := range p.Points {
		for r := 1; r <= p.Count; r++ {
			s = append(s, Scheduled{i, r})
		}
	}
	rng := rand.New(rand.NewPCG(p.Seed, 0x5357454550)) // "SWEEP"
	rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] })
	return s
}

// ID is "sweep-<UTC time>-<8 hex of the sha256 of the definition>".
func (p *SweepPlan) ID(start time.Time) string {
	def, _ := json.Marshal(struct {
		Base  Experiment
		Axes  []Axis
		Count int
		Seed  uint64
	}{p.Base, p.Axes, p.Count, p.Seed})
	sum := sha256.Sum256(def)
	return "sweep-" + start.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(sum[:4])
}

// SweepOptions are the settings of a sweep that are not part of its plan.
type SweepOptions struct {
	// Out is the directory under which the sweep's directory is made.
	Out string
	// Dir is the parent of each run's data directory ("" = OS temp dir).
	Dir string
	// DropCaches is Options.DropCaches of every run.
	DropCaches bool
	// Log receives a line per failed run (nil = none).
	Log io.Writer
	// OnRun, when set, is called before each run with its position (from
	// 1), the number of runs and the point (progress).
	OnRun func(i, n int, p *SweepPoint)
	// Runs, when not nil, are the runs to carry out, in this order,
	// instead of plan.Schedule() (a shard's share, lab/shard.Split).
	Runs []Scheduled
	// ID, when set, maps the planned ID to the one the record takes (a
	// shard's "-shard-i-of-N" name).
	ID func(planned string) string
	// RetryBusy is how many times a run whose clean was not quiet (busy or
	// unusable by its interference verdict) is run again; the runs it
	// replaces stay in the record, marked superseded (0 = none).
	RetryBusy int
	// External makes the cleaner of a point cleaned by an external
	// cleaner (Experiment.CleanedBy: kafka-jvm), as
	// RunCommandOptions.External (ExternalProfile.New); nil: such a
	// point's runs fail.
	External func(Experiment, Options) (ExternalCleaner, func() error, error)
	// run replaces Run (tests drive verdicts with it); nil: Run.
	run func(context.Context, Experiment, Options) (*results.Run, error)
	// OnStart, when set, is called once the sweep's directory exists and
	// the environment is captured, before the first run (a shard writes
	// its manifest); its error stops the sweep.
	OnStart func(sw *results.Sweep, dir string) error
}

// Sweep carries out plan: every scheduled run (Run with the point's
// experiment) with its record under <Out>/<ID>/runs/, then the sweep's
// record (sweep.json, kept current after every run so that an interrupted
// sweep leaves its figures; summary.csv, runs.csv, bench.txt, plots,
// reports, experiment.yaml). A run that fails, and every run of a point
// that is not a valid experiment, is recorded with its error and the
// sweep goes on: each such point is named once on Log, with its reason,
// before the first run. A sweep none of whose points is valid is refused
// before anything is run or made (NoValidPoint). It returns the record
// and its directory. Cancelling ctx
// stops at a safe point: the run in progress leaves no record, and the
// sweep's directory is left with the sweep.json of the runs done, without
// the summary files.
func Sweep(ctx context.Context, plan *SweepPlan, opt SweepOptions) (*results.Sweep, string, error) {
	if err := plan.NoValidPoint(); err != nil {
		return nil, "", err
	}
	if opt.Out == "" {
		opt.Out = "runs"
	}
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	order := plan.Schedule()
	if opt.Runs != nil {
		order = opt.Runs
	}
	invalidRuns := map[int]int{}
	for _, s := range order {
		if plan.Points[s.Point].Err != nil {
			invalidRuns[s.Point]++
		}
	}
	for i, p := range plan.Points {
		if n := invalidRuns[i]; n > 0 {
			runs := fmt.Sprintf("its %d runs are", n)
			if n == 1 {
				runs = "its 1 run is"
			}
			fmt.Fprintf(logw, "sweep: %v (%s recorded as failed, not run)\n", p.Err, runs)
		}
	}
	start := time.Now()
	sw := &results.Sweep{
		ID: plan.ID(start), StartedAt: start.UTC(), Count: plan.Count, ShuffleSeed: plan.Seed,
		Experiment: plan.Source,
	}
	for _, v := range plan.Given {
		sw.Base = append(sw.Base, results.KV{Key: v.Name, Value: v.Value})
	}
	for _, a := range plan.Axes {
		sw.Axes = append(sw.Axes, results.Axis{Name: a.Name, Values: a.Values})
	}
	for _, p := range plan.Points {
		pt := results.Point{Params: p.Params, Benchmark: p.Name, Config: p.Experiment}
		sw.Points = append(sw.Points, pt)
	}
	if opt.ID != nil {
		sw.ID = opt.ID(sw.ID)
	}
	dir := filepath.Join(opt.Out, sw.ID)
	if err := os.MkdirAll(filepath.Join(dir, results.SweepRunsDir), 0o755); err != nil {
		return nil, "", fmt.Errorf("lab: sweep: %w", err)
	}
	seed := plan.Seed
	rec := plan.Base
	rec.Repetitions = plan.Count
	y, err := YAML(rec, plan.Axes, &seed)
	if err != nil {
		return nil, "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "experiment.yaml"), y, 0o644); err != nil {
		return nil, "", fmt.Errorf("lab: sweep: %w", err)
	}
	envRoot := opt.Dir
	if envRoot == "" {
		envRoot = os.TempDir()
	}
	sw.Environment, err = results.CaptureEnvironment(envRoot)
	if err != nil {
		sw.Notes = append(sw.Notes, fmt.Sprintf("environment not fully captured: %v", err))
	}
	if opt.OnStart != nil {
		if err := opt.OnStart(sw, dir); err != nil {
			return sw, dir, err
		}
	}
	for i, s := range order {
		if err := ctx.Err(); err != nil {
			return sw, dir, stopped(err)
		}
		pp := &plan.Points[s.Point]
		if opt.OnRun != nil {
			opt.OnRun(i+1, len(order), pp)
		}
		for attempt := 0; ; attempt++ {
			pr, res, err := sweepRun(ctx, pp, s, i, dir, opt)
			if errors.Is(err, ErrStopped) {
				// The runs done so far, superseded ones included, stay in
				// sweep.json; the stopped run left no record.
				sw.Duration = time.Since(start)
				if werr := sw.WriteJSON(dir); werr != nil {
					return sw, dir, errors.Join(err, werr)
				}
				return sw, dir, err
			}
			if err != nil && pp.Err == nil { // an invalid point was named before the first run
				fmt.Fprintf(logw, "sweep: run %d (%s, rep %d): %v\n", i+1, PointLabel(pp.Params), s.Rep, err)
			}
			retry := err == nil && res != nil && (res.Verdict == interference.Busy || res.Verdict == interference.Unusable) && attempt < opt.RetryBusy
			if retry {
				pr.Superseded = true
				fmt.Fprintf(logw, "sweep: run %d (%s, rep %d) was %s: running it again (%d of --retry-busy %d)\n",
					i+1, PointLabel(pp.Params), s.Rep, res.Interference["clean"].VerdictText(), attempt+1, opt.RetryBusy)
			}
			sw.Points[s.Point].Runs = append(sw.Points[s.Point].Runs, pr)
			if !retry {
				break
			}
		}
		sw.Duration = time.Since(start)
		// Keep sweep.json current, so that an interrupted sweep leaves its figures.
		if err := sw.WriteJSON(dir); err != nil {
			return sw, dir, err
		}
	}
	sw.Duration = time.Since(start)
	if err := sw.Write(dir); err != nil {
		return sw, dir, err
	}
	return sw, dir, nil
}

// sweepRun carries out one scheduled run of point pp (the i-th of the
// order) and returns its entry in the sweep record with the run record.
func sweepRun(ctx context.Context, pp *SweepPoint, s Scheduled, i int, dir string, opt SweepOptions) (results.PointRun, *results.Run, error) {
	pr := results.PointRun{Rep: s.Rep, Order: i + 1}
	var res *results.Run
	err := pp.Err
	run := opt.run
	if run == nil {
		run = Run
	}
	if err == nil {
		res, err = runCleanedBy(ctx, "sweep", pp.Experiment, Options{
			Dir: opt.Dir, Out: filepath.Join(dir, results.SweepRunsDir), DropCaches: opt.DropCaches,
			NameParts: pp.Extra, IDSuffix: fmt.Sprintf("-r%d", s.Rep),
		}, opt.External, run)
	}
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
		pr.Verdict = res.Verdict
	}
	if err != nil {
		pr.Error = err.Error()
	}
	return pr, res, err
}

// WriteSchedule prints the plan's runs in the order Sweep carries them out
// (a dry run), an invalid point's reason beside it.
func WriteSchedule(w io.Writer, p *SweepPlan) {
	order := p.Schedule()
	fmt.Fprintf(w, "%d points x %d repetitions = %d runs\n", len(p.Points), p.Count, len(order))
	for i, s := range order {
		pt := p.Points[s.Point]
		note := ""
		if pt.Err != nil {
			note = "  (invalid: " + pt.Err.Error() + ")"
		}
		fmt.Fprintf(w, "%4d  %s  (rep %d)%s\n", i+1, pt.Name, s.Rep, note)
	}
}

// Override returns given and axes with axis a added last, without
// whatever they said of the same parameter (by Name, or by a's field
// Path): the command line's value replaces the file's. The slices given
// are left as they were; the ones returned are new.
func Override(given []Param, axes []Axis, a Axis) ([]Param, []Axis) {
	same := func(n string) bool { return n == a.Name || (a.Path != "" && n == a.Path) }
	var keptGiven []Param
	for _, p := range given {
		if !same(p.Name) {
			keptGiven = append(keptGiven, p)
		}
	}
	keptAxes := make([]Axis, 0, len(axes)+1)
	for _, x := range axes {
		if !same(x.Name) {
			keptAxes = append(keptAxes, x)
		}
	}
	return keptGiven, append(keptAxes, a)
}
