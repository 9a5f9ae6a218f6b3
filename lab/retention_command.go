package lab

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
)

// RetentionCommand is the retention command: Kafka's retention applied in
// place to dir, one partition (Retention) or every partition of a log
// directory (RetentionLogDir), each with its topic's config where a source
// gives one (sources.LogConfigs), writing what it deletes to out.
func RetentionCommand(dir string, sources topicconfig.Sources, o RetentionOptions, out io.Writer) error {
	if dir == "" {
		return errors.New("retention: --dir is required")
	}
	logFor, _, err := sources.LogConfigs(dir)
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
