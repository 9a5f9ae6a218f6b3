package engine

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Files of a log directory root (the parent of the partition directories),
// named as Kafka's LogManager and LogLoader name them. Part of Kafka's
// on-disk layout; they must not change.
const (
	// CleanShutdownFile marks a clean shutdown: it is written when the last
	// Log of the root open in this process is closed without error, and
	// removed when a Log is opened read-write, so that a crash in between
	// is seen at the next open (Kafka's LogLoader.CLEAN_SHUTDOWN_FILE, KAFKA-10471).
	CleanShutdownFile = ".kafka_cleanshutdown"
	// RecoveryPointCheckpointFile holds each partition's recovery point:
	// the offset below which everything was flushed. After an unclean
	// shutdown, segments from the one holding it on are recovered.
	RecoveryPointCheckpointFile = "recovery-point-offset-checkpoint"
	// LogStartOffsetCheckpointFile holds each partition's log start offset
	// when it is above the first segment's base offset (after DeleteRecords
	// or a retention that left part of a segment below it).
	LogStartOffsetCheckpointFile = "log-start-offset-checkpoint"
)

// rootFile is the path of a root file of the log directory holding the
// partition directory dir.
func rootFile(partitionDir, name string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(partitionDir)), name)
}

// updateCheckpointEntry sets (or, when remove is true, deletes) one
// partition's entry of the checkpoint file at path, keeping the others.
func updateCheckpointEntry(fsys FS, path string, tp TopicPartition, off record.Offset, remove bool) error {
	unlock := lockCheckpoint(path)
	defer unlock()
	entries, err := ReadCheckpoint(fsys, path)
	if err != nil {
		return err
	}
	old, had := entries[tp]
	if remove {
		if !had {
			if _, serr := fsys.Stat(path); serr == nil {
				return nil // nothing to change
			}
		}
		delete(entries, tp)
	} else {
		if had && old == off {
			return nil
		}
		entries[tp] = off
	}
	if err := WriteCheckpoint(fsys, path, entries); err != nil {
		return fmt.Errorf("engine: write %s: %w", path, err)
	}
	return nil
}

// checkpointEntry returns tp's entry of the checkpoint file at path.
func checkpointEntry(fsys FS, path string, tp TopicPartition) (record.Offset, bool, error) {
	unlock := lockCheckpoint(path)
	defer unlock()
	entries, err := ReadCheckpoint(fsys, path)
	if err != nil {
		return 0, false, err
	}
	off, ok := entries[tp]
	return off, ok, nil
}

// PartitionDirs lists the partition directories of a log directory root:
// its subdirectories named topic-partition, sorted by name. Directories
// Kafka marks for deletion or moving (topic-0.<id>-delete, -future,
// -stray) do not parse as topic-partition and are left out, as are files;
// SkippedDirs names those that hold segment files.
func PartitionDirs(fsys FS, root string) ([]string, error) {
	if fsys == nil {
		fsys = DefaultFS
	}
	entries, err := fsys.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("engine: list %s: %w", root, err)
	}
	var out []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := ParseTopicPartition(e.Name()); err != nil {
			continue
		}
		out = append(out, filepath.Join(root, e.Name()))
	}
	sort.Strings(out)
	return out, nil
}

// SkippedDir is a subdirectory of a log directory root that PartitionDirs
// leaves out although it holds segment files, and why.
type SkippedDir struct {
	Path   string // root joined with the directory's name
	Reason string // e.g. "not named topic-partition, so Kafka's LogManager does not load it"
}

// SkippedDirs lists, sorted by name, the subdirectories of root that
// PartitionDirs leaves out and that hold segment files (HasSegmentFile),
// so that a command over the root can say it did not read them: a
// directory Kafka marked for deletion (-delete), a future replica (-future),
// a stray partition (-stray, as Kafka's LogManager names them), or one not
// named topic-partition at all. The error is that of listing root; a
// subdirectory that cannot be listed is left out.
func SkippedDirs(fsys FS, root string) ([]SkippedDir, error) {
	if fsys == nil {
		fsys = DefaultFS
	}
	entries, err := fsys.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("engine: list %s: %w", root, err)
	}
	var out []SkippedDir
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := ParseTopicPartition(e.Name()); err == nil {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if has, err := HasSegmentFile(fsys, dir); err != nil || !has {
			continue
		}
		reason := "not named topic-partition, so Kafka's LogManager does not load it"
		switch {
		case strings.HasSuffix(e.Name(), "-delete"):
			reason = "marked for deletion (-delete suffix), which Kafka's LogManager deletes rather than loads"
		case strings.HasSuffix(e.Name(), "-future"):
			reason = "a future replica being moved between log directories (-future suffix), not the partition's log"
		case strings.HasSuffix(e.Name(), "-stray"):
			reason = "a stray partition (-stray suffix), which Kafka's LogManager does not load"
		}
		out = append(out, SkippedDir{Path: dir, Reason: reason})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// String is the line a command over a root prints for d.
func (d SkippedDir) String() string {
	return fmt.Sprintf("%s: skipped: holds segment files (*.log) but is %s", d.Path, d.Reason)
}

// HasSegmentFile reports whether the directory dir holds a segment file:
// a *.log named by a 20-digit base offset (ParseSegmentFileName). A
// partition directory without one (Kafka's KRaft __cluster_metadata-0
// holds only snapshots and checkpoints) is loaded by Kafka's LogLoader as
// an empty log. The error is that of listing dir.
func HasSegmentFile(fsys FS, dir string) (bool, error) {
	if fsys == nil {
		fsys = DefaultFS
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return false, fmt.Errorf("engine: list %s: %w", dir, err)
	}
	for _, e := range entries {
		if _, ok := ParseSegmentFileName(e.Name(), LogFileSuffix); ok && !e.IsDir() {
			return true, nil
		}
	}
	return false, nil
}

// OpenLogDir opens every partition directory of a log directory root (see
// PartitionDirs) read-write with opts, as a broker's LogManager loads a
// log directory. A read-write open first takes the root's .lock
// (LockFile): when another process holds it, err is ErrLogDirLocked and
// nothing is opened. A partition that fails to open is left out, its error
// in failed (keyed by directory); the others are returned open.
func OpenLogDir(root string, opts Options) (logs []*Log, failed map[string]error, err error) {
	dirs, err := PartitionDirs(opts.FS, root)
	if err != nil {
		return nil, nil, err
	}
	if !opts.ReadOnly {
		// Lock the root once for all its partitions: another process using
		// it is one error, not one per partition.
		fsys := opts.FS
		if fsys == nil {
			fsys = DefaultFS
		}
		r, err := acquireRoot(fsys, root, "")
		if err != nil {
			return nil, nil, err
		}
		// The Logs opened below hold the root until they close; this hold
		// changes nothing, so as the last one (no Log opened) it leaves
		// the marker as it was.
		defer r.release(fsys, "", releaseNeutral)
	}
	failed = map[string]error{}
	for _, dir := range dirs {
		l, err := Open(dir, opts)
		if err != nil {
			failed[dir] = err
			continue
		}
		logs = append(logs, l)
	}
	return logs, failed, nil
}
