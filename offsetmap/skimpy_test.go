package offsetmap

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"strings"
	"testing"
)

func mustHasher(t testing.TB, name string) Hasher {
	t.Helper()
	h, err := NewHasher(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustSkimpy(t testing.TB, memoryBytes int, hasher string) *Skimpy {
	t.Helper()
	m, err := NewSkimpy(memoryBytes, mustHasher(t, hasher))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSkimpyDefaults checks Kafka's default sizing: 128 MiB of md5 entries.
func TestSkimpyDefaults(t *testing.T) {
	m := mustSkimpy(t, DefaultMemoryBytes, "md5")
	if m.MemoryBytes() != 134_217_728 || m.BytesPerEntry() != 24 || m.Slots() != 5_592_405 {
		t.Errorf("MemoryBytes %d BytesPerEntry %d Slots %d, want 134217728 24 5592405",
			m.MemoryBytes(), m.BytesPerEntry(), m.Slots())
	}
	if got := MaxEntries(m, DefaultLoadFactor); got != 5_033_164 {
		t.Errorf("MaxEntries(0.9) = %d, want 5033164", got)
	}
}

func TestNewSkimpyErrors(t *testing.T) {
	md5 := mustHasher(t, "md5")
	for _, tc := range []struct {
		memory int
		h      Hasher
		want   string
	}{
		{23, md5, "holds no 24-byte entry"},
		{0, md5, "holds no"},
		{-24, md5, "holds no"},
		{MaxMemoryBytes + 1, md5, "most one Kafka cleaner thread"},
		{1024, nil, "nil hasher"},
		{1024, shortHasher{}, "at least 4 bytes"},
	} {
		_, err := NewSkimpy(tc.memory, tc.h)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewSkimpy(%d, %v) error %v, want one containing %q", tc.memory, tc.h, err, tc.want)
		}
	}
	// One slot, the remainder kept as Kafka keeps it.
	m, err := NewSkimpy(47, md5)
	if err != nil || m.Slots() != 1 || m.MemoryBytes() != 47 {
		t.Fatalf("NewSkimpy(47, md5) = slots %d, %v; want 1 slot", m.Slots(), err)
	}
	// A 4-byte digest is the shortest the probe sequence can use.
	if _, err := NewSkimpy(1024, fixedHasher{size: 4}); err != nil {
		t.Errorf("4-byte digest: %v", err)
	}
}

// shortHasher has a digest too short for the probe sequence.
type shortHasher struct{}

func (shortHasher) Name() string        { return "short" }
func (shortHasher) Size() int           { return 3 }
func (shortHasher) Sum(dst, key []byte) {}

// fixedHasher gives every key the same digest (digest[i] = i + 1), to force
// collisions, except keys listed in other, which get their own digest.
type fixedHasher struct {
	size int
}

func (f fixedHasher) Name() string { return "fixed" }
func (f fixedHasher) Size() int    { return f.size }
func (f fixedHasher) Sum(dst, key []byte) {
	for i := range f.size {
		dst[i] = byte(i + 1)
	}
	if len(key) > 0 {
		dst[f.size-1] ^= key[0]
	}
}

func TestKafkaAbs(t *testing.T) {
	for n, want := range map[int32]int32{0: 0, 5: 5, -5: 5, math.MaxInt32: math.MaxInt32, math.MinInt32: 0, math.MinInt32 + 1: math.MaxInt32} {
		if got := kafkaAbs(n); got != want {
			t.Errorf("kafkaAbs(%d) = %d, want %d", n, got, want)
		}
	}
}

// TestProbeSlotGolden checks the first probe of MD5("key-000000000000") =
// a894cc38... against Kafka's SkimpyOffsetMap, measured on this machine.
func TestProbeSlotGolden(t *testing.T) {
	digest, _ := hex.DecodeString("a894cc381330a35a6418edcb50f07ebd")
	for slots, want := range map[int]int{5_592_405: 1_433_290, 1_111_112: 1_086_672} {
		if got := probeSlot(digest, 0, slots); got != want {
			t.Errorf("probeSlot(attempt 0, %d slots) = %d, want %d", slots, got, want)
		}
	}
	// The map itself puts the key there.
	m := mustSkimpy(t, 1_111_112*24, "md5")
	m.Put(testKey(0), 0x0102030405060708)
	pos := 1_086_672 * 24
	want := append(digest, 1, 2, 3, 4, 5, 6, 7, 8)
	if got := m.Buffer()[pos : pos+24]; !bytes.Equal(got, want) {
		t.Errorf("slot 1086672 = %x, want %x", got, want)
	}
}

// TestProbeSequence checks the windows, the switch to linear probing and the
// int32 overflow of Kafka's positionOf.
func TestProbeSequence(t *testing.T) {
	// md5-sized digest: windows at bytes 0..12, then linear from window 12.
	digest := []byte{
		0x00, 0x00, 0x00, 0x01, 0x02, 0x03, 0x04, 0x05,
		0x06, 0x07, 0x08, 0x09, 0x7f, 0xff, 0xff, 0xff,
	}
	const slots = 1000
	be := func(i int) int { return int(binary.BigEndian.Uint32(digest[i:])) % slots }
	want := []int{}
	for a := 0; a <= 12; a++ {
		want = append(want, be(a))
	}
	// Attempt 13: MaxInt32 + 1 wraps to MinInt32, whose abs is 0; then
	// MinInt32 + 1 -> MaxInt32, MinInt32 + 2 -> MaxInt32 - 1: linear probing
	// turns back after the overflow, as in Kafka.
	want = append(want, 0, math.MaxInt32%slots, (math.MaxInt32-1)%slots)
	for a, w := range want {
		if got := probeSlot(digest, a, slots); got != w {
			t.Errorf("attempt %d: slot %d, want %d", a, got, w)
		}
	}
	if want[12] != math.MaxInt32%slots {
		t.Fatalf("window 12 = %d", want[12])
	}
	// A negative window is made positive: 0x80000001 -> abs(MinInt32 + 1).
	neg := []byte{0x80, 0x00, 0x00, 0x01}
	if got := probeSlot(neg, 0, slots); got != math.MaxInt32%slots {
		t.Errorf("negative window: slot %d, want %d", got, math.MaxInt32%slots)
	}
	// A 4-byte digest goes linear from attempt 1.
	small := []byte{0, 0, 0, 10}
	for a := range 5 {
		if got := probeSlot(small, a, 12); got != (10+a)%12 {
			t.Errorf("4-byte digest attempt %d: slot %d, want %d", a, got, (10+a)%12)
		}
	}
}

// TestSkimpyGoldenMillion puts the 1,000,000 keys key-%012d with offset i into
// a 128 MiB md5 map and compares the whole buffer with Kafka's, measured on
// this machine: the same SHA-256 and the same 1.1019 probes per put.
func TestSkimpyGoldenMillion(t *testing.T) {
	m := mustSkimpy(t, DefaultMemoryBytes, "md5")
	const n = 1_000_000
	key := make([]byte, 0, 16)
	for i := range n {
		key = fmt.Appendf(key[:0], "key-%012d", i)
		m.Put(key, int64(i))
	}
	s := m.Stats()
	if got := fmt.Sprintf("%.4f", s.MeanProbes()); s.Lookups != n || got != "1.1019" {
		t.Errorf("%d lookups, %s probes per put; want %d, 1.1019", s.Lookups, got, n)
	}
	sum := sha256.Sum256(m.Buffer())
	if got := hex.EncodeToString(sum[:]); got != "5a0bb91969090283f2feb46082a3dd8c69fbab9b5669ec456cd60c955d4c4fe8" {
		t.Errorf("buffer SHA-256 = %s, want Kafka's 5a0bb919...", got)
	}
	if m.Size() != n || m.LatestOffset() != n-1 {
		t.Errorf("Size %d LatestOffset %d, want %d %d", m.Size(), m.LatestOffset(), n, n-1)
	}
	for i := 0; i < n; i += 997 {
		key = fmt.Appendf(key[:0], "key-%012d", i)
		if got := m.Get(key); got != int64(i) {
			t.Fatalf("Get(key %d) = %d", i, got)
		}
	}
	m.Clear()
	if !bytes.Equal(m.Buffer()[:1<<20], make([]byte, 1<<20)) || m.Size() != 0 || m.Stats() != (Stats{}) {
		t.Error("Clear left entries or stats")
	}
}

// TestSkimpyFull fills every slot, then checks that Get of an absent key ends
// after exactly slots + digest size - 4 probes with -1, and that Put panics as
// Kafka's put throws.
func TestSkimpyFull(t *testing.T) {
	for _, name := range HasherNames() {
		t.Run("hasher="+name, func(t *testing.T) {
			h := mustHasher(t, name)
			const slots = 1000
			m := mustSkimpy(t, slots*(h.Size()+8)+3, name)
			if m.Slots() != slots {
				t.Fatalf("Slots = %d", m.Slots())
			}
			for i := range slots {
				m.Put(testKey(i), int64(i))
			}
			if m.Size() != slots || m.Utilization() != 1 {
				t.Fatalf("Size %d Utilization %v, want %d 1", m.Size(), m.Utilization(), slots)
			}
			before := m.Stats()
			if got := m.Get(testKey(slots)); got != -1 {
				t.Errorf("Get(absent) on a full map = %d, want -1", got)
			}
			after := m.Stats()
			if probes, want := after.Probes-before.Probes, int64(slots+h.Size()-4); probes != want || after.Lookups != before.Lookups+1 {
				t.Errorf("Get(absent) on a full map: %d probes, want %d", probes, want)
			}
			for i := range slots {
				if got := m.Get(testKey(i)); got != int64(i) {
					t.Fatalf("Get(key %d) = %d on a full map", i, got)
				}
			}
			for _, k := range []int{slots, 0} { // absent, then present: both panic
				func() {
					defer func() {
						r := recover()
						if r == nil || !strings.Contains(fmt.Sprint(r), "full offset map, entries: 1000, slots: 1000") {
							t.Errorf("Put(key %d) on a full map: recover() = %v", k, r)
						}
					}()
					m.Put(testKey(k), 1)
				}()
			}
		})
	}
}

// TestSkimpyTiny uses a two-slot md5 map (48 bytes).
func TestSkimpyTiny(t *testing.T) {
	m := mustSkimpy(t, 48, "md5")
	if m.Slots() != 2 {
		t.Fatalf("Slots = %d", m.Slots())
	}
	m.Put([]byte("a"), 10)
	m.Put([]byte("a"), 30) // overwrite while not full
	m.Put([]byte("b"), 20) // now full: no further Put, not even an overwrite
	if m.Get([]byte("a")) != 30 || m.Get([]byte("b")) != 20 || m.Size() != 2 || m.LatestOffset() != 20 {
		t.Errorf("Get a %d b %d Size %d LatestOffset %d, want 30 20 2 20",
			m.Get([]byte("a")), m.Get([]byte("b")), m.Size(), m.LatestOffset())
	}
	before := m.Stats()
	if got := m.Get([]byte("c")); got != -1 {
		t.Errorf("Get(c) = %d", got)
	}
	if p := m.Stats().Probes - before.Probes; p != 2+16-4 {
		t.Errorf("miss on a full 2-slot map took %d probes, want 14", p)
	}
	// Both entries are in the buffer as digest then big-endian offset.
	h := mustHasher(t, "md5")
	for key, off := range map[string]uint64{"a": 30, "b": 20} {
		d := make([]byte, 16)
		h.Sum(d, []byte(key))
		i := bytes.Index(m.Buffer(), d)
		if i < 0 || i%24 != 0 || binary.BigEndian.Uint64(m.Buffer()[i+16:]) != off {
			t.Errorf("entry for %q not found at a slot boundary with offset %d (index %d)", key, off, i)
		}
	}
	m.Clear()
	if m.Get([]byte("a")) != -1 || m.Size() != 0 {
		t.Error("Clear")
	}
}

// TestSkimpyCollisions forces every key onto the same probe sequence and
// checks overwrite, lookup and stats along it.
func TestSkimpyCollisions(t *testing.T) {
	m, err := NewSkimpy(100*24, fixedHasher{size: 16})
	if err != nil {
		t.Fatal(err)
	}
	// Keys 'a'..'j' differ only in the last digest byte, so they share
	// windows 0..11 and differ from window 12 on.
	for i := range 10 {
		m.Put([]byte{'a' + byte(i)}, int64(i))
	}
	for i := range 10 {
		if got := m.Get([]byte{'a' + byte(i)}); got != int64(i) {
			t.Errorf("Get(%c) = %d, want %d", 'a'+i, got, i)
		}
	}
	if m.Stats().CollisionRate() <= 0 {
		t.Errorf("CollisionRate = %v with forced collisions", m.Stats().CollisionRate())
	}
	// The same digest is the same key, as in Kafka.
	m.Put([]byte{'a', 'z'}, 77)
	if m.Get([]byte{'a'}) != 77 || m.Size() != 10 {
		t.Errorf("equal digests: Get %d Size %d, want 77 10", m.Get([]byte{'a'}), m.Size())
	}
}

func TestSkimpyEmptyBytes(t *testing.T) {
	for name, want := range map[string]int{"md5": 24, "xxh3-128": 24, "sha1": 24, "sha256": 24, "xxh3-64": 16} {
		if got := mustSkimpy(t, 1024, name).emptyBytes; got != want {
			t.Errorf("%s: isEmpty tests %d bytes, want %d", name, got, want)
		}
	}
}

// zeroHasher gives every key the all-zero digest of size bytes.
type zeroHasher struct{ size int }

func (z zeroHasher) Name() string        { return "zero" }
func (z zeroHasher) Size() int           { return z.size }
func (z zeroHasher) Sum(dst, key []byte) { clear(dst[:z.size]) }

// TestSkimpyShortEntries checks the emptiness test on entries shorter than 24
// bytes and not a multiple of 8: an all-zero digest with a nonzero offset
// occupies its slot. (With 24 bytes or more the digest and offset can both be
// zero and the slot reads as empty, as in Kafka.)
func TestSkimpyShortEntries(t *testing.T) {
	for _, size := range []int{4, 5, 8, 12} {
		m, err := NewSkimpy(10*(size+8), zeroHasher{size: size})
		if err != nil {
			t.Fatal(err)
		}
		m.Put([]byte("a"), 5)
		m.Put([]byte("b"), 6) // the same digest: an overwrite
		if m.Size() != 1 || m.Get([]byte("c")) != 6 {
			t.Errorf("digest size %d: Size %d Get %d, want 1 6", size, m.Size(), m.Get([]byte("c")))
		}
	}
}

func TestSkimpyNoAllocs(t *testing.T) {
	for _, name := range HasherNames() {
		m := mustSkimpy(t, 1<<20, name)
		key := testKey(7)
		absent := testKey(8)
		var off int64
		if a := testing.AllocsPerRun(1000, func() { off++; m.Put(key, off) }); a != 0 {
			t.Errorf("%s: Put allocates %v times", name, a)
		}
		if a := testing.AllocsPerRun(1000, func() { m.Get(key); m.Get(absent) }); a != 0 {
			t.Errorf("%s: Get allocates %v times", name, a)
		}
	}
}

func TestStats(t *testing.T) {
	if (Stats{}).CollisionRate() != 0 || (Stats{}).MeanProbes() != 0 {
		t.Error("zero Stats")
	}
	s := Stats{Lookups: 4, Probes: 5}
	if s.CollisionRate() != 0.25 || s.MeanProbes() != 1.25 {
		t.Errorf("CollisionRate %v MeanProbes %v, want 0.25 1.25", s.CollisionRate(), s.MeanProbes())
	}
	if got := s.Add(Stats{1, 2}); got != (Stats{5, 7}) {
		t.Errorf("Add = %+v, want {5 7}", got)
	}
	if got := s.Sub(Stats{1, 2}); got != (Stats{3, 3}) {
		t.Errorf("Sub = %+v, want {3 3}", got)
	}
}

// TestSkimpyZeroEntry shows a limit of Kafka's emptiness test with a hasher
// whose digest can be zero: MurmurHash3 x64_128 with seed 0 digests the empty
// key to 16 zero bytes (every step of the algorithm maps zero to zero), so
// Put(empty key, 0) writes a 24-byte entry of zeros, which isEmpty reads as a
// free slot: the key is lost, as it would be in Kafka's SkimpyOffsetMap. The
// cleaner then keeps every record of that key (Get says -1), which is safe.
func TestSkimpyZeroEntry(t *testing.T) {
	m := mustSkimpy(t, 1024, "murmur3-128")
	m.Put(nil, 0)
	if got := m.Get(nil); got != -1 || m.Size() != 1 {
		t.Errorf("Get(empty key) after Put at offset 0 = %d, Size %d; want -1 (lost), 1", got, m.Size())
	}
	m.Put(nil, 1) // a nonzero offset makes the entry visible
	if got := m.Get(nil); got != 1 {
		t.Errorf("Get(empty key) after Put at offset 1 = %d, want 1", got)
	}
}
