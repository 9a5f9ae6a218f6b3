package engine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// recompressCleaner returns a cleaner with Kafka's map and
// ParallelRecompress on or off, write-behind and sync-behind as given.
func recompressCleaner(t *testing.T, nowMs int64, on, behind bool) *Cleaner {
	t.Helper()
	return fastPathCleaner(t, nowMs, offsetmap.LayoutSkimpy, func(cfg *CleanerConfig) {
		cfg.ParallelRecompress, cfg.WriteBehind, cfg.SyncBehind = on, behind, behind
	})
}

// TestParallelRecompressOnFixtures: on every real Kafka partition
// (compressed ones among them), compressing the rebuilt batches on other
// goroutines writes exactly the files (.log and indexes) of compressing
// them in turn, plain and with write-behind and sync-behind.
func TestParallelRecompressOnFixtures(t *testing.T) {
	var recompressed int64
	for _, behind := range []bool{false, true} {
		eachFixturePartition(t, fmt.Sprintf("behind=%v", behind), func(t *testing.T, src string) {
			st := cleanCompared(t, src, fixtureNowMs, "cleans with and without parallel recompression",
				func(t *testing.T, now int64, i int) *Cleaner { return recompressCleaner(t, now, i == 0, behind) })
			recompressed += st.IO.Recompressed
		})
	}
	if recompressed == 0 {
		t.Error("no batch was recompressed on another goroutine: the path is not exercised")
	}
}

// compressedTestLog writes a log of n data batches of 10 records each,
// batch b compressed with codecs[b%len(codecs)] (CodecNone: plain). Every
// 7th batch has keys of its own (kept whole, copied as it is); in the
// others the odd records have keys of their own and the even record of
// offset x has key K(x % keys), which the record at x + keys (and x + 2
// keys ...) supersedes when one lies in the log outside a 7th batch: such
// a batch keeps only part of its records and is rebuilt. It returns the
// number of compressed batches rebuilt so. The active segment holds one
// more record.
func compressedTestLog(t *testing.T, dir string, n, keys int, codecs []record.Codec, base int64) (rebuiltCompressed int) {
	return compressedTestLogValues(t, dir, n, keys, codecs, base, 0)
}

// compressedTestLogValues is compressedTestLog with values of valueBytes
// bytes (0: "v<batch>").
func compressedTestLogValues(t *testing.T, dir string, n, keys int, codecs []record.Codec, base int64, valueBytes int) (rebuiltCompressed int) {
	t.Helper()
	own := func(b int) bool { return b%7 == 0 }
	var segs [2][][]byte
	for b := range n {
		c := codecs[b%len(codecs)]
		h := record.BatchHeader{BaseOffset: record.Offset(10 * b), LastOffsetDelta: 9, Attributes: record.Attributes(c), BaseTimestamp: base, MaxTimestamp: base,
			ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}
		var recs []record.Record
		for i := range 10 {
			key := fmt.Sprintf("K%05d", (b*10+i)%keys)
			if own(b) || i%2 == 1 {
				key = fmt.Sprintf("own-%d-%d", b, i)
			}
			r := parseRecordSpec(t, fmt.Sprintf("%s=v%d", key, b))
			if valueBytes > 0 {
				r.Value = bytes.Repeat([]byte{byte('a' + b%26)}, valueBytes)
			}
			r.OffsetDelta = int32(i)
			recs = append(recs, r)
		}
		batch, err := record.BuildBatch(nil, h, recs)
		if err != nil {
			t.Fatal(err)
		}
		segs[b*2/n] = append(segs[b*2/n], batch)
	}
	writeTestLog(t, dir, nil, segs[0], segs[1], [][]byte{testBatch(t, record.Offset(10*n), base+1, "A=1")})
	for b := range n {
		if own(b) || codecs[b%len(codecs)] == record.CodecNone {
			continue
		}
	batch:
		for i := 0; i < 10; i += 2 {
			for x := b*10 + i + keys; x < 10*n; x += keys {
				if !own(x / 10) {
					rebuiltCompressed++
					break batch
				}
			}
		}
	}
	return rebuiltCompressed
}

// TestParallelRecompressMany: 1,200 batches of every codec and plain ones
// (more events than the ring holds, more rebuilt batches in flight than
// jobs), kept whole, rebuilt or dropped: the same files as compressing in
// turn, and every rebuilt compressed batch went through a job.
func TestParallelRecompressMany(t *testing.T) {
	const base = int64(1_700_000_000_000)
	src := filepath.Join(t.TempDir(), "many-0")
	codecs := []record.Codec{record.CodecZstd, record.CodecNone, record.CodecLZ4, record.CodecGzip, record.CodecSnappy}
	want := compressedTestLog(t, src, 1200, 3000, codecs, base)
	st := cleanCompared(t, src, base, "cleans with and without parallel recompression",
		func(t *testing.T, now int64, i int) *Cleaner { return recompressCleaner(t, now, i == 0, i == 0) })
	if st.IO.Recompressed != int64(want) || want < 500 {
		t.Errorf("%d batches recompressed on other goroutines, want %d (the rebuilt compressed ones, at least 500)", st.IO.Recompressed, want)
	}
}

// TestParallelRecompressInline: when no job's goroutine gets to run before
// its batch's turn to be written, the cleaner compresses every one itself,
// and the files are the same: when the jobs run out (every batch
// compressed), and when the ring of output events fills behind a job (one
// compressed batch in 200, the others plain: 398 events queue behind it).
func TestParallelRecompressInline(t *testing.T) {
	const base = int64(1_700_000_000_000)
	plain := make([]record.Codec, 200)
	plain[0] = record.CodecZstd
	for _, c := range []struct {
		name       string
		n          int
		codecs     []record.Codec
		valueBytes int
	}{
		{"jobs-run-out", 200, []record.Codec{record.CodecZstd, record.CodecLZ4}, 0},
		{"ring-full", 1000, plain, 0},
		{"ring-bytes", 200, plain[:20], 40_000},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := filepath.Join(t.TempDir(), "inline-0")
			want := compressedTestLogValues(t, src, c.n, c.n*10/4, c.codecs, base, c.valueBytes)
			release := make(chan struct{})
			defer close(release)
			st := cleanCompared(t, src, base, "cleans with parallel recompression held and without",
				func(t *testing.T, now int64, i int) *Cleaner {
					c := recompressCleaner(t, now, i == 0, false)
					c.outq.beforeJob = func() {
						select { // held to the test's end (bounded: a cleaner that only waited would hang)
						case <-release:
						case <-time.After(2 * time.Second):
						}
					}
					return c
				})
			if st.IO.Recompressed != int64(want) || want == 0 || st.IO.RecompressInline != st.IO.Recompressed {
				t.Errorf("%d recompressed, %d of them inline; want %d (> 0), all inline", st.IO.Recompressed, st.IO.RecompressInline, want)
			}
		})
	}
}
