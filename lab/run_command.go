package lab

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

// RunCommandOptions are the run command's options, as its flags give
// them.
type RunCommandOptions struct {
	// From reruns exactly the experiment of this run record (ReadRunExperiment).
	From string
	// ServerConfig is a broker's server.properties whose values (by Kafka
	// name) are taken over run's defaults; "": none.
	ServerConfig string
	// File takes the experiment's values from an experiment file, over
	// ServerConfig's; Given wins over it.
	File string
	// Param resolves a sweep key of File that is not a field path.
	Param func(name string) (Setter, bool)
	// FlagsGiven are the names of every flag given: with From, only
	// RunPlaceFlags may be.
	FlagsGiven []string
	// Given are the settings given on the command line (Settings' keys,
	// and ProfileFlag), in the command line's order: the top layer of
	// ResolveExperiment.
	Given []settings.Given
	// CleanedBy is the external cleaner --profile names (Experiment.CleanedBy:
	// kafka-jvm), set on the experiment the flags or File give; "": ours.
	CleanedBy string
	// ProgressMode is auto, always or never (Options.Progress is made
	// from it).
	ProgressMode string
	// Options say where and how the run is carried out (Progress and Log
	// are set here).
	Options
	// Warnings receives the warnings of settings given (not a profile's,
	// nor, with From, a record's) that do not apply, and of a throttle
	// predicted to hold the clean past SlowThrottleSeconds
	// (ThrottleWarning); nil: none.
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

// Resolve returns the experiment of o: the record named by From, or
// ResolveExperiment of ServerConfig's values, File's and the flags given,
// validated (a bad value is blamed on where it was given: the flag, the
// file's line:col or server.properties' line).
func (o RunCommandOptions) Resolve() (Experiment, error) {
	e, _, err := o.ResolveOrigins()
	return e, err
}

// ResolveOrigins is Resolve with where each setting's value came from
// (ResolveExperiment's origins); nil with From, whose record gives the
// whole experiment and nothing was given now.
func (o RunCommandOptions) ResolveOrigins() (Experiment, map[string]settings.Origin, error) {
	e, origins, _, err := o.resolve()
	return e, origins, err
}

// resolve is ResolveOrigins with the values of every layer, in the order
// they apply (LayerGivens; nil with From).
func (o RunCommandOptions) resolve() (Experiment, map[string]settings.Origin, []settings.Given, error) {
	if o.From != "" {
		if o.File != "" {
			return Experiment{}, nil, nil, fmt.Errorf("run: --from and --experiment each give the whole experiment; give one")
		}
		var given []string
		for _, name := range o.FlagsGiven {
			if !slices.Contains(RunPlaceFlags, name) {
				given = append(given, "--"+name)
			}
		}
		if len(given) > 0 {
			return Experiment{}, nil, nil, fmt.Errorf("run: --from reruns a recorded experiment; %s would change it (give them without --from)", strings.Join(given, ", "))
		}
		e, err := ReadRunExperiment(o.From)
		return e, nil, nil, err
	}
	server, file, err := LoadLayers(o.ServerConfig, o.File, o.Param)
	if err != nil {
		return Experiment{}, nil, nil, err
	}
	e, origins, err := ResolveExperiment(server, file, o.Given)
	if err != nil {
		return Experiment{}, nil, nil, err
	}
	flags := o.Given
	if o.CleanedBy != "" {
		e.CleanedBy = o.CleanedBy
		// The last --profile was typed as CleanedBy; Given holds the
		// profile it applies. Warnings name it as typed.
		flags = slices.Clone(flags)
		for i := len(flags) - 1; i >= 0; i-- {
			if flags[i].Key == ProfileFlag {
				flags[i].Value = o.CleanedBy
				break
			}
		}
	}
	return e, origins, LayerGivens(server, file, flags), nil
}

// LoadLayers reads the layers under the flags of ResolveExperiment: a
// broker's server.properties (serverConfig, "" for none: its values by
// Kafka name) and an experiment file (path, "" for none).
func LoadLayers(serverConfig, path string, param func(string) (Setter, bool)) ([]settings.Given, *File, error) {
	var server []settings.Given
	if serverConfig != "" {
		set, err := topicconfig.Load(topicconfig.LoadOptions{ServerConfig: serverConfig})
		if err != nil {
			return nil, nil, err
		}
		server = set.BrokerGivens()
	}
	if path == "" {
		return server, nil, nil
	}
	file, err := LoadYAML(path, LoadOptions{Param: param})
	return server, file, err
}

// RunCommand is the run command: one experiment (Run) of o's resolved
// experiment, its table, Kafka's log lines, the record's paths and the
// interference verdict written to out. A failed verification is an
// error asking for exit status 2. ctx stops the run at a safe point.
func RunCommand(ctx context.Context, o RunCommandOptions, out io.Writer) error {
	e, origins, layers, err := o.resolve()
	if err != nil {
		return err
	}
	if o.Warnings != nil {
		// Those of flags alone came with the command line (settings.ProfileWarnings).
		for _, w := range settings.ProfileWarningsFrom(layers, ProfileAlias) {
			fmt.Fprintln(o.Warnings, "warning: "+w)
		}
		for _, w := range e.Cleaner.IgnoredSettingsBy(SettingSources(origins)) {
			fmt.Fprintln(o.Warnings, "warning: "+w)
		}
		if h := MapLayoutHint(e.Cleaner, GivenSettings(origins)); h != "" {
			fmt.Fprintln(o.Warnings, "warning: "+h)
		}
		if w := ThrottleWarning(e); w != "" {
			fmt.Fprintln(o.Warnings, "warning: "+w)
		}
	}
	showProgress, err := ProgressWanted(o.ProgressMode)
	if err != nil {
		return err
	}
	ro := o.Options
	ro.Progress, ro.Log = NewBars(showProgress), out
	run, err := runCleanedBy(ctx, "run", e, ro, o.External, nil)
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
