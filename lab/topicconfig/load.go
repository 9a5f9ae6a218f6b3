package topicconfig

import (
	"os"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
)

// LoadOptions name the config sources of one data directory.
type LoadOptions struct {
	// ServerConfig is a broker's server.properties; empty: none.
	ServerConfig string
	// TopicConfig is a `kafka-configs --describe --entity-type topics`
	// output; empty: none.
	TopicConfig string
	// LogDir is the log directory root; when it holds MetadataPartition,
	// that metadata log's topic and config records are read. Its partition
	// directories are the known topics (an override of another topic is a
	// warning). Empty: no metadata, no topic check.
	LogDir string
}

// Load reads every source of o into a Set, lowest precedence first:
// server.properties, the metadata log, the topic config file. Errors name
// the file and line (or file and offset) and the key of a value that does
// not parse.
func Load(o LoadOptions) (*Set, error) {
	s := &Set{}
	if o.ServerConfig != "" {
		props, err := ReadProperties(o.ServerConfig)
		if err != nil {
			return nil, err
		}
		if err := s.AddServerProperties(o.ServerConfig, props); err != nil {
			return nil, err
		}
	}
	if o.LogDir != "" {
		meta := filepath.Join(o.LogDir, MetadataPartition)
		if st, err := os.Stat(meta); err == nil && st.IsDir() {
			if err := s.AddMetadata(meta); err != nil {
				return nil, err
			}
		}
	}
	if o.TopicConfig != "" {
		if err := s.AddDescribeFile(o.TopicConfig); err != nil {
			return nil, err
		}
	}
	if o.LogDir != "" && o.TopicConfig != "" {
		known := map[string]bool{}
		if dirs, err := engine.PartitionDirs(nil, o.LogDir); err == nil {
			for _, d := range dirs {
				if tp, err := engine.ParseTopicPartition(filepath.Base(d)); err == nil {
					known[tp.Topic] = true
				}
			}
		}
		s.WarnUnknownTopics(known)
	}
	return s, nil
}
