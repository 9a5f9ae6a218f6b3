package offsetmap

import (
	"fmt"
	"testing"
)

// benchKeys returns n 16-byte keys, fmt.Sprintf(format, i) for i < n, sliced
// from one backing array so that generating them costs two allocations.
func benchKeys(format string, n int) [][]byte {
	const keyBytes = 16
	backing := make([]byte, 0, n*keyBytes)
	keys := make([][]byte, n)
	for i := range keys {
		start := len(backing)
		backing = fmt.Appendf(backing, format, i)
		keys[i] = backing[start:len(backing):len(backing)]
	}
	return keys
}

// BenchmarkSkimpy measures one Put or Get on a map of memory bytes with n
// keys, for each hasher (configurations past the 0.9 cap are skipped):
//   - op=put: inserts into a map filling from empty to n keys (the map is
//     cleared, timer stopped, every n operations), as the cleaner builds it;
//   - op=get: hits on a map holding the n keys, as the copy loop looks up;
//   - op=get-miss: absent keys on that map.
//
// ns/key is ns/op (one key per op); probes/key is the map's mean probes.
func BenchmarkSkimpy(b *testing.B) {
	for _, cfg := range []struct{ memory, keys int }{
		{1 << 20, 20_000},               // cache-resident: the cost of hashing and probing
		{DefaultMemoryBytes, 1_000_000}, // Kafka's default buffer, light
		{DefaultMemoryBytes, 5_000_000}, // Kafka's default buffer near its 0.9 cap
	} {
		n := cfg.keys
		// Keys and maps are built on first use, so that a -bench filter
		// skips the setup of the configurations it leaves out.
		var keys, missing [][]byte
		setup := func() {
			if keys == nil {
				keys = benchKeys("key-%012d", n)
				missing = benchKeys("miss-%011d", n)
			}
		}
		for _, name := range HasherNames() {
			h := mustHasher(b, name)
			if n > int(float64(cfg.memory/(h.Size()+8))*DefaultLoadFactor) {
				continue // the cleaner would not fill the map this far
			}
			var m *Skimpy
			newMap := func(b *testing.B) {
				setup()
				if m == nil {
					var err error
					if m, err = NewSkimpy(cfg.memory, h); err != nil {
						b.Fatal(err)
					}
				}
			}
			prefix := fmt.Sprintf("hasher=%s/memory=%d/keys=%d", name, cfg.memory, n)
			b.Run(prefix+"/op=put", func(b *testing.B) {
				newMap(b)
				m.Clear()
				var total Stats // over all fills, as Clear resets the map's
				b.ResetTimer()
				for i := range b.N {
					j := i % n
					if j == 0 && i > 0 {
						b.StopTimer()
						total = total.Add(m.Stats())
						m.Clear()
						b.StartTimer()
					}
					m.Put(keys[j], int64(i))
				}
				b.StopTimer()
				report(b, total.Add(m.Stats()))
			})
			fill := func(b *testing.B) {
				b.StopTimer()
				newMap(b)
				m.Clear()
				for i, k := range keys {
					m.Put(k, int64(i))
				}
				b.StartTimer()
			}
			b.Run(prefix+"/op=get", func(b *testing.B) {
				fill(b)
				before := m.Stats()
				var sink int64
				for i := range b.N {
					sink += m.Get(keys[i%n])
				}
				b.StopTimer()
				if sink < 0 {
					b.Fatal("a key was absent")
				}
				report(b, m.Stats().Sub(before))
			})
			b.Run(prefix+"/op=get-miss", func(b *testing.B) {
				fill(b)
				before := m.Stats()
				var sink int64
				for i := range b.N {
					sink += m.Get(missing[i%n])
				}
				b.StopTimer()
				if sink != -int64(b.N) {
					b.Fatal("an absent key was found")
				}
				report(b, m.Stats().Sub(before))
			})
			m = nil // free the buffer before the next hasher's
		}
	}
}

// report adds ns/key and probes/key (the mean over the timed operations).
func report(b *testing.B, s Stats) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/key")
	b.ReportMetric(s.MeanProbes(), "probes/key")
}

// BenchmarkHasher measures one digest of a 16-byte key.
func BenchmarkHasher(b *testing.B) {
	keys := benchKeys("key-%012d", 1<<16)
	for _, name := range HasherNames() {
		h := mustHasher(b, name)
		dst := make([]byte, h.Size())
		b.Run(fmt.Sprintf("hasher=%s/keybytes=16", name), func(b *testing.B) {
			b.SetBytes(16)
			for i := range b.N {
				h.Sum(dst, keys[i&(1<<16-1)])
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/key")
		})
	}
}
