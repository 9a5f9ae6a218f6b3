package topicconfig

import (
	"os"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
)

// LogDirRoot returns the log directory root of dir: its parent when dir is
// named as a topic-partition directory and holds no partition directories
// of its own, else dir itself ("" stays ""). It is the root to read
// MetadataPartition and the checkpoint files from.
func LogDirRoot(dir string) string {
	if dir == "" {
		return ""
	}
	if _, err := engine.ParseTopicPartition(filepath.Base(dir)); err == nil {
		if sub, err := engine.PartitionDirs(nil, dir); err == nil && len(sub) == 0 {
			return filepath.Dir(dir)
		}
	}
	return dir
}

// HasSources reports whether a per-topic config source applies to the
// data directory dir: a server.properties path or a topic-config path
// given (non-empty), or a MetadataPartition directory (the KRaft metadata
// log) in dir's log directory root (LogDirRoot).
func HasSources(serverConfig, topicConfig, dir string) bool {
	if serverConfig != "" || topicConfig != "" {
		return true
	}
	st, err := os.Stat(filepath.Join(LogDirRoot(dir), MetadataPartition))
	return err == nil && st.IsDir()
}
