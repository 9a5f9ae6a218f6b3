package kafkajvm

import (
	"fmt"

	"github.com/cleanerlab/cleanerlab/lab"
)

// SweepProfile is the sweep command's external cleaner (shard's
// SweepCommandOptions.External) for its points of --profile kafka-jvm,
// each run as RunCleaner runs `run --profile kafka-jvm` (one JVM per run,
// warmed up outside the clean) and recorded as such (cleaned_by
// kafka-jvm, cleaner=kafka-jvm in its name, Kafka's rows). dir is the
// sweep's --dir ("": the OS temp dir).
//
// Ready refuses, before anything runs, a --kafka-libs that is not given
// or holds no classes (naming the flag and the directory), a negative
// --kafka-warmup and a data directory with a blank in its path. Check
// refuses, per point, a setting of our cleaner alone whose value differs
// from the kafka profile's (CheckOurSettings, by value: a sweep's flag
// gives several values, and the kafka profile's is harmless); a point of
// more than one partition is refused by lab.Experiment.Validate.
func (o CommandOptions) SweepProfile(dir string) *lab.ExternalProfile {
	o.Changed = nil // CheckOurSettings by value, per point
	return &lab.ExternalProfile{
		Ready: func() error {
			if err := o.checkCounts("sweep"); err != nil {
				return err
			}
			if o.Libs == "" {
				return fmt.Errorf("sweep: --profile kafka-jvm needs --kafka-libs DIR (the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output; default $%s, which is empty)", LibsEnv)
			}
			if _, err := Classpath(o.Libs); err != nil {
				return fmt.Errorf("sweep: %w", err)
			}
			return CheckPath("sweep", "--dir", dir)
		},
		Check: func(e lab.Experiment) error { return CheckOurSettings("", e.Cleaner, nil) }, // "sweep: point ...: --hasher ..."
		New:   o.RunCleaner(),
	}
}
