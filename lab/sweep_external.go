package lab

import (
	"context"
	"fmt"
	"slices"

	"github.com/cleanerlab/cleanerlab/results"
)

// ExternalProfile is what a sweep needs of the cleaner that cleans its
// points of a CleanedBy (Kafka's own cleaner: lab/kafkajvm's
// CommandOptions.SweepProfile, `sweep --profile kafka,kafka-jvm`).
type ExternalProfile struct {
	// Ready says whether the cleaner can run at all (kafka-jvm: a
	// --kafka-libs that holds Kafka's classes, a data directory it can
	// use); a sweep with a point of a CleanedBy is refused before anything
	// runs when it errs.
	Ready func() error
	// Check says what a point's experiment asks that the cleaner cannot
	// honour (kafka-jvm: a setting of our cleaner alone); the point is
	// then invalid (SweepPoint.Err), named before the first run as any
	// other.
	Check func(Experiment) error
	// New makes the cleaner of one run and its close, as
	// RunCommandOptions.External.
	New func(Experiment, Options) (ExternalCleaner, func() error, error)
}

// CheckExternal marks invalid (SweepPoint.Err, "point ...: ...") each
// valid point of p cleaned by an external cleaner (Experiment.CleanedBy)
// that ext cannot clean: ext.Check's error, or, with ext nil, that the
// command runs no external cleaner. The plan's other points are left as
// they are.
func (p *SweepPlan) CheckExternal(ext *ExternalProfile) {
	for i := range p.Points {
		pt := &p.Points[i]
		if pt.Err != nil || pt.Experiment.CleanedBy == "" {
			continue
		}
		var err error
		switch {
		case ext == nil || ext.New == nil:
			err = fmt.Errorf("the point is cleaned by %s (cleaned_by), which this command does not run", pt.Experiment.CleanedBy)
		case ext.Check != nil:
			err = ext.Check(pt.Experiment)
		}
		if err != nil {
			pt.Err = fmt.Errorf("point %s: %w", PointLabel(pt.Params), err)
		}
	}
}

// CleanedByExternal says whether a valid point of p is cleaned by an
// external cleaner (Experiment.CleanedBy): its ExternalProfile's Ready
// must then pass before the sweep runs.
func (p *SweepPlan) CleanedByExternal() bool {
	return slices.ContainsFunc(p.Points, func(pt SweepPoint) bool { return pt.Err == nil && pt.Experiment.CleanedBy != "" })
}

// cleanerNamePart adds "cleaner=NAME" to extra (a run's or a sweep
// point's extra name parts) for an experiment cleaned by an external
// cleaner (Experiment.CleanedBy), as run --profile kafka-jvm names its
// benchmark, unless extra has a cleaner part already.
func cleanerNamePart(e *Experiment, extra []results.KV) []results.KV {
	if e.CleanedBy == "" || slices.ContainsFunc(extra, func(kv results.KV) bool { return kv.Key == "cleaner" }) {
		return extra
	}
	return append(slices.Clone(extra), results.KV{Key: "cleaner", Value: e.CleanedBy})
}

// runCleanedBy is Run of e with ro, cleaned by the external cleaner
// newExt makes when e.CleanedBy names one (closed when the run ends, the
// run's name with cleaner=NAME), else by ours: the one path of run
// --profile kafka-jvm and of a sweep's kafka-jvm points. cmd ("run",
// "sweep") prefixes the refusal of an experiment cleaned by a cleaner
// newExt is nil for.
func runCleanedBy(ctx context.Context, cmd string, e Experiment, ro Options, newExt func(Experiment, Options) (ExternalCleaner, func() error, error), run func(context.Context, Experiment, Options) (*results.Run, error)) (*results.Run, error) {
	if run == nil {
		run = Run
	}
	if e.CleanedBy == "" {
		return run(ctx, e, ro)
	}
	if newExt == nil {
		return nil, fmt.Errorf("%s: the experiment is cleaned by %s (cleaned_by), which this command does not run", cmd, e.CleanedBy)
	}
	ext, closeExt, err := newExt(e, ro)
	if err != nil {
		return nil, err
	}
	defer closeExt()
	ro.External = ext
	ro.NameParts = cleanerNamePart(&Experiment{CleanedBy: ext.Name()}, ro.NameParts)
	return run(ctx, e, ro)
}
