package lab

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/settings"
)

// RetentionCommand is the retention command: Kafka's retention applied in
// place to dir, one partition (Retention) or every partition of a log
// directory (RetentionLogDir), each with its topic's config where a source
// gives one (sources.LogConfigs), writing what it deletes to out.
func RetentionCommand(dir string, sources topicconfig.Sources, o RetentionOptions, out io.Writer) error {
	if dir == "" {
		return errors.New("retention: --dir is required")
	}
	logFor, _, _, err := sources.LogConfigs(dir, engine.DefaultCleanerConfig())
	if err != nil {
		return err
	}
	if parts, err := engine.PartitionDirs(nil, dir); err == nil && len(parts) > 0 {
		return RetentionLogDir(out, dir, o, logFor)
	}
	if logFor != nil {
		tp, err := engine.ParseTopicPartition(filepath.Base(filepath.Clean(dir)))
		if err != nil {
			return err
		}
		if o.Log, err = logFor(tp); err != nil {
			return err
		}
	}
	return Retention(out, dir, o)
}

// RetentionCommandOptions are the retention command's options, as its
// flags give them (RetentionCommand's arguments).
type RetentionCommandOptions struct {
	Dir     string
	Sources topicconfig.Sources
	RetentionOptions
}

// RetentionFlags are the retention command's flags but --now-ms,
// --high-watermark and --delete-records: its own, Kafka's topic configs
// and the config files.
var RetentionFlags = settings.MustRegistry(func() RetentionCommandOptions {
	return RetentionCommandOptions{RetentionOptions: RetentionOptions{Log: engine.DefaultLogConfig()}}
}, []settings.Setting[RetentionCommandOptions]{
	settings.Flag("dir", "partition directory, or log directory root of topic-N partition directories, to apply retention to, in place (work on a copy)",
		func(o *RetentionCommandOptions) settings.Value { return settings.String(&o.Dir) }),
	settings.Flag("accept-truncated-segments", "open a segment whose index files prove that its .log lost data, as it is (default: refuse it, naming the file, nothing changed)",
		func(o *RetentionCommandOptions) settings.Value { return settings.Bool(&o.AcceptTruncated) }),
},
	settings.Lift(settings.Log, "Log.", func(o *RetentionCommandOptions) *engine.LogConfig { return &o.Log }),
	topicconfig.SourceSettings(func(o *RetentionCommandOptions) *topicconfig.Sources { return &o.Sources }))
