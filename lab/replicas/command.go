package replicas

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/replication"
	"github.com/cleanerlab/cleanerlab/replication/explore"
)

// The replicas commands (cleanerlab replicas run, campaign, cost,
// explore): each takes its options as the command line gives them, checks
// them (errors name the flag), makes the brokers' work directory and runs
// until done or until ctx is cancelled (a signal), when it stops at the
// next safe point and says how far it got.

// Work is where a replicas command's brokers keep their log directories.
type Work struct {
	// Dir is the directory a fresh replicas-* work directory is made in
	// ("": the OS temp dir; WorkDir).
	Dir string
	// Profile is --profile: every broker's cleaner with this profile's
	// speed settings (ProfileCleaner); "": each broker's default, Kafka's
	// cleaner.
	Profile string
	// AtHardExit, when set, registers a removal to run if the process
	// exits at once (a second signal) and returns its unregistration: the
	// work directory is removed then too.
	AtHardExit func(fn func()) (unregister func())
}

// ProfileUsage is the help of the replicas commands' --profile.
const ProfileUsage = "every broker's cleaner with the speed settings of this profile: kafka or best (default: Kafka's cleaner; the brokers' small buffers are kept)"

// cleaner is the cleaner config of w.Profile: ProfileCleaner of the name,
// or the zero config (each broker's default) when it is "". The error
// names the flag.
func (w Work) cleaner() (engine.CleanerConfig, error) {
	if w.Profile == "" {
		return engine.CleanerConfig{}, nil
	}
	c, err := ProfileCleaner(w.Profile)
	if err != nil {
		return engine.CleanerConfig{}, fmt.Errorf("--profile: %w", err)
	}
	return c, nil
}

// MakeDir is WorkDir(w.Dir) with its removal registered with AtHardExit;
// the returned cleanup removes it and unregisters.
func (w Work) MakeDir() (string, func(), error) {
	root, cleanup, err := WorkDir(w.Dir)
	if err != nil {
		return "", nil, err
	}
	if w.AtHardExit == nil {
		return root, cleanup, nil
	}
	unregister := w.AtHardExit(cleanup)
	return root, func() { cleanup(); unregister() }, nil
}

// RunCommand runs the scenario files (RunFilesKeep), writing each one's
// output to out. With w.Dir given the brokers' logs are kept there (a
// second signal leaves them too); else they go to a temp dir, removed.
// Error: one naming how many outputs differ from their expected blocks.
func RunCommand(ctx context.Context, files []string, w Work, out io.Writer) error {
	cleaner, err := w.cleaner()
	if err != nil {
		return err
	}
	keep := w.Dir != ""
	mkdir := w.MakeDir
	if keep {
		mkdir = func() (string, func(), error) { return WorkDir(w.Dir) }
	}
	root, cleanup, err := mkdir()
	if err != nil {
		return err
	}
	if !keep {
		defer cleanup()
	}
	n, err := RunFilesKeep(out, root, files, cleaner, keep)
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("%d outputs differ from their expected blocks", n)
	}
	return nil
}

// CampaignCommandOptions are "replicas campaign"'s options, as its flags
// give them.
type CampaignCommandOptions struct {
	Work
	// Mode is the cleaning mode: independent or coordinated.
	Mode string
	// Runs, Replicas and Events are the schedules, the brokers (2..9) and
	// the events per schedule.
	Runs, Replicas, Events int
	// Seed is schedule 0's seed (schedule i uses Seed+i).
	Seed uint64
	// Shrink shrinks the first diverging schedule; Kind, when set, the
	// first showing that divergence kind (Shrink required).
	Shrink bool
	Kind   string
	// OnDisk puts the brokers' logs on the file system under Dir.
	OnDisk bool
	// Sweeps are the --sweep axes (knob=v1,v2,...) and Downtime the
	// --downtime axis: with any, the campaign runs once per cell.
	Sweeps   []string
	Downtime string
	// Format is text or json; Out the runs directory of the record.
	Format, Out string
}

// CampaignCommand runs the seeded random campaign (Campaign), or its sweep
// (Sweep) when o has axes, writes the result to out in o.Format and the
// record under o.Out. A cancelled ctx stops it; the error then names the
// record of what was done.
func CampaignCommand(ctx context.Context, o CampaignCommandOptions, out io.Writer) error {
	m, err := checkMode(o.Mode)
	if err != nil {
		return err
	}
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	if err := checkReplicas(o.Replicas, 2); err != nil {
		return err
	}
	if o.Runs < 1 || o.Events < 1 {
		return fmt.Errorf("--runs %d, --events %d: want each >= 1", o.Runs, o.Events)
	}
	cleaner, err := o.cleaner()
	if err != nil {
		return err
	}
	var shrinkKind replication.Kind
	if o.Kind != "" {
		if !o.Shrink {
			return fmt.Errorf("--kind %s: shrinks a schedule showing that kind: add --shrink", o.Kind)
		}
		if shrinkKind, err = replication.ParseKind(o.Kind); err != nil {
			return fmt.Errorf("--kind: %w", err)
		}
	}
	axes, err := SweepAxes(o.Sweeps, o.Downtime)
	if err != nil {
		return err
	}
	root, cleanup, err := o.MakeDir()
	if err != nil {
		return err
	}
	defer cleanup()
	cc := replication.CampaignConfig{Root: root, Mode: m, Runs: o.Runs, Seed: o.Seed, Replicas: o.Replicas, Events: o.Events, Shrink: o.Shrink, ShrinkKind: shrinkKind,
		Cleaner: cleaner, Profile: o.Profile, OnDisk: o.OnDisk, CheckDone: ctx.Err}
	if len(axes) > 0 {
		rec, err := Sweep(SweepOptions{SweepConfig: replication.SweepConfig{Campaign: cc, Axes: axes}, Out: o.Out}, nil)
		if err != nil {
			return err
		}
		if err := WriteSweep(out, rec, o.Format); err != nil {
			return err
		}
		if rec.Result.Stopped != "" {
			return fmt.Errorf("replicas campaign: %s; record %s", rec.Result.Stopped, rec.Run.Path)
		}
		return nil
	}
	rec, err := Campaign(CampaignOptions{CampaignConfig: cc, Out: o.Out}, nil)
	if err != nil {
		return err
	}
	if err := WriteCampaign(out, rec, o.Format, o.Seed, o.Runs, o.Shrink); err != nil {
		return err
	}
	if rec.Result.Stopped != "" {
		return fmt.Errorf("replicas campaign: %s; record %s", rec.Result.Stopped, rec.Run.Path)
	}
	return nil
}

// SweepAxes parses the campaign's --sweep values and --downtime into the
// sweep's axes, in the order given (--downtime last); the error names the
// flag.
func SweepAxes(sweeps []string, downtime string) ([]replication.SweepAxis, error) {
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

// CostCommand is "replicas cost": the cost of coordinated cleaning against
// one replica's downtimes (o.Downtimes) with delete.retention.ms
// retention (o.DeleteRetention), written to out as a table, the record
// under o.Out. A cancelled ctx stops it between ticks.
func CostCommand(ctx context.Context, o CostCommandOptions, out io.Writer) error {
	w, runsDir := o.Work, o.Out
	ds, err := ParseDowntimes(o.Downtimes)
	if err != nil {
		return err
	}
	ret, err := replication.ParseDurationMs(o.DeleteRetention)
	if errors.Is(err, replication.ErrNegativeDuration) {
		return fmt.Errorf("--delete-retention %q: negative: want a duration > 0", o.DeleteRetention)
	}
	if err != nil {
		return fmt.Errorf("--delete-retention %q: %v", o.DeleteRetention, err)
	}
	if ret < 1 {
		return fmt.Errorf("--delete-retention %q: want a duration > 0", o.DeleteRetention)
	}
	cleaner, err := w.cleaner()
	if err != nil {
		return err
	}
	root, cleanup, err := w.MakeDir()
	if err != nil {
		return err
	}
	defer cleanup()
	rec, err := Cost(CostOptions{Root: root, DowntimesMs: ds, DeleteRetentionMs: ret, Cleaner: cleaner, Profile: w.Profile, Out: runsDir, CheckDone: ctx.Err})
	if err != nil {
		return err
	}
	WriteCostTable(out, rec.Points)
	fmt.Fprintf(out, "record %s\n", rec.Run.Path)
	if rec.Stopped != "" {
		return fmt.Errorf("replicas cost: %s; record %s", rec.Stopped, rec.Run.Path)
	}
	return nil
}

// ExploreCommandOptions are "replicas explore"'s options, as its flags
// give them.
type ExploreCommandOptions struct {
	Work
	// Alphabet is a preset or comma-separated letters
	// (explore.ParseAlphabet).
	Alphabet string
	// Depth is the longest schedule (1..64); Replicas the brokers (1..9).
	Depth, Replicas int
	// Mode is independent or coordinated; Truncate epoch or hw.
	Mode, Truncate string
	// Unclean is unclean.leader.election.enable.
	Unclean bool
	// MaxStates and TimeLimit stop the search (0: no bound).
	MaxStates int
	TimeLimit time.Duration
	// Format is text or json; Out, when set, the directory of the
	// reproducers (<kind>.scenario).
	Format, Out string
	// Progress receives a line per depth done and the reproducers' paths;
	// nil: none.
	Progress io.Writer
}

// ExploreCommand is "replicas explore": every schedule of the alphabet up
// to the depth, breadth first (explore.Run), the shortest schedule per
// kind found written to out and, with o.Out, as scenario files. A
// cancelled ctx stops it at the next safe point.
func ExploreCommand(ctx context.Context, o ExploreCommandOptions, out io.Writer) error {
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	m, err := checkMode(o.Mode)
	if err != nil {
		return err
	}
	var tr replication.Truncation
	switch o.Truncate {
	case "epoch":
	case "hw":
		tr = replication.TruncateToHW
	default:
		return fmt.Errorf("--truncate %q: want hw or epoch", o.Truncate)
	}
	if err := checkFormat(o.Format); err != nil {
		return err
	}
	if err := checkReplicas(o.Replicas, 1); err != nil {
		return err
	}
	if o.Depth < 1 || o.Depth > 64 {
		return fmt.Errorf("--depth %d: want 1..64", o.Depth)
	}
	if o.MaxStates < 0 || o.TimeLimit < 0 {
		return fmt.Errorf("--max-states %d, --time-limit %s: want >= 0", o.MaxStates, o.TimeLimit)
	}
	al, err := explore.ParseAlphabet(o.Alphabet, o.Replicas)
	if err != nil {
		return fmt.Errorf("--alphabet: %w", err)
	}
	cleaner, err := o.cleaner()
	if err != nil {
		return err
	}
	outWritten := false
	if o.Out != "" {
		undo, err := OutDir(o.Out)
		if err != nil {
			return fmt.Errorf("--out: %w", err)
		}
		defer func() {
			if !outWritten {
				undo()
			}
		}()
	}
	root, cleanup, err := o.MakeDir()
	if err != nil {
		return err
	}
	defer cleanup()
	cfg := explore.Config{Root: root, Replicas: o.Replicas, Mode: m, Truncation: tr, Unclean: o.Unclean, Alphabet: al, Depth: o.Depth,
		MaxStates: o.MaxStates, TimeLimit: o.TimeLimit, Cleaner: cleaner, CheckDone: ctx.Err,
		Progress: func(r *explore.Result) {
			fmt.Fprintf(progress, "depth %d done: %d states, %d kinds found, %.0fs\n", r.DepthDone, r.States, len(r.Found), float64(r.ElapsedMs)/1000)
		}}
	res, err := explore.Run(cfg)
	if err != nil {
		return err
	}
	if o.Format == "json" {
		if err := explore.WriteJSON(out, res); err != nil {
			return err
		}
	} else {
		explore.WriteText(out, res, true)
	}
	if o.Out != "" && ctx.Err() == nil {
		paths, err := explore.WriteReproducers(o.Out, root, &cfg, res)
		outWritten = len(paths) > 0
		if err != nil {
			return err
		}
		outWritten = true
		for _, p := range paths {
			fmt.Fprintf(progress, "reproducer %s\n", p)
		}
	}
	if ctx.Err() != nil {
		return fmt.Errorf("replicas explore: %s", res.Stopped)
	}
	return nil
}
