package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// writeBoundsTestLog writes a log with tombstones, an aborted and a
// committed transaction over three segments (the last active), so that
// cleans past the delete horizon remove tombstones, markers and aborted
// data.
func writeBoundsTestLog(t *testing.T, dir string, cfg *LogConfig) {
	t.Helper()
	writeTestLog(t, dir, cfg,
		[][]byte{
			testBatch(t, 0, 10, "a=1", "b=1"),
			txnTestBatch(t, 2, 10, 7, true, "", "a=x", "c=x"),
			txnTestBatch(t, 4, 10, 7, true, "abort"),
			testBatch(t, 5, 10, "b=null"),
		},
		[][]byte{
			txnTestBatch(t, 6, 20, 8, true, "", "d=1"),
			txnTestBatch(t, 7, 20, 8, true, "commit"),
			testBatch(t, 8, 20, "a=null", "d=2"),
		},
		[][]byte{testBatch(t, 10, 30, "e=1")},
	)
}

// cleanRounds runs four forced cleans from the log start offset, each past
// the delete horizons the one before stamped (a marker needs three: one
// that still sees its data, one that stamps its horizon, one past it), with
// bounds (nil: the log's default).
func cleanRounds(t *testing.T, dir string, cfg *LogConfig, bounds *RemovalBounds) {
	t.Helper()
	l, err := Open(dir, Options{Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := int64(0); i < 4; i++ {
		now := 1000 + 2*i*cfg.DeleteRetentionMs
		c := testCleaner(t, now)
		if _, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0, Bounds: bounds}); err != nil {
			t.Fatal(err)
		}
	}
}

// logBytes returns the .log files of dir by name.
func logBytes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, p := range logFiles(t, dir) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = string(b)
	}
	return out
}

// TestDefaultBoundsByteIdentical: the default (no bound), NoRemovalBounds()
// given explicitly and bounds at the log end offset (every offset of the
// log below them) write the same .log bytes; bounds of 0 keep the
// tombstones and markers the others remove, so the comparison can fail.
func TestDefaultBoundsByteIdentical(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.DeleteRetentionMs = 100
	cfg.ProducerIDExpirationMs = 1 // producers expired: markers may go entirely
	cfg.FileDeleteDelayMs = 0
	none := NoRemovalBounds()
	atEnd := RemovalBounds{Tombstones: 11, TxnMarkers: 11}
	zero := RemovalBounds{}
	results := map[string]map[string]string{}
	for name, b := range map[string]*RemovalBounds{"default": nil, "none": &none, "at-end": &atEnd, "zero": &zero} {
		dir := filepath.Join(t.TempDir(), "t-0")
		writeBoundsTestLog(t, dir, &cfg)
		cleanRounds(t, dir, &cfg, b)
		mustVerify(t, dir, VerifyOptions{})
		results[name] = logBytes(t, dir)
	}
	for _, name := range []string{"none", "at-end"} {
		if !equalFiles(results["default"], results[name]) {
			t.Errorf("bounds %s: .log bytes differ from the default", name)
		}
	}
	if equalFiles(results["default"], results["zero"]) {
		t.Error("bounds 0 removed what the default removes: the comparison shows nothing")
	}
	// What the default removed and bound 0 kept, read independently.
	_, def, _ := readPartitionOf(t, results["default"])
	_, zer, _ := readPartitionOf(t, results["zero"])
	if countTombstonesAndMarkers(def) != 0 {
		t.Errorf("default: %d tombstones or markers left past every horizon", countTombstonesAndMarkers(def))
	}
	// Bound 0 keeps b=null@5, a=null@8, the ABORT@4 and the COMMIT@7.
	if n := countTombstonesAndMarkers(zer); n != 4 {
		t.Errorf("bounds 0: %d tombstones and markers kept, want 4", n)
	}
}

func equalFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// readPartitionOf decodes .log file contents (by name) as readPartition does.
func readPartitionOf(t *testing.T, files map[string]string) ([]logBatch, []logRecord, record.Offset) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "x-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return readPartition(t, dir)
}

func countTombstonesAndMarkers(recs []logRecord) int {
	n := 0
	for _, r := range recs {
		if r.Control || r.Value == nil {
			n++
		}
	}
	return n
}

// TestFixtureBoundsByteIdentical cleans copies of every real broker
// partition of the fixtures past every horizon, with the default and with
// bounds at the log end offset: the .log bytes must be the same.
func TestFixtureBoundsByteIdentical(t *testing.T) {
	checked := 0
	for _, set := range fixtureSets(t) {
		for _, src := range subdirs(t, set) {
			if _, err := ParseTopicPartition(filepath.Base(src)); err != nil || len(logFiles(t, src)) < 2 {
				continue // a clean needs an inactive segment
			}
			name, _ := filepath.Rel(fixturesRoot, src)
			t.Run(name, func(t *testing.T) {
				var out []map[string]string
				for _, atEnd := range []bool{false, true} {
					root := t.TempDir()
					dir := filepath.Join(root, filepath.Base(src))
					copyDir(t, src, dir)
					cfg := DefaultLogConfig()
					cfg.FileDeleteDelayMs = 0
					cfg.MaxMessageBytes = 16 << 20
					l, err := Open(dir, Options{Config: &cfg})
					if err != nil {
						t.Fatal(err)
					}
					var b *RemovalBounds
					if atEnd {
						leo := l.LogEndOffset()
						b = &RemovalBounds{Tombstones: leo, TxnMarkers: leo}
					}
					c := testCleaner(t, 1<<50)
					_, err = c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: l.LogStartOffset(), Bounds: b})
					l.Close()
					if errors.Is(err, ErrLegacyFormat) {
						t.Skip(err)
					}
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, logBytes(t, dir))
				}
				if !equalFiles(out[0], out[1]) {
					t.Error("bounds at the log end offset changed the cleaned bytes")
				}
				checked++
			})
		}
	}
	if checked == 0 {
		t.Error("no fixture partition cleaned")
	}
}

// TestCleanOvertakenByTruncation: a truncation while a clean copies makes
// the clean fail with ErrCleaningAborted; nothing of it is swapped in, the
// checkpoint stays at or below the new active segment's base, and the MCCO
// does not rise.
func TestCleanOvertakenByTruncation(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.FileDeleteDelayMs = 0
	dir := filepath.Join(t.TempDir(), "t-0")
	writeTestLog(t, dir, &cfg,
		[][]byte{testBatch(t, 0, 0, "a=1", "b=1")},
		[][]byte{testBatch(t, 2, 0, "a=2", "c=1")},
		[][]byte{testBatch(t, 4, 0, "d=1")},
	)
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	c := testCleaner(t, 0)
	calls := 0
	var terr error
	_, err = c.Clean(l, CleanOptions{Force: true, CheckDone: func() error {
		if calls++; calls == 1 {
			terr = l.TruncateTo(3)
		}
		return nil
	}})
	if terr != nil {
		t.Fatal(terr)
	}
	if !errors.Is(err, ErrCleaningAborted) {
		t.Fatalf("clean: %v, want ErrCleaningAborted", err)
	}
	// TruncateTo(3) cuts the batch 2..3 whole: the log ends at 2, in seg@2.
	if leo := l.LogEndOffset(); leo != 2 {
		t.Errorf("log end offset %d, want 2", leo)
	}
	entries, err := ReadCheckpoint(nil, CheckpointPath(dir))
	if err != nil {
		t.Fatal(err)
	}
	if off, ok := entries[l.TopicPartition()]; ok && off > 2 {
		t.Errorf("checkpoint %d above the new active segment's base 2", off)
	}
	if m := l.MaxCleanlyCompactedOffset(); m != 0 {
		t.Errorf("MCCO %d, want 0 (nothing was cleaned)", m)
	}
	_, recs, _ := readPartition(t, dir)
	var got []string
	for _, r := range recs {
		got = append(got, fmt.Sprintf("%d:%s=%s", r.Offset, r.Key, r.Value))
	}
	// a=1 is still there: the clean that would drop it was not swapped in.
	if s := strings.Join(got, " "); s != "0:a=1 1:b=1" {
		t.Errorf("records %s, want 0:a=1 1:b=1", s)
	}
	mustVerify(t, dir, VerifyOptions{})
}

// TestMCCOOnlyFromCleansAtOrBelowIt: a clean whose first dirty offset is
// above the MCCO (an overridden start) does not raise it; one from the log
// start does, to its end offset.
func TestMCCOOnlyFromCleansAtOrBelowIt(t *testing.T) {
	cfg := DefaultLogConfig()
	dir := filepath.Join(t.TempDir(), "t-0")
	writeTestLog(t, dir, &cfg,
		[][]byte{testBatch(t, 0, 0, "a=1", "b=1"), testBatch(t, 2, 0, "a=2")},
		[][]byte{testBatch(t, 3, 0, "d=1")},
	)
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m := l.MaxCleanlyCompactedOffset(); m != 0 {
		t.Fatalf("MCCO at open %d, want 0 (no checkpoint)", m)
	}
	c := testCleaner(t, 0)
	if _, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 2}); err != nil {
		t.Fatal(err)
	}
	if m := l.MaxCleanlyCompactedOffset(); m != 0 {
		t.Errorf("MCCO %d after a clean of [2, 3), want 0", m)
	}
	if _, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0}); err != nil {
		t.Fatal(err)
	}
	if m := l.MaxCleanlyCompactedOffset(); m != 3 {
		t.Errorf("MCCO %d after a clean of [0, 3), want 3", m)
	}
	// Reopened: the checkpoint (3) gives it back.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if m := l.MaxCleanlyCompactedOffset(); m != 3 {
		t.Errorf("MCCO after reopen %d, want 3", m)
	}
	if err := l.SetRemovalBounds(RemovalBounds{Tombstones: -1}); err == nil {
		t.Error("negative bound accepted")
	}
}
