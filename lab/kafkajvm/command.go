package kafkajvm

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
)

// CommandOptions are the clean command's options of Kafka's own cleaner,
// as its flags give them.
type CommandOptions struct {
	// Libs is --kafka-libs; JavaOpts the JVM's options, blank-separated
	// ("": DefaultJavaOpts).
	Libs, JavaOpts string
	// Compare cleans copies with Kafka's cleaner and with Profile's
	// settings, Rounds times interleaved, and diffs them (Compare).
	Compare bool
	// Warmup and Rounds are CleanOptions'.
	Warmup, Rounds int
	// Profile is --profile as given: ProfileName runs Kafka's cleaner
	// alone (CleanPartition).
	Profile string
	// Changed says whether the flag of that name was given (nil: none
	// was).
	Changed func(flag string) bool
	// Stderr receives the JVM's standard error and warnings (nil: none).
	Stderr io.Writer
}

// Cleaner is the clean command's cleaner for o (lab.CleanCommandOptions'
// Other): Compare with --compare-kafka, CleanPartition with --profile
// kafka-jvm, nil otherwise (the lab's cleaner). The flags of the lab's
// cleaner alone are refused, naming the flag.
func (o CommandOptions) Cleaner() func(ctx context.Context, out io.Writer, dir string, co lab.CleanOptions) error {
	if !o.Compare && o.Profile != ProfileName {
		return nil
	}
	changed := func(name string) bool { return o.Changed != nil && o.Changed(name) }
	return func(ctx context.Context, out io.Writer, dir string, co lab.CleanOptions) error {
		for _, n := range []string{"first-dirty-offset", "passes", "high-watermark", "roll", "metrics-addr"} {
			if changed(n) {
				return fmt.Errorf("clean: --%s is not supported with --profile kafka-jvm or --compare-kafka", n)
			}
		}
		ko := CleanOptions{Libs: o.Libs, Lab: co, OurProfile: o.Profile, CleanedIndexGiven: changed("cleaned-index"),
			Warmup: o.Warmup, Rounds: o.Rounds, Stderr: o.Stderr}
		if o.JavaOpts != "" {
			ko.JavaOpts = strings.Fields(o.JavaOpts)
		}
		if ko.OurProfile == "" || ko.OurProfile == ProfileName {
			ko.OurProfile = engine.ProfileKafka
		}
		if o.Compare {
			return Compare(ctx, out, dir, ko)
		}
		return CleanPartition(ctx, out, dir, ko)
	}
}

// RunCleaner is the run command's cleaner for o (lab.RunCommandOptions'
// External) when Profile is ProfileName, nil otherwise: a RunCleaner with
// the experiment's topic and cleaner configs, and its Close. Error: no
// Libs (before anything is generated).
func (o CommandOptions) RunCleaner() func(lab.Experiment) (lab.ExternalCleaner, func() error, error) {
	if o.Profile != ProfileName {
		return nil
	}
	return func(e lab.Experiment) (lab.ExternalCleaner, func() error, error) {
		if o.Libs == "" {
			return nil, nil, fmt.Errorf("run: --profile kafka-jvm needs --kafka-libs DIR (the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output)")
		}
		ko := CleanOptions{Libs: o.Libs, Lab: lab.CleanOptions{Log: e.Log, Cleaner: e.Cleaner}, Warmup: o.Warmup, Stderr: o.Stderr}
		if o.JavaOpts != "" {
			ko.JavaOpts = strings.Fields(o.JavaOpts)
		}
		r := NewRunCleaner(ko)
		return r, r.Close, nil
	}
}
