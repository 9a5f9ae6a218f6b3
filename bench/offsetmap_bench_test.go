package bench

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// keyBytes is the size of a benchmark key: the 16 ASCII bytes key-%012d, as
// the JVM anchor of issue 4 measured Kafka's SkimpyOffsetMap with.
const keyBytes = 16

// keySet holds the keys key-%012d for i = 0..n-1 back to back, so that n keys
// cost one allocation of 16n bytes; key i is keys[16i : 16i+16].
type keySet []byte

func (k keySet) key(i int) []byte { return k[i*keyBytes : (i+1)*keyBytes : (i+1)*keyBytes] }

var (
	keySetsMu sync.Mutex
	keySets   = map[int]keySet{}
)

// keysOf returns the n keys, built on first use and shared afterwards.
func keysOf(n int) keySet {
	keySetsMu.Lock()
	defer keySetsMu.Unlock()
	if k, ok := keySets[n]; ok {
		return k
	}
	k := make(keySet, 0, n*keyBytes)
	for i := range n {
		k = fmt.Appendf(k, "key-%012d", i)
	}
	keySets[n] = k
	return k
}

// benchMaps lists the layout and hasher pairs the benchmark covers: Kafka's
// layout with every hasher, and every other layout with the hashers that
// matter for it (md5 to compare with Kafka's, the fast 128- and 64-bit ones).
func benchMaps() [][2]string {
	var pairs [][2]string
	for _, h := range offsetmap.HasherNames() {
		pairs = append(pairs, [2]string{offsetmap.LayoutSkimpy, h})
	}
	for _, layout := range offsetmap.LayoutNames()[1:] {
		for _, h := range []string{"md5", "xxh3-128", "xxh3-64", "metro-128", "murmur3-128"} {
			pairs = append(pairs, [2]string{layout, h})
		}
	}
	return pairs
}

// BenchmarkOffsetMap measures the offset map as the JVM anchor of issue 4
// measured Kafka's SkimpyOffsetMap (MD5, 128 MiB): keys key-%012d for
// i = 0..N-1, put in order with offset i into an empty 128 MiB map, then
// looked up in the same order. One iteration is one round over the N keys:
//
//   - op=put: Clear (timer stopped), then put the N keys with offsets i;
//   - op=get: on the map holding the N keys, get each (and check it);
//   - op=update: on that map, put every key again with a new offset (an
//     overwrite per key, as a dirty head that rewrites its keys does);
//   - op=put-batch, op=get-batch (maps that implement offsetmap.Batcher):
//     op=put and op=get through PutBatch and GetBatch, 16 keys per call.
//
// Setup (building keys, allocating the map, one untimed warm-up round that
// also faults the buffer's pages in) stays outside the timer. Metrics:
// ns/key (time per key), B/key (table bytes per slot: 24 for Kafka's md5
// entries), probes/key (slots or buckets read per key). Pairs whose map
// cannot hold N keys within the cleaner's 0.9 load factor are skipped. With
// -benchtime=1x each sample is one timed round after one warm-up, as the
// anchor's; benchstat then takes the median over -count.
func BenchmarkOffsetMap(b *testing.B) {
	const memory = offsetmap.DefaultMemoryBytes
	for _, pair := range benchMaps() {
		layout, hasher := pair[0], pair[1]
		h, err := offsetmap.NewHasher(hasher)
		if err != nil {
			b.Fatal(err)
		}
		info, err := offsetmap.Describe(layout, h)
		if err != nil {
			b.Fatal(err)
		}
		for _, kc := range []struct {
			n    int
			name string
		}{{1_000_000, "1e6"}, {5_000_000, "5e6"}} {
			n := kc.n
			if n > info.MaxKeys(memory, offsetmap.DefaultLoadFactor) {
				continue
			}
			// The map is built by the first sub-benchmark the -bench
			// filter selects and shared by the others of this pair.
			var m offsetmap.Map
			var keys keySet
			setup := func(b *testing.B) (offsetmap.Map, keySet) {
				b.StopTimer()
				defer b.StartTimer()
				if m == nil {
					keys = keysOf(n)
					if m, err = offsetmap.New(layout, memory, h); err != nil {
						b.Fatal(err)
					}
					putAll(m, keys, n, 0) // warm-up: faults the pages in
				}
				m.Clear()
				putAll(m, keys, n, 0)
				return m, keys
			}
			suffix := fmt.Sprintf("/map=%s/hasher=%s/keys=%s", layout, hasher, kc.name)
			b.Run("op=put"+suffix, func(b *testing.B) { benchPutRound(b, setup, n) })
			b.Run("op=get"+suffix, func(b *testing.B) { benchGetRound(b, setup, n) })
			b.Run("op=update"+suffix, func(b *testing.B) {
				setup(b)
				before := m.Stats()
				for round := range b.N {
					putAll(m, keys, n, int64(round+1)*int64(n))
				}
				b.StopTimer()
				if m.Size() != n {
					b.Fatalf("Size %d after updates, want %d", m.Size(), n)
				}
				report(b, m, n, m.Stats().Sub(before))
			})
			if !batches(layout) {
				m = nil
				continue
			}
			// The batched API: the keys of 16 records at a time (the
			// generator's default records per batch), as the cleaner could
			// hand over a record batch's keys.
			b.Run("op=put-batch"+suffix, func(b *testing.B) { benchPutBatchRound(b, setup, n) })
			b.Run("op=get-batch"+suffix, func(b *testing.B) { benchGetBatchRound(b, setup, n) })
			m = nil // free the table before the next pair's
		}
	}
}

// mapSetup readies a shared map of a benchmark pair holding its n keys
// (timer stopped) and returns it with the keys.
type mapSetup func(b *testing.B) (offsetmap.Map, keySet)

// benchPutRound is op=put: each iteration clears the map (timer stopped) and
// puts the n keys with offsets i.
func benchPutRound(b *testing.B, setup mapSetup, n int) {
	m, keys := setup(b)
	var probes offsetmap.Stats
	var cpu time.Duration
	for range b.N {
		b.StopTimer()
		m.Clear()
		b.StartTimer()
		c0 := processCPU(b)
		putAll(m, keys, n, 0)
		m.Size() // writes what a write-behind map still holds queued
		cpu += processCPU(b) - c0
		probes = probes.Add(m.Stats())
	}
	b.StopTimer()
	report(b, m, n, probes)
	reportCPU(b, n, cpu)
}

// benchGetRound is op=get: each iteration gets the n keys and checks that
// their offsets sum to 0+1+...+(n-1).
func benchGetRound(b *testing.B, setup mapSetup, n int) {
	m, keys := setup(b)
	before := m.Stats()
	c0 := processCPU(b)
	for range b.N {
		if sum := getAll(m, keys, n); sum != int64(n)*int64(n-1)/2 {
			b.Fatalf("offsets of the %d keys sum to %d, want %d", n, sum, int64(n)*int64(n-1)/2)
		}
	}
	cpu := processCPU(b) - c0
	b.StopTimer()
	report(b, m, n, m.Stats().Sub(before))
	reportCPU(b, n, cpu)
}

// benchPutBatchRound is op=put-batch: benchPutRound through PutBatch.
func benchPutBatchRound(b *testing.B, setup mapSetup, n int) {
	m, keys := setup(b)
	bt := m.(offsetmap.Batcher)
	var probes offsetmap.Stats
	var cpu time.Duration
	for range b.N {
		b.StopTimer()
		m.Clear()
		b.StartTimer()
		c0 := processCPU(b)
		putAllBatched(bt, keys, n, 0)
		m.Size() // writes what a write-behind map still holds queued
		cpu += processCPU(b) - c0
		probes = probes.Add(m.Stats())
	}
	b.StopTimer()
	report(b, m, n, probes)
	reportCPU(b, n, cpu)
}

// benchGetBatchRound is op=get-batch: benchGetRound through GetBatch.
func benchGetBatchRound(b *testing.B, setup mapSetup, n int) {
	m, keys := setup(b)
	bt := m.(offsetmap.Batcher)
	before := m.Stats()
	c0 := processCPU(b)
	for range b.N {
		if sum := getAllBatched(bt, keys, n); sum != int64(n)*int64(n-1)/2 {
			b.Fatalf("offsets of the %d keys sum to %d, want %d", n, sum, int64(n)*int64(n-1)/2)
		}
	}
	cpu := processCPU(b) - c0
	b.StopTimer()
	report(b, m, n, m.Stats().Sub(before))
	reportCPU(b, n, cpu)
}

// batches reports whether layout's maps implement offsetmap.Batcher.
func batches(layout string) bool {
	h, _ := offsetmap.NewHasher("md5")
	m, err := offsetmap.New(layout, 64, h)
	if err != nil {
		m, _ = offsetmap.New(layout, 4096, h)
	}
	_, ok := m.(offsetmap.Batcher)
	return ok
}

// groupKeys is the number of keys handed to PutBatch and GetBatch at once.
const groupKeys = 16

// putAllBatched is putAll through PutBatch, groupKeys keys at a time.
func putAllBatched(m offsetmap.Batcher, keys keySet, n int, base int64) {
	var ks [groupKeys][]byte
	var offs [groupKeys]int64
	for i := 0; i < n; i += groupKeys {
		g := min(groupKeys, n-i)
		for j := range g {
			ks[j], offs[j] = keys.key(i+j), base+int64(i+j)
		}
		m.PutBatch(ks[:g], offs[:g])
	}
}

// getAllBatched is getAll through GetBatch, groupKeys keys at a time.
func getAllBatched(m offsetmap.Batcher, keys keySet, n int) int64 {
	var ks [groupKeys][]byte
	var offs [groupKeys]int64
	var sum int64
	for i := 0; i < n; i += groupKeys {
		g := min(groupKeys, n-i)
		for j := range g {
			ks[j] = keys.key(i + j)
		}
		m.GetBatch(ks[:g], offs[:g])
		for _, o := range offs[:g] {
			sum += o
		}
	}
	return sum
}

// putAll puts key i with offset base + i, in order, as the cleaner puts a
// dirty segment's keys.
func putAll(m offsetmap.Map, keys keySet, n int, base int64) {
	for i := range n {
		m.Put(keys.key(i), base+int64(i))
	}
}

// getAll gets every key in order and returns the sum of the offsets found.
func getAll(m offsetmap.Map, keys keySet, n int) int64 {
	var sum int64
	for i := range n {
		sum += m.Get(keys.key(i))
	}
	return sum
}

// report adds ns/key, B/key and probes/key; s covers the timed operations.
func report(b *testing.B, m offsetmap.Map, n int, s offsetmap.Stats) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
	b.ReportMetric(float64(m.MemoryBytes())/float64(m.Slots()), "B/key")
	b.ReportMetric(s.MeanProbes(), "probes/key")
}

// reportCPU adds cpu-ns/key: the process's CPU time (user + system, every
// thread) over the timed rounds, per key. On a machine other jobs load,
// wall time per key grows with their share of the cores and this does
// not (their cache and memory traffic still count).
func reportCPU(b *testing.B, n int, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/key")
}

// BenchmarkOffsetMapClear measures Clear of a 128 MiB map after a pass
// whose offsets span span offsets (two Puts, at the pass's first and last
// offset, included in the time): Kafka's Skimpy zero-fills the whole buffer
// each time; the stamped layouts move their window and zero-fill only when
// the 32-bit stamps run low, so their figure is the amortised cost. A span
// of 5,033,164 is one full default pass of Kafka's map (one key per offset).
func BenchmarkOffsetMapClear(b *testing.B) {
	const memory = offsetmap.DefaultMemoryBytes
	h, err := offsetmap.NewHasher("md5")
	if err != nil {
		b.Fatal(err)
	}
	first, last := []byte("key-000000000000"), []byte("key-000000000001")
	for _, layout := range offsetmap.LayoutNames() {
		for _, span := range []int64{5_033_164} {
			b.Run(fmt.Sprintf("map=%s/span=%d", layout, span), func(b *testing.B) {
				b.StopTimer()
				m, err := offsetmap.New(layout, memory, h)
				if err != nil {
					b.Fatal(err)
				}
				m.Clear()
				b.StartTimer()
				var offset int64
				for range b.N {
					m.Put(first, offset)
					m.Put(last, offset+span-1)
					m.Clear()
					offset += span
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/clear")
			})
		}
	}
}
