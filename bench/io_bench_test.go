package bench

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/lab"
)

// BenchmarkIORead measures each segment read path (iosched.ReadPaths)
// reading the whole generated log (benchSpec) sequentially through a
// 256 KiB window, as the cleaner reads, cold and warm:
//
//	BenchmarkIORead/bytes=8MiB/io=mmap/cache=cold
//
// Every byte returned is summed, so the mmap path's pages are faulted in
// and every path's bytes reach the CPU. The cache state is set outside the
// timer before each iteration (cold: fdatasync + fadvise DONTNEED per
// segment; warm: read once). SetBytes is the log's .log bytes; metric
// disk-read-B/op (the data directory's device, all processes).
func BenchmarkIORead(b *testing.B) {
	parent := b
	spec := benchSpec()
	var fx *cleanFixture
	for _, path := range iosched.ReadPaths() {
		for _, cache := range []string{"cold", "warm"} {
			b.Run(name("bytes", sizeName(spec.LogBytes), "io", string(path), "cache", cache), func(b *testing.B) {
				b.StopTimer()
				if fx == nil {
					fx = newCleanFixture(b, parent, spec)
				}
				files, size := ioSegmentFiles(b, filepath.Join(fx.pristine, spec.Topic+"-0"))
				r, err := iosched.NewSegmentReader(iosched.ReaderOptions{Path: path, BufferBytes: iosched.DefaultReadBufferBytes, MaxBufferBytes: iosched.DefaultMaxBufferBytes})
				if err != nil {
					b.Fatal(err)
				}
				var diskRead int64
				diskOK := true
				var sink uint64
				for range b.N {
					if err := lab.SetFileCache(cacheFiles(files), lab.CacheState(cache)); err != nil {
						b.Fatal(err)
					}
					r0, _, ok0 := fx.disk.read()
					b.StartTimer()
					for _, f := range files {
						st, err := f.Stat()
						if err != nil {
							b.Fatal(err)
						}
						for pos := int64(0); pos < st.Size(); {
							p, err := r.Read(f, pos, st.Size())
							if err != nil {
								b.Fatal(err)
							}
							sink += sum64(p)
							pos += int64(len(p))
						}
						r.Restore()
					}
					b.StopTimer()
					r1, _, ok1 := fx.disk.read()
					diskOK = diskOK && ok0 && ok1
					diskRead += r1 - r0
				}
				if sink == 1 {
					b.Log("") // keeps sink live
				}
				b.SetBytes(size)
				if diskOK {
					b.ReportMetric(float64(diskRead)/float64(b.N), "disk-read-B/op")
				}
			})
		}
	}
}

// BenchmarkIOClean measures one clean of a generated log (benchSpec) with
// each read path, each fsync policy and a throttle, with Kafka's cleaner
// settings otherwise:
//
//	BenchmarkIOClean/io=pread/fsync=segment/throttle=none/cache=warm
//	BenchmarkIOClean/io=pread/fsync=segment/throttle=16MiB/cache=warm
//
// The read paths are compared under fsync=segment, the fsync policies under
// io=pread, and the throttle (16 MiB/s x -bench.scale of read + written
// bytes, Kafka's throttler) under both defaults. Each iteration cleans a
// fresh copy of the pristine log, its page cache set by -bench.cache
// outside the timer; the first iteration is verified against the ground
// truth. SetBytes is the lab's throughput definition (lab.Throughput: the
// bytes the cleaner read, map and copy phase); metrics: io-MB/s (read + written bytes per second, what the
// throttle holds), sleep-ns/op (time slept in the throttle), sync-ns/op,
// disk-read-B/op and disk-write-B/op.
func BenchmarkIOClean(b *testing.B) {
	parent := b
	spec := benchSpec()
	var fx *cleanFixture
	throttle := float64(scaled(16<<20, 1<<20))
	type variant struct {
		io, fsync string
		throttle  float64
	}
	var variants []variant
	for _, p := range iosched.ReadPaths() {
		variants = append(variants, variant{string(p), "segment", 0})
	}
	for _, f := range []string{"none", "fdatasync", "bytes=1MiB"} {
		variants = append(variants, variant{"pread", f, 0})
	}
	variants = append(variants, variant{"pread", "segment", throttle})
	for _, v := range variants {
		thrName := "none"
		if v.throttle > 0 {
			thrName = sizeName(int64(v.throttle))
		}
		b.Run(name("io", v.io, "fsync", v.fsync, "throttle", thrName, "cache", *benchCache), func(b *testing.B) {
			b.StopTimer()
			if fx == nil {
				fx = newCleanFixture(b, parent, spec)
			}
			policy, err := iosched.ParseFsyncPolicy(v.fsync)
			if err != nil {
				b.Fatal(err)
			}
			cfg := engine.DefaultCleanerConfig()
			cfg.IOPath, cfg.MaxIOBytesPerSecond = iosched.ReadPath(v.io), v.throttle
			thr, err := engine.NewThrottler(cfg)
			if err != nil {
				b.Fatal(err)
			}
			c, err := engine.NewCleaner(cfg, engine.CleanerOptions{FsyncPolicy: policy, Throttler: thr})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := lab.PrefaultCleaner(c); err != nil {
				b.Fatal(err)
			}
			var read, moved, diskRead, diskWritten int64
			var sleep, sync, wall float64
			diskOK := true
			for i := range b.N {
				l := fx.fresh(b, i)
				r0, w0, ok0 := fx.disk.read()
				b.StartTimer()
				st, err := c.Clean(l, engine.CleanOptions{Force: true})
				b.StopTimer()
				r1, w1, ok1 := fx.disk.read()
				if err != nil {
					b.Fatal(err)
				}
				if i == 0 {
					if err := fx.truth.Verify(l, int64(st.CheckpointOffset)); err != nil {
						b.Fatal(err)
					}
				}
				read += lab.ThroughputOfClean(st).Bytes()
				moved += st.IO.Map.ReadBytes + st.IO.Copy.ReadBytes + st.IO.Copy.WrittenBytes
				sleep += float64(st.IO.ThrottleSleep().Nanoseconds())
				sync += float64(st.SyncTime.Nanoseconds())
				wall += (st.IO.Map.Wall + st.IO.Copy.Wall).Seconds()
				diskOK = diskOK && ok0 && ok1
				diskRead += r1 - r0
				diskWritten += w1 - w0
				fx.release(l)
			}
			b.SetBytes(read / int64(b.N))
			if wall > 0 {
				b.ReportMetric(float64(moved)/1e6/wall, "io-MB/s")
			}
			b.ReportMetric(sleep/float64(b.N), "sleep-ns/op")
			b.ReportMetric(sync/float64(b.N), "sync-ns/op")
			if diskOK {
				b.ReportMetric(float64(diskRead)/float64(b.N), "disk-read-B/op")
				b.ReportMetric(float64(diskWritten)/float64(b.N), "disk-write-B/op")
			}
		})
	}
}

// ioSegmentFiles opens the .log files of the partition directory dir (closed
// when b ends) and returns them with their total size.
func ioSegmentFiles(b *testing.B, dir string) ([]*os.File, int64) {
	b.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil || len(paths) == 0 {
		b.Fatalf("no .log files in %s: %v", dir, err)
	}
	var files []*os.File
	var size int64
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { f.Close() })
		st, err := f.Stat()
		if err != nil {
			b.Fatal(err)
		}
		files = append(files, f)
		size += st.Size()
	}
	return files, size
}

// cacheFiles is files as lab.SetFileCache takes them.
func cacheFiles(files []*os.File) []iosched.File {
	out := make([]iosched.File, len(files))
	for i, f := range files {
		out[i] = f
	}
	return out
}

// sum64 adds p's bytes as little-endian 64-bit words (the tail byte by
// byte), so that every byte read is touched.
func sum64(p []byte) uint64 {
	var s uint64
	for len(p) >= 8 {
		s += binary.LittleEndian.Uint64(p)
		p = p[8:]
	}
	for _, c := range p {
		s += uint64(c)
	}
	return s
}
