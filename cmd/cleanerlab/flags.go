package main

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/settings"
)

// bindSettings binds each setting of list that has a flag to its field in
// r, under its flag and its aliases, with its doc line as usage: the same
// name, type and parser in every command (lab.Settings declares them).
func bindSettings[R any](fs *pflag.FlagSet, list []settings.Setting[R], r *R) {
	for _, s := range list {
		for i, name := range s.Flags() {
			usage := s.Doc
			if i > 0 {
				usage = "the same as --" + s.Flags()[0]
			}
			fs.Var(s.Var(r), name, usage)
			if s.Unit() == settings.UnitBool {
				fs.Lookup(name).NoOptDefVal = "true" // --verify alone
			}
		}
	}
}

// flagsGiven returns the flags given on the command line (fs.Visit) that
// are settings of reg, as values FromFlag, in the command line's order.
func flagsGiven[R any](reg *settings.Registry[R], fs *pflag.FlagSet) []settings.Given {
	var out []settings.Given
	fs.Visit(func(f *pflag.Flag) {
		if _, ok := reg.Lookup(f.Name); ok {
			out = append(out, settings.Given{Key: f.Name, Value: f.Value.String(), From: settings.FromFlag, Where: "--" + f.Name})
		}
	})
	return out
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
	fs.Var(&cleanerProfile{cfg: cfg}, "profile", "set the speed-deciding cleaner settings at once: kafka (md5, skimpy, pread without read-ahead, no write-behind, no sync-behind, no early write-back, no parallel copy, every CRC checked on every read, every record decoded whole, no O_DIRECT output, no parallel recompression) or best (xxh3-128, bucket16, pread with "+strconv.FormatInt(engine.BestReadaheadBytes>>20, 10)+"MiB of read-ahead, write-behind, sync-behind, skip-dirty-lookups, parallel-copy, verify-crc-once, key-scan, parallel-map-build, no parallel-lookups, writeback-bytes "+strconv.FormatInt(engine.BestWritebackBytes>>20, 10)+"MiB, no O_DIRECT output, no parallel recompression); flags after it override its settings")
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
