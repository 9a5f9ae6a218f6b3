package engine

import (
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestScanReadersReused: ReadBatches and Fetch, called again and again
// as a replica's fetcher or a verifier does, reuse their 256 KiB read
// buffers instead of allocating one per call (the replication campaign's
// allocations were 93% such buffers). With the GC off, 40 calls of each
// on a small log allocate well under one buffer per call, and every call
// still returns the log's batches. (Under -race, where sync.Pool drops a
// quarter of what is put back, the bound is looser but still under half
// a buffer per call.)
func TestScanReadersReused(t *testing.T) {
	const base = int64(1_700_000_000_000)
	dir := filepath.Join(t.TempDir(), "scan-0")
	writeTestLog(t, dir, nil,
		[][]byte{testBatch(t, 0, base, "A=1", "B=1"), testBatch(t, 2, base, "C=1")},
		[][]byte{testBatch(t, 3, base, "A=2")})
	cfg := DefaultLogConfig()
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))

	const calls = 40
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range calls {
		n := 0
		if err := l.ReadBatches(0, func(_ *Segment, _ FilePos, _ []byte) error { n++; return nil }); err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Fatalf("ReadBatches gave %d batches, want the log's 3", n)
		}
		res, err := l.Fetch(1, 1<<20, ReadUncommitted)
		if err != nil {
			t.Fatal(err)
		}
		if got := batchCount(t, res.Batches); got != 3 {
			t.Fatalf("Fetch from offset 1 gave %d batches, want 3 (the one holding 1 and the two after it)", got)
		}
	}
	runtime.ReadMemStats(&after)
	perCall := (after.TotalAlloc - before.TotalAlloc) / (2 * calls)
	limit := uint64(32 << 10)
	if raceEnabled {
		// -race makes sync.Pool drop about one Put in four: a fresh 256
		// KiB buffer every fourth call, 64 KiB a call on average.
		limit = 128 << 10
	}
	if perCall > limit {
		t.Errorf("%d bytes allocated per ReadBatches or Fetch call (at most %d wanted): the 256 KiB read buffer is not reused", perCall, limit)
	}
}

// batchCount counts the whole batches back to back in b.
func batchCount(t *testing.T, b []byte) int {
	t.Helper()
	n := 0
	for len(b) > 0 {
		size, _, err := record.PeekBatch(b)
		if err != nil || size > len(b) {
			t.Fatalf("batch %d: size %d of %d bytes left: %v", n, size, len(b), err)
		}
		b, n = b[size:], n+1
	}
	return n
}

// TestReadBatchesHoldsSegments: a clean that replaces the segments a
// ReadBatches call is walking does not close their files under it: the
// call holds the segments it reads, as Fetch does, and returns the
// batches they held when it started. (It closed them: "file already
// closed" at the next segment.)
func TestReadBatchesHoldsSegments(t *testing.T) {
	const base = int64(1_700_000_000_000)
	dir := filepath.Join(t.TempDir(), "hold-0")
	writeTestLog(t, dir, nil,
		[][]byte{testBatch(t, 0, base, "A=1", "B=1")},
		[][]byte{testBatch(t, 2, base, "A=2", "B=2")},
		[][]byte{testBatch(t, 4, base, "A=3")},
		[][]byte{testBatch(t, 5, base, "C=1")})
	cfg := DefaultLogConfig()
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var firsts []record.Offset
	cleaned := false
	err = l.ReadBatches(0, func(_ *Segment, _ FilePos, batch []byte) error {
		h, err := record.ParseHeader(batch)
		if err != nil {
			return err
		}
		firsts = append(firsts, h.BaseOffset)
		if !cleaned {
			cleaned = true
			// The three inactive segments are cleaned into one and
			// replaced, their files closed once no reader holds them.
			st, err := testCleaner(t, base).Clean(l, CleanOptions{Force: true})
			if err != nil {
				return err
			}
			if st.SegmentsCleaned != 3 {
				t.Fatalf("the clean replaced %d segments, want the 3 inactive ones", st.SegmentsCleaned)
			}
			l.WaitClosing()
		}
		return nil
	})
	if err != nil {
		t.Fatalf("ReadBatches across a clean: %v", err)
	}
	if want := []record.Offset{0, 2, 4, 5}; !slices.Equal(firsts, want) {
		t.Errorf("batches at base offsets %v, want %v: the log as it was when the call began", firsts, want)
	}
}
