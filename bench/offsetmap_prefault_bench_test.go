package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// BenchmarkOffsetMapPrefault is BenchmarkOffsetMap's put and get rounds at
// 5M keys in 128 MiB for the layouts the cleaner's profiles use (Kafka's
// skimpy with md5, dense16 and bucket16 with xxh3-128), with the table
// faulted in by one warm-up round (prefault=false, as BenchmarkOffsetMap),
// by Prefault (prefault=true: every page touched, in the pages the kernel
// gives by default, as a map a cleaner thread allocates once and
// prefaults before its first clean) or by PrefaultHugePages
// (prefault=huge: transparent huge pages asked for first, as with
// engine.CleanerConfig.MapHugePages). The gap between true and huge is
// what TLB misses on small pages cost each lookup.
//
// All prefault=huge maps run after the others: a Go heap range once
// advised for huge pages keeps that advice when a later table reuses it.
// Metrics as BenchmarkOffsetMap (ns/key, B/key, probes/key, cpu-ns/key).
func BenchmarkOffsetMapPrefault(b *testing.B) {
	const (
		memory = offsetmap.DefaultMemoryBytes
		n      = 5_000_000
	)
	pairs := [][2]string{
		{offsetmap.LayoutSkimpy, offsetmap.HasherMD5},
		{offsetmap.LayoutDense16, offsetmap.HasherXXH3_128},
		{offsetmap.LayoutBucket16, offsetmap.HasherXXH3_128},
	}
	for _, prefault := range []string{"false", "true", "huge"} {
		for _, pair := range pairs {
			layout, hasher := pair[0], pair[1]
			h, err := offsetmap.NewHasher(hasher)
			if err != nil {
				b.Fatal(err)
			}
			var m offsetmap.Map
			keys := keySet(nil)
			setup := func(b *testing.B) (offsetmap.Map, keySet) {
				b.StopTimer()
				defer b.StartTimer()
				if m == nil {
					keys = keysOf(n)
					if m, err = offsetmap.New(layout, memory, h); err != nil {
						b.Fatal(err)
					}
					switch p := m.(offsetmap.Prefaulter); prefault {
					case "true":
						err = p.Prefault()
					case "huge":
						err = p.PrefaultHugePages()
					default:
						putAll(m, keys, n, 0)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				m.Clear()
				putAll(m, keys, n, 0)
				return m, keys
			}
			suffix := fmt.Sprintf("/map=%s/hasher=%s/keys=5e6/prefault=%s", layout, hasher, prefault)
			b.Run("op=put"+suffix, func(b *testing.B) { benchPutRound(b, setup, n) })
			b.Run("op=get"+suffix, func(b *testing.B) { benchGetRound(b, setup, n) })
			if batches(layout) {
				b.Run("op=put-batch"+suffix, func(b *testing.B) { benchPutBatchRound(b, setup, n) })
				b.Run("op=get-batch"+suffix, func(b *testing.B) { benchGetBatchRound(b, setup, n) })
			}
			m = nil
		}
	}
}

// BenchmarkMemoryLatency is the floor under a single offset-map lookup: a
// random walk of dependent loads over a 128 MiB table (one 8-byte word per
// 64-byte line, in a random cyclic order), with transparent huge pages
// asked for as Prefault asks, as chains=1 (each load waits for the last:
// the latency of one miss) and chains=16 (16 independent walks in turn: how
// far the core overlaps misses). ns/load is the time per load.
func BenchmarkMemoryLatency(b *testing.B) {
	const (
		tableBytes = 128 << 20
		lines      = tableBytes / 64
		steps      = 2_000_000
	)
	buf, err := unix.Mmap(-1, 0, tableBytes+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		b.Fatal(err)
	}
	defer unix.Munmap(buf)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (hugePage - 1))
	tab := buf[skip : skip+tableBytes]
	_ = unix.Madvise(tab, unix.MADV_HUGEPAGE)
	next := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(tab))), tableBytes/8)
	perm := rand.New(rand.NewPCG(1, 2)).Perm(lines)
	for i := range lines {
		next[perm[i]*8] = uint64(perm[(i+1)%lines] * 8)
	}
	for _, chains := range []int{1, 16} {
		b.Run(fmt.Sprintf("table=128MiB/chains=%d", chains), func(b *testing.B) {
			ps := make([]uint64, chains)
			for j := range ps {
				ps[j] = uint64(perm[j*(lines/chains)] * 8)
			}
			b.ResetTimer()
			for range b.N {
				for range steps / chains {
					for j := range ps {
						ps[j] = next[ps[j]]
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(steps/chains*chains), "ns/load")
			sink = ps[0]
		})
	}
}

// hugePage is a transparent huge page's size on x86-64 and arm64 (2 MiB).
const hugePage = 2 << 20

// sink keeps the walks' results alive.
var sink uint64
