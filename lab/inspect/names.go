package inspect

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// LeaderEpochCheckpointFile is the name of a partition directory's leader
// epoch cache file, as Kafka's LeaderEpochCheckpointFile. Part of Kafka's
// on-disk layout; it must not change.
const LeaderEpochCheckpointFile = "leader-epoch-checkpoint"

// checkpointVersion is the only version of Kafka's checkpoint text files
// (CheckpointFile: OffsetCheckpointFile and LeaderEpochCheckpointFile).
const checkpointVersion = 0

// offsetCheckpointFiles are the log directory root's offset checkpoint
// files, in the order dump prints them.
var offsetCheckpointFiles = []string{engine.CleanerCheckpointFile, engine.RecoveryPointCheckpointFile, engine.LogStartOffsetCheckpointFile}

// Kind is what a path given to Dump or Verify is.
type Kind int

const (
	KindFile      Kind = iota // one file, told by its name
	KindPartition             // a partition directory: it holds segment .log files
	KindLogDir                // a log directory root: it holds topic-partition directories
)

func (k Kind) String() string {
	switch k {
	case KindFile:
		return "file"
	case KindPartition:
		return "partition directory"
	case KindLogDir:
		return "log directory"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Classify says what path is: a file, a partition directory (one holding a
// segment .log file named by a 20-digit base offset, or named
// topic-partition), or a log directory root (one holding topic-partition
// directories). A directory that is neither is an error wrapping
// engine.ErrNotLogDir naming it.
func Classify(path string) (Kind, error) {
	st, err := os.Stat(path)
	if err != nil {
		return 0, fmt.Errorf("inspect: %w", err)
	}
	if !st.IsDir() {
		return KindFile, nil
	}
	logs, err := segmentFiles(path)
	if err != nil {
		return 0, err
	}
	if len(logs) > 0 {
		return KindPartition, nil
	}
	parts, err := engine.PartitionDirs(nil, path)
	if err != nil {
		return 0, fmt.Errorf("inspect: %w", err)
	}
	if len(parts) > 0 {
		return KindLogDir, nil
	}
	if _, err := engine.ParseTopicPartition(filepath.Base(filepath.Clean(path))); err == nil {
		return 0, fmt.Errorf("inspect: %w: %s holds no *.log segment file", engine.ErrNotLogDir, path)
	}
	return 0, fmt.Errorf("inspect: %w: %s holds neither *.log segment files (a partition directory) nor topic-partition directories (a log directory root)", engine.ErrNotLogDir, path)
}

// segmentFiles lists dir's .log files named by a 20-digit base offset, in
// offset order.
func segmentFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	type seg struct {
		base record.Offset
		path string
	}
	var segs []seg
	for _, e := range entries {
		if base, ok := engine.ParseSegmentFileName(e.Name(), engine.LogFileSuffix); ok && !e.IsDir() {
			segs = append(segs, seg{base, filepath.Join(dir, e.Name())})
		}
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].base < segs[j].base })
	out := make([]string, len(segs))
	for i, s := range segs {
		out[i] = s.path
	}
	return out, nil
}

// baseOffsetOf is the base offset in the name of a segment file with
// extension ext, read by the engine's parser.
func baseOffsetOf(path, ext string) (record.Offset, error) {
	base, ok := engine.ParseSegmentFileName(filepath.Base(path), ext)
	if !ok {
		return 0, fmt.Errorf("inspect: %s is not named by a 20-digit base offset and %s", path, ext)
	}
	return base, nil
}

// fileKind names the format of a file from its name: a segment file
// extension (kind ".log", ".index", ".timeindex" or ".txnindex"; ext is the
// whole suffix after the digits, a temporary suffix such as ".cleaned"
// included) or the name of a checkpoint file (kind = ext = the name); ""
// when unknown.
func fileKind(path string) (kind, ext string) {
	name := filepath.Base(path)
	for _, n := range offsetCheckpointFiles {
		if name == n {
			return n, n
		}
	}
	if name == LeaderEpochCheckpointFile || name == engine.CleanShutdownFile {
		return name, name
	}
	rest := name
	for _, tmp := range []string{engine.CleanedFileSuffix, engine.SwapFileSuffix, engine.DeletedFileSuffix} {
		rest = strings.TrimSuffix(rest, tmp)
	}
	for _, k := range []string{engine.LogFileSuffix, engine.IndexFileSuffix, engine.TimeIndexFileSuffix, engine.TxnIndexFileSuffix} {
		if strings.HasSuffix(rest, k) {
			return k, k + strings.TrimPrefix(name, rest)
		}
	}
	return "", ""
}

// errUnknownFile: a file dump cannot tell the format of from its name.
var errUnknownFile = errors.New("inspect: unknown file kind")
