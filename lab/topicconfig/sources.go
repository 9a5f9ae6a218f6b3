package topicconfig

import (
	"errors"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/settings"
)

// Sources are the config files a command is given for a data directory
// (--server-config, --topic-config), and the settings given on its
// command line, which win over every file.
type Sources struct {
	// ServerConfig is a broker's server.properties; "": none.
	ServerConfig string
	// TopicConfig is a `kafka-configs --describe --entity-type topics`
	// output; "": none.
	TopicConfig string
	// Given are the cleaner and topic settings given on the command line
	// (settings.CleanerRegistry's and settings.LogRegistry's keys; others
	// are ignored where they do not apply), and --profile (key ProfileKey,
	// its value an engine profile name), in the command line's order: Load
	// applies them over the files in that order, a profile at its place.
	Given []settings.Given
}

// given returns the values of s.Given that reg knows.
func given[R any](reg *settings.Registry[R], list []settings.Given) []settings.Given {
	var out []settings.Given
	for _, g := range list {
		if _, ok := reg.Lookup(g.Key); ok {
			out = append(out, g)
		}
	}
	return out
}

// FlagError is the error of Load or LogConfigs for command cmd: a cleaner
// setting out of range that a flag of s.Given gave (Set.CleanerConfig
// returns its *engine.ConfigError bare) becomes "cmd: --flag: " and that
// error, the flag as typed (settings.Registry.FlagError: "plan:
// --threads: engine: log.cleaner.threads 0 must be at least 1"); a value
// a file gave comes named by file and line already, and any other error
// is returned as it is.
func (s Sources) FlagError(cmd string, err error) error {
	if ce := (*engine.ConfigError)(nil); errors.As(err, &ce) && err == error(ce) {
		return settings.CleanerRegistry.FlagError(cmd, err, s.Given...)
	}
	return err
}

// Load reads the config sources of the data directory dir (a root or one
// partition; __cluster_metadata-0 in the root is read too) and resolves
// the cleaner config (Set.CleanerConfig): server.properties and dynamic
// broker configs over cc, the cleaner settings and profiles given over
// both in their order, so a setting the command line sets has the value
// it has without the files.
func (s Sources) Load(dir string, cc engine.CleanerConfig) (*Set, engine.CleanerConfig, error) {
	set, err := Load(LoadOptions{ServerConfig: s.ServerConfig, TopicConfig: s.TopicConfig, LogDir: LogDirRoot(dir)})
	if err != nil {
		return nil, cc, err
	}
	var flags []settings.Given
	for _, g := range s.Given {
		if _, ok := settings.CleanerRegistry.Lookup(g.Key); ok || g.Key == ProfileKey {
			flags = append(flags, g)
		}
	}
	resolved, _, err := set.CleanerConfig(cc, flags...)
	if err != nil {
		return nil, cc, err
	}
	return set, resolved, nil
}

// LogConfigs is the per-topic config of clean and retention: when a source
// applies to dir (HasSources), each topic's resolved config with the
// topic settings given applied on top, validated, the sources' Set, and
// cc resolved as Load resolves it (the broker's log.cleaner.* settings
// over cc, the cleaner settings given over both), from one reading of the
// sources; nil, nil and cc as it is when none applies (the command's one
// config for every partition).
func (s Sources) LogConfigs(dir string, cc engine.CleanerConfig) (func(engine.TopicPartition) (engine.LogConfig, error), *Set, engine.CleanerConfig, error) {
	if !HasSources(s.ServerConfig, s.TopicConfig, dir) {
		return nil, nil, cc, nil
	}
	set, resolved, err := s.Load(dir, cc)
	if err != nil {
		return nil, nil, cc, err
	}
	return func(tp engine.TopicPartition) (engine.LogConfig, error) {
		res, err := set.For(tp.Topic)
		if err != nil {
			return engine.LogConfig{}, err
		}
		cfg, _, err := settings.LogRegistry.Resolve(res.Log, given(settings.LogRegistry, s.Given)...)
		if err != nil {
			return cfg, err
		}
		return cfg, cfg.Validate()
	}, set, resolved, nil
}

// SourceSettings are the flags of Sources (--server-config,
// --topic-config) of a command's options R, whose Sources get finds.
func SourceSettings[R any](get func(*R) *Sources) []settings.Setting[R] {
	return []settings.Setting[R]{
		settings.Flag("server-config", "a broker's server.properties: broker defaults (log.cleanup.policy, log.segment.bytes, log.cleaner.delete.retention.ms ...) mapped to topic configs as Kafka does, and the cleaner's own log.cleaner.* settings (dedupe buffer, threads, I/O buffer, throttle); the flags given win over the file",
			func(r *R) settings.Value { return settings.String(&get(r).ServerConfig) }),
		settings.Flag("topic-config", "topic overrides in the shape `kafka-configs --describe --entity-type topics` prints",
			func(r *R) settings.Value { return settings.String(&get(r).TopicConfig) }),
	}
}

// SourcesFlags are Sources' flags, for a command that binds them to its
// own Sources (clean, retention).
var SourcesFlags = settings.MustRegistry(func() Sources { return Sources{} }, SourceSettings(func(s *Sources) *Sources { return s }))
