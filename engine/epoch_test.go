package engine

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// parseEpochFileForTest parses a leader-epoch-checkpoint the plain way,
// independently of DecodeLeaderEpochCheckpoint: line 0 "0", line 1 the
// count, then "epoch offset" lines.
func parseEpochFileForTest(t *testing.T, path string) []EpochEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if lines[0] != "0" {
		t.Fatalf("%s: version line %q", path, lines[0])
	}
	n, err := strconv.Atoi(lines[1])
	if err != nil || n != len(lines)-2 {
		t.Fatalf("%s: count line %q for %d entries", path, lines[1], len(lines)-2)
	}
	var out []EpochEntry
	for _, line := range lines[2:] {
		var e, o int64
		parts := strings.Split(line, " ")
		if len(parts) != 2 {
			t.Fatalf("%s: line %q", path, line)
		}
		if e, err = strconv.ParseInt(parts[0], 10, 32); err != nil {
			t.Fatal(err)
		}
		if o, err = strconv.ParseInt(parts[1], 10, 64); err != nil {
			t.Fatal(err)
		}
		out = append(out, EpochEntry{Epoch: int32(e), StartOffset: record.Offset(o)})
	}
	return out
}

// TestFixtureLeaderEpochCheckpoints reads the leader-epoch-checkpoint of
// every real broker partition directory of the fixtures. The Log's cache
// must be the file's entries (parsed here independently) less those a
// broker's load drops: start offset >= the log end offset
// (truncateFromEnd), and those before the log start offset folded into one
// entry at it (truncateFromStart). Independently of the cache code, every
// v2 batch's PartitionLeaderEpoch, stamped by the leader that wrote it,
// must be the epoch of the last file entry starting at or below the
// batch's base offset: the file and the bytes tell the same history.
func TestFixtureLeaderEpochCheckpoints(t *testing.T) {
	checked := 0
	for _, set := range fixtureSets(t) {
		for _, dir := range subdirs(t, set) {
			path := filepath.Join(dir, LeaderEpochCheckpointFile)
			if _, err := os.Stat(path); err != nil {
				continue
			}
			if _, err := ParseTopicPartition(filepath.Base(dir)); err != nil || len(logFiles(t, dir)) == 0 {
				continue // e.g. pinterest's timeindex_test: not a partition name
			}
			name, _ := filepath.Rel(fixturesRoot, dir)
			t.Run(name, func(t *testing.T) {
				file := parseEpochFileForTest(t, path)
				raw, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				decoded, err := DecodeLeaderEpochCheckpoint(path, raw)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(decoded, file) {
					t.Fatalf("decoded %v, file says %v", decoded, file)
				}
				batches, _, leo := readPartition(t, dir)
				l, err := Open(dir, Options{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				if got := l.LogEndOffset(); got != leo {
					t.Fatalf("log end offset %d, the files say %d", got, leo)
				}
				lso := l.LogStartOffset()
				var want []EpochEntry
				for _, e := range file {
					if e.StartOffset < leo {
						want = append(want, e)
					}
				}
				n := 0
				for n < len(want) && want[n].StartOffset <= lso {
					n++
				}
				if n > 0 && !(n == 1 && want[0].StartOffset == lso) {
					want = append([]EpochEntry{{Epoch: want[n-1].Epoch, StartOffset: lso}}, want[n:]...)
				}
				if got := l.LeaderEpochs(); !reflect.DeepEqual(got, want) && !(len(got) == 0 && len(want) == 0) {
					t.Errorf("cache %v, want %v (file %v, log start %d, log end %d)", got, want, file, lso, leo)
				}
				for _, b := range batches {
					k := -1
					for i, e := range file {
						if e.StartOffset <= b.BaseOffset {
							k = i
						}
					}
					if k < 0 {
						continue // written before the first epoch the file keeps
					}
					if b.PartitionLeaderEpoch != file[k].Epoch {
						t.Errorf("%s byte %d: batch %d..%d has leader epoch %d, the file says epoch %d from %d", filepath.Base(b.File), b.Pos, b.BaseOffset, b.LastOffset(), b.PartitionLeaderEpoch, file[k].Epoch, file[k].StartOffset)
					}
				}
				checked++
			})
		}
	}
	t.Logf("%d fixture partitions checked", checked)
	if checked < 10 {
		t.Errorf("only %d fixture partitions with a leader-epoch-checkpoint checked", checked)
	}
}

// TestEndOffsetForEpochCases works Kafka's endOffsetFor cases by hand on
// the cache [1@10 3@20 6@35] with log end offset 50.
func TestEndOffsetForEpochCases(t *testing.T) {
	c := epochCache{entries: []EpochEntry{{1, 10}, {3, 20}, {6, 35}}}
	for _, tc := range []struct {
		epoch     int32
		wantEpoch int32
		wantEnd   record.Offset
	}{
		{-1, -1, -1}, // undefined
		{0, 0, 10},   // below the first: (requested, first start)
		{1, 1, 20},   // ends where 3 starts
		{2, 1, 20},   // unknown: the largest below is 1
		{3, 3, 35},
		{5, 3, 35},
		{6, 6, 50}, // latest: the log end offset
		{7, -1, -1},
	} {
		e, o := c.endOffsetFor(tc.epoch, 50)
		if e != tc.wantEpoch || o != tc.wantEnd {
			t.Errorf("endOffsetFor(%d) = (%d, %d), want (%d, %d)", tc.epoch, e, o, tc.wantEpoch, tc.wantEnd)
		}
	}
	var empty epochCache
	if e, o := empty.endOffsetFor(0, 50); e != -1 || o != -1 {
		t.Errorf("empty cache: (%d, %d), want (-1, -1)", e, o)
	}
}

// TestEpochCacheAssignAndTruncate checks Kafka's assign, truncateFromEnd
// and truncateFromStart rules on hand-worked caches.
func TestEpochCacheAssignAndTruncate(t *testing.T) {
	var c epochCache
	steps := []struct {
		epoch int32
		start record.Offset
		want  bool
	}{
		{0, 0, true},
		{0, 5, false}, // same epoch, later start: nothing
		{2, 5, true},
		{2, 3, true},  // same epoch, lower start: replaces it
		{4, 10, true}, // [0@0 2@3 4@10]
		{-1, 12, false},
		{5, -1, false},
	}
	for _, s := range steps {
		if got := c.assign(s.epoch, s.start); got != s.want {
			t.Errorf("assign(%d, %d) = %v, want %v", s.epoch, s.start, got, s.want)
		}
	}
	want := []EpochEntry{{0, 0}, {2, 3}, {4, 10}}
	if !reflect.DeepEqual(c.entries, want) {
		t.Fatalf("cache %v, want %v", c.entries, want)
	}
	// A lower epoch at a later offset removes every entry with epoch >= 1.
	d := epochCache{entries: append([]EpochEntry(nil), want...)}
	d.assign(1, 12)
	if w := []EpochEntry{{0, 0}, {1, 12}}; !reflect.DeepEqual(d.entries, w) {
		t.Errorf("after assign(1, 12): %v, want %v", d.entries, w)
	}
	// truncateFromEnd(10) drops 4@10; (11) drops nothing.
	e := epochCache{entries: append([]EpochEntry(nil), want...)}
	if e.truncateFromEnd(11) {
		t.Error("truncateFromEnd(11) changed the cache")
	}
	if !e.truncateFromEnd(10) || !reflect.DeepEqual(e.entries, []EpochEntry{{0, 0}, {2, 3}}) {
		t.Errorf("truncateFromEnd(10): %v", e.entries)
	}
	// truncateFromStart(7): 0@0 and 2@3 are at or below 7; 2 moves to 7.
	f := epochCache{entries: append([]EpochEntry(nil), want...)}
	if !f.truncateFromStart(7) || !reflect.DeepEqual(f.entries, []EpochEntry{{2, 7}, {4, 10}}) {
		t.Errorf("truncateFromStart(7): %v", f.entries)
	}
	if f.truncateFromStart(7) {
		t.Error("a second truncateFromStart(7) changed the cache")
	}
}

// TestDecodeLeaderEpochCheckpointErrors: bad files are errors naming the line.
func TestDecodeLeaderEpochCheckpointErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"1\n0\n", "line 1"},
		{"0\n2\n0 0\n", "line 2"},
		{"0\n1\n0\n", "line 3"},
		{"0\n1\n-1 5\n", "line 3"},
		{"0\n1\n3 x\n", "line 3"},
		// An empty file is an empty list, as Kafka's CheckpointFile reads
		// it (TestCheckpointReadAsKafka); a blank first line is not.
		{"\n", "line 1"},
	} {
		_, err := DecodeLeaderEpochCheckpoint("f", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want an error at %s", tc.data, err, tc.want)
		}
	}
	got, err := DecodeLeaderEpochCheckpoint("f", []byte("0\n2\n0 0\n7 123\n"))
	if err != nil || !reflect.DeepEqual(got, []EpochEntry{{0, 0}, {7, 123}}) {
		t.Errorf("good file: %v %v", got, err)
	}
	if s := string(EncodeLeaderEpochCheckpoint([]EpochEntry{{0, 0}, {7, 123}})); s != "0\n2\n0 0\n7 123\n" {
		t.Errorf("encode: %q", s)
	}
}

// TestAppendAsLeaderKeepsCRC: the rewritten base offset and leader epoch lie
// outside the CRC, and the caller's buffer is not changed.
func TestAppendAsLeaderKeepsCRC(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	in := append(testBatch(t, 40, 5, "a=1", "b=2"), testBatch(t, 90, 5, "c=3")...)
	orig := append([]byte(nil), in...)
	first, last, err := l.AppendAsLeader(in, 7)
	if err != nil {
		t.Fatal(err)
	}
	if first != 0 || last != 2 {
		t.Errorf("offsets [%d, %d], want [0, 2]", first, last)
	}
	if string(in) != string(orig) {
		t.Error("the caller's buffer changed")
	}
	var bases []record.Offset
	err = l.ReadBatches(0, func(_ *Segment, _ FilePos, b []byte) error {
		if err := record.VerifyCRC(b); err != nil {
			return err
		}
		h, err := record.ParseHeader(b)
		if err != nil {
			return err
		}
		if h.PartitionLeaderEpoch != 7 {
			t.Errorf("batch %d: leader epoch %d", h.BaseOffset, h.PartitionLeaderEpoch)
		}
		bases = append(bases, h.BaseOffset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(bases, []record.Offset{0, 2}) {
		t.Errorf("base offsets %v, want [0 2]", bases)
	}
	if got := l.LeaderEpochs(); !reflect.DeepEqual(got, []EpochEntry{{7, 0}}) {
		t.Errorf("epochs %v", got)
	}
}

// TestAppendAsBadInput: a bad batch is an error naming it; nothing is
// written, the epoch cache and its file are unchanged.
func TestAppendAsBadInput(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t-0")
	l, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, _, err := l.AppendAsLeader(testBatch(t, 0, 0, "a=1"), 3); err != nil {
		t.Fatal(err)
	}
	bad := testBatch(t, 0, 0, "b=1")
	bad[len(bad)-1] ^= 0xff // breaks the CRC (which covers the records)
	if _, _, err := l.AppendAsLeader(bad, 5); err == nil || !errors.Is(err, record.ErrCRCMismatch) {
		t.Errorf("leader append of a bad batch: %v, want a CRC error", err)
	}
	old := testBatch(t, 0, 0, "c=1") // base offset 0 < log end offset 1
	putBaseOffsetAndEpoch(old, 0, 7)
	if err := l.AppendAsFollower(old); !errors.Is(err, ErrNonMonotonicOffset) {
		t.Errorf("follower append below the log end offset: %v, want ErrNonMonotonicOffset", err)
	}
	if got := l.LeaderEpochs(); !reflect.DeepEqual(got, []EpochEntry{{3, 0}}) {
		t.Errorf("epochs %v, want [3@0]", got)
	}
	data, err := os.ReadFile(filepath.Join(dir, LeaderEpochCheckpointFile))
	if err != nil || string(data) != "0\n1\n3 0\n" {
		t.Errorf("file %q %v", data, err)
	}
	if leo := l.LogEndOffset(); leo != 1 {
		t.Errorf("log end offset %d, want 1", leo)
	}
}

// TestRecoveryReportsEpochCheckpoint: an open that truncates the leader
// epoch cache (an entry past the log end offset, as after a crash between
// the checkpoint's write and the log's) reports the rewrite of
// leader-epoch-checkpoint, and counts it as a change: a read-write open
// rewrites the file (epochs 0 at 0 and 1 at 2 stay; epoch 2 at 50 lies
// past the log end 4), a read-only open reports it and leaves the file.
func TestRecoveryReportsEpochCheckpoint(t *testing.T) {
	const base = int64(1_700_000_000_000)
	for _, readOnly := range []bool{true, false} {
		dir := filepath.Join(t.TempDir(), "epochs-0")
		writeTestLog(t, dir, nil, [][]byte{testBatch(t, 0, base, "A=1", "B=1"), testBatch(t, 2, base, "C=1", "D=1")})
		path := filepath.Join(dir, LeaderEpochCheckpointFile)
		written := EncodeLeaderEpochCheckpoint([]EpochEntry{{0, 0}, {1, 2}, {2, 50}})
		if err := os.WriteFile(path, written, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg := DefaultLogConfig()
		l, err := Open(dir, Options{Config: &cfg, ReadOnly: readOnly})
		if err != nil {
			t.Fatal(err)
		}
		rep := l.Recovery()
		if rep.EpochCheckpoint != path || !rep.Changed() {
			t.Errorf("read-only %v: EpochCheckpoint %q, Changed %v; want %s and true", readOnly, rep.EpochCheckpoint, rep.Changed(), path)
		}
		l.Close()
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := written
		if !readOnly {
			want = EncodeLeaderEpochCheckpoint([]EpochEntry{{0, 0}, {1, 2}})
		}
		if string(got) != string(want) {
			t.Errorf("read-only %v: leader-epoch-checkpoint is %q, want %q", readOnly, got, want)
		}
	}
}
