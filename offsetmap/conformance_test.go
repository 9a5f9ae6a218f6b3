package offsetmap

import (
	"fmt"
	"math"
	"testing"
)

// newMapFunc builds an empty map of about memoryBytes bytes for a conformance
// run.
type newMapFunc func(t *testing.T, memoryBytes int, h Hasher) Map

// testKey is the key of record i in these tests: 16 bytes, as the golden
// facts measured with Kafka.
func testKey(i int) []byte { return fmt.Appendf(nil, "key-%012d", i) }

// runConformance checks the Map contract with every hasher: put, get,
// overwrite, fits, latest offset, size, utilisation, stats and clear. Every
// layout of Map must pass it. relative says whether the layout stores
// offsets relative to the pass's first one (and so refuses some in Fits).
func runConformance(t *testing.T, relative bool, newMap newMapFunc) {
	for _, name := range HasherNames() {
		t.Run("hasher="+name, func(t *testing.T) {
			h, err := NewHasher(name)
			if err != nil {
				t.Fatal(err)
			}
			const memory = 64 << 10
			m := newMap(t, memory, h)
			conformance(t, m, h, memory, relative)
		})
	}
}

func conformance(t *testing.T, m Map, h Hasher, memory int, relative bool) {
	t.Helper()
	if m.Hasher().Name() != h.Name() {
		t.Errorf("Hasher() = %s, want %s", m.Hasher().Name(), h.Name())
	}
	if m.MemoryBytes() != memory {
		t.Errorf("MemoryBytes() = %d, want %d", m.MemoryBytes(), memory)
	}
	checkEmpty := func(when string) {
		t.Helper()
		if m.Size() != 0 || m.LatestOffset() != -1 || m.Utilization() != 0 || m.Stats() != (Stats{}) {
			t.Errorf("%s: Size %d LatestOffset %d Utilization %v Stats %+v, want 0 -1 0 {}",
				when, m.Size(), m.LatestOffset(), m.Utilization(), m.Stats())
		}
	}
	checkEmpty("new map")
	if got := m.Get(testKey(1)); got != -1 {
		t.Errorf("Get on an empty map = %d, want -1", got)
	}
	if s := m.Stats(); s.Lookups != 1 || s.Probes != 1 {
		t.Errorf("Stats after one miss on an empty map = %+v, want {1 1}", s)
	}

	// Fill to the cleaner's cap with offsets unlike the key numbers.
	n := MaxEntries(m, DefaultLoadFactor)
	if want := int(float64(m.Slots()) * 0.9); n != want || n < 100 {
		t.Fatalf("MaxEntries = %d, want %d (slots %d)", n, want, m.Slots())
	}
	offsetOf := func(i int) int64 { return 1_000_000 + 7*int64(i) }
	for i := range n {
		m.Put(testKey(i), offsetOf(i))
		if m.LatestOffset() != offsetOf(i) {
			t.Fatalf("LatestOffset after Put %d = %d, want %d", i, m.LatestOffset(), offsetOf(i))
		}
	}
	if m.Size() != n {
		t.Errorf("Size = %d after %d puts, want %d", m.Size(), n, n)
	}
	if want := float64(n) / float64(m.Slots()); m.Utilization() != want {
		t.Errorf("Utilization = %v, want %v", m.Utilization(), want)
	}
	for i := range n {
		if got := m.Get(testKey(i)); got != offsetOf(i) {
			t.Fatalf("Get(key %d) = %d, want %d", i, got, offsetOf(i))
		}
	}
	for i := n; i < n+1000; i++ {
		if got := m.Get(testKey(i)); got != -1 {
			t.Fatalf("Get(absent key %d) = %d, want -1", i, got)
		}
	}
	s := m.Stats()
	if s.Lookups != int64(1+n+n+1000) || s.Probes < s.Lookups {
		t.Errorf("Stats = %+v, want %d lookups and at least as many probes", s, 1+2*n+1000)
	}
	if cr := s.CollisionRate(); cr != float64(s.Probes-s.Lookups)/float64(s.Lookups) || cr <= 0 {
		t.Errorf("CollisionRate = %v at load 0.9, want (probes-lookups)/lookups > 0", cr)
	}

	// Overwrite: size unchanged, new offset returned, latest offset follows
	// the put even backwards (Kafka's put sets lastOffset unconditionally).
	// The offset is above the pass's first, so that every layout takes it.
	back := offsetOf(0) + 3
	m.Put(testKey(5), back)
	if m.Size() != n || m.Get(testKey(5)) != back || m.LatestOffset() != back {
		t.Errorf("after overwrite: Size %d Get %d LatestOffset %d, want %d %d %d", m.Size(), m.Get(testKey(5)), m.LatestOffset(), n, back, back)
	}
	if m.Get(testKey(6)) != offsetOf(6) {
		t.Error("overwrite disturbed another key")
	}
	m.UpdateLatestOffset(99)
	if m.LatestOffset() != 99 {
		t.Errorf("UpdateLatestOffset(99): LatestOffset = %d", m.LatestOffset())
	}
	m.UpdateLatestOffset(math.MaxInt64)
	if m.LatestOffset() != math.MaxInt64 {
		t.Errorf("UpdateLatestOffset(MaxInt64): LatestOffset = %d", m.LatestOffset())
	}

	m.Clear()
	checkEmpty("after Clear")
	for i := range n {
		if got := m.Get(testKey(i)); got != -1 {
			t.Fatalf("after Clear: Get(key %d) = %d, want -1", i, got)
		}
	}

	// Fits: an empty map takes any offset >= 0. After a Put, Kafka's layout
	// still takes any; a relative one neither offsets below that first Put
	// (the base) nor past the span of 2^31 or more above it.
	m.Clear()
	if !m.Fits(0) || !m.Fits(math.MaxInt64) {
		t.Errorf("empty map: Fits(0) %v Fits(MaxInt64) %v, want true true", m.Fits(0), m.Fits(math.MaxInt64))
	}
	m.Put(nil, 7)
	far := int64(math.MaxInt64)
	if relative {
		far = 7 + minPassSpan
		if m.Fits(6) || m.Fits(math.MaxInt64) || m.Fits(-1) || !m.Fits(7) || !m.Fits(far) {
			t.Errorf("relative map with base 7: Fits(6) %v Fits(MaxInt64) %v Fits(-1) %v Fits(7) %v Fits(7+2^31) %v; want false false false true true",
				m.Fits(6), m.Fits(math.MaxInt64), m.Fits(-1), m.Fits(7), m.Fits(far))
		}
	} else if !m.Fits(6) || !m.Fits(math.MaxInt64) || !m.Fits(0) {
		t.Errorf("whole-offset map: Fits(6) %v Fits(MaxInt64) %v Fits(0) %v, want all true", m.Fits(6), m.Fits(math.MaxInt64), m.Fits(0))
	}
	if s := m.Stats(); s.Lookups != 1 {
		t.Errorf("Fits counted as lookups: %+v", s)
	}

	// Reuse after Clear, with extreme offsets and odd keys.
	m.Clear()
	for i, tc := range []struct {
		key    []byte
		offset int64
	}{
		// nil and empty keys are the same key. Not at offset 0: murmur3-128
		// digests the empty key to 16 zero bytes, and Skimpy then writes an
		// all-zero entry, which reads as empty (TestSkimpyZeroEntry).
		{nil, 7},
		{[]byte{0}, far},
		{make([]byte, 4096), 9},
		{testKey(0), 42},
	} {
		m.Put(tc.key, tc.offset)
		if got := m.Get(tc.key); got != tc.offset {
			t.Errorf("case %d: Get = %d, want %d", i, got, tc.offset)
		}
	}
	if got := m.Get([]byte{}); got != 7 || m.Size() != 4 || m.LatestOffset() != 42 {
		t.Errorf("Get(empty key) = %d, Size %d, LatestOffset %d; want 7 4 42", got, m.Size(), m.LatestOffset())
	}
}

func TestSkimpyConformance(t *testing.T) {
	runConformance(t, false, func(t *testing.T, memoryBytes int, h Hasher) Map {
		m, err := NewSkimpy(memoryBytes, h)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}

// TestLayoutConformance runs the suite on every layout as New builds it.
func TestLayoutConformance(t *testing.T) {
	for _, layout := range LayoutNames() {
		t.Run("map="+layout, func(t *testing.T) {
			runConformance(t, layout != LayoutSkimpy, func(t *testing.T, memoryBytes int, h Hasher) Map {
				m, err := New(layout, memoryBytes, h)
				if err != nil {
					t.Fatal(err)
				}
				return m
			})
		})
	}
}
