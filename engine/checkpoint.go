package engine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// CleanerCheckpointFile is the name of the cleaner's checkpoint file in a log
// directory root (the parent of the partition directories), as Kafka's
// LogCleanerManager.offsetCheckpointFile.
const CleanerCheckpointFile = "cleaner-offset-checkpoint"

// checkpointVersion is the only version of Kafka's OffsetCheckpointFile format.
const checkpointVersion = 0

// ReadCheckpoint reads a Kafka offset checkpoint file (the format shared by
// cleaner-offset-checkpoint, recovery-point-offset-checkpoint and
// log-start-offset-checkpoint): a version line "0", an entry count line, then
// "topic partition offset" lines. A missing file, an empty one and one
// holding only the version line are an empty map, as Kafka reads them
// (CheckpointFile.CheckpointReadBuffer.read). Errors wrap
// ErrBadCheckpoint and name the file and line.
func ReadCheckpoint(fsys FS, path string) (map[TopicPartition]record.Offset, error) {
	if fsys == nil {
		fsys = DefaultFS
	}
	out := map[TopicPartition]record.Offset{}
	f, err := fsys.Open(path)
	if isNotExist(err) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := readAll(f)
	f.Close()
	if err != nil {
		return nil, err
	}
	err = decodeCheckpointText(path, data, 3, "topic partition offset", "bad partition or offset in %q", func(fields []string) bool {
		p, err1 := strconv.ParseInt(fields[1], 10, 32)
		off, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 {
			return false
		}
		out[TopicPartition{Topic: fields[0], Partition: int32(p)}] = record.Offset(off)
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeCheckpointText parses one of Kafka's checkpoint text files
// (CheckpointFile's format, shared by the offset checkpoints and
// leader-epoch-checkpoint; path names it in errors): a version line "0", an
// entry count line, then exactly that many entry lines of width
// whitespace-separated fields (shape names them in errors). As Kafka's
// CheckpointFile.CheckpointReadBuffer.read, a file with no line (0 bytes)
// or with a version line and no count line holds no entry: Kafka creates a
// missing checkpoint file empty and reads it as an empty list. Each entry
// line's fields go, in file order, to entry, which returns false when they
// do not parse; the error then gives the line by badEntry, a format with
// one %q for the line. Errors wrap ErrBadCheckpoint and give the line.
func decodeCheckpointText(path string, data []byte, width int, shape, badEntry string, entry func(fields []string) bool) error {
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%w: %s line %d: %s", ErrBadCheckpoint, path, line, fmt.Sprintf(format, args...))
	}
	// Lines as Java's BufferedReader.readLine gives them: a final line
	// without its newline is a line; the end of the file is no line.
	text := string(data)
	var lines []string
	if text != "" {
		lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	if len(lines) == 0 {
		return nil
	}
	if v, err := strconv.Atoi(strings.TrimSpace(lines[0])); err != nil || v != checkpointVersion {
		return bad(1, "version %q, want %d", lines[0], checkpointVersion)
	}
	if len(lines) == 1 {
		return nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(lines[1]))
	if err != nil || n < 0 {
		return bad(2, "entry count %q is not a non-negative integer", lines[1])
	}
	if len(lines)-2 != n {
		return bad(2, "entry count %d but %d entry lines", n, len(lines)-2)
	}
	for i, line := range lines[2:] {
		fields := strings.Fields(line)
		if len(fields) != width {
			return bad(i+3, "want %q, got %q", shape, line)
		}
		if !entry(fields) {
			return bad(i+3, badEntry, line)
		}
	}
	return nil
}

// encodeCheckpointHeader writes the version and entry count lines of
// Kafka's checkpoint text format to b.
func encodeCheckpointHeader(b *bytes.Buffer, n int) {
	fmt.Fprintf(b, "%d\n%d\n", checkpointVersion, n)
}

// WriteCheckpoint writes entries in Kafka's checkpoint format, atomically
// (path.tmp, fsync, rename, fsync the directory), sorted by topic then
// partition so that the bytes are reproducible.
func WriteCheckpoint(fsys FS, path string, entries map[TopicPartition]record.Offset) error {
	if fsys == nil {
		fsys = DefaultFS
	}
	tps := make([]TopicPartition, 0, len(entries))
	for tp := range entries {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		if tps[i].Topic != tps[j].Topic {
			return tps[i].Topic < tps[j].Topic
		}
		return tps[i].Partition < tps[j].Partition
	})
	var b bytes.Buffer
	encodeCheckpointHeader(&b, len(tps))
	for _, tp := range tps {
		fmt.Fprintf(&b, "%s %d %d\n", tp.Topic, tp.Partition, int64(entries[tp]))
	}
	return writeFileAtomic(fsys, path, b.Bytes())
}

// CheckpointPath is the cleaner checkpoint of the log directory root that
// holds the partition directory dir.
func CheckpointPath(partitionDir string) string {
	return filepath.Join(filepath.Dir(filepath.Clean(partitionDir)), CleanerCheckpointFile)
}

// UpdateCheckpoint sets one partition's entry in the checkpoint file at path,
// keeping the others.
func UpdateCheckpoint(fsys FS, path string, tp TopicPartition, off record.Offset) error {
	if fsys == nil {
		fsys = DefaultFS
	}
	// Serialised per file: partitions of one root cleaned by several
	// threads update the same file.
	unlock := lockCheckpoint(path)
	defer unlock()
	entries, err := ReadCheckpoint(fsys, path)
	if err != nil {
		return err
	}
	entries[tp] = off
	return WriteCheckpoint(fsys, path, entries)
}
