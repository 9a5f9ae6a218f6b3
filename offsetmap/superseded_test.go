package offsetmap

import "testing"

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
