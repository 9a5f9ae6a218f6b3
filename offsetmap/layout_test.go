package offsetmap

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strings"
	"testing"
)

func mustNew(t testing.TB, layout string, memoryBytes int, hasher string) Map {
	t.Helper()
	m, err := New(layout, memoryBytes, mustHasher(t, hasher))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// table returns a map's table bytes, for byte-level checks.
func table(m Map) []byte {
	switch m := m.(type) {
	case *Skimpy:
		return m.Buffer()
	case *Dense:
		return m.buf
	case *Bucket:
		m.flush() // the table as the pending Puts leave it
		return m.tab
	}
	panic(fmt.Sprintf("no table for %T", m))
}

// scaled is floor(f1 * n / 2^64), the home slot or bucket computed
// independently of bits.Mul64.
func scaled(f1 uint64, n int) int {
	p := new(big.Int).Mul(new(big.Int).SetUint64(f1), big.NewInt(int64(n)))
	return int(p.Rsh(p, 64).Int64())
}

// TestDenseGoldenEntries places md5("key-000000000000") =
// a894cc381330a35a6418edcb50f07ebd in each dense layout and checks the bytes
// by hand: f1 = 0xa894cc381330a35a and f2 = 0x6418edcb, written
// little-endian, then the stamp (1 for the pass's first offset, 6 for
// base + 5).
func TestDenseGoldenEntries(t *testing.T) {
	const f1 = 0xa894cc381330a35a
	const mib = 1 << 20
	for _, tc := range []struct {
		layout    string
		slots     int
		home      int // slot, or bucket for bucket16
		entry     string
		entryAt   func(tab []byte, home int) []byte
		stamp6At  func(tab []byte, home int) []byte
		wantStamp string
	}{
		{
			// 2^16 slots: the home slot is f1's top 16 bits, 0xa894.
			layout: LayoutDense16, slots: mib / 16, home: 0xa894,
			entry:   "5aa3301338cc94a8" + "cbed1864" + "01000000",
			entryAt: func(tab []byte, s int) []byte { return tab[s*16 : s*16+16] },
		},
		{
			layout: LayoutDense12, slots: mib / 12, home: scaled(f1, mib/12),
			entry:   "5aa3301338cc94a8" + "01000000",
			entryAt: func(tab []byte, s int) []byte { return tab[s*12 : s*12+12] },
		},
		{
			// 2^14 buckets: the home bucket is f1's top 14 bits,
			// 0xa894 >> 2; the key takes slot 0 of it.
			layout: LayoutBucket16, slots: mib / 16, home: 0xa894 >> 2,
			entry: "5aa3301338cc94a8" + "cbed1864" + "01000000",
			entryAt: func(tab []byte, b int) []byte {
				e := tab[b*64 : b*64+64]
				return append(append(append([]byte(nil), e[0:8]...), e[32:36]...), e[48:52]...)
			},
		},
	} {
		t.Run("map="+tc.layout, func(t *testing.T) {
			m := mustNew(t, tc.layout, mib, "md5")
			if m.Slots() != tc.slots {
				t.Fatalf("Slots = %d, want %d", m.Slots(), tc.slots)
			}
			m.Put(testKey(0), 1000)
			if got := hex.EncodeToString(tc.entryAt(table(m), tc.home)); got != tc.entry {
				t.Errorf("entry at %d = %s, want %s", tc.home, got, tc.entry)
			}
			m.Put(testKey(0), 1005)
			want := tc.entry[:len(tc.entry)-8] + "06000000"
			if got := hex.EncodeToString(tc.entryAt(table(m), tc.home)); got != want || m.Get(testKey(0)) != 1005 {
				t.Errorf("after Put at base+5: entry %s Get %d, want %s 1005", got, m.Get(testKey(0)), want)
			}
			// Nothing else was written.
			nonzero := 0
			for _, c := range table(m) {
				if c != 0 {
					nonzero++
				}
			}
			if nonzero > len(want)/2 {
				t.Errorf("%d nonzero bytes in the table, want at most %d", nonzero, len(want)/2)
			}
		})
	}
}

// TestFingerprintCollision gives two keys digests that differ only in their
// last byte, past the 96- and 64-bit fingerprints: the dense layouts take
// them for one key, as the risk figure says (Skimpy, which compares the whole
// digest, keeps them apart: TestSkimpyCollisions).
func TestFingerprintCollision(t *testing.T) {
	for _, layout := range []string{LayoutDense16, LayoutDense12, LayoutBucket16} {
		m, err := New(layout, 4096, fixedHasher{size: 16})
		if err != nil {
			t.Fatal(err)
		}
		m.Put([]byte("a"), 5)
		m.Put([]byte("b"), 9)
		if m.Get([]byte("a")) != 9 || m.Size() != 1 {
			t.Errorf("%s: Get(a) = %d, Size %d; want 9 1 (a and b share a fingerprint)", layout, m.Get([]byte("a")), m.Size())
		}
		info, _ := Describe(layout, fixedHasher{size: 16})
		if info.FingerprintBits >= 128 {
			t.Errorf("%s: FingerprintBits %d, want below the digest's 128", layout, info.FingerprintBits)
		}
	}
	s, _ := NewSkimpy(4096, fixedHasher{size: 16})
	s.Put([]byte("a"), 5)
	s.Put([]byte("b"), 9)
	if s.Get([]byte("a")) != 5 || s.Size() != 2 {
		t.Errorf("skimpy: Get(a) = %d, Size %d; want 5 2", s.Get([]byte("a")), s.Size())
	}
}

// TestCollisionsWithinProbePath forces every key onto one home slot (a
// digest whose first 8 bytes are constant) and checks lookups along the
// probe path, across slots and buckets.
func TestCollisionsWithinProbePath(t *testing.T) {
	for _, layout := range []string{LayoutDense16, LayoutBucket16} {
		// A 12-byte fixedHasher digest varies in byte 11 only: one f1 (so one
		// home), distinct f2.
		m, err := New(layout, 64*16, fixedHasher{size: 12}) // 64 slots
		if err != nil {
			t.Fatal(err)
		}
		for i := range 40 {
			m.Put([]byte{byte(i)}, int64(100+i))
		}
		for i := range 40 {
			if got := m.Get([]byte{byte(i)}); got != int64(100+i) {
				t.Errorf("%s: Get(%d) = %d, want %d", layout, i, got, 100+i)
			}
		}
		if got := m.Get([]byte{200}); got != -1 {
			t.Errorf("%s: Get(absent) = %d", layout, got)
		}
		if m.Stats().CollisionRate() <= 1 {
			t.Errorf("%s: CollisionRate %v with every key on one home", layout, m.Stats().CollisionRate())
		}
	}
}

// TestDenseClearIsConstant checks that Clear leaves the table's bytes alone
// (so costs nothing per slot) while every earlier entry reads as absent,
// across several passes, and that it zero-fills once the stamps run out.
func TestDenseClearIsConstant(t *testing.T) {
	for _, layout := range []string{LayoutDense16, LayoutDense12, LayoutBucket16} {
		t.Run("map="+layout, func(t *testing.T) {
			m := mustNew(t, layout, 64<<10, "xxh3-128")
			n := MaxEntries(m, DefaultLoadFactor)
			base := int64(0)
			for pass := range 5 {
				for i := range n {
					m.Put(testKey(pass*n+i), base+int64(i))
				}
				for i := range n {
					if got := m.Get(testKey(pass*n + i)); got != base+int64(i) {
						t.Fatalf("pass %d: Get(key %d) = %d, want %d", pass, pass*n+i, got, base+int64(i))
					}
				}
				before := bytes.Clone(table(m))
				m.Clear()
				if !bytes.Equal(before, table(m)) {
					t.Fatalf("pass %d: Clear wrote to the table", pass)
				}
				for i := range n {
					if got := m.Get(testKey(pass*n + i)); got != -1 {
						t.Fatalf("after Clear of pass %d: Get(key %d) = %d, want -1", pass, pass*n+i, got)
					}
				}
				m.Clear()
				base += 10 * int64(n)
			}
			// A pass whose offsets span nearly 2^32 uses up the stamps: the
			// next Clear zero-fills.
			m.Put(testKey(0), 5)
			// Five passes of n stamps each: lo = 1 + 5n, so the last
			// stamp, MaxUint32, stands for 5 + MaxUint32 - 1 - 5n.
			far := int64(5 + math.MaxUint32 - 1 - 5*int64(n))
			if !m.Fits(far) || m.Fits(far+1) {
				t.Fatalf("Fits(%d) %v Fits(+1) %v, want true false", far, m.Fits(far), m.Fits(far+1))
			}
			m.Put(testKey(1), far)
			if m.Get(testKey(1)) != far || m.Get(testKey(0)) != 5 {
				t.Errorf("Get = %d %d, want %d 5", m.Get(testKey(1)), m.Get(testKey(0)), far)
			}
			m.Clear()
			if !bytes.Equal(table(m), make([]byte, len(table(m)))) {
				t.Error("Clear after the stamps ran out did not zero-fill the table")
			}
			m.Put(testKey(2), 77)
			if m.Get(testKey(2)) != 77 || m.Get(testKey(1)) != -1 {
				t.Error("map unusable after the zero-fill")
			}
		})
	}
}

// TestDenseFull fills every slot: Get of an absent key ends with -1 after
// reading every slot (dense) or bucket (bucket16) once, and Put panics.
func TestDenseFull(t *testing.T) {
	for _, tc := range []struct {
		layout      string
		memory      int
		slots       int
		probesAbsnt int64
	}{
		{LayoutDense16, 100*16 + 3, 100, 100},
		{LayoutDense12, 100*12 + 11, 100, 100},
		{LayoutBucket16, 26 * 64, -1, -1}, // slots depend on the buffer's alignment
	} {
		t.Run("map="+tc.layout, func(t *testing.T) {
			m := mustNew(t, tc.layout, tc.memory, "xxh3-128")
			slots := m.Slots()
			if tc.slots >= 0 && slots != tc.slots {
				t.Fatalf("Slots = %d, want %d", slots, tc.slots)
			}
			if b, ok := m.(*Bucket); ok {
				if slots < 100 || slots != 4*int(b.buckets) {
					t.Fatalf("bucket map: Slots %d, buckets %d", slots, b.buckets)
				}
				tc.probesAbsnt = int64(b.buckets)
			}
			for i := range slots {
				m.Put(testKey(i), int64(i))
			}
			before := m.Stats()
			if got := m.Get(testKey(slots)); got != -1 {
				t.Errorf("Get(absent) on a full map = %d", got)
			}
			if p := m.Stats().Probes - before.Probes; p != tc.probesAbsnt {
				t.Errorf("Get(absent) on a full map: %d probes, want %d", p, tc.probesAbsnt)
			}
			for i := range slots {
				if got := m.Get(testKey(i)); got != int64(i) {
					t.Fatalf("Get(key %d) = %d on a full map", i, got)
				}
			}
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "full offset map") {
					t.Errorf("Put on a full map: recover() = %v", r)
				}
			}()
			m.Put(testKey(0), 1)
		})
	}
}

func TestPutUnfitPanics(t *testing.T) {
	for _, layout := range []string{LayoutDense16, LayoutDense12, LayoutBucket16} {
		m := mustNew(t, layout, 4096, "md5")
		m.Put(testKey(0), 1000)
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "does not fit") {
					t.Errorf("%s: Put below the base: recover() = %v", layout, r)
				}
			}()
			m.Put(testKey(1), 999)
		}()
		if m.Size() != 1 || m.Get(testKey(1)) != -1 {
			t.Errorf("%s: a refused Put changed the map", layout)
		}
	}
}

func TestNewLayouts(t *testing.T) {
	md5 := mustHasher(t, "md5")
	for name, want := range map[string]string{"": "*offsetmap.Skimpy", "skimpy": "*offsetmap.Skimpy", "SKIMPY": "*offsetmap.Skimpy",
		"dense16": "*offsetmap.Dense", "Dense12": "*offsetmap.Dense", "bucket16": "*offsetmap.Bucket"} {
		m, err := New(name, 1<<16, md5)
		if err != nil || fmt.Sprintf("%T", m) != want {
			t.Errorf("New(%q) = %T, %v; want %s", name, m, err, want)
		}
	}
	_, err := New("cuckoo", 1<<16, md5)
	if err == nil {
		t.Fatal("New(cuckoo) succeeded")
	}
	for _, name := range LayoutNames() {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("error %q does not list %s", err, name)
		}
	}
	for _, tc := range []struct {
		layout string
		memory int
		want   string
	}{
		{"dense16", 15, "holds no 16-byte entry"},
		{"dense12", 11, "holds no 12-byte entry"},
		{"bucket16", 63, "holds no 64-byte bucket"},
		{"dense12", MaxMemoryBytes + 1, "is over"},
		{"bucket16", MaxMemoryBytes + 1, "is over"},
	} {
		if _, err := New(tc.layout, tc.memory, md5); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%s, %d): %v, want an error containing %q", tc.layout, tc.memory, err, tc.want)
		}
	}
	for _, layout := range []string{"dense16", "dense12", "bucket16"} {
		if _, err := New(layout, 1<<16, nil); err == nil {
			t.Errorf("New(%s, nil hasher) succeeded", layout)
		}
	}
	if _, err := NewDense(1<<16, 20, md5); err == nil {
		t.Error("NewDense with 20-byte entries succeeded")
	}
	if names := LayoutNames(); names[0] != LayoutSkimpy || len(names) != 4 {
		t.Errorf("LayoutNames() = %v", names)
	}
}

// TestDescribe checks sizes and fingerprint widths against the layouts'
// definitions and Kafka's figures for 128 MiB.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		layout, hasher string
		entryBytes     int
		bits           int
		relative       bool
		maxKeys        int // in 128 MiB at load factor 0.9
	}{
		// Kafka: 5,592,405 slots, 5,033,164 keys per pass.
		{"skimpy", "md5", 24, 128, false, 5_033_164},
		{"skimpy", "sha256", 40, 256, false, 3_019_898},   // 3,355,443 slots
		{"skimpy", "xxh3-64", 16, 64, false, 7_549_747},   // 8,388,608 slots
		{"dense16", "md5", 16, 96, true, 7_549_747},       // 2^23 slots
		{"dense16", "xxh3-64", 16, 64, true, 7_549_747},   // an 8-byte digest gives 64 bits
		{"bucket16", "sha1", 16, 96, true, 7_549_747},     // 2^21 buckets of 4
		{"dense12", "sha256", 12, 64, true, 10_066_329},   // 11,184,810 slots
		{"dense12", "fnv1a-64", 12, 64, true, 10_066_329}, // 11,184,810 slots
	} {
		h := mustHasher(t, tc.hasher)
		info, err := Describe(tc.layout, h)
		if err != nil {
			t.Fatal(err)
		}
		if info.EntryBytes != tc.entryBytes || info.FingerprintBits != tc.bits || info.RelativeOffsets != tc.relative ||
			info.ClearIsConstant != tc.relative || info.Layout != tc.layout || info.Hasher != tc.hasher {
			t.Errorf("Describe(%s, %s) = %+v", tc.layout, tc.hasher, info)
		}
		if got := info.MaxKeys(DefaultMemoryBytes, DefaultLoadFactor); got != tc.maxKeys {
			t.Errorf("%s/%s: MaxKeys(128 MiB, 0.9) = %d, want %d", tc.layout, tc.hasher, got, tc.maxKeys)
		}
		if want := 1048576 / float64(tc.entryBytes); info.KeysPerMiB() != want {
			t.Errorf("%s/%s: KeysPerMiB = %v, want %v", tc.layout, tc.hasher, info.KeysPerMiB(), want)
		}
		// The map itself agrees.
		m := mustNew(t, tc.layout, DefaultMemoryBytes, tc.hasher)
		if got := MaxEntries(m, DefaultLoadFactor); got != tc.maxKeys {
			t.Errorf("%s/%s: the map's MaxEntries = %d, want %d", tc.layout, tc.hasher, got, tc.maxKeys)
		}
	}
	if _, err := Describe("cuckoo", mustHasher(t, "md5")); err == nil {
		t.Error("Describe(cuckoo) succeeded")
	}
	if info, _ := Describe("", mustHasher(t, "md5")); info.Layout != "skimpy" {
		t.Errorf("Describe(\"\") names %q", info.Layout)
	}
}

// TestCollisionProbability checks the birthday figure against values worked
// by hand: p = 1 - exp(-x) with x = n(n-1)/2^(b+1), which is x - x^2/2 + ...
// for small x.
func TestCollisionProbability(t *testing.T) {
	near := func(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }
	for _, tc := range []struct {
		n    int64
		b    int
		want float64
	}{
		// Two keys, 64 bits: one pair, probability 2^-64.
		{2, 64, 0x1p-64},
		// 10M keys, 96 bits: x = 49,999,995,000,000 / 2^96.
		{10_000_000, 96, 49_999_995_000_000 / 0x1p96},
		// 10M keys, 64 bits: x = 2.7105051e-6; p = x - x^2/2.
		{10_000_000, 64, 49_999_995_000_000/0x1p64 - math.Pow(49_999_995_000_000/0x1p64, 2)/2},
		// Kafka's full default pass with md5: 5,033,164 keys, 128 bits.
		{5_033_164, 128, 5_033_164.0 * 5_033_163 / 2 / 0x1p128},
		// 2^33 keys of 64 bits: x = 2^33(2^33-1)/2^65 ~ 2, p = 1 - e^-2.
		{1 << 33, 64, 1 - math.Exp(-float64(1<<33)*float64(1<<33-1)/0x1p65)},
	} {
		if got := CollisionProbability(tc.n, tc.b); !near(got, tc.want, 1e-9) {
			t.Errorf("CollisionProbability(%d, %d) = %g, want %g", tc.n, tc.b, got, tc.want)
		}
	}
	// The exact birthday probability for 20 keys of 16 bits agrees to 1e-3.
	exact := 1.0
	for i := range 20 {
		exact *= 1 - float64(i)/65536
	}
	if got := CollisionProbability(20, 16); !near(got, 1-exact, 1e-3) {
		t.Errorf("CollisionProbability(20, 16) = %g, exact %g", got, 1-exact)
	}
	if CollisionProbability(1, 8) != 0 || CollisionProbability(0, 8) != 0 || CollisionProbability(5, 0) != 1 {
		t.Error("edge cases")
	}
	// The goal: below 1e-12 for 10M keys with 16-byte entries, not
	// with 12-byte ones.
	d16, _ := Describe("bucket16", mustHasher(t, "xxh3-128"))
	d12, _ := Describe("dense12", mustHasher(t, "xxh3-128"))
	if d16.CollisionProbability(10_000_000) >= 1e-12 || d12.CollisionProbability(10_000_000) < 1e-6 {
		t.Errorf("10M keys: bucket16 %g, dense12 %g", d16.CollisionProbability(10_000_000), d12.CollisionProbability(10_000_000))
	}
}

func TestLayoutsNoAllocs(t *testing.T) {
	for _, layout := range LayoutNames() {
		for _, name := range HasherNames() {
			m := mustNew(t, layout, 1<<20, name)
			key, absent := testKey(7), testKey(8)
			var off int64
			if a := testing.AllocsPerRun(1000, func() { off++; m.Put(key, off) }); a != 0 {
				t.Errorf("%s/%s: Put allocates %v times", layout, name, a)
			}
			if a := testing.AllocsPerRun(1000, func() { m.Get(key); m.Get(absent); m.Fits(off) }); a != 0 {
				t.Errorf("%s/%s: Get allocates %v times", layout, name, a)
			}
			if a := testing.AllocsPerRun(100, func() { m.Clear() }); a != 0 {
				t.Errorf("%s/%s: Clear allocates %v times", layout, name, a)
			}
		}
	}
}

// TestBucketPrefix checks that the slots in use of a bucket stay a prefix
// across passes (Put fills the first free one; Clear frees them all).
func TestBucketPrefix(t *testing.T) {
	m, err := NewBucket(64, fixedHasher{size: 12})
	if err != nil || m.Slots() != 4 {
		t.Skipf("one-bucket map not aligned here: %v", err)
	}
	for pass := range 3 {
		for i := range 3 - pass {
			m.Put([]byte{byte(i)}, int64(10*pass+i))
		}
		m.flush()
		used, _ := scan(m.tab, fingerprint{}, m.w.lo)
		if want := uint32(1)<<(3-pass) - 1; used != want {
			t.Errorf("pass %d: used mask %04b, want %04b", pass, used, want)
		}
		for i := range 3 - pass {
			if got := binary.LittleEndian.Uint32(m.tab[bucketStamp+4*i:]); m.w.offset(got) != int64(10*pass+i) {
				t.Errorf("pass %d slot %d: stamp %d", pass, i, got)
			}
		}
		m.Clear()
	}
}

// TestBucketBatchEqualsOneByOne puts and gets the same keys with PutBatch and
// GetBatch on one map, with Put and Get on another, and with
// PutFingerprints on a third, its keys hashed by FingerprintKeys on
// another goroutine while it puts (as the cleaner's ParallelMapBuild):
// tables, results and statistics must be identical, with batches that end
// mid-group and keys repeated within a batch (the later offset wins, as
// with Put in order).
func TestBucketBatchEqualsOneByOne(t *testing.T) {
	for _, hasher := range []string{"md5", "xxh3-128", "xxh3-64"} {
		a := mustNew(t, LayoutBucket16, 1<<16, hasher).(*Bucket)
		b := mustNew(t, LayoutBucket16, 1<<16, hasher).(*Bucket)
		c := mustNew(t, LayoutBucket16, 1<<16, hasher).(*Bucket)
		var keys [][]byte
		var offsets []int64
		for i := range 3000 {
			keys = append(keys, testKey(i*7%2000)) // 1,000 keys twice or more
			offsets = append(offsets, int64(500+i))
		}
		type hashed struct {
			fps          []Fingerprint
			start, count int
		}
		batches := make(chan hashed, 4)
		go func() {
			defer close(batches)
			for start := 0; start < len(keys); {
				n := min(37+start%5, len(keys)-start)
				fps := make([]Fingerprint, n)
				c.FingerprintKeys(keys[start:start+n], fps)
				batches <- hashed{fps, start, n}
				start += n
			}
		}()
		for start := 0; start < len(keys); {
			n := min(37+start%5, len(keys)-start)
			a.PutBatch(keys[start:start+n], offsets[start:start+n])
			for i := start; i < start+n; i++ {
				b.Put(keys[i], offsets[i])
			}
			start += n
		}
		for h := range batches {
			c.PutFingerprints(h.fps, offsets[h.start:h.start+h.count])
		}
		if !bytes.Equal(table(a), table(b)) || a.Size() != b.Size() || a.Stats() != b.Stats() || a.LatestOffset() != b.LatestOffset() {
			t.Fatalf("%s: PutBatch: Size %d/%d Stats %+v/%+v Latest %d/%d, tables equal %v", hasher,
				a.Size(), b.Size(), a.Stats(), b.Stats(), a.LatestOffset(), b.LatestOffset(), bytes.Equal(table(a), table(b)))
		}
		if !bytes.Equal(table(c), table(b)) || c.Size() != b.Size() || c.Stats() != b.Stats() || c.LatestOffset() != b.LatestOffset() {
			t.Fatalf("%s: PutFingerprints: Size %d/%d Stats %+v/%+v Latest %d/%d, tables equal %v", hasher,
				c.Size(), b.Size(), c.Stats(), b.Stats(), c.LatestOffset(), b.LatestOffset(), bytes.Equal(table(c), table(b)))
		}
		probe := append([][]byte{}, keys[:50]...)
		probe = append(probe, testKey(99_999), nil) // absent
		got := make([]int64, len(probe)+1)
		got[len(probe)] = 12345 // past len(keys): untouched
		a.GetBatch(probe, got)
		for i, k := range probe {
			if want := b.Get(k); got[i] != want {
				t.Errorf("%s: GetBatch[%d] = %d, Get = %d", hasher, i, got[i], want)
			}
		}
		// Key 0 is keys[i] for i*7 % 2000 == 0: i = 0 and 2000, so its
		// latest offset is 2500.
		if got[0] != 2500 || got[len(probe)-1] != -1 || got[len(probe)] != 12345 {
			t.Errorf("%s: GetBatch: key 0 -> %d (want 2500), absent -> %d, past the end %d (want untouched)",
				hasher, got[0], got[len(probe)-1], got[len(probe)])
		}
		if a.Stats() != b.Stats() {
			t.Errorf("%s: GetBatch stats %+v, Get stats %+v", hasher, a.Stats(), b.Stats())
		}
		if allocs := testing.AllocsPerRun(10, func() { a.GetBatch(probe, got); a.PutBatch(keys[:40], offsets[2900:2940]) }); allocs != 0 {
			t.Errorf("%s: batches allocate %v times", hasher, allocs)
		}
	}
}

// TestFingerprinters checks each hasher's direct fingerprint against the
// one read from its digest, so the table's bytes do not depend on the path.
func TestFingerprinters(t *testing.T) {
	for _, name := range HasherNames() {
		h := mustHasher(t, name)
		if _, ok := h.(fingerprinter); !ok {
			t.Errorf("%s has no fingerprinter", name)
			continue
		}
		for _, fpBytes := range []int{12, 8} {
			direct := newKeyFingerprints(h, fpBytes)
			viaSum := keyFingerprints{hasher: h, digest: scratchDigest(h), fpBytes: fpBytes}
			for i := range 200 {
				key := testKey(i * 31)
				if i == 0 {
					key = nil
				}
				if a, b := direct.of(key), viaSum.of(key); a != b {
					t.Fatalf("%s, %d-byte fingerprint of %q: direct %x, via Sum %x", name, fpBytes, key, a, b)
				}
			}
		}
	}
}

// TestMaxKeysCountsWholeBuckets: a bucket16 table holds whole 64-byte
// buckets of 4 slots, so MaxKeys counts the slots of the whole buckets,
// as the map does (Slots, MaxEntries). By hand: 1 MiB + 32 bytes (a
// table that a map sort buffer of an odd number of 32-byte Puts leaves)
// is 16,384 buckets and 32 bytes over, 65,536 slots, x 0.9 = 58,982 keys
// (not 1,048,608 / 16 = 65,538 slots, 58,984 keys); a whole 1 MiB the
// same 65,536 slots.
func TestMaxKeysCountsWholeBuckets(t *testing.T) {
	h, err := NewHasher("xxh3-128")
	if err != nil {
		t.Fatal(err)
	}
	info, err := Describe(LayoutBucket16, h)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ mem, want int }{{1<<20 + 32, 58982}, {1 << 20, 58982}} {
		if got := info.MaxKeys(c.mem, 0.9); got != c.want {
			t.Errorf("%d bytes: MaxKeys %d, want %d", c.mem, got, c.want)
		}
		m, err := NewBucket(c.mem, h)
		if err != nil {
			t.Fatal(err)
		}
		if got := MaxEntries(m, 0.9); got != c.want {
			t.Errorf("%d bytes: the map's MaxEntries %d, want %d", c.mem, got, c.want)
		}
	}
}
