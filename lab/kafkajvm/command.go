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
