package engine

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// fixtureNowMs is the clock of the fixture cleans: 2030-01-01, after every
// fixture's timestamps.
const fixtureNowMs = 1_893_456_000_000

// readCheckpointEntry parses a Kafka checkpoint file by hand ("0", count,
// "topic partition offset" lines) and returns the entry of topic-partition
// name, or -1.
func readCheckpointEntry(t *testing.T, path, name string) record.Offset {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return -1
	}
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, line := range lines[2:] {
		f := strings.Fields(line)
		if len(f) == 3 && f[0]+"-"+f[1] == name {
			off, err := strconv.ParseInt(f[2], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return record.Offset(off)
		}
	}
	return -1
}

func logHashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	all := hashTree(t, dir)
	for p := range all {
		if !strings.HasSuffix(p, LogFileSuffix) {
			delete(all, p)
		}
	}
	return all
}

// TestCleanKafkaFixtures cleans a copy of every real partition directory and
// checks the outcome against Kafka's retention rules applied, independently
// of the cleaner, to the records decoded from the original files:
//   - from offset 0 (LogToClean(firstDirtyOffset = 0), as Kafka's tests do)
//     and from the set's own cleaner-offset-checkpoint;
//   - as the files are (the active segment is never cleaned, so a
//     single-segment partition stays as it is) and after a roll, which makes
//     every record cleanable;
//   - with segment.bytes at its default (one group) and at 32 KiB (many groups).
//
// Retained records keep their offset, key, value, headers and timestamp, the
// log end offset does not move, Verify passes, and a second clean past
// delete.retention.ms removes the tombstones the first one stamped.
func TestCleanKafkaFixtures(t *testing.T) {
	for _, set := range fixtureSets(t) {
		for _, src := range subdirs(t, set) {
			if len(logFiles(t, src)) == 0 {
				continue
			}
			for _, v := range []struct {
				name         string
				roll, ckpt   bool
				segmentBytes int64
			}{
				{"from-0", false, false, 0},
				{"from-checkpoint", false, true, 0},
				{"rolled/from-0", true, false, 0},
				{"rolled/from-checkpoint", true, true, 0},
				{"rolled/from-0/segment.bytes=32768", true, false, 32 << 10},
			} {
				t.Run(filepath.Base(set)+"/"+filepath.Base(src)+"/"+v.name, func(t *testing.T) {
					cleanFixture(t, set, src, v.roll, v.ckpt, v.segmentBytes)
				})
			}
		}
	}
}

func cleanFixture(t *testing.T, set, src string, roll, useCheckpoint bool, segmentBytes int64) {
	root := t.TempDir()
	name := filepath.Base(src)
	if _, err := ParseTopicPartition(name); err != nil {
		name += "-0"
	}
	dir := filepath.Join(root, name)
	copyDir(t, src, dir)
	ckptSrc := filepath.Join(set, CleanerCheckpointFile)
	if _, err := os.Stat(ckptSrc); useCheckpoint && err == nil {
		copyFile(t, ckptSrc, filepath.Join(root, CleanerCheckpointFile))
	}
	files := logFiles(t, dir)
	_, orig, origNext := readPartition(t, dir)
	origLogs := logHashes(t, dir)

	// The expected range, from the file names and the checkpoint alone.
	logStart := baseOfFile(t, files[0])
	firstUncleanable := baseOfFile(t, files[len(files)-1]) // the active segment's base
	if roll {
		firstUncleanable = origNext
	}
	firstDirty := logStart
	opts := CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0}
	if useCheckpoint {
		opts.OverrideFirstDirty = false
		if c := readCheckpointEntry(t, filepath.Join(root, CleanerCheckpointFile), name); c >= logStart && c <= origNext {
			firstDirty = c
		}
	}

	cfg := DefaultLogConfig()
	if segmentBytes > 0 {
		cfg.SegmentBytes = segmentBytes
	}
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if roll {
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	stats, err := testCleaner(t, fixtureNowMs).Clean(l, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}

	_, got, gotNext := readPartition(t, dir)
	if gotNext != origNext {
		t.Errorf("log end offset %d after cleaning, %d before", gotNext, origNext)
	}
	if firstDirty >= firstUncleanable {
		if stats.Cleaned() {
			t.Errorf("cleaned [%d, %d): nothing should be cleanable", stats.LogToClean.FirstDirtyOffset, stats.EndOffset)
		}
		if d := diffHashes(origLogs, logHashes(t, dir)); d != "" {
			t.Errorf("nothing to clean, yet .log files changed: %s", d)
		}
		compareRecords(t, "uncleaned", orig, got)
	} else {
		if !stats.Cleaned() || stats.LogToClean.FirstDirtyOffset != firstDirty || stats.LogToClean.FirstUncleanableOffset != firstUncleanable || stats.EndOffset != firstUncleanable {
			t.Errorf("clean of [%d, %d): stats say %q, dirty [%d, %d), end offset %d", firstDirty, firstUncleanable,
				stats.Skipped, stats.LogToClean.FirstDirtyOffset, stats.LogToClean.FirstUncleanableOffset, stats.EndOffset)
		}
		compareRecords(t, "first clean", expectCleaned(orig, firstDirty, firstUncleanable, fixtureNowMs), got)
	}
	rep := mustVerify(t, dir, VerifyOptions{})
	if firstDirty < firstUncleanable && rep.CheckpointOffset != firstUncleanable {
		t.Errorf("checkpoint %d after the clean, want %d", rep.CheckpointOffset, firstUncleanable)
	}
	if useCheckpoint || !roll {
		return
	}

	// A second clean once delete.retention.ms has passed since the first: the
	// tombstones the first clean kept (and stamped) go.
	later := int64(fixtureNowMs) + cfg.DeleteRetentionMs
	if l, err = Open(dir, Options{Config: &cfg}); err != nil {
		t.Fatal(err)
	}
	if _, err := testCleaner(t, later).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0}); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	_, again, againNext := readPartition(t, dir)
	if againNext != origNext {
		t.Errorf("log end offset %d after the second clean, %d before", againNext, origNext)
	}
	for _, r := range got {
		if r.Value == nil && !r.Control && r.Offset < firstUncleanable && r.Horizon != int64(fixtureNowMs)+cfg.DeleteRetentionMs && r.Horizon < 0 {
			t.Errorf("tombstone at %d kept by the first clean without a delete horizon", r.Offset)
		}
	}
	compareRecords(t, "second clean", expectCleaned(got, 0, firstUncleanable, later), again)
	mustVerify(t, dir, VerifyOptions{})
}
