package lab

import (
	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

// DefaultCleanCommandOptions are clean's defaults: Kafka's topic configs
// and cleaner, one pass.
func DefaultCleanCommandOptions() CleanCommandOptions {
	return CleanCommandOptions{CleanOptions: CleanOptions{Log: engine.DefaultLogConfig(), Cleaner: engine.DefaultCleanerConfig(), Passes: 1}}
}

// CleanFlags are clean's flags but --first-dirty-offset, --high-watermark,
// --now-ms (settings.OptionalOffset), --profile and Kafka's cleaner's
// (kafkajvm.CleanFlags): its own, Kafka's topic configs and cleaner
// settings, and the config files.
var CleanFlags = settings.MustRegistry(DefaultCleanCommandOptions,
	[]settings.Setting[CleanCommandOptions]{
		settings.Flag("dir", "partition directory, or log directory root of topic-N partition directories, to clean in place (work on a copy)",
			func(o *CleanCommandOptions) settings.Value { return settings.String(&o.Dir) }),
		settings.Flag("force", "clean even when the cleanable ratio is not above min.cleanable.dirty.ratio (a log directory: every log with cleanable bytes)",
			func(o *CleanCommandOptions) settings.Value { return settings.Bool(&o.Force) }),
		settings.Flag("roll", "roll the active segment first, so that all data is cleanable",
			func(o *CleanCommandOptions) settings.Value { return settings.Bool(&o.Roll) }),
		settings.Flag("metrics-addr", "with --dir LOGDIR: serve Kafka's cleaner metrics at /metrics for Prometheus at host:port while cleaning (\":PORT\" binds 127.0.0.1)",
			func(o *CleanCommandOptions) settings.Value { return settings.String(&o.MetricsAddr) }),
		settings.Flag("kafka-recovery-truncation", "after an unclean shutdown, cut a bad segment tail even when later segments hold data, and delete those segments, as Kafka's LogLoader does (default: refuse, nothing changed)",
			func(o *CleanCommandOptions) settings.Value { return settings.Bool(&o.KafkaRecovery) }),
		settings.Flag("accept-truncated-segments", "open and clean a segment whose index files prove that its .log lost data, as it is (default: refuse it, naming the file, nothing changed)",
			func(o *CleanCommandOptions) settings.Value { return settings.Bool(&o.AcceptTruncated) }),
		settings.Flag("passes", "clean again while the offset map filled before the dirty range ended, up to this many times",
			func(o *CleanCommandOptions) settings.Value { return settings.Count(&o.Passes) }),
	},
	settings.Lift(settings.Log, "Log.", func(o *CleanCommandOptions) *engine.LogConfig { return &o.Log }),
	settings.Lift(settings.Cleaner, "Cleaner.", func(o *CleanCommandOptions) *engine.CleanerConfig { return &o.Cleaner }),
	topicconfig.SourceSettings(func(o *CleanCommandOptions) *topicconfig.Sources { return &o.Sources }))
