package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/settings"
)

// bindSettings binds each setting of list that has a flag (settings.Bind).
func bindSettings[R any](fs *pflag.FlagSet, list []settings.Setting[R], r *R) {
	settings.Bind(fs, list, r)
}

// flagsGiven returns the flags given on the command line that are
// settings of reg, as typed, in the command line's order.
func flagsGiven[R any](reg *settings.Registry[R], fs *pflag.FlagSet) []settings.Given {
	return settings.FlagsGiven(fs, reg.Knows)
}

// bindExperimentFlags binds the flags that set an Experiment's fields to
// e: every setting of lab.Settings that has a flag, and --profile.
func bindExperimentFlags(f *pflag.FlagSet, e *lab.Experiment) {
	bindSettings(f, lab.Settings.All(), e)
	profileFlag(f, &e.Cleaner)
}

// experimentGiven are the run flags given (lab.Settings' and --profile),
// in the command line's order: the flags layer of lab.ResolveExperiment.
func experimentGiven(fs *pflag.FlagSet) []settings.Given {
	given := settings.FlagsGiven(fs, func(name string) bool { return name == lab.ProfileFlag || lab.Settings.Knows(name) })
	for i, g := range given {
		if g.Key == lab.ProfileFlag && g.Value == kafkajvm.ProfileName {
			given[i].Value = engine.ProfileKafka // Kafka's own cleaner; our settings are the kafka profile's
		}
	}
	return given
}

// logConfigFlags binds Kafka's topic configs as flags named after them
// (settings.Log).
func logConfigFlags(fs *pflag.FlagSet, cfg *engine.LogConfig) {
	bindSettings(fs, settings.Log, cfg)
}

// cleanerConfigFlags binds the cleaner's settings (settings.Cleaner:
// Kafka's log.cleaner.* configs under their names, and the lab's own) and
// --profile.
func cleanerConfigFlags(fs *pflag.FlagSet, cfg *engine.CleanerConfig) {
	bindSettings(fs, settings.Cleaner, cfg)
	profileFlag(fs, cfg)
}

// profileFlag binds --profile, which sets several cleaner settings at
// once.
func profileFlag(fs *pflag.FlagSet, cfg *engine.CleanerConfig) {
	fs.Var(settings.Record(&cleanerProfile{cfg: cfg}), "profile", "set the speed-deciding cleaner settings at once: kafka (md5, skimpy, pread without read-ahead, no write-behind, no sync-behind, no early write-back, no parallel copy, every CRC checked on every read, every record decoded whole, no O_DIRECT output, no parallel recompression) or best (xxh3-128, bucket16, pread with "+strconv.FormatInt(engine.BestReadaheadBytes>>20, 10)+"MiB of read-ahead, write-behind, sync-behind, skip-dirty-lookups, parallel-copy, verify-crc-once, key-scan, parallel-map-build, no parallel-lookups, writeback-bytes "+strconv.FormatInt(engine.BestWritebackBytes>>20, 10)+"MiB, no O_DIRECT output, no parallel recompression); flags after it override its settings")
}

// allowKafkaJVM lets --profile of fs take kafkajvm.ProfileName.
func allowKafkaJVM(fs *pflag.FlagSet) {
	fs.Lookup("profile").Value.(interface{ Unwrap() pflag.Value }).Unwrap().(*cleanerProfile).jvmOK = true
}

// cleanerProfile is the --profile flag: engine.CleanerConfig.ApplyProfile
// of the name given.
type cleanerProfile struct {
	cfg  *engine.CleanerConfig
	name string
	// jvmOK: the command runs kafkajvm.ProfileName (Kafka's own cleaner;
	// its settings here are the kafka profile's, for our side of a
	// comparison).
	jvmOK bool
}

func (p *cleanerProfile) String() string { return p.name }
func (p *cleanerProfile) Type() string   { return "profile" }

func (p *cleanerProfile) Set(s string) error {
	if s == kafkajvm.ProfileName {
		if !p.jvmOK {
			return fmt.Errorf("profile %s (Kafka's own cleaner) is run by clean and run only", s)
		}
		s = engine.ProfileKafka
		defer func() { p.name = kafkajvm.ProfileName }()
	}
	if err := p.cfg.ApplyProfile(s); err != nil {
		return err
	}
	p.name = s
	return nil
}
