package engine

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// parallelCopyLogConfig makes every segment of parallelCopyLog its own
// group: two of its segments together exceed segment.bytes.
func parallelCopyLogConfig() LogConfig {
	cfg := DefaultLogConfig()
	cfg.SegmentBytes = 300
	return cfg
}

// parallelCopyLog writes five cleanable segments of three batches of three
// records each (keys K0-K3 rewritten over and over, some tombstones), and
// an active segment: five groups, so two pairs and a last group alone.
func parallelCopyLog(t *testing.T, base int64) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "pcopy-0")
	cfg := parallelCopyLogConfig()
	var segs [][][]byte
	off := record.Offset(0)
	for range 5 {
		var seg [][]byte
		for range 3 {
			var specs []string
			for r := range 3 {
				v := fmt.Sprint(off + record.Offset(r))
				if (int(off)+r)%7 == 3 {
					v = "null"
				}
				specs = append(specs, fmt.Sprintf("K%d=%s", (int(off)+r)%4, v))
			}
			seg = append(seg, testBatch(t, off, base+int64(off), specs...))
			off += 3
		}
		segs = append(segs, seg)
	}
	segs = append(segs, [][]byte{testBatch(t, off, base+int64(off), "K9=1")})
	writeTestLog(t, src, &cfg, segs...)
	return src
}

// parallelCopyCleaner is a bucket16 cleaner with ParallelCopy on or off.
func parallelCopyCleaner(t *testing.T, nowMs int64, on bool) *Cleaner {
	return fastPathCleaner(t, nowMs, offsetmap.LayoutBucket16, func(cfg *CleanerConfig) {
		cfg.ParallelCopy = on
		cfg.SyncBehind = on // the best profile's: the swaps run behind
	})
}

// TestParallelCopyGroups: with the groups copied two at a time, the five
// groups of parallelCopyLog clean to the same files as one after another
// (twice: horizons stamped, then tombstones dropped), with the worker's
// two groups kept.
func TestParallelCopyGroups(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := parallelCopyLog(t, base)
	cfg := parallelCopyLogConfig()
	var dirs [2]string
	for i := range dirs {
		dirs[i] = filepath.Join(t.TempDir(), "pcopy-0")
		copyDir(t, src, dirs[i])
	}
	for pass, now := range []int64{base, base + cfg.DeleteRetentionMs + 1000} {
		var stats [2]*CleanStats
		for i, dir := range dirs {
			l, err := Open(dir, Options{Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			if stats[i], err = parallelCopyCleaner(t, now, i == 1).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: pass == 0}); err != nil {
				t.Fatal(err)
			}
			l.Close()
		}
		if d := diffHashes(hashTree(t, dirs[0]), hashTree(t, dirs[1])); d != "" {
			t.Fatalf("clean %d: the parallel copy's files differ: %s", pass+1, d)
		}
		if pass == 0 && (stats[0].Groups != 5 || stats[1].Groups != 5 || stats[1].GroupsCopiedAside != 2 || stats[0].GroupsCopiedAside != 0) {
			t.Errorf("groups %d and %d, copied aside %d and %d; want 5, 5, 0, 2", stats[0].Groups, stats[1].Groups, stats[0].GroupsCopiedAside, stats[1].GroupsCopiedAside)
		}
		if stats[0].BytesRead != stats[1].BytesRead || stats[0].BytesWritten != stats[1].BytesWritten || stats[0].MessagesWritten != stats[1].MessagesWritten ||
			stats[0].IO.Copy.WrittenBytes != stats[1].IO.Copy.WrittenBytes {
			t.Errorf("clean %d: read %d, wrote %d (%d by the phase's writers), kept %d; one after another %d, %d (%d), %d", pass+1,
				stats[1].BytesRead, stats[1].BytesWritten, stats[1].IO.Copy.WrittenBytes, stats[1].MessagesWritten,
				stats[0].BytesRead, stats[0].BytesWritten, stats[0].IO.Copy.WrittenBytes, stats[0].MessagesWritten)
		}
	}
}

// TestParallelCopyCorruptBatch: a batch damaged after the log was opened
// in a group the cleaner copies (the first of a pair), in one the worker
// copies (the second), or in the last group (copied alone) stops the
// clean with the error the sequential copy gives (the same file, byte
// position and text) and leaves the same files: the groups before the
// damaged one swapped in, nothing of it or after it, no .cleaned file, no
// goroutine left.
func TestParallelCopyCorruptBatch(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := parallelCopyLog(t, base)
	cfg := parallelCopyLogConfig()
	for _, damaged := range []record.Offset{0, 9, 18, 27, 36} {
		t.Run(fmt.Sprint("segment=", damaged), func(t *testing.T) {
			var errs [2]string
			var trees [2]map[string]string
			for i, on := range []bool{false, true} {
				dir := filepath.Join(t.TempDir(), "pcopy-0")
				copyDir(t, src, dir)
				l, err := Open(dir, Options{Config: &cfg})
				if err != nil {
					t.Fatal(err)
				}
				p := seg(dir, damaged, LogFileSuffix)
				pos := batchPositions(t, p)[1]
				flipByte(t, p, pos+record.RecordsPos+3)
				goroutines := runtime.NumGoroutine()
				// Only the last cleanable segment is dirty: the damage is
				// met by the copy, in its group.
				_, err = parallelCopyCleaner(t, base, on).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 36})
				var ce *record.CorruptionError
				if damaged == 36 {
					// In the dirty segment: the map build reports it.
					if !errors.As(err, &ce) || ce.Path != p || ce.Pos != pos {
						t.Fatalf("parallel %v: Clean = %v, want a CorruptionError at %s byte %d", on, err, p, pos)
					}
				} else if !errors.As(err, &ce) || ce.Path != p || ce.Pos != pos || !strings.Contains(err.Error(), "CRC") {
					t.Fatalf("parallel %v: Clean = %v, want a CRC CorruptionError at %s byte %d", on, err, p, pos)
				}
				errs[i] = strings.ReplaceAll(err.Error(), dir, "DIR")
				// No goroutine left: the worker's own goroutines end with
				// its copy, the swaps behind before Clean returns.
				if n := settledGoroutines(goroutines); n > goroutines {
					t.Errorf("parallel %v: %d goroutines after the clean, %d before", on, n, goroutines)
				}
				l.Close()
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					if strings.HasSuffix(e.Name(), CleanedFileSuffix) {
						t.Errorf("parallel %v: %s left behind", on, e.Name())
					}
				}
				trees[i] = hashTree(t, dir)
			}
			if errs[0] != errs[1] {
				t.Errorf("errors differ:\n sequential: %v\n parallel:   %v", errs[0], errs[1])
			}
			if d := diffHashes(trees[0], trees[1]); d != "" {
				t.Errorf("the failed cleans left different files: %s", d)
			}
		})
	}
}

// TestParallelCopyCheckDone: the clean's CheckDone failing at its n-th
// call, whichever goroutine makes it (the cleaner's or the copy worker's),
// stops the clean with its error: nothing of the group in progress is
// swapped in, no .cleaned or .swap file stays, no goroutine is left, and
// the log verifies with its next offset unchanged (the groups swapped in
// before are complete). Then a clean without the failure finishes the
// job: the records are those of an uninterrupted clean.
func TestParallelCopyCheckDone(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := parallelCopyLog(t, base)
	cfg := parallelCopyLogConfig()
	want := filepath.Join(t.TempDir(), "pcopy-0")
	copyDir(t, src, want)
	l, err := Open(want, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parallelCopyCleaner(t, base, false).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true}); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, wantRecs, _ := readPartition(t, want)
	stop := errors.New("stopped by the test")
	for n := 1; ; n++ {
		dir := filepath.Join(t.TempDir(), "pcopy-0")
		copyDir(t, src, dir)
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		_, _, before := readPartition(t, dir)
		goroutines := runtime.NumGoroutine()
		var calls atomic.Int64
		check := func() error {
			if calls.Add(1) >= int64(n) {
				return stop
			}
			return nil
		}
		_, err = parallelCopyCleaner(t, base, true).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, CheckDone: check})
		if err == nil && n > 1 {
			// The clean makes fewer than n calls: every stop point is covered.
			l.Close()
			break
		}
		if !errors.Is(err, stop) {
			t.Fatalf("CheckDone failing at call %d: Clean = %v, want its error", n, err)
		}
		if g := settledGoroutines(goroutines); g > goroutines {
			t.Errorf("call %d: %d goroutines after the clean, %d before", n, g, goroutines)
		}
		l.Close()
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), CleanedFileSuffix) || strings.HasSuffix(e.Name(), SwapFileSuffix) {
				t.Errorf("call %d: %s left behind", n, e.Name())
			}
		}
		mustVerify(t, dir, VerifyOptions{Config: &cfg})
		if _, _, after := readPartition(t, dir); after != before {
			t.Errorf("call %d: next offset %d after the stopped clean, %d before", n, after, before)
		}
		l, err = Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parallelCopyCleaner(t, base, true).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true}); err != nil {
			t.Fatal(err)
		}
		l.Close()
		_, got, _ := readPartition(t, dir)
		compareRecords(t, fmt.Sprintf("call %d: the clean after the stopped one", n), wantRecs, got)
	}
}

// settledGoroutines is the goroutine count once it is at most want, or
// after a minute if it never gets there (a leaked goroutine never ends).
// The files a clean replaced are closed on goroutines of their own
// (Segment.release), which end soon after Clean returns; the minute is
// long enough for a loaded machine and costs nothing when they end.
func settledGoroutines(want int) int {
	for deadline := time.Now().Add(time.Minute); runtime.NumGoroutine() > want && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return runtime.NumGoroutine()
}
