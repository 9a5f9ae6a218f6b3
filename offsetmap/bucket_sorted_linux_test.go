package offsetmap

import (
	"fmt"
	"math/bits"
	"testing"
	"time"
	"unsafe"
)

// BenchmarkBucketSortedPut compares a map build through Put's write-behind
// queue with one through a sort buffer (SetSortBuffer), on the table and
// keys of BenchmarkBucketBreakdown: bucket16, xxh3-128, 5M distinct keys
// key-%012d in 128 MiB, huge pages asked for (table and sort buffers). One
// iteration is Clear (untimed), then the 5M keys put 16 at a time with
// offsets 0..5M-1, then Size (which writes what is still buffered):
//
//   - op=fp+put: PutFingerprints, fingerprints computed before the round;
//   - op=put-batch: PutBatch (hashing included);
//
// each with sort=0 (no buffer: write-behind) and sort buffers of 1M and
// 4M puts (16 and 64 MiB each, twice that with the radix sort's second
// array), one table for all. -count N does not interleave them: Go runs
// each sub-benchmark N times in a row (A A A B B B ...), so load that
// comes and goes lands on one variant. Interleave them by running the
// test binary N times, each running every variant once:
//
//	go test -c -o /tmp/offsetmap.test ./offsetmap
//	for i in $(seq 7); do /tmp/offsetmap.test -test.run '^$' -test.bench BucketSortedPut -test.benchtime 1x; done | benchstat -col /sort -
//
// Metrics: ns/key (wall) and cpu-ns/key (the process's user + system CPU
// time, per key).
func BenchmarkBucketSortedPut(b *testing.B) {
	const n = 5_000_000
	var (
		m    *Bucket
		flat []byte
		fps  []Fingerprint
		bufs = map[int]*sortBuffer{}
	)
	setup := func(b *testing.B, size int) {
		b.StopTimer()
		defer b.StartTimer()
		if m == nil {
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
			fps = make([]Fingerprint, n)
			for i := range n {
				fps[i] = Fingerprint{m.keys.of(flat[i*16 : i*16+16 : i*16+16])}
			}
		}
		m.sorted, m.sortLen = nil, 0
		if size > 0 {
			if bufs[size] == nil {
				if err := m.SetSortBuffer(size); err != nil {
					b.Fatal(err)
				}
				if err := m.PrefaultHugePages(); err != nil {
					b.Fatal(err)
				}
				bufs[size] = m.sorted
			}
			m.sorted = bufs[size]
		}
		m.Clear()
	}
	key := func(i int) []byte { return flat[i*16 : i*16+16 : i*16+16] }
	rounds := map[string]func(){
		"fp+put": func() {
			var offs [16]int64
			for i := 0; i < n; i += 16 {
				for j := range offs {
					offs[j] = int64(i + j)
				}
				m.PutFingerprints(fps[i:i+16], offs[:])
			}
			m.Size()
		},
		"put-batch": func() {
			var ks [16][]byte
			var offs [16]int64
			for i := 0; i < n; i += 16 {
				for j := range ks {
					ks[j], offs[j] = key(i+j), int64(i+j)
				}
				m.PutBatch(ks[:], offs[:])
			}
			m.Size()
		},
	}
	for _, op := range []string{"fp+put", "put-batch"} {
		for _, size := range []int{0, 1 << 20, 4 << 20} {
			b.Run(fmt.Sprintf("op=%s/sort=%dKi", op, size>>10), func(b *testing.B) {
				var cpu time.Duration
				for range b.N {
					setup(b, size)
					c0 := rusageCPU(b)
					rounds[op]()
					cpu += rusageCPU(b) - c0
				}
				b.StopTimer()
				if m.Size() != n {
					b.Fatalf("Size %d after the round, want %d", m.Size(), n)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/key")
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/n, "cpu-ns/key")
			})
		}
	}
}

// BenchmarkSortBufferSort is the sort alone: 1M puts of random f1 put
// into a sort buffer (counted as they come), then sorted, keyed as for a
// 128 MiB table (2^21 buckets; the map itself is small); ns/put of the
// sort.
func BenchmarkSortBufferSort(b *testing.B) {
	m := mustNew(b, LayoutBucket16, 1<<16, "xxh3-128").(*Bucket)
	const n = 1 << 20
	if err := m.SetSortBuffer(n + 1); err != nil {
		b.Fatal(err)
	}
	if err := m.PrefaultHugePages(); err != nil {
		b.Fatal(err)
	}
	s := m.sorted
	s.keyBuckets = DefaultMemoryBytes / bucketBytes
	x := uint64(88172645463325252)
	for range b.N {
		b.StopTimer()
		s.buf = s.buf[:0]
		for i := range n {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			m.buffer(fingerprint{f1: x}, uint32(i))
		}
		b.StartTimer()
		s.sort()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/put")
}

// getSorted answers n keys' lookups a sort buffer at a time: it hashes
// keys 16 at a time into s (stamp = the key's index), and when s is full
// (or the keys end) sorts it by home bucket, probes in that order with
// sortAhead buckets prefetched ahead, and writes each answer at its key's
// index of offsets. A sorted bulk Get, for BenchmarkBucketSortedGet.
func getSorted(m *Bucket, s *sortBuffer, key func(int) []byte, n int, offsets []int64) {
	answer := func() {
		puts := s.sort()
		k := len(puts)
		for i := range min(k, sortAhead) {
			home, _ := bits.Mul64(puts[i].f1, m.buckets)
			prefetch(unsafe.Pointer(&m.tab[home*bucketBytes]))
		}
		for i := range puts {
			if j := i + sortAhead; j < k {
				home, _ := bits.Mul64(puts[j].f1, m.buckets)
				prefetch(unsafe.Pointer(&m.tab[home*bucketBytes]))
			}
			p := &puts[i]
			home, _ := bits.Mul64(p.f1, m.buckets)
			offsets[p.stamp], _ = m.probe(fingerprint{f1: p.f1, f2: p.f2}, home)
		}
		s.buf = s.buf[:0]
	}
	for i := range n {
		fp := m.keys.of(key(i))
		s.buf = append(s.buf, sortedPut{f1: fp.f1, f2: fp.f2, stamp: uint32(i)})
		k := s.key(fp.f1)
		s.lower[k&sortDigitMask]++
		s.upper[k>>sortDigitBits]++
		if len(s.buf) == cap(s.buf) {
			answer()
		}
	}
	if len(s.buf) > 0 {
		answer()
	}
}

// BenchmarkBucketSortedGet compares GetBatch of 16 keys at a time (as the
// copy loop calls it) with a sorted bulk Get (getSorted, buffers of 1M and
// 4M keys) on BenchmarkBucketSortedPut's table holding its 5M keys; every
// key's answer is checked after the round. Metrics as
// BenchmarkBucketSortedPut.
func BenchmarkBucketSortedGet(b *testing.B) {
	const n = 5_000_000
	m, err := NewBucket(DefaultMemoryBytes, xxh3x128Hasher{})
	if err != nil {
		b.Fatal(err)
	}
	if err := m.PrefaultHugePages(); err != nil {
		b.Fatal(err)
	}
	flat := make([]byte, 0, n*16)
	for i := range n {
		flat = fmt.Appendf(flat, "key-%012d", i)
	}
	key := func(i int) []byte { return flat[i*16 : i*16+16 : i*16+16] }
	for i := range n {
		m.Put(key(i), int64(i))
	}
	m.Size()
	offsets := make([]int64, n)
	bufs := map[int]*sortBuffer{}
	for _, size := range []int{0, 1 << 20, 4 << 20} {
		b.Run(fmt.Sprintf("op=get/sort=%dKi", size>>10), func(b *testing.B) {
			b.StopTimer()
			if size > 0 && bufs[size] == nil {
				if err := m.SetSortBuffer(size); err != nil {
					b.Fatal(err)
				}
				if err := m.PrefaultHugePages(); err != nil {
					b.Fatal(err)
				}
				bufs[size] = m.sorted
				m.sorted = nil
			}
			b.StartTimer()
			var cpu time.Duration
			for range b.N {
				clear(offsets)
				c0 := rusageCPU(b)
				if size == 0 {
					var ks [16][]byte
					for i := 0; i < n; i += 16 {
						for j := range ks {
							ks[j] = key(i + j)
						}
						m.GetBatch(ks[:], offsets[i:i+16])
					}
				} else {
					getSorted(m, bufs[size], key, n, offsets)
				}
				cpu += rusageCPU(b) - c0
			}
			b.StopTimer()
			for i, o := range offsets {
				if o != int64(i) {
					b.Fatalf("key %d: offset %d, want %d", i, o, i)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/key")
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/n, "cpu-ns/key")
		})
	}
}
