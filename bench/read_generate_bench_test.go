package bench

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// BenchmarkRead measures reading a whole generated log (benchSpec), the
// cleaner's input, two ways:
//
//   - path=log: Log.ReadBatches, batch by batch, each batch's CRC-32C
//     checked and its records decoded (what building the offset map and
//     recopying read);
//   - path=file: plain sequential read(2) of each segment file into a
//     1 MiB buffer (what the page cache or the device gives, nothing
//     decoded).
//
// The page cache is set (-bench.cache) outside the timer before each
// iteration. SetBytes is the log's .log bytes; metrics: ns/batch (path=log),
// disk-read-B/op.
func BenchmarkRead(b *testing.B) {
	parent := b
	spec := benchSpec()
	var fx *cleanFixture
	for _, path := range []string{"log", "file"} {
		b.Run(name("bytes", sizeName(spec.LogBytes), "path", path, "cache", *benchCache), func(b *testing.B) {
			b.StopTimer()
			if fx == nil {
				fx = newCleanFixture(b, parent, spec)
			}
			l, err := engine.Open(filepath.Join(fx.pristine, spec.Topic+"-0"), engine.Options{Config: &fx.logCfg, ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			defer l.Close()
			size := l.SizeBytes()
			var batches, diskRead int64
			diskOK := true
			var dec record.Decoder
			var r record.Record
			buf := make([]byte, 1<<20)
			for range b.N {
				setCache(b, l)
				r0, _, ok0 := fx.disk.read()
				b.StartTimer()
				switch path {
				case "log":
					err = l.ReadBatches(l.LogStartOffset(), func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
						if err := record.VerifyCRC(batch); err != nil {
							return err
						}
						_, recs, err := dec.Records(batch)
						if err != nil {
							return err
						}
						for {
							ok, err := recs.Next(&r)
							if err != nil || !ok {
								batches++
								return err
							}
						}
					})
				case "file":
					for _, s := range l.Segments() {
						if err = readAll(s.LogPath(), buf); err != nil {
							break
						}
					}
				}
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				r1, _, ok1 := fx.disk.read()
				diskOK = diskOK && ok0 && ok1
				diskRead += r1 - r0
			}
			b.SetBytes(size)
			if batches > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(batches), "ns/batch")
			}
			if diskOK {
				b.ReportMetric(float64(diskRead)/float64(b.N), "disk-read-B/op")
			}
		})
	}
}

// readAll reads the file at path from start to end into buf, over and over.
func readAll(path string, buf []byte) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for {
		_, err := f.Read(buf)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// BenchmarkGenerate measures the workload generator writing benchSpec's log
// with each key distribution, with and without a transactional share (half
// the head's batches in transactions of 4 producers, 20% aborted): the
// time to prepare a run. Each iteration writes into a fresh directory made
// and removed outside the timer. SetBytes is the .log bytes written;
// metric: records/s.
func BenchmarkGenerate(b *testing.B) {
	for _, dist := range workloads.Distributions {
		for _, txn := range []float64{0, 0.5} {
			spec := benchSpec()
			spec.Distribution = dist
			spec.Txn.Ratio, spec.Txn.AbortRatio = txn, 0.2
			b.Run(name("keys", strconv.FormatInt(spec.Keys, 10), "bytes", sizeName(spec.LogBytes), "dist", dist, "txn", strconv.FormatFloat(txn, 'g', -1, 64)), func(b *testing.B) {
				b.StopTimer()
				root := dataRoot(b, b)
				cfg := engine.DefaultLogConfig()
				var records, bytes int64
				for i := range b.N {
					dir := filepath.Join(root, strconv.Itoa(i))
					b.StartTimer()
					res, err := workloads.Generate(dir, spec, cfg, nil)
					b.StopTimer()
					if err != nil {
						b.Fatal(err)
					}
					records += res.Records
					bytes = res.Bytes
					os.RemoveAll(dir)
				}
				b.SetBytes(bytes)
				b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
			})
		}
	}
}

// TestBenchFixture: the clean benchmark's fixture at a small scale cleans
// a fresh copy of its log into one that matches the ground truth, twice
// (the pristine log is not touched by the first clean).
func TestBenchFixture(t *testing.T) {
	spec := benchSpec()
	spec.Keys, spec.LogBytes, spec.SegmentBytes = 20_000, 1<<20, 256<<10
	fx := newCleanFixture(t, t, spec)
	for i := range 2 {
		l := fx.fresh(t, i)
		c, err := engine.NewCleaner(engine.DefaultCleanerConfig(), engine.CleanerOptions{FsyncPolicy: "none"})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Clean(l, engine.CleanOptions{Force: true})
		if err != nil || !st.Cleaned() {
			t.Fatalf("clean %d: %v %+v", i, err, st)
		}
		if err := fx.truth.Verify(l, int64(st.CheckpointOffset)); err != nil {
			t.Fatalf("clean %d: %v", i, err)
		}
		if st.MessagesWritten >= st.MessagesRead {
			t.Errorf("clean %d kept %d of %d records: nothing removed from a half-dirty log", i, st.MessagesWritten, st.MessagesRead)
		}
		fx.release(l)
	}
}
