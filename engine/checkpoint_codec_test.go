package engine

import (
	"errors"
	"testing"
)

// TestDecodeOffsetCheckpointAsKafka: the offset checkpoint text read as
// Kafka's CheckpointFile reads it (Java's BufferedReader.readLine, then
// Integer.parseInt for the version and count lines and String.split("\\s+")
// for an entry line), worked from those Java rules: "\r\n" and "\r" end
// lines; a sign is part of an integer but whitespace is not; whitespace at
// the start of an entry line makes an empty first field (one too many),
// at its end it is dropped. Errors carry the line and its byte position.
func TestDecodeOffsetCheckpointAsKafka(t *testing.T) {
	tp := TopicPartition{Topic: "t", Partition: 0}
	for _, c := range []struct {
		name, text string
		want       []OffsetCheckpointEntry // nil with line > 0: an error
		line       int
		pos        int64
	}{
		{"newlines", "0\n1\nt 0 5\n", []OffsetCheckpointEntry{{tp, 5, 3, 4}}, 0, 0},
		{"crlf", "0\r\n1\r\nt 0 5\r\n", []OffsetCheckpointEntry{{tp, 5, 3, 6}}, 0, 0},
		{"cr", "0\r1\rt 0 5", []OffsetCheckpointEntry{{tp, 5, 3, 4}}, 0, 0},
		{"signed version and count", "+0\n+1\nt 0 5\n", []OffsetCheckpointEntry{{tp, 5, 3, 6}}, 0, 0},
		{"tabs and trailing blanks", "0\n1\nt\t0  5  \n", []OffsetCheckpointEntry{{tp, 5, 3, 4}}, 0, 0},
		{"empty", "", []OffsetCheckpointEntry{}, 0, 0},
		{"version alone", "0\n", []OffsetCheckpointEntry{}, 0, 0},
		{"version with a blank", " 0\n0\n", nil, 1, 0},
		{"count with a blank", "0\n1 \nt 0 5\n", nil, 2, 2},
		{"entry with a leading blank", "0\n1\n t 0 5\n", nil, 3, 4},
		{"count above the lines", "0\n2\nt 0 5\n", nil, 2, 2},
		{"negative partition", "0\n1\nt -1 5\n", nil, 3, 4},
	} {
		got, err := DecodeOffsetCheckpoint("ckpt", []byte(c.text))
		if c.want == nil {
			var ce *CheckpointError
			if !errors.As(err, &ce) || !errors.Is(err, ErrBadCheckpoint) || ce.Line != c.line || ce.Pos != c.pos {
				t.Errorf("%s: %v, want a *CheckpointError at line %d, byte %d", c.name, err, c.line, c.pos)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%s: %+v, %v; want %+v", c.name, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: entry %d %+v, want %+v", c.name, i, got[i], c.want[i])
			}
		}
	}
}
