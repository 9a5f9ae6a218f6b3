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

// truncatedSegmentLog writes a compacted log of segments @0, @10 (ten
// batches of one 1 KiB record each, so that its .index holds entries, one
// per index.interval.bytes = 4096 bytes appended) and an active @20, then
// truncates segment @10's .log to size bytes, as a lost write or a bad copy
// leaves it. It returns the root.
func truncatedSegmentLog(t *testing.T, size int64, valueBytes int) (root, dir string) {
	t.Helper()
	cfg := DefaultLogConfig()
	cfg.Compact = true
	root = t.TempDir()
	dir = filepath.Join(root, "t-0")
	var segs [][][]byte
	for base := 0; base < 30; base += 10 {
		var batches [][]byte
		for o := base; o < base+10; o++ {
			batches = append(batches, testBatch(t, record.Offset(o), 1000+int64(o), fmt.Sprintf("k%d=%s", o%4, strings.Repeat("v", valueBytes))))
		}
		segs = append(segs, batches)
	}
	writeTestLog(t, dir, &cfg, segs...)
	if err := os.Truncate(seg(dir, 10, LogFileSuffix), size); err != nil {
		t.Fatal(err)
	}
	return root, dir
}

// TestOpenRefusesTruncatedSegment: a segment that is not the last whose
// .log is shorter than its indexes prove it was (an offset-index entry at a
// byte position past the .log's end; a time-index entry for an offset the
// .log no longer holds, below the next segment's base) lost data. A
// read-write open refuses it, naming the file, and changes nothing (the
// clean-shutdown marker stays), unless AcceptTruncatedSegments says to go
// on with the log as it is.
func TestOpenRefusesTruncatedSegment(t *testing.T) {
	for _, c := range []struct {
		name       string
		size       int64
		valueBytes int
		evidence   string
	}{
		{"emptied, offset index", 0, 1024, ".index"},
		{"cut at a batch boundary, offset index", 4 * 1096, 1024, ".index"},
		// 100-byte values: under 4096 bytes, so no offset-index entry;
		// the roll's time-index entry names offset 19.
		{"emptied, time index", 0, 100, ".timeindex"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultLogConfig()
			cfg.Compact = true
			root, dir := truncatedSegmentLog(t, c.size, c.valueBytes)
			before := hashTree(t, root)
			_, err := Open(dir, Options{Config: &cfg})
			if !errors.Is(err, ErrTruncatedSegment) {
				t.Fatalf("open: %v, want ErrTruncatedSegment", err)
			}
			want := filepath.Base(seg(dir, 10, c.evidence))
			if !strings.Contains(err.Error(), seg(dir, 10, LogFileSuffix)) || !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not name %s and its evidence %s", err, seg(dir, 10, LogFileSuffix), want)
			}
			if strings.Contains(err.Error(), "-1") {
				t.Errorf("error %q holds a sentinel value", err)
			}
			if d := diffHashes(before, hashTree(t, root)); d != "" {
				t.Errorf("the refused open changed the root:\n%s", d)
			}
			// A read-only open (verify) still opens it, to report it.
			ro, err := Open(dir, Options{Config: &cfg, ReadOnly: true})
			if err != nil {
				t.Fatalf("read-only open: %v", err)
			}
			ro.Close()
			l, err := Open(dir, Options{Config: &cfg, AcceptTruncatedSegments: true})
			if err != nil {
				t.Fatalf("open with AcceptTruncatedSegments: %v", err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestOpenAcceptsEmptyCleanedSegment: an empty segment that is not the
// last, with empty indexes, is what a clean leaves when it removed every
// record of a group (Kafka's cleaner swaps in an empty segment too): no
// evidence of lost data, so the open goes ahead.
func TestOpenAcceptsEmptyCleanedSegment(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.Compact = true
	root, dir := truncatedSegmentLog(t, 0, 100)
	for _, ext := range []string{IndexFileSuffix, TimeIndexFileSuffix} {
		if err := os.Truncate(seg(dir, 10, ext), 0); err != nil {
			t.Fatal(err)
		}
	}
	_ = root
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	l.Close()
}

// TestOpenRecoversUnflushedSegmentAfterPowerFailure: after an unclean
// shutdown, a segment above the recovery point was never flushed, so its
// index files and its .log reached the disk in any order; an index entry
// past the .log's end is what a power failure leaves there, not proof of
// lost flushed data. Kafka's LogLoader recovers such a segment (it rebuilds
// the indexes from the .log), and so does the open. A segment below the
// recovery point was flushed, .log and indexes both, so the same evidence
// there is still refused.
func TestOpenRecoversUnflushedSegmentAfterPowerFailure(t *testing.T) {
	for _, c := range []struct {
		name          string
		recoveryPoint int // -1: no recovery-point checkpoint
		refused       bool
	}{
		{"no recovery point", -1, false},
		{"recovery point below the segment's end", 15, false},
		{"recovery point above the segment", 20, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultLogConfig()
			cfg.Compact = true
			root, dir := truncatedSegmentLog(t, 0, 1024)
			if err := os.Remove(filepath.Join(root, CleanShutdownFile)); err != nil {
				t.Fatal(err)
			}
			rp := filepath.Join(root, RecoveryPointCheckpointFile)
			os.Remove(rp)
			if c.recoveryPoint >= 0 {
				if err := os.WriteFile(rp, []byte(fmt.Sprintf("0\n1\nt 0 %d\n", c.recoveryPoint)), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			l, err := Open(dir, Options{Config: &cfg})
			if c.refused {
				if !errors.Is(err, ErrTruncatedSegment) {
					t.Fatalf("open: %v, want ErrTruncatedSegment", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("open: %v, want a recovery", err)
			}
			defer l.Close()
			recovered := false
			for _, b := range l.Recovery().RecoveredSegments {
				recovered = recovered || b == 10
			}
			if !recovered {
				t.Errorf("segment 10 not recovered: %+v", l.Recovery())
			}
		})
	}
}
