package engine

import (
	"bufio"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// provenance is what one PROVENANCE.md says of one partition directory,
// summed over its .log files.
type provenance struct {
	logs, batches, records, tombstones, controls int
	lastOffset                                   record.Offset
	indexEntries, timeIndexEntries               int
	missingIndexes                               []string // index files the broker had but the set lacks
}

var (
	// | `dir/00000000000000000000.log` | 390 | 1 | 1 | 0 | 0 (commit 0, abort 0) | 0 | none:1 | 0..0 | 0 | 0 | clean |
	provRowRE = regexp.MustCompile("^\\| `([^`/]+)/[0-9]{20}\\.log` \\| \\d+ \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\(commit \\d+, abort \\d+\\) \\| \\d+ \\| [a-z0-9:, ]+ \\| \\d+\\.\\.(\\d+) \\|")
	// - `dir/00000000000000000000.log`: ... | index: 16 B, 2 entries, 0 zero-filled tail entries, 2 consistent with the .log; timeindex: 48 B, 4 entries, ...
	provIndexRE = regexp.MustCompile("^- `([^`/]+)/[0-9]{20}\\.log`:.*index: \\d+ B, (\\d+) entries, 0 zero-filled tail entries, (\\d+) consistent with the \\.log; timeindex: \\d+ B, (\\d+) entries, 0 zero-filled tail entries, (\\d+) consistent")
	// - `dir/00000000000000000001.index` (source ...)
	provMissingRE = regexp.MustCompile("^- `(([^`/]+)/[0-9]{20}\\.(?:index|timeindex))` \\(source")
)

func readProvenanceFile(t *testing.T, path string) map[string]*provenance {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]*provenance{}
	get := func(dir string) *provenance {
		if out[dir] == nil {
			out[dir] = &provenance{lastOffset: -1}
		}
		return out[dir]
	}
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return n
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := provRowRE.FindStringSubmatch(line); m != nil {
			p := get(m[1])
			p.logs++
			p.batches += atoi(m[2])
			p.records += atoi(m[3])
			p.tombstones += atoi(m[4])
			p.controls += atoi(m[5])
			p.lastOffset = max(p.lastOffset, record.Offset(atoi(m[6])))
		}
		if m := provIndexRE.FindStringSubmatch(line); m != nil {
			if m[2] != m[3] || m[4] != m[5] {
				t.Fatalf("%s says an index is inconsistent: %s", path, line)
			}
			p := get(m[1])
			p.indexEntries += atoi(m[2])
			p.timeIndexEntries += atoi(m[4])
		}
		if m := provMissingRE.FindStringSubmatch(line); m != nil {
			p := get(m[2])
			p.missingIndexes = append(p.missingIndexes, m[1])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// partitionDirFor returns a path naming dir as topic-partition: dir itself,
// or for a directory not so named (Pinterest's timeindex_test) a symlink
// "<name>-0" to it in a temporary directory.
func partitionDirFor(t *testing.T, dir string) string {
	t.Helper()
	if _, err := ParseTopicPartition(filepath.Base(dir)); err == nil {
		return dir
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), filepath.Base(dir)+"-0")
	if err := os.Symlink(abs, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// TestVerifyKafkaFixtures opens every partition directory written by a real
// broker read-only: Verify finds no problem, changes nothing, and its counts
// agree with what PROVENANCE.md says an independent decoder found.
func TestVerifyKafkaFixtures(t *testing.T) {
	verified := 0
	for _, set := range fixtureSets(t) {
		provs := readProvenanceFile(t, filepath.Join(set, "PROVENANCE.md"))
		for _, dir := range subdirs(t, set) {
			name := filepath.Base(dir)
			t.Run(filepath.Base(set)+"/"+name, func(t *testing.T) {
				before := hashTree(t, set)
				pdir := partitionDirFor(t, dir)
				if len(logFiles(t, dir)) == 0 {
					// __cluster_metadata-0 holds only a KRaft snapshot: not a segment.
					if _, err := Open(pdir, Options{ReadOnly: true}); !errors.Is(err, ErrNotLogDir) {
						t.Fatalf("Open of a directory without segments: %v, want ErrNotLogDir", err)
					}
					return
				}
				rep := mustVerify(t, pdir, VerifyOptions{})
				if d := diffHashes(before, hashTree(t, set)); d != "" {
					t.Errorf("read-only Verify changed files: %s", d)
				}
				p := provs[name]
				if p == nil || p.logs != len(logFiles(t, dir)) {
					t.Fatalf("PROVENANCE.md has no row for every .log file of %s", name)
				}
				if rep.LogEndOffset != p.lastOffset+1 {
					t.Errorf("log end offset %d, PROVENANCE.md's last offset + 1 = %d", rep.LogEndOffset, p.lastOffset+1)
				}
				if rep.Segments != p.logs || rep.Batches != p.batches || rep.Records != p.records ||
					rep.Tombstones != p.tombstones || rep.ControlBatches != p.controls {
					t.Errorf("segments/batches/records/tombstones/controls %d/%d/%d/%d/%d, PROVENANCE.md %d/%d/%d/%d/%d",
						rep.Segments, rep.Batches, rep.Records, rep.Tombstones, rep.ControlBatches,
						p.logs, p.batches, p.records, p.tombstones, p.controls)
				}
				if rep.OffsetIndexEntries != p.indexEntries || rep.TimeIndexEntries != p.timeIndexEntries {
					t.Errorf("index/timeindex entries %d/%d, PROVENANCE.md %d/%d", rep.OffsetIndexEntries, rep.TimeIndexEntries, p.indexEntries, p.timeIndexEntries)
				}
				for _, missing := range p.missingIndexes {
					found := false
					for _, n := range rep.Notes {
						found = found || (filepath.Base(n.Path) == filepath.Base(missing) && strings.Contains(n.Message, "missing"))
					}
					if !found {
						t.Errorf("no note for %s, which PROVENANCE.md lists as not copied; notes: %v", missing, rep.Notes)
					}
				}
				verified++
			})
		}
	}
	if verified < 28 {
		t.Errorf("only %d fixture partitions verified", verified)
	}
}

// TestVerifyFixtureFigures checks a few figures stated in the PROVENANCE.md
// texts (not their tables) and in the sets' checkpoint files.
func TestVerifyFixtureFigures(t *testing.T) {
	fixtureSets(t)
	cases := []struct {
		dir                                      string
		segments, keys, tombstones, controls     int
		leo, checkpoint                          record.Offset
		indexEntries, timeIndexEntries, keyRecsN int
	}{
		// "three single-record batches at offsets 4, 16 and 17 ... The active segment
		// 00000000000000000018.log then holds tombstones for those two keys";
		// cleaner-offset-checkpoint: "__consumer_offsets 39 18".
		{dir: "ak271-offsets-cleaned/__consumer_offsets-39", segments: 2, keys: 3, tombstones: 3, leo: 20, checkpoint: 18, timeIndexEntries: 1},
		// "__consumer_offsets 28 2"; offset 0 was compacted away, the segment starts at 1.
		{dir: "ak271-offsets-cleaned/__consumer_offsets-28", segments: 2, keys: 1, tombstones: 1, leo: 3, checkpoint: 2, timeIndexEntries: 1},
		// "one transactional data batch + one COMMIT control batch".
		{dir: "cp-kraft-ksql-txn/_confluent-ksql-default__command_topic-0", segments: 1, keys: 1, controls: 1, leo: 2, checkpoint: -1, indexEntries: 1, timeIndexEntries: 1},
		// "one partition in 40 segments", offsets 0..10994.
		{dir: "pinterest-multisegment/test_topic_a-0", segments: 40, keys: 10995, leo: 10995, checkpoint: -1, indexEntries: 1, timeIndexEntries: 41},
		// four ~1 MiB segments, offsets 0..30564, 249+252+253+253 and 250+252+254+254 index entries.
		{dir: "pinterest-multisegment/timeindex_test", segments: 4, leo: 30565, checkpoint: -1, indexEntries: 1007, timeIndexEntries: 1010},
	}
	for _, c := range cases {
		t.Run(c.dir, func(t *testing.T) {
			rep := mustVerify(t, partitionDirFor(t, filepath.Join(fixturesRoot, c.dir)), VerifyOptions{})
			if rep.Segments != c.segments || rep.LogEndOffset != c.leo || rep.CheckpointOffset != c.checkpoint ||
				rep.Tombstones != c.tombstones || rep.ControlBatches != c.controls ||
				rep.OffsetIndexEntries != c.indexEntries || rep.TimeIndexEntries != c.timeIndexEntries {
				t.Errorf("got segments %d leo %d checkpoint %d tombstones %d controls %d index %d timeindex %d",
					rep.Segments, rep.LogEndOffset, rep.CheckpointOffset, rep.Tombstones, rep.ControlBatches, rep.OffsetIndexEntries, rep.TimeIndexEntries)
			}
			if c.keys > 0 && rep.Keys != c.keys {
				t.Errorf("%d distinct keys, want %d", rep.Keys, c.keys)
			}
		})
	}
}

// batchPositions returns the byte position of each batch in a .log file,
// from the length fields alone.
func batchPositions(t *testing.T, path string) []int64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for pos := 0; pos < len(data); {
		out = append(out, int64(pos))
		pos += int(binary.BigEndian.Uint32(data[pos+8:])) + 12
	}
	return out
}

// patchFile overwrites bytes of path at pos.
func patchFile(t *testing.T, path string, pos int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(b, pos); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// threeSegmentLog writes seg@0 {0: A=1, 1: B=1, 2: C=1}, seg@3 {3: A=2, 4: B=null},
// active seg@5 {5: D=1}, one record per batch, timestamps 100 + offset.
func threeSegmentLog(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "verify-0")
	b := func(off record.Offset, spec string) []byte { return testBatch(t, off, 100+int64(off), spec) }
	writeTestLog(t, dir, nil,
		[][]byte{b(0, "A=1"), b(1, "B=1"), b(2, "C=1")},
		[][]byte{b(3, "A=2"), b(4, "B=null")},
		[][]byte{b(5, "D=1")})
	return dir
}

func seg(dir string, base record.Offset, ext string) string {
	return filepath.Join(dir, segmentFileName(base, ext))
}

// onlyProblem asserts that rep holds exactly one problem, of check at path and pos.
func onlyProblem(t *testing.T, rep *VerifyReport, err error, check, path string, pos int64) {
	t.Helper()
	problemsAt(t, rep, err, 1, check, path, pos)
}

// problemsAt asserts that rep holds n problems, all of check at path and pos.
func problemsAt(t *testing.T, rep *VerifyReport, err error, n int, check, path string, pos int64) {
	t.Helper()
	if len(rep.Problems) != n {
		t.Fatalf("want %d problems, got %d: %v", n, len(rep.Problems), rep.Problems)
	}
	for _, p := range rep.Problems {
		if p.Check != check || p.Path != path || p.Pos != pos {
			t.Errorf("problem %v, want check %s at %s byte %d", p, check, path, pos)
		}
	}
	var ce *record.CorruptionError
	if !errors.As(err, &ce) || ce.Path != path || ce.Pos != pos || !errors.Is(err, ErrVerifyFailed) {
		t.Errorf("error %v: want a *record.CorruptionError at %s byte %d wrapping ErrVerifyFailed", err, path, pos)
	}
}

func TestVerifyCleanLog(t *testing.T) {
	dir := threeSegmentLog(t)
	rep := mustVerify(t, dir, VerifyOptions{})
	if rep.Segments != 3 || rep.Batches != 6 || rep.Records != 6 || rep.Keys != 4 || rep.Tombstones != 1 ||
		rep.LogEndOffset != 6 || rep.CheckpointOffset != NoCheckpoint || len(rep.Notes) != 0 {
		t.Errorf("report %+v", rep)
	}
	// Two segments rolled (one roll-time entry each) and the closed active one.
	if rep.TimeIndexEntries != 3 || rep.OffsetIndexEntries != 0 {
		t.Errorf("index entries %d, time index entries %d", rep.OffsetIndexEntries, rep.TimeIndexEntries)
	}
}

func TestVerifyFindsCRCMismatch(t *testing.T) {
	dir := threeSegmentLog(t)
	path := seg(dir, 0, LogFileSuffix)
	pos := batchPositions(t, path)[1] // the batch of 1: B=1
	// The value "1" is the record's second-to-last byte (the header count follows it).
	size := int64(binary.BigEndian.Uint32(mustRead(t, path)[pos+8:])) + 12
	patchFile(t, path, pos+size-2, []byte{'X'})
	rep, err := Verify(dir, VerifyOptions{})
	onlyProblem(t, rep, err, CheckCRC, path, pos)
	if !errors.Is(err, record.ErrCRCMismatch) {
		t.Errorf("%v does not wrap record.ErrCRCMismatch", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerifyFindsOffsetDisorder(t *testing.T) {
	dir := threeSegmentLog(t)
	path := seg(dir, 0, LogFileSuffix)
	pos := batchPositions(t, path)[1] // 1: B=1
	// The base offset is outside the CRC: make it 0, which the batch before already holds.
	patchFile(t, path, pos, binary.BigEndian.AppendUint64(nil, 0))
	rep, err := Verify(dir, VerifyOptions{})
	onlyProblem(t, rep, err, CheckOffsets, path, pos)
}

func TestVerifyFindsBadIndexEntry(t *testing.T) {
	dir := threeSegmentLog(t)
	logPath, idx := seg(dir, 0, LogFileSuffix), seg(dir, 0, IndexFileSuffix)
	pos := batchPositions(t, logPath)
	// Entry (relative offset 1, position of the batch of offset 2): the batch
	// there starts at 2 > 1, and the batch before it ends at 1, not below.
	entry := binary.BigEndian.AppendUint32(nil, 1)
	entry = binary.BigEndian.AppendUint32(entry, uint32(pos[2]))
	if err := os.WriteFile(idx, entry, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(dir, VerifyOptions{})
	problemsAt(t, rep, err, 2, CheckIndex, idx, 0)

	// Entry (2, a position inside the first batch): not a batch start.
	entry = binary.BigEndian.AppendUint32(nil, 2)
	entry = binary.BigEndian.AppendUint32(entry, uint32(pos[0]+5))
	if err := os.WriteFile(idx, entry, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(dir, VerifyOptions{})
	onlyProblem(t, rep, err, CheckIndex, idx, 0)

	// Two good entries, (1, pos[1]) and (2, pos[2]), then a decreasing one.
	var good []byte
	for i := 1; i <= 2; i++ {
		good = binary.BigEndian.AppendUint32(good, uint32(i))
		good = binary.BigEndian.AppendUint32(good, uint32(pos[i]))
	}
	bad := binary.BigEndian.AppendUint32(append([]byte{}, good...), 1)
	bad = binary.BigEndian.AppendUint32(bad, uint32(pos[1]))
	if err := os.WriteFile(idx, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(dir, VerifyOptions{})
	onlyProblem(t, rep, err, CheckIndex, idx, 16)
	if err := os.WriteFile(idx, good, 0o644); err != nil {
		t.Fatal(err)
	}
	mustVerify(t, dir, VerifyOptions{})
}

func TestVerifyFindsBadTimeIndexEntry(t *testing.T) {
	dir := threeSegmentLog(t)
	tidx := seg(dir, 0, TimeIndexFileSuffix)
	// The segment's largest batch timestamp is 102 (offset 2); 103 is above it.
	entry := binary.BigEndian.AppendUint64(nil, 103)
	entry = binary.BigEndian.AppendUint32(entry, 2)
	if err := os.WriteFile(tidx, entry, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(dir, VerifyOptions{})
	onlyProblem(t, rep, err, CheckTimeIndex, tidx, 0)
	// Offset 3 is past the segment's last offset 2.
	entry = binary.BigEndian.AppendUint64(nil, 102)
	entry = binary.BigEndian.AppendUint32(entry, 3)
	if err := os.WriteFile(tidx, entry, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(dir, VerifyOptions{})
	onlyProblem(t, rep, err, CheckTimeIndex, tidx, 0)
	// A missing index file is a note.
	if err := os.Remove(tidx); err != nil {
		t.Fatal(err)
	}
	rep = mustVerify(t, dir, VerifyOptions{})
	if len(rep.Notes) != 1 || rep.Notes[0].Path != tidx {
		t.Errorf("notes %v, want one about %s", rep.Notes, tidx)
	}
}

func TestVerifyFindsDuplicateKeysBelowCheckpoint(t *testing.T) {
	dir := threeSegmentLog(t)
	// A appears at 0 and 3, B at 1 and 4 (a tombstone counts as the key).
	mustVerify(t, dir, VerifyOptions{Checkpoint: 3}) // below 3: A, B, C once each
	rep, err := Verify(dir, VerifyOptions{Checkpoint: 4})
	onlyProblem(t, rep, err, CheckCompaction, seg(dir, 3, LogFileSuffix), 0)
	// The same from the checkpoint file; IgnoreCheckpoint turns the check off.
	if err := WriteCheckpoint(nil, CheckpointPath(dir), map[TopicPartition]record.Offset{{Topic: "verify", Partition: 0}: 5}); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(dir, VerifyOptions{})
	if len(rep.Problems) != 2 || rep.CheckpointOffset != 5 || err == nil {
		t.Errorf("checkpoint 5: problems %v, checkpoint %d", rep.Problems, rep.CheckpointOffset)
	}
	mustVerify(t, dir, VerifyOptions{IgnoreCheckpoint: true})
}

// legacyMessage encodes one magic 0 or 1 message as docs/kafka-rules.md §1 lays
// it out: offset i64, size i32, CRC-32 (IEEE) i32 over the rest, magic i8,
// attributes i8, [v1: timestamp i64], key (i32 length), value (i32 length).
func legacyMessage(offset int64, magic byte, ts int64, key, value string) []byte {
	var body []byte
	body = append(body, magic, 0)
	if magic == 1 {
		body = binary.BigEndian.AppendUint64(body, uint64(ts))
	}
	body = binary.BigEndian.AppendUint32(body, uint32(len(key)))
	body = append(body, key...)
	body = binary.BigEndian.AppendUint32(body, uint32(len(value)))
	body = append(body, value...)
	msg := binary.BigEndian.AppendUint64(nil, uint64(offset))
	msg = binary.BigEndian.AppendUint32(msg, uint32(4+len(body)))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(body))
	return append(msg, body...)
}

func TestVerifyLegacyMessages(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "legacy-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data := legacyMessage(0, 0, 0, "k0", "v0")
	second := int64(len(data))
	data = append(data, legacyMessage(1, 1, 1000, "k1", "v1")...)
	path := seg(dir, 0, LogFileSuffix)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep := mustVerify(t, dir, VerifyOptions{})
	// Notes: no clean-shutdown marker (recovery re-checks the segment), the
	// two missing index files, the legacy messages.
	if rep.LegacyBatches != 2 || rep.Batches != 0 || rep.Records != 2 || rep.Keys != 2 || rep.LogEndOffset != 2 || len(rep.Notes) != 4 {
		t.Errorf("legacy %d, batches %d, records %d, keys %d, log end offset %d, notes %v", rep.LegacyBatches, rep.Batches, rep.Records, rep.Keys, rep.LogEndOffset, rep.Notes)
	}
	// A flipped byte in the first message, followed by another: corruption
	// in the middle. Without index files Open re-checks every CRC, so the
	// error comes from Open.
	flipped := append([]byte(nil), data...)
	flipped[second-1] ^= 0xff
	if err := os.WriteFile(path, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(dir, VerifyOptions{})
	var ce *record.CorruptionError
	if !errors.As(err, &ce) || ce.Path != path || ce.Pos != 0 || ce.TornTail || !errors.Is(err, record.ErrCRCMismatch) {
		t.Errorf("flipped legacy byte: %v, want a CRC corruption error at %s byte 0", err, path)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Check != CheckOpen {
		t.Errorf("problems %v", rep.Problems)
	}
	// A flipped byte in the last message: a torn tail (its later bytes never
	// reached the disk), which a read-write open would cut.
	data[len(data)-1] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = Verify(dir, VerifyOptions{})
	if !errors.As(err, &ce) || ce.Path != path || ce.Pos != second || !errors.Is(err, record.ErrCRCMismatch) {
		t.Errorf("flipped last legacy byte: %v, want a torn tail at %s byte %d", err, path, second)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Check != CheckFraming || !strings.Contains(rep.Problems[0].Expected, "torn tail") {
		t.Errorf("problems %v", rep.Problems)
	}
}

// TestVerifyFindsBadLength corrupts a length field below the last offset-index
// entry: Open, which reads from that entry on, does not see it; Verify does,
// and stops walking that segment.
func TestVerifyFindsBadLength(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "verify-0")
	cfg := DefaultLogConfig()
	cfg.IndexIntervalBytes = 1 // an offset-index entry for every batch but the first
	b := func(off record.Offset, spec string) []byte { return testBatch(t, off, 100+int64(off), spec) }
	writeTestLog(t, dir, &cfg,
		[][]byte{b(0, "A=1"), b(1, "B=1"), b(2, "C=1")},
		[][]byte{b(3, "A=2")})
	path := seg(dir, 0, LogFileSuffix)
	pos := batchPositions(t, path)
	rep := mustVerify(t, dir, VerifyOptions{})
	if rep.OffsetIndexEntries != 2 {
		t.Fatalf("%d offset-index entries, want 2 (batches 1 and 2 of seg@0)", rep.OffsetIndexEntries)
	}
	patchFile(t, path, pos[1]+8, binary.BigEndian.AppendUint32(nil, 10)) // below any batch's 49
	l, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("open, which starts at the last index entry: %v", err)
	}
	l.Close()
	rep, err = Verify(dir, VerifyOptions{})
	onlyProblem(t, rep, err, CheckFraming, path, pos[1])
	if !errors.Is(err, record.ErrBadLength) {
		t.Errorf("%v does not wrap record.ErrBadLength", err)
	}
}

// TestVerifyRecoveryPendingSwapFile: a leftover (here empty) .log.swap at
// base 0 is not OK: a read-write open deletes segment 0's .index and
// .timeindex (they belong to the segment the swap replaces) and renames the
// swap over 00000000000000000000.log; Verify lists those three steps.
func TestVerifyRecoveryPendingSwapFile(t *testing.T) {
	dir := threeSegmentLog(t)
	swap := seg(dir, 0, LogFileSuffix) + SwapFileSuffix
	if err := os.WriteFile(swap, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(dir, VerifyOptions{})
	if !errors.Is(err, ErrRecoveryPending) || rep.OK() || len(rep.Problems) != 0 {
		t.Fatalf("verify with a .swap file: OK %v, problems %v, err %v; want recovery pending", rep.OK(), rep.Problems, err)
	}
	want := []string{
		seg(dir, 0, IndexFileSuffix) + ": deleted: index of the segment the swap file 00000000000000000000.log.swap replaces",
		seg(dir, 0, TimeIndexFileSuffix) + ": deleted: index of the segment the swap file 00000000000000000000.log.swap replaces",
		swap + ": renamed to 00000000000000000000.log: completes the interrupted swap (replacing the file of that name)",
	}
	var got []string
	for _, a := range rep.RecoveryPending {
		got = append(got, a.String())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("recovery pending:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A whole-file problem (Pos -1) names the file without a byte position.
func TestVerifyProblemString(t *testing.T) {
	p := VerifyProblem{Check: CheckRecovery, Path: "/d/t-0/00000000000000000005.log", Pos: -1, Expected: "no segment after a torn tail", Found: "a segment"}
	if got, want := p.String(), "recovery: /d/t-0/00000000000000000005.log: expected no segment after a torn tail, found a segment"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	p.Pos = 61
	if got, want := p.String(), "recovery: /d/t-0/00000000000000000005.log at byte 61: expected no segment after a torn tail, found a segment"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}
