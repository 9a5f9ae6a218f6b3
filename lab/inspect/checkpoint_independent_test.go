package inspect

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// An independent decoder of Kafka's checkpoint text files, written from
// the format apart from the engine's (engine.DecodeOffsetCheckpoint and
// engine.DecodeLeaderEpochCheckpoint, the one codec dump and verify use):
// the tests check that the two agree (crossCheckCheckpoints).

// checkpointLine is one entry line of a checkpoint file: its fields, its
// 1-based line number and the byte position where it starts.
type checkpointLine struct {
	fields []string
	raw    string
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
	// Java's BufferedReader.readLine: "\n", "\r" and "\r\n" end a line.
	var cur []byte
	var start int64
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c != '\n' && c != '\r' {
			cur = append(cur, c)
			continue
		}
		lines = append(lines, checkpointLine{fields: javaSplit(string(cur)), raw: string(cur), line: len(lines) + 1, pos: start})
		if c == '\r' && i+1 < len(data) && data[i+1] == '\n' {
			i++
		}
		cur, start = nil, int64(i+1)
	}
	if len(cur) > 0 {
		lines = append(lines, checkpointLine{fields: javaSplit(string(cur)), raw: string(cur), line: len(lines) + 1, pos: start})
	}
	// No line, or a version line alone, is no entry, as Kafka's
	// CheckpointFile.CheckpointReadBuffer.read returns an empty list.
	if len(lines) == 0 {
		return nil, nil
	}
	// Integer.parseInt: an optional sign and digits, nothing else.
	if v, err := strconv.ParseInt(lines[0].raw, 10, 32); err != nil || v != 0 {
		return nil, &checkpointError{pos: 0, line: 1, reason: fmt.Sprintf("version 0, found %q", lines[0].raw)}
	}
	if len(lines) == 1 {
		return nil, nil
	}
	count, err := strconv.ParseInt(lines[1].raw, 10, 32)
	if err != nil || count < 0 {
		return nil, &checkpointError{pos: lines[1].pos, line: 2, reason: fmt.Sprintf("an entry count >= 0, found %q", lines[1].raw)}
	}
	if int64(len(lines)-2) != count {
		return nil, &checkpointError{pos: lines[1].pos, line: 2, reason: fmt.Sprintf("%d entry lines after the count line, found %d", count, len(lines)-2)}
	}
	// Field counts are checked line by line with the values (Kafka reads
	// and parses one line at a time): wrongWidth.
	return lines[2:], nil
}

// javaSplit is Java's line.split("\\s+") (Kafka's CheckpointFile): a
// leading separator gives an empty first field, trailing empty fields go.
func javaSplit(line string) []string {
	parts := regexp.MustCompile(`[ \t\n\x0B\f\r]+`).Split(line, -1)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// wrongWidth is the error of an entry line without width fields.
func wrongWidth(l checkpointLine, width int) *checkpointError {
	if len(l.fields) == width {
		return nil
	}
	return &checkpointError{pos: l.pos, line: l.line, reason: fmt.Sprintf("%d fields, found %d", width, len(l.fields))}
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
		if cerr := wrongWidth(l, 3); cerr != nil {
			return nil, cerr
		}
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
		if cerr := wrongWidth(l, 2); cerr != nil {
			return nil, cerr
		}
		e, err1 := strconv.ParseInt(l.fields[0], 10, 32)
		off, err2 := strconv.ParseInt(l.fields[1], 10, 64)
		if err1 != nil || err2 != nil || e < 0 || off < 0 {
			return nil, &checkpointError{pos: l.pos, line: l.line, reason: fmt.Sprintf("\"epoch startOffset\", both integers >= 0, found %q", strings.Join(l.fields, " "))}
		}
		out = append(out, leaderEpochEntry{Epoch: int32(e), StartOffset: off})
	}
	return out, nil
}
