package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// fixturesRoot holds partition directories written by real Kafka brokers,
// in the repository (see its README.md and each set's PROVENANCE.md).
const fixturesRoot = "../testdata/kafka-real"

// fixtureSets returns the fixture set directories; the test fails when
// the fixtures are absent (they are part of the repository).
func fixtureSets(t *testing.T) []string {
	t.Helper()
	if _, err := os.Stat(fixturesRoot); err != nil {
		t.Fatalf("real-Kafka fixtures %s missing (they are in the repository): %v", fixturesRoot, err)
	}
	// Every set the tests were written against: a missing one fails.
	for _, set := range []string{"ak271-offsets-cleaned", "ak28-snappy-headers", "cp-kraft-ksql-txn", "cp5-connect-lz4", "pinterest-multisegment"} {
		if _, err := os.Stat(filepath.Join(fixturesRoot, set, "PROVENANCE.md")); err != nil {
			t.Fatalf("real-Kafka fixture set %s missing: %v", set, err)
		}
	}
	sets, err := filepath.Glob(filepath.Join(fixturesRoot, "*", "PROVENANCE.md"))
	if err != nil || len(sets) == 0 {
		t.Fatalf("no fixture sets under %s: %v", fixturesRoot, err)
	}
	for i := range sets {
		sets[i] = filepath.Dir(sets[i])
	}
	sort.Strings(sets)
	return sets
}

// subdirs lists the directories directly under dir.
func subdirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}

// logFiles lists the *.log files with a 20-digit name in dir, in name (so
// base offset) order.
func logFiles(t *testing.T, dir string) []string {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join(dir, strings.Repeat("[0-9]", 20)+".log"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(matches)
	return matches
}

func baseOfFile(t *testing.T, path string) record.Offset {
	t.Helper()
	name := filepath.Base(path)
	v, err := strconv.ParseInt(name[:20], 10, 64)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return record.Offset(v)
}

// copyDir copies the regular files of src into dst (created), writable.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		copyFile(t, filepath.Join(src, e.Name()), filepath.Join(dst, e.Name()))
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hashTree returns the SHA-256 of every regular file under root, by path
// relative to root, but a log directory root's .lock (LockFile): every
// read-write open makes it, as Kafka's LogManager does, and it holds no
// data, so "nothing changed" means nothing else changed.
func hashTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == LockFile {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(root, path)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// diffHashes describes how two hashTree results differ, "" when equal.
func diffHashes(before, after map[string]string) string {
	var diffs []string
	for p, h := range before {
		switch a, ok := after[p]; {
		case !ok:
			diffs = append(diffs, p+" removed")
		case a != h:
			diffs = append(diffs, p+" changed")
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			diffs = append(diffs, p+" created")
		}
	}
	sort.Strings(diffs)
	return strings.Join(diffs, ", ")
}

// logRecord is one record as an independent reading of the .log files sees
// it: no engine code, only record.PeekBatch, record.VerifyCRC and
// record.Decoder over the file bytes.
type logRecord struct {
	Offset      record.Offset
	Key         []byte // nil = null key
	Value       []byte // nil = tombstone
	Timestamp   int64
	HeaderCount int32
	Headers     []byte
	Control     bool
	// Horizon is the batch's delete horizon (ms), -1 when the batch has none.
	Horizon int64
}

func (r logRecord) String() string {
	v := "null"
	if r.Value != nil {
		v = strconv.Quote(string(r.Value))
	}
	return fmt.Sprintf("%d: %q=%s ts=%d headers=%d control=%v", r.Offset, r.Key, v, r.Timestamp, r.HeaderCount, r.Control)
}

func (r logRecord) equal(o logRecord) bool {
	return r.Offset == o.Offset && bytes.Equal(r.Key, o.Key) && (r.Key == nil) == (o.Key == nil) &&
		bytes.Equal(r.Value, o.Value) && (r.Value == nil) == (o.Value == nil) &&
		r.Timestamp == o.Timestamp && r.HeaderCount == o.HeaderCount && bytes.Equal(r.Headers, o.Headers) &&
		r.Control == o.Control
}

// logBatch is one batch header as the independent reading sees it.
type logBatch struct {
	File string
	Pos  int
	record.BatchHeader
}

// readPartition decodes every .log file of dir independently of the engine
// and returns its batches, its records and the offset after the last batch
// (or the last file's base offset when it holds none).
func readPartition(t *testing.T, dir string) (batches []logBatch, recs []logRecord, next record.Offset) {
	t.Helper()
	var dec record.Decoder
	for _, path := range logFiles(t, dir) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		next = max(next, baseOfFile(t, path))
		for pos := 0; pos < len(data); {
			size, magic, err := record.PeekBatch(data[pos:])
			if err != nil || magic != record.MagicV2 || size > len(data)-pos {
				t.Fatalf("%s byte %d: size %d magic %d: %v", path, pos, size, magic, err)
			}
			batch := data[pos : pos+size]
			if err := record.VerifyCRC(batch); err != nil {
				t.Fatalf("%s byte %d: %v", path, pos, err)
			}
			h, it, err := dec.Records(batch)
			if err != nil {
				t.Fatalf("%s byte %d: %v", path, pos, err)
			}
			batches = append(batches, logBatch{File: path, Pos: pos, BatchHeader: h})
			horizon, ok := h.DeleteHorizonMs()
			if !ok {
				horizon = -1
			}
			var r record.Record
			for {
				more, err := it.Next(&r)
				if err != nil {
					t.Fatalf("%s byte %d: %v", path, pos, err)
				}
				if !more {
					break
				}
				recs = append(recs, logRecord{
					Offset: r.Offset(&h), Key: clone(r.Key), Value: clone(r.Value), Timestamp: r.Timestamp(&h),
					HeaderCount: r.HeaderCount, Headers: clone(r.Headers), Control: h.Attributes.Control(), Horizon: horizon,
				})
			}
			next = h.NextOffset()
			pos += size
		}
	}
	return batches, recs, next
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// expectCleaned is the cleaner's outcome by Kafka's rules (docs/kafka-rules.md
// §3, Cleaner.shouldRetainRecord), computed from the records alone, for a
// clean whose offset map holds every key of [firstDirty, firstUncleanable):
// below firstUncleanable a data record stays when it has a key, no later
// record of its key lies in the dirty range, and it has a value or its
// batch's delete horizon (if any) is still ahead of nowMs; control records
// and everything from firstUncleanable on stay.
func expectCleaned(recs []logRecord, firstDirty, firstUncleanable record.Offset, nowMs int64) []logRecord {
	latest := map[string]record.Offset{}
	for _, r := range recs {
		if !r.Control && r.Key != nil && r.Offset >= firstDirty && r.Offset < firstUncleanable {
			latest[string(r.Key)] = max(latest[string(r.Key)], r.Offset)
		}
	}
	var out []logRecord
	for _, r := range recs {
		keep := true
		if r.Offset < firstUncleanable && !r.Control {
			found, ok := latest[string(r.Key)]
			if !ok {
				found = -1
			}
			retainDeletes := r.Horizon < 0 || nowMs < r.Horizon
			keep = r.Key != nil && r.Offset >= found && (r.Value != nil || retainDeletes)
		}
		if keep {
			out = append(out, r)
		}
	}
	return out
}

// compareRecords reports the first differences between want and got.
func compareRecords(t *testing.T, what string, want, got []logRecord) {
	t.Helper()
	i, j, shown := 0, 0, 0
	for (i < len(want) || j < len(got)) && shown < 10 {
		switch {
		case j >= len(got) || (i < len(want) && want[i].Offset < got[j].Offset):
			t.Errorf("%s: missing %v", what, want[i])
			i++
			shown++
		case i >= len(want) || got[j].Offset < want[i].Offset:
			t.Errorf("%s: unexpected %v", what, got[j])
			j++
			shown++
		default:
			if !want[i].equal(got[j]) {
				t.Errorf("%s: offset %d: want %v, got %v", what, want[i].Offset, want[i], got[j])
				shown++
			}
			i++
			j++
		}
	}
	if len(want) != len(got) {
		t.Errorf("%s: want %d records, got %d", what, len(want), len(got))
	}
}

// mustVerify runs Verify on dir and fails the test on any problem.
func mustVerify(t *testing.T, dir string, opts VerifyOptions) *VerifyReport {
	t.Helper()
	rep, err := Verify(dir, opts)
	if err != nil {
		for _, p := range rep.Problems {
			t.Errorf("verify %s: %s", dir, p)
		}
		t.Fatalf("verify %s: %v", dir, err)
	}
	return rep
}

// testCleaner returns a cleaner with a small offset map (157,285 keys with
// md5 at load factor 0.9) and a fixed clock.
func testCleaner(t *testing.T, nowMs int64) *Cleaner {
	t.Helper()
	return testCleanerWithMap(t, nowMs, 4<<20)
}

// testCleanerWithMap returns a cleaner whose md5 offset map takes mapBytes
// (mapBytes / 24 slots, 90% of them usable) and a fixed clock.
func testCleanerWithMap(t *testing.T, nowMs, mapBytes int64) *Cleaner {
	t.Helper()
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = mapBytes
	c, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(nowMs)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// fixedClock returns a clock stopped at ms milliseconds since the epoch.
func fixedClock(ms int64) func() time.Time {
	return func() time.Time { return time.UnixMilli(ms) }
}

// parseRecordSpec turns "K=v" into a record: "null" as the value is a
// tombstone, `""` an empty value, "null" as the key a null key.
func parseRecordSpec(t testing.TB, spec string) record.Record {
	t.Helper()
	k, v, ok := strings.Cut(spec, "=")
	if !ok {
		t.Fatalf("record %q: want K=v", spec)
	}
	var r record.Record
	if k != "null" {
		r.Key = []byte(k)
	}
	switch v {
	case "null":
	case `""`:
		r.Value = []byte{}
	default:
		r.Value = []byte(v)
	}
	return r
}

// testBatch builds one uncompressed batch at base holding specs at
// consecutive offsets, all with timestamp ts (CreateTime).
func testBatch(t testing.TB, base record.Offset, ts int64, specs ...string) []byte {
	t.Helper()
	h := record.BatchHeader{
		BaseOffset: base, PartitionLeaderEpoch: 0, LastOffsetDelta: int32(len(specs) - 1),
		BaseTimestamp: ts, MaxTimestamp: ts,
		ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence,
	}
	recs := make([]record.Record, len(specs))
	for i, s := range specs {
		recs[i] = parseRecordSpec(t, s)
		recs[i].OffsetDelta = int32(i)
	}
	b, err := record.BuildBatch(nil, h, recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// writeTestLog creates the partition directory dir and appends each
// segment's batches, rolling between segments; the last one stays active.
// It closes the log, so every index file is written.
func writeTestLog(t testing.TB, dir string, cfg *LogConfig, segments ...[][]byte) {
	t.Helper()
	l, err := Open(dir, Options{Config: cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, seg := range segments {
		if i > 0 {
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		}
		for _, b := range seg {
			if err := l.Append(b); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// cleanCorrupted damages a copy of the log src for each of the cleaners
// cleaner(false) and cleaner(true) make (a setting off, then on): it
// flips the byte at offset at of the sixth batch of the first segment,
// after the log is opened, and cleans from firstDirty. Each clean must
// fail with a *record.CorruptionError at that batch's file and position
// whose text holds want, change nothing in the log and leave no goroutine
// behind; the two errors must read the same.
func cleanCorrupted(t *testing.T, src string, at int64, firstDirty record.Offset, want string, cleaner func(on bool) *Cleaner) {
	t.Helper()
	var errs [2]string
	for i, on := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), filepath.Base(src))
		copyDir(t, src, dir)
		cfg := DefaultLogConfig()
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		p := seg(dir, 0, LogFileSuffix)
		pos := batchPositions(t, p)[5]
		flipByte(t, p, pos+at)
		before := logHashes(t, dir)
		goroutines := runtime.NumGoroutine()
		_, err = cleaner(on).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: firstDirty})
		var ce *record.CorruptionError
		if !errors.As(err, &ce) || ce.Path != p || ce.Pos != pos || !strings.Contains(err.Error(), want) {
			t.Fatalf("setting on %v: Clean = %v, want a CorruptionError (%s) at %s byte %d", on, err, want, p, pos)
		}
		errs[i] = strings.ReplaceAll(err.Error(), dir, "DIR")
		if d := diffHashes(before, logHashes(t, dir)); d != "" {
			t.Errorf("setting on %v: the failed clean changed the log: %s", on, d)
		}
		if n := runtime.NumGoroutine(); n > goroutines {
			t.Errorf("setting on %v: %d goroutines after the clean, %d before", on, n, goroutines)
		}
		l.Close()
	}
	if errs[0] != errs[1] {
		t.Errorf("errors differ:\n off: %v\n on:  %v", errs[0], errs[1])
	}
}
