package inspect

import (
	"fmt"
	"strconv"
	"strings"
)

// checkpointVersion is the only version of Kafka's checkpoint text files
// (CheckpointFile: OffsetCheckpointFile and LeaderEpochCheckpointFile).
const checkpointVersion = 0

// checkpointLine is one entry line of a checkpoint file: its fields, its
// 1-based line number and the byte position where it starts.
type checkpointLine struct {
	fields []string
	line   int
	pos    int64
}

// checkpointError is a checkpoint file that is not in Kafka's format: the
// byte position and line of the bad line, and what was wrong.
type checkpointError struct {
	pos    int64
	line   int
	reason string
}

// parseCheckpointText splits a checkpoint file of Kafka's CheckpointFile
// format: a version line ("0"), an entry count line, then that many entry
// lines of fieldsPerEntry whitespace-separated fields. An empty file, or
// one holding only the version line, has no entry (as Kafka reads it).
func parseCheckpointText(data []byte, fieldsPerEntry int) ([]checkpointLine, *checkpointError) {
	var lines []checkpointLine
	var pos int64
	text := string(data)
	for n := 1; text != ""; n++ {
		line, rest, _ := strings.Cut(text, "\n") // the last newline is optional, as for Kafka's BufferedReader
		lines = append(lines, checkpointLine{fields: strings.Fields(line), line: n, pos: pos})
		pos += int64(len(line) + 1)
		text = rest
	}
	// No line, or a version line alone, is no entry, as Kafka's
	// CheckpointFile.CheckpointReadBuffer.read returns an empty list.
	if len(lines) == 0 {
		return nil, nil
	}
	if f := lines[0].fields; len(f) != 1 || f[0] != strconv.Itoa(checkpointVersion) {
		return nil, &checkpointError{pos: 0, line: 1, reason: fmt.Sprintf("version %d, found %q", checkpointVersion, strings.Join(f, " "))}
	}
	if len(lines) == 1 {
		return nil, nil
	}
	f := lines[1].fields
	count, err := strconv.Atoi(strings.Join(f, " "))
	if len(f) != 1 || err != nil || count < 0 {
		return nil, &checkpointError{pos: lines[1].pos, line: 2, reason: fmt.Sprintf("an entry count >= 0, found %q", strings.Join(f, " "))}
	}
	if len(lines)-2 != count {
		return nil, &checkpointError{pos: lines[1].pos, line: 2, reason: fmt.Sprintf("%d entry lines after the count line, found %d", count, len(lines)-2)}
	}
	for _, l := range lines[2:] {
		if len(l.fields) != fieldsPerEntry {
			return nil, &checkpointError{pos: l.pos, line: l.line, reason: fmt.Sprintf("%d fields, found %d", fieldsPerEntry, len(l.fields))}
		}
	}
	return lines[2:], nil
}

// offsetCheckpointEntry is one line of an offset checkpoint file
// (cleaner-offset-checkpoint, recovery-point-offset-checkpoint,
// log-start-offset-checkpoint): "topic partition offset".
type offsetCheckpointEntry struct {
	Topic     string
	Partition int32
	Offset    int64
}

// decodeOffsetCheckpoint decodes an offset checkpoint file (Kafka's
// OffsetCheckpointFile): partition an int32 >= 0, offset an int64.
func decodeOffsetCheckpoint(data []byte) ([]offsetCheckpointEntry, *checkpointError) {
	lines, cerr := parseCheckpointText(data, 3)
	if cerr != nil {
		return nil, cerr
	}
	out := make([]offsetCheckpointEntry, 0, len(lines))
	for _, l := range lines {
		p, err1 := strconv.ParseInt(l.fields[1], 10, 32)
		off, err2 := strconv.ParseInt(l.fields[2], 10, 64)
		if err1 != nil || err2 != nil || p < 0 {
			return nil, &checkpointError{pos: l.pos, line: l.line, reason: fmt.Sprintf("\"topic partition offset\" with a partition >= 0 and an integer offset, found %q", strings.Join(l.fields, " "))}
		}
		out = append(out, offsetCheckpointEntry{Topic: l.fields[0], Partition: int32(p), Offset: off})
	}
	return out, nil
}

// leaderEpochEntry is one line of a leader-epoch-checkpoint file: the
// leader epoch and the first offset written in it (Kafka's EpochEntry).
type leaderEpochEntry struct {
	Epoch       int32
	StartOffset int64
}

// decodeLeaderEpochCheckpoint decodes a leader-epoch-checkpoint file
// (Kafka's LeaderEpochCheckpointFile: "epoch startOffset" lines), epochs
// and start offsets >= 0.
func decodeLeaderEpochCheckpoint(data []byte) ([]leaderEpochEntry, *checkpointError) {
	lines, cerr := parseCheckpointText(data, 2)
	if cerr != nil {
		return nil, cerr
	}
	out := make([]leaderEpochEntry, 0, len(lines))
	for _, l := range lines {
		e, err1 := strconv.ParseInt(l.fields[0], 10, 32)
		off, err2 := strconv.ParseInt(l.fields[1], 10, 64)
		if err1 != nil || err2 != nil || e < 0 || off < 0 {
			return nil, &checkpointError{pos: l.pos, line: l.line, reason: fmt.Sprintf("\"epoch startOffset\", both integers >= 0, found %q", strings.Join(l.fields, " "))}
		}
		out = append(out, leaderEpochEntry{Epoch: int32(e), StartOffset: off})
	}
	return out, nil
}
