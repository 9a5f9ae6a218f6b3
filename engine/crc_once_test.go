package engine

import (
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// crcOnceLog writes a log of three segments: eight batches of four records
// (offsets 0-31), one batch of two (32-33), and an active segment (34).
func crcOnceLog(t *testing.T, base int64) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "crc-0")
	var seg0 [][]byte
	for i := range 8 {
		seg0 = append(seg0, testBatch(t, record.Offset(4*i), base, "A=1", "B=1", "C=1", "D=1"))
	}
	writeTestLog(t, src, nil, seg0,
		[][]byte{testBatch(t, 32, base+10, "A=2", "B=2")},
		[][]byte{testBatch(t, 34, base+20, "F=1")})
	return src
}

// crcOnceCleaner is a bucket16 cleaner with VerifyCRCOnce on or off, with
// or without ParallelMapBuild (whose goroutine checks the CRCs instead).
func crcOnceCleaner(t *testing.T, nowMs int64, on, mapAhead bool) *Cleaner {
	return fastPathCleaner(t, nowMs, offsetmap.LayoutBucket16, func(cfg *CleanerConfig) {
		cfg.VerifyCRCOnce, cfg.ParallelMapBuild = on, mapAhead
	})
}

// TestVerifyCRCOnceSkips: the copy phase leaves out the CRC check of
// exactly the batches the map build checked. From first dirty offset 0 the
// build reads both cleanable segments (9 batches), so the copy checks none
// of them again; from 32 the build reads the second segment's one batch,
// and the copy checks the first segment's eight. With VerifyCRCOnce off,
// or VerifyCRC off, nothing is counted. The cleaned files are the same
// either way.
func TestVerifyCRCOnceSkips(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := crcOnceLog(t, base)
	for _, mapAhead := range []bool{false, true} {
		cleanCompared(t, src, base, "cleans with the CRC checked once and twice", func(t *testing.T, now int64, i int) *Cleaner {
			return crcOnceCleaner(t, now, i == 0, mapAhead)
		})
		for _, tc := range []struct {
			firstDirty record.Offset
			want       int64
		}{{0, 9}, {32, 1}} {
			c := crcOnceCleaner(t, base, true, mapAhead)
			dir := filepath.Join(t.TempDir(), "crc-0")
			copyDir(t, src, dir)
			cfg := DefaultLogConfig()
			l, err := Open(dir, Options{Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: tc.firstDirty})
			if err != nil {
				t.Fatal(err)
			}
			if got.CRCsSkipped != tc.want {
				t.Errorf("map ahead %v, first dirty %d: %d CRC checks skipped, want %d", mapAhead, tc.firstDirty, got.CRCsSkipped, tc.want)
			}
			l.Close()
		}
	}
	for _, off := range []func(*CleanerConfig){
		func(cfg *CleanerConfig) { cfg.VerifyCRCOnce = false },
		func(cfg *CleanerConfig) { cfg.VerifyCRCOnce, cfg.VerifyCRC = true, false },
	} {
		c := fastPathCleaner(t, base, offsetmap.LayoutBucket16, off)
		dir := filepath.Join(t.TempDir(), "crc-0")
		copyDir(t, src, dir)
		cfg := DefaultLogConfig()
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0})
		if err != nil {
			t.Fatal(err)
		}
		if st.CRCsSkipped != 0 {
			t.Errorf("VerifyCRCOnce %v, VerifyCRC %v: %d CRC checks skipped, want 0", c.cfg.VerifyCRCOnce, c.cfg.VerifyCRC, st.CRCsSkipped)
		}
		l.Close()
	}
}

// TestVerifyCRCOnceCorruptBatch: a batch damaged after the log was opened
// is reported as without VerifyCRCOnce (same file, position and text), the
// log unchanged: in the dirty section by the map build, below it by the
// copy, which still checks what the build did not read.
func TestVerifyCRCOnceCorruptBatch(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := crcOnceLog(t, base)
	for _, firstDirty := range []record.Offset{0, 32} {
		for _, mapAhead := range []bool{false, true} {
			cleanCorrupted(t, src, record.RecordsPos+3, firstDirty, "CRC", func(on bool) *Cleaner {
				return crcOnceCleaner(t, base, on, mapAhead)
			})
		}
	}
}
