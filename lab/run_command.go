package lab

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/settings"
)

// RunCommandOptions are the run command's options, as its flags give
// them.
type RunCommandOptions struct {
	// Experiment is the experiment the flags set (over DefaultExperiment).
	Experiment Experiment
	// From reruns exactly the experiment of this run record (ReadRunExperiment).
	From string
	// File takes the experiment from a YAML experiment file; Given and
	// Profile (the settings and --profile given) win over it.
	File string
	// Param resolves a sweep key of File that is not a field path.
	Param func(name string) (Setter, bool)
	// FlagsGiven are the names of every flag given: with From, only
	// RunPlaceFlags may be.
	FlagsGiven []string
	// Given are the settings given on the command line (Settings' keys).
	Given []settings.Given
	// Profile is --profile when given ("": not given).
	Profile string
	// CleanedBy is the external cleaner --profile names (Experiment.CleanedBy:
	// kafka-jvm), set on the experiment the flags or File give; "": ours.
	CleanedBy string
	// ProgressMode is auto, always or never (Options.Progress is made
	// from it).
	ProgressMode string
	// Options say where and how the run is carried out (Progress and Log
	// are set here).
	Options
	// Warnings receives the warnings of settings that do not apply; nil:
	// none.
	Warnings io.Writer
	// External makes the cleaner that cleans in place of ours for a
	// resolved experiment whose CleanedBy names one (`run --profile
	// kafka-jvm`, or --from such a run's record: Kafka's own cleaner,
	// lab/kafkajvm) and the func that closes it; the run's benchmark name
	// carries cleaner=NAME. nil: such an experiment is refused. It is called with the
	// experiment and the run's Options before anything is generated, so
	// that it can refuse what it cannot clean.
	External func(Experiment, Options) (ExternalCleaner, func() error, error)
}

// RunPlaceFlags are run's flags that say where and how a run is carried
// out, not what it measures: they are not part of the Experiment, so
// --from accepts them and sweep does not sweep them.
var RunPlaceFlags = []string{"from", "experiment", "dir", "keep", "out", "progress", "drop-caches", "cpuprofile", "trace", "baseline",
	"kafka-libs", "kafka-java-opts", "kafka-warmup"}

// Resolve returns the experiment of o: the record named by From, or the
// flags over File's values, validated (a bad value of File is blamed on
// its line:col).
func (o RunCommandOptions) Resolve() (Experiment, error) {
	if o.From != "" {
		if o.File != "" {
			return Experiment{}, fmt.Errorf("run: --from and --experiment each give the whole experiment; give one")
		}
		var given []string
		for _, name := range o.FlagsGiven {
			if !slices.Contains(RunPlaceFlags, name) {
				given = append(given, "--"+name)
			}
		}
		if len(given) > 0 {
			return Experiment{}, fmt.Errorf("run: --from reruns a recorded experiment; %s would change it (give them without --from)", strings.Join(given, ", "))
		}
		return ReadRunExperiment(o.From)
	}
	e := o.Experiment
	var file *File
	if o.File != "" {
		var err error
		if e, file, err = LoadRunFile(o.File, LoadOptions{Param: o.Param}); err != nil {
			return Experiment{}, err
		}
		// The flags given on the command line win over the file: --profile
		// first, then each setting's flag (Settings.Resolve).
		if o.Profile != "" {
			if err := e.Cleaner.ApplyProfile(o.Profile); err != nil {
				return Experiment{}, err
			}
		}
		if e, _, err = Settings.Resolve(e, o.Given...); err != nil {
			return Experiment{}, err
		}
	}
	if o.CleanedBy != "" {
		e.CleanedBy = o.CleanedBy
	}
	if err := e.Validate(); err != nil {
		if file != nil {
			return Experiment{}, file.Blame(err) // the file's line:col of the bad value
		}
		return Experiment{}, err
	}
	return e, nil
}

// RunCommand is the run command: one experiment (Run) of o's resolved
// experiment, its table, Kafka's log lines, the record's paths and the
// interference verdict written to out. A failed verification is an
// error asking for exit status 2. ctx stops the run at a safe point.
func RunCommand(ctx context.Context, o RunCommandOptions, out io.Writer) error {
	e, err := o.Resolve()
	if err != nil {
		return err
	}
	if o.Warnings != nil {
		for _, w := range e.Cleaner.IgnoredSettings() {
			fmt.Fprintln(o.Warnings, "warning: "+w)
		}
	}
	showProgress, err := ProgressWanted(o.ProgressMode)
	if err != nil {
		return err
	}
	ro := o.Options
	ro.Progress, ro.Log = NewBars(showProgress), out
	if e.CleanedBy != "" {
		if o.External == nil {
			return fmt.Errorf("run: the experiment is cleaned by %s (cleaned_by), which this command does not run", e.CleanedBy)
		}
		ext, closeExt, err := o.External(e, ro)
		if err != nil {
			return err
		}
		defer closeExt()
		ro.External = ext
		ro.NameParts = append(ro.NameParts, results.KV{Key: "cleaner", Value: ext.Name()})
	}
	run, err := Run(ctx, e, ro)
	if run == nil {
		return err
	}
	WriteRunTable(out, run)
	WriteKafkaLines(out, run)
	if err != nil {
		return err
	}
	WriteRunPaths(out, run)
	WriteVerdictNote(out, run.Interference["clean"])
	if v := run.Verification; v != nil && !v.Passed {
		return ExitError{Code: 2, Err: fmt.Errorf("verification failed:\n%s", v.Detail)}
	}
	return nil
}
