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
	entries, err := DecodeOffsetCheckpoint(path, data)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		out[e.TopicPartition] = e.Offset
	}
	return out, nil
}

// CheckpointError is a checkpoint text file that is not in Kafka's format:
// the file, the 1-based line and the byte position where that line starts,
// and what was wrong. It wraps ErrBadCheckpoint. The one decoder of the
// format, used by the engine's open and by dump and verify (lab/inspect).
type CheckpointError struct {
	Path   string
	Line   int
	Pos    int64
	Reason string
}

func (e *CheckpointError) Error() string {
	return fmt.Sprintf("%v: %s line %d: %s", ErrBadCheckpoint, e.Path, e.Line, e.Reason)
}

// Unwrap returns ErrBadCheckpoint.
func (e *CheckpointError) Unwrap() error { return ErrBadCheckpoint }

// OffsetCheckpointEntry is one entry line of an offset checkpoint file
// ("topic partition offset"), with the 1-based line and the byte position
// where it stands.
type OffsetCheckpointEntry struct {
	TopicPartition
	Offset record.Offset
	Line   int
	Pos    int64
}

// DecodeOffsetCheckpoint parses the bytes of an offset checkpoint file
// (Kafka's OffsetCheckpointFile: cleaner-offset-checkpoint,
// recovery-point-offset-checkpoint, log-start-offset-checkpoint; path names
// it in errors) into its entries in file order: partition an int32 >= 0,
// offset an int64. An empty file or a version line alone holds no entry.
// Errors are *CheckpointError.
func DecodeOffsetCheckpoint(path string, data []byte) ([]OffsetCheckpointEntry, error) {
	out := []OffsetCheckpointEntry{}
	err := decodeCheckpointText(path, data, 3, "topic partition offset", "bad partition or offset in %q", func(fields []string, line int, pos int64) bool {
		p, err1 := strconv.ParseInt(fields[1], 10, 32)
		off, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 {
			return false
		}
		out = append(out, OffsetCheckpointEntry{TopicPartition: TopicPartition{Topic: fields[0], Partition: int32(p)}, Offset: record.Offset(off), Line: line, Pos: pos})
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
// line's fields go, in file order, to entry with the line's number and
// byte position; entry returns false when they do not parse, and the
// error then gives the line by badEntry, a format with one %q for the
// line. Errors are *CheckpointError.
func decodeCheckpointText(path string, data []byte, width int, shape, badEntry string, entry func(fields []string, line int, pos int64) bool) error {
	lines, starts := readLines(string(data))
	bad := func(i int, format string, args ...any) error {
		return &CheckpointError{Path: path, Line: i + 1, Pos: starts[i], Reason: fmt.Sprintf(format, args...)}
	}
	if len(lines) == 0 {
		return nil
	}
	if v, err := strconv.Atoi(lines[0]); err != nil || v != checkpointVersion {
		return bad(0, "version %q, want %d", lines[0], checkpointVersion)
	}
	if len(lines) == 1 {
		return nil
	}
	n, err := strconv.Atoi(lines[1])
	if err != nil || n < 0 {
		return bad(1, "entry count %q is not a non-negative integer", lines[1])
	}
	if len(lines)-2 != n {
		return bad(1, "entry count %d but %d entry lines", n, len(lines)-2)
	}
	for i, line := range lines[2:] {
		fields := splitWhitespace(line)
		if len(fields) != width {
			return bad(i+2, "want %q, got %q", shape, line)
		}
		if !entry(fields, i+3, starts[i+2]) {
			return bad(i+2, badEntry, line)
		}
	}
	return nil
}

// readLines splits text into lines as Java's BufferedReader.readLine
// does, which Kafka's CheckpointFile reads with: a line ends at "\n",
// "\r" or "\r\n"; a final line without a terminator is a line; the end
// of the text is no line. starts[i] is the byte position of lines[i].
func readLines(text string) (lines []string, starts []int64) {
	var pos int64
	for text != "" {
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			lines, starts = append(lines, text), append(starts, pos)
			break
		}
		lines, starts = append(lines, text[:i]), append(starts, pos)
		n := i + 1
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			n++
		}
		text, pos = text[n:], pos+int64(n)
	}
	return lines, starts
}

// splitWhitespace splits an entry line as Kafka's CheckpointFile does
// (Java's String.split on the pattern "\\s+"): runs of space, tab, vertical
// tab or form feed separate fields; whitespace at the start gives an empty
// first field (so such a line has one field too many), trailing empty
// fields are dropped.
func splitWhitespace(line string) []string {
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r' || c == '\n' }
	var out []string
	for i := 0; i < len(line); {
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		out = append(out, line[i:j])
		for j < len(line) && isSpace(line[j]) {
			j++
		}
		i = j
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
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
