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
// overwrite, latest offset, size, utilisation, stats and clear. Every layout
// of Map must pass it.
func runConformance(t *testing.T, newMap newMapFunc) {
	for _, name := range HasherNames() {
		t.Run("hasher="+name, func(t *testing.T) {
			h, err := NewHasher(name)
			if err != nil {
				t.Fatal(err)
			}
			const memory = 64 << 10
			m := newMap(t, memory, h)
			conformance(t, m, h, memory)
		})
	}
}

func conformance(t *testing.T, m Map, h Hasher, memory int) {
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
	m.Put(testKey(5), 3)
	if m.Size() != n || m.Get(testKey(5)) != 3 || m.LatestOffset() != 3 {
		t.Errorf("after overwrite: Size %d Get %d LatestOffset %d, want %d 3 3", m.Size(), m.Get(testKey(5)), m.LatestOffset(), n)
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

	// Reuse after Clear, with extreme offsets and odd keys.
	m.Clear()
	for i, tc := range []struct {
		key    []byte
		offset int64
	}{
		{nil, 0}, // nil and empty keys are the same key
		{[]byte{0}, math.MaxInt64},
		{make([]byte, 4096), 1},
		{testKey(0), 42},
	} {
		m.Put(tc.key, tc.offset)
		if got := m.Get(tc.key); got != tc.offset {
			t.Errorf("case %d: Get = %d, want %d", i, got, tc.offset)
		}
	}
	if got := m.Get([]byte{}); got != 0 || m.Size() != 4 || m.LatestOffset() != 42 {
		t.Errorf("Get(empty key) = %d, Size %d, LatestOffset %d; want 0 4 42", got, m.Size(), m.LatestOffset())
	}
}

func TestSkimpyConformance(t *testing.T) {
	runConformance(t, func(t *testing.T, memoryBytes int, h Hasher) Map {
		m, err := NewSkimpy(memoryBytes, h)
		if err != nil {
			t.Fatal(err)
		}
		return m
	})
}
