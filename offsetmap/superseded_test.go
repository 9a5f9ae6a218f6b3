package offsetmap

import (
	"fmt"
	"testing"
)

// TestRecordSuperseded checks SupersedeRecorder on every layout against a
// sequence worked by hand: k1@100, k2@101, k1@102, k3@103, k2@104, k1@105
// overwrite the entries of 100 (by 102), 101 (by 104) and 102 (by 105).
func TestRecordSuperseded(t *testing.T) {
	for _, layout := range LayoutNames() {
		t.Run("layout="+string(layout), func(t *testing.T) {
			h, err := NewHasher(HasherXXH3_128)
			if err != nil {
				t.Fatal(err)
			}
			m, err := New(layout, 64<<10, h)
			if err != nil {
				t.Fatal(err)
			}
			r, ok := m.(SupersedeRecorder)
			if !ok {
				t.Fatalf("%s is not a SupersedeRecorder", layout)
			}
			puts := []struct {
				key    int
				offset int64
			}{{1, 100}, {2, 101}, {1, 102}, {3, 103}, {2, 104}, {1, 105}}
			put := func() {
				for _, p := range puts {
					m.Put(testKey(p.key), p.offset)
				}
			}

			// The whole pass in range.
			m.Clear()
			bits := make([]uint64, 2)
			r.RecordSuperseded(bits, 100)
			put()
			r.RecordSuperseded(nil, 0) // writes queued Puts into bits first
			if bits[0] != 0b111 || bits[1] != 0 {
				t.Errorf("bits from 100 = %#b %#b, want 0b111 0", bits[0], bits[1])
			}
			// Nothing more is recorded once stopped.
			m.Put(testKey(3), 106)
			if m.Size(); bits[0] != 0b111 {
				t.Errorf("after RecordSuperseded(nil): bits = %#b, want 0b111", bits[0])
			}

			// Only [101, 165) recorded: 100 is below the base.
			m.Clear()
			one := make([]uint64, 1)
			r.RecordSuperseded(one, 101)
			put()
			m.Size()
			if one[0] != 0b11 {
				t.Errorf("bits from 101 = %#b, want 0b11 (101 and 102)", one[0])
			}

			// Clear stops the recording.
			m.Clear()
			put()
			m.Size()
			if one[0] != 0b11 {
				t.Errorf("after Clear: bits = %#b, want 0b11", one[0])
			}
			// The verdicts are Get's: the surviving offsets are the map's.
			for k, want := range map[int]int64{1: 105, 2: 104, 3: 103} {
				if got := m.Get(testKey(k)); got != want {
					t.Errorf("Get(k%d) = %d, want %d", k, got, want)
				}
			}
		})
	}
}

// TestRecordSupersededNotDecreasing: a Put of a smaller offset over a larger
// one (only a corrupt log does it) records nothing, so a recorded offset
// always has a larger one for its key.
func TestRecordSupersededNotDecreasing(t *testing.T) {
	h, err := NewHasher(HasherMD5)
	if err != nil {
		t.Fatal(err)
	}
	m, err := New(LayoutSkimpy, 64<<10, h)
	if err != nil {
		t.Fatal(err)
	}
	bits := make([]uint64, 1)
	m.(SupersedeRecorder).RecordSuperseded(bits, 0)
	m.Put(testKey(1), 10)
	m.Put(testKey(1), 5)
	m.Put(testKey(1), 5)
	if bits[0] != 0 {
		t.Errorf("bits = %#b, want 0", bits[0])
	}
}

// TestGetConcurrentIsGet: GetConcurrent answers as Get, hits and misses,
// from several goroutines at once, with every hasher (digests shorter and
// longer than the fingerprint), and leaves the statistics alone.
func TestGetConcurrentIsGet(t *testing.T) {
	for _, name := range HasherNames() {
		t.Run("hasher="+string(name), func(t *testing.T) {
			h, err := NewHasher(name)
			if err != nil {
				t.Fatal(err)
			}
			m, err := NewBucket(1<<20, h)
			if err != nil {
				t.Fatal(err)
			}
			const n = 20000
			for i := range n {
				m.Put(testKey(i), int64(1000+i))
			}
			for i := range n / 2 {
				m.Put(testKey(2*i), int64(1000+n+i)) // overwrite the even keys
			}
			m.Size()
			before := m.Stats()
			keys := make([][]byte, 0, n+100)
			for i := range n + 100 { // the last 100 are absent
				keys = append(keys, testKey(i))
			}
			want := func(i int) int64 {
				switch {
				case i >= n:
					return -1
				case i%2 == 0:
					return int64(1000 + n + i/2)
				}
				return int64(1000 + i)
			}
			errs := make(chan string, 4)
			for g := range 4 {
				go func() {
					got := make([]int64, len(keys))
					m.GetConcurrent(keys[g:], got[g:])
					for i := g; i < len(keys); i++ {
						if got[i] != want(i) {
							errs <- fmt.Sprintf("goroutine %d: key %d: %d, want %d", g, i, got[i], want(i))
							return
						}
					}
					errs <- ""
				}()
			}
			for range 4 {
				if e := <-errs; e != "" {
					t.Error(e)
				}
			}
			if after := m.Stats(); after != before {
				t.Errorf("Stats changed from %+v to %+v", before, after)
			}
		})
	}
}
