package offsetmap

import (
	"fmt"
	"math/bits"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/zeebo/xxh3"
)

// BenchmarkBucketBreakdown takes apart the batched rounds of bench/'s
// BenchmarkOffsetMapPrefault (bucket16, xxh3-128, keys key-%012d, 5M of
// them in 128 MiB, huge pages asked for), on the same table and keys: one
// iteration is one round over the 5M keys, 16 at a time as the bench's
// rounds. The parts (docs/speed-map-locality.md reads them):
//
//   - keys: slicing each group's 16 keys out of one flat buffer, as the
//     bench's rounds do before each call, and nothing else;
//   - xxh3: keys, then xxh3.Hash128 called directly and the home bucket;
//   - hash: keys, then the map's own fingerprint and home bucket;
//   - hash+prefetch: hash, each home line prefetched as it is found;
//   - touch: home buckets computed before the round; one byte of each
//     group's 16 lines loaded (plain loads the core overlaps);
//   - prefetch+touch: touch with the group's 16 lines prefetched first;
//   - chase: n/16 loads of home lines, each address depending on the last
//     load (ns/key x 16 is one miss's latency);
//   - hash+touch, hash+prefetch+touch: a GetBatch of 16 without the
//     compares (touch for the probe), with and without prefetches;
//   - rolling16: hash+prefetch+touch over the 5M keys as one stream, the
//     line of key i+16 prefetched as key i is touched (no restart);
//   - spin, spin+touch, prefetch+spin, prefetch+spin+touch: ~0.6 us of
//     arithmetic between the 16 prefetches and the 16 loads, to see
//     whether the prefetched lines are there when loaded;
//   - scan16, prefetch+scan16: scan of each group's 16 home buckets (the
//     fingerprints computed before the round), without and with the
//     lines prefetched first;
//   - fp+get16: prefetch and probe, as GetBatch without hashing or keys;
//   - get-batch: GetBatch itself (the bench's op=get-batch);
//   - fp+put: Clear (untimed), then PutFingerprints with the fingerprints
//     computed before the round: op=put-batch without hashing or keys;
//   - put-batch: Clear (untimed), then PutBatch (op=put-batch).
//
// Metrics: ns/key (wall) and cpu-ns/key (the process's user + system CPU
// time, per key).
func BenchmarkBucketBreakdown(b *testing.B) {
	const n = 5_000_000
	var (
		m     *Bucket
		flat  []byte
		homes []uint64
		fps   []Fingerprint
	)
	setup := func(b *testing.B) {
		b.StopTimer()
		defer b.StartTimer()
		if m != nil {
			return
		}
		var err error
		if m, err = NewBucket(DefaultMemoryBytes, xxh3x128Hasher{}); err != nil {
			b.Fatal(err)
		}
		if err := m.PrefaultHugePages(); err != nil {
			b.Fatal(err)
		}
		flat = make([]byte, 0, n*16)
		for i := range n {
			flat = fmt.Appendf(flat, "key-%012d", i)
		}
		homes = make([]uint64, n)
		fps = make([]Fingerprint, n)
		for i := range n {
			k := flat[i*16 : i*16+16 : i*16+16]
			m.Put(k, int64(i))
			homes[i] = m.homeOf(k)
			fps[i] = Fingerprint{m.keys.of(k)}
		}
		m.Size()
	}
	key := func(i int) []byte { return flat[i*16 : i*16+16 : i*16+16] }
	var sink uint64
	parts := []struct {
		name  string
		round func()
	}{
		{"keys", func() {
			var ks [16][]byte
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j] = key(i + j)
				}
				sink += uint64(len(ks[i&15]))
			}
		}},
		{"xxh3", func() {
			var ks [16][]byte
			var g [16]uint64
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j] = key(i + j)
				}
				for j, k := range ks {
					g[j], _ = bits.Mul64(xxh3.Hash128(k).Hi, m.buckets)
				}
				sink += g[i&15]
			}
		}},
		{"hash", func() {
			var ks [16][]byte
			var g [16]uint64
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j] = key(i + j)
				}
				for j, k := range ks {
					g[j] = m.homeOf(k)
				}
				sink += g[i&15]
			}
		}},
		{"hash+prefetch", func() {
			var ks [16][]byte
			var g [16]uint64
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j] = key(i + j)
				}
				for j, k := range ks {
					g[j] = m.homeOf(k)
					prefetch(unsafe.Pointer(&m.tab[g[j]*bucketBytes]))
				}
				sink += g[i&15]
			}
		}},
		{"touch", func() {
			for i := 0; i < n; i += 16 {
				for _, h := range homes[i : i+16] {
					sink += uint64(m.tab[h*bucketBytes+bucketStamp])
				}
			}
		}},
		{"prefetch+touch", func() {
			for i := 0; i < n; i += 16 {
				g := homes[i : i+16]
				for _, h := range g {
					prefetch(unsafe.Pointer(&m.tab[h*bucketBytes]))
				}
				for _, h := range g {
					sink += uint64(m.tab[h*bucketBytes+bucketStamp])
				}
			}
		}},
		{"chase", func() {
			// n/16 dependent loads (each address depends on the last
			// load): ns/key x 16 is one miss's latency.
			var x uint64
			for i := range n / 16 {
				x = uint64(m.tab[(homes[i]^(x&1))*bucketBytes+bucketStamp])
			}
			sink += x
		}},
		{"hash+touch", func() {
			var ks [16][]byte
			var g [16]uint64
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j] = key(i + j)
				}
				for j, k := range ks {
					g[j] = m.homeOf(k)
				}
				for _, h := range g {
					sink += uint64(m.tab[h*bucketBytes+bucketStamp])
				}
			}
		}},
		{"hash+prefetch+touch", func() {
			var ks [16][]byte
			var g [16]uint64
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j] = key(i + j)
				}
				for j, k := range ks {
					g[j] = m.homeOf(k)
					prefetch(unsafe.Pointer(&m.tab[g[j]*bucketBytes]))
				}
				for _, h := range g {
					sink += uint64(m.tab[h*bucketBytes+bucketStamp])
				}
			}
		}},
		{"rolling16", func() { sink += rolling(m, key, n, 16) }},
		{"spin", func() {
			for i := 0; i < n; i += 16 {
				x := sink
				for range 500 {
					x = x*6364136223846793005 + 1442695040888963407
				}
				sink = x
			}
		}},
		{"spin+touch", func() {
			for i := 0; i < n; i += 16 {
				g := homes[i : i+16]
				x := sink
				for range 500 {
					x = x*6364136223846793005 + 1442695040888963407
				}
				for _, h := range g {
					x += uint64(m.tab[h*bucketBytes+bucketStamp])
				}
				sink = x
			}
		}},
		{"prefetch+spin", func() {
			for i := 0; i < n; i += 16 {
				g := homes[i : i+16]
				for _, h := range g {
					prefetch(unsafe.Pointer(&m.tab[h*bucketBytes]))
				}
				x := sink
				for range 500 {
					x = x*6364136223846793005 + 1442695040888963407
				}
				sink = x
			}
		}},
		{"prefetch+spin+touch", func() {
			// as prefetch+touch with ~1 us of arithmetic between the
			// prefetches and the loads: if the prefetches bring the
			// lines in, the loads hit.
			for i := 0; i < n; i += 16 {
				g := homes[i : i+16]
				for _, h := range g {
					prefetch(unsafe.Pointer(&m.tab[h*bucketBytes]))
				}
				x := sink
				for range 500 {
					x = x*6364136223846793005 + 1442695040888963407
				}
				for _, h := range g {
					x += uint64(m.tab[h*bucketBytes+bucketStamp])
				}
				sink = x
			}
		}},
		{"scan16", func() {
			lo := m.w.lo
			for i := 0; i < n; i += 16 {
				for j, h := range homes[i : i+16] {
					u, mt := scan(m.bucket(h), fps[i+j].fp, lo)
					sink += uint64(u ^ mt)
				}
			}
		}},
		{"prefetch+scan16", func() {
			lo := m.w.lo
			for i := 0; i < n; i += 16 {
				for _, h := range homes[i : i+16] {
					prefetch(unsafe.Pointer(&m.tab[h*bucketBytes]))
				}
				for j, h := range homes[i : i+16] {
					u, mt := scan(m.bucket(h), fps[i+j].fp, lo)
					sink += uint64(u ^ mt)
				}
			}
		}},
		{"fp+get16", func() {
			for i := 0; i < n; i += 16 {
				g := homes[i : i+16]
				for _, h := range g {
					prefetch(unsafe.Pointer(&m.tab[h*bucketBytes]))
				}
				for j, h := range g {
					o, _ := m.probe(fps[i+j].fp, h)
					sink += uint64(o)
				}
			}
		}},
		{"get-batch", func() {
			var ks [16][]byte
			var offs [16]int64
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j] = key(i + j)
				}
				m.GetBatch(ks[:], offs[:])
				sink += uint64(offs[i&15])
			}
		}},
		{"fp+put", nil},
		{"put-batch", nil}, // see below: it clears the map first
	}
	for _, p := range parts {
		b.Run("part="+p.name, func(b *testing.B) {
			setup(b)
			var cpu time.Duration
			for range b.N {
				round := p.round
				if p.name == "fp+put" {
					b.StopTimer()
					m.Clear()
					b.StartTimer()
					round = func() {
						var offs [16]int64
						for i := 0; i < n; i += 16 {
							for j := range offs {
								offs[j] = int64(i + j)
							}
							m.PutFingerprints(fps[i:i+16], offs[:])
						}
						m.Size()
					}
				}
				if p.name == "put-batch" {
					b.StopTimer()
					m.Clear()
					b.StartTimer()
					round = func() {
						var ks [16][]byte
						var offs [16]int64
						for i := 0; i < n; i += 16 {
							for j := range ks {
								ks[j], offs[j] = key(i+j), int64(i+j)
							}
							m.PutBatch(ks[:], offs[:])
						}
						m.Size()
					}
				}
				c0 := rusageCPU(b)
				round()
				cpu += rusageCPU(b) - c0
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/key")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/n, "cpu-ns/key")
		})
	}
	if sink == 42 {
		b.Log(sink)
	}
}

// homeOf is key's home bucket.
func (m *Bucket) homeOf(key []byte) uint64 {
	fp := m.keys.of(key)
	home, _ := bits.Mul64(fp.f1, m.buckets)
	return home
}

// rusageCPU is the process's user + system CPU time so far.
func rusageCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rolling hashes key i+w and prefetches its line before loading one word of
// key i's, over the n keys in one stream.
func rolling(m *Bucket, key func(int) []byte, n, w int) uint64 {
	ring := make([]uint64, w)
	var sink uint64
	for i := range w {
		ring[i] = m.homeOf(key(i))
		prefetch(unsafe.Pointer(&m.tab[ring[i]*bucketBytes]))
	}
	for i := range n {
		h := ring[i%w]
		if j := i + w; j < n {
			ring[j%w] = m.homeOf(key(j))
			prefetch(unsafe.Pointer(&m.tab[ring[j%w]*bucketBytes]))
		}
		sink += uint64(m.tab[h*bucketBytes+bucketStamp])
	}
	return sink
}
