package offsetmap

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

// inUse is one entry of a table: a fingerprint in use and its offset.
type inUse struct {
	f1     uint64
	f2     uint32
	offset int64
}

// entriesOf lists m's slots in use (after writing what is queued), sorted.
func entriesOf(m *Bucket) []inUse {
	m.Size()
	le := binary.LittleEndian
	var out []inUse
	for b := range m.buckets {
		e := m.bucket(b)
		for s := range bucketSlots {
			if v := le.Uint32(e[bucketStamp+4*s:]); v >= m.w.lo {
				out = append(out, inUse{le.Uint64(e[8*s:]), le.Uint32(e[bucketF2+4*s:]), m.w.offset(v)})
			}
		}
	}
	slices.SortFunc(out, func(a, b inUse) int {
		if a.f1 != b.f1 {
			return cmpU(a.f1, b.f1)
		}
		return cmpU(uint64(a.f2), uint64(b.f2))
	})
	return out
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// checkContentAgainstModel is checkAgainstModel for a map with a sort
// buffer, whose entries may sit elsewhere in their probe runs than the
// model's: Size, the superseded bits, the set of fingerprints in use with
// their offsets, and each of them found by a probe from its home bucket.
func checkContentAgainstModel(t *testing.T, m *Bucket, ref *refBucketMap, bitsOf []uint64, base int64, seed uint64, step int) {
	t.Helper()
	if m.Size() != ref.entries {
		t.Fatalf("seed %d step %d: Size %d, want %d", seed, step, m.Size(), ref.entries)
	}
	for i := range int64(64 * len(bitsOf)) {
		if got, want := bitsOf[i/64]>>(i%64)&1 == 1, ref.superseded[base+i]; got != want {
			t.Fatalf("seed %d step %d: superseded(%d) = %v, want %v", seed, step, base+i, got, want)
		}
	}
	var want []inUse
	for b := range ref.slots {
		for _, e := range ref.slots[b] {
			if e.pass == ref.pass {
				want = append(want, inUse{e.f1, e.f2, e.offset})
			}
		}
	}
	slices.SortFunc(want, func(a, b inUse) int {
		if a.f1 != b.f1 {
			return cmpU(a.f1, b.f1)
		}
		return cmpU(uint64(a.f2), uint64(b.f2))
	})
	got := entriesOf(m)
	if !slices.Equal(got, want) {
		t.Fatalf("seed %d step %d: entries in use\n%v\nwant\n%v", seed, step, got, want)
	}
	for _, e := range got {
		fp := fingerprint{f1: e.f1, f2: e.f2}
		home, _ := bits.Mul64(e.f1, m.buckets)
		if off, _ := m.probe(fp, home); off != e.offset {
			t.Fatalf("seed %d step %d: probe of %x/%x from its home = %d, want %d", seed, step, e.f1, e.f2, off, e.offset)
		}
	}
}

// TestBucketSortedMatchesModel is TestBucketMatchesModel for a map with a
// sort buffer (of 1, 5 or 64 puts, sorting every flush of 2 or more):
// the same calls, PutFingerprints besides, and the model's content after
// each reading call and every 25 steps (a check reads Size, which writes
// the buffer, so the buffer also fills across many steps unread).
func TestBucketSortedMatchesModel(t *testing.T) {
	for seed := range uint64(30) {
		rng := rand.New(rand.NewPCG(seed, 11))
		m, err := NewBucket(9*bucketBytes, digestHasher{})
		if err != nil {
			t.Fatal(err)
		}
		if err := m.SetSortBuffer([]int{1, 5, 64}[seed%3]); err != nil {
			t.Fatal(err)
		}
		m.sorted.minSort = 2
		ref := &refBucketMap{slots: make([][bucketSlots]refSlot, m.buckets), pass: 1, superseded: map[int64]bool{}}
		var f1s []uint64
		for range 6 {
			f1s = append(f1s, rng.Uint64())
		}
		f1s = append(f1s, 0, ^uint64(0))
		key := func() []byte {
			k := make([]byte, 12)
			if rng.IntN(4) == 0 {
				binary.BigEndian.PutUint64(k, rng.Uint64())
			} else {
				binary.BigEndian.PutUint64(k, f1s[rng.IntN(len(f1s))])
			}
			binary.BigEndian.PutUint32(k[8:], uint32(rng.IntN(3)))
			return k
		}
		fp := func(k []byte) (uint64, uint32) {
			return binary.BigEndian.Uint64(k), binary.BigEndian.Uint32(k[8:])
		}
		// room is the cleaner's check: the bound first, Size when the
		// bound says n more may not fit below Slots()-1.
		room := func(n int) bool {
			return n <= m.Slots()-1-m.SizeAtMost() || n <= m.Slots()-1-m.Size()
		}
		var bitsOf []uint64
		var base int64
		record := func() {
			bitsOf, base = make([]uint64, 4), 1000*int64(ref.pass)
			m.RecordSuperseded(bitsOf, base)
		}
		record()
		offset := int64(1000)
		sorts := 0
		for step := range 3000 {
			read := false
			switch op := rng.IntN(100); {
			case op < 45:
				if !room(1) {
					continue
				}
				k := key()
				offset++
				m.Put(k, offset)
				f1, f2 := fp(k)
				ref.put(f1, f2, offset)
			case op < 60:
				var keys [][]byte
				var offs []int64
				n := rng.IntN(20)
				for !room(n) {
					n--
				}
				for range n {
					offset++
					keys, offs = append(keys, key()), append(offs, offset)
				}
				if op < 52 {
					m.PutBatch(keys, offs)
				} else {
					fps := make([]Fingerprint, len(keys))
					m.FingerprintKeys(keys, fps)
					m.PutFingerprints(fps, offs)
				}
				for i, k := range keys {
					f1, f2 := fp(k)
					ref.put(f1, f2, offs[i])
				}
			case op < 72:
				read = true
				k := key()
				f1, f2 := fp(k)
				if got, want := m.Get(k), ref.get(f1, f2); got != want {
					t.Fatalf("seed %d step %d: Get(%x) = %d, want %d", seed, step, k, got, want)
				}
			case op < 97:
				read = true
				var keys [][]byte
				for range rng.IntN(40) {
					keys = append(keys, key())
				}
				got := make([]int64, len(keys))
				m.GetBatch(keys, got)
				for i, k := range keys {
					f1, f2 := fp(k)
					if want := ref.get(f1, f2); got[i] != want {
						t.Fatalf("seed %d step %d: GetBatch key %d (%x) = %d, want %d", seed, step, i, k, got[i], want)
					}
				}
			default:
				read = true
				m.Clear()
				ref.clear()
				offset = 1000*int64(ref.pass) - 1 + int64(rng.IntN(2))
				record()
			}
			if m.sortLen >= 2 {
				sorts++
			}
			if read || step%25 == 0 {
				checkContentAgainstModel(t, m, ref, bitsOf, base, seed, step)
			}
		}
		if seed%3 != 0 && sorts < 100 {
			t.Fatalf("seed %d: the buffer held 2 or more puts after only %d steps: the test does not test the sort", seed, sorts)
		}
	}
}

// TestBucketSortedKeepsEachKeysOrder: the puts of one key keep their order
// through the sort, whatever the offsets: key A put at 5, 10 and then 7
// (offsets need not grow) keeps 7, the last, as Kafka's put; only 5 is
// superseded (a later put with a larger offset replaced it; 10 was
// replaced by a smaller one). The puts interleave with 3000 other keys, all
// in one buffer that is sorted.
func TestBucketSortedKeepsEachKeysOrder(t *testing.T) {
	m := mustNew(t, LayoutBucket16, 1<<18, "xxh3-128").(*Bucket)
	if err := m.SetSortBuffer(1 << 14); err != nil {
		t.Fatal(err)
	}
	m.sorted.minSort = 1000
	bitsOf := make([]uint64, 1)
	m.RecordSuperseded(bitsOf, 0)
	a := []byte("key-A")
	other := 0
	put := func(key []byte, offset int64) {
		m.Put(key, offset)
		for range 1000 {
			m.Put(testKey(other), 100+int64(other))
			other++
		}
	}
	put(a, 5)
	put(a, 10)
	put(a, 7)
	if m.sortLen != 3003 {
		t.Fatalf("%d puts buffered, want 3003", m.sortLen)
	}
	if got := m.Get(a); got != 7 {
		t.Errorf("Get(A) = %d, want 7", got)
	}
	if want := uint64(1) << 5; bitsOf[0] != want {
		t.Errorf("superseded bits %b, want %b (offset 5 only)", bitsOf[0], want)
	}
	if m.Size() != 3001 {
		t.Errorf("Size %d, want 3001", m.Size())
	}
	for i := range other {
		if got := m.Get(testKey(i)); got != 100+int64(i) {
			t.Fatalf("Get(key %d) = %d, want %d", i, got, 100+i)
		}
	}
}

// TestBucketSortedAgainstWriteBehind puts the same 30,000 puts of 3,000
// keys (with xxh3-128, in batches of 1 to 40, through PutBatch and
// PutFingerprints, with RecordSuperseded on) into a map without a sort
// buffer and into maps with sort buffers of 999 and 100,000 puts: every
// key's offset, absent keys, Size, Lookups, the superseded bits and the
// set of entries in use must be equal, over two passes.
func TestBucketSortedAgainstWriteBehind(t *testing.T) {
	for _, size := range []int{999, 100_000} {
		plain := mustNew(t, LayoutBucket16, 1<<16, "xxh3-128").(*Bucket)
		srt := mustNew(t, LayoutBucket16, 1<<16, "xxh3-128").(*Bucket)
		if err := srt.SetSortBuffer(size); err != nil {
			t.Fatal(err)
		}
		srt.sorted.minSort = 500
		rng := rand.New(rand.NewPCG(3, uint64(size)))
		for pass := range 2 {
			pb, sb := make([]uint64, 30_000/64+1), make([]uint64, 30_000/64+1)
			base := int64(pass) * 1_000_000
			plain.RecordSuperseded(pb, base)
			srt.RecordSuperseded(sb, base)
			off := base
			for off < base+30_000 {
				n := 1 + rng.IntN(40)
				var keys [][]byte
				var offs []int64
				for range n {
					keys = append(keys, testKey(rng.IntN(3000)))
					offs = append(offs, off)
					off++
				}
				if rng.IntN(2) == 0 {
					plain.PutBatch(keys, offs)
					srt.PutBatch(keys, offs)
				} else {
					fps := make([]Fingerprint, n)
					srt.FingerprintKeys(keys, fps)
					plain.PutFingerprints(fps, offs)
					srt.PutFingerprints(fps, offs)
				}
			}
			if ps, ss := plain.Size(), srt.Size(); ps != ss {
				t.Fatalf("size %d, pass %d: Size %d, want %d", size, pass, ss, ps)
			}
			if pl, sl := plain.Stats().Lookups, srt.Stats().Lookups; pl != sl {
				t.Errorf("size %d, pass %d: Lookups %d, want %d", size, pass, sl, pl)
			}
			if !slices.Equal(pb, sb) {
				t.Errorf("size %d, pass %d: superseded bits differ", size, pass)
			}
			if !slices.Equal(entriesOf(plain), entriesOf(srt)) {
				t.Errorf("size %d, pass %d: entries in use differ", size, pass)
			}
			for i := range 3500 {
				if p, s := plain.Get(testKey(i)), srt.Get(testKey(i)); p != s {
					t.Fatalf("size %d, pass %d: Get(key %d) = %d, want %d", size, pass, i, s, p)
				}
			}
			plain.Clear()
			srt.Clear()
		}
	}
}

// TestBucketSortedFull: with a sort buffer larger than the table, a
// 64-slot map still takes exactly 64 distinct keys (SizeAtMost bounding
// Size all along) and refuses the 65th Put, even of a key it holds, as
// without the buffer; a PutFingerprints of a 65th key too.
func TestBucketSortedFull(t *testing.T) {
	m, err := NewBucket(1024+63, mustHasher(t, "xxh3-128"))
	if err != nil {
		t.Fatal(err)
	}
	if err := m.SetSortBuffer(1000); err != nil {
		t.Fatal(err)
	}
	m.sorted.minSort = 2
	if m.Slots() != 64 {
		t.Fatalf("Slots = %d, want 64", m.Slots())
	}
	for i := range 64 {
		m.Put(testKey(i), int64(i))
		if m.SizeAtMost() != i+1 || m.entries != 0 {
			t.Fatalf("after %d puts: SizeAtMost %d, %d written; want %d and 0", i+1, m.SizeAtMost(), m.entries, i+1)
		}
	}
	if m.Size() != 64 || m.SizeAtMost() != 64 {
		t.Fatalf("Size %d, SizeAtMost %d after 64 distinct keys, want 64", m.Size(), m.SizeAtMost())
	}
	for i := range 64 {
		if got := m.Get(testKey(i)); got != int64(i) {
			t.Fatalf("Get(key %d) = %d in the full map", i, got)
		}
	}
	refused := func(what string, put func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s into a full map did not panic", what)
			}
			if m.sortLen != 0 || m.Size() != 64 {
				t.Errorf("after the refused %s: %d buffered, Size %d; want 0 and 64", what, m.sortLen, m.Size())
			}
		}()
		put()
	}
	refused("Put", func() { m.Put(testKey(3), 99) })
	fps := make([]Fingerprint, 1)
	m.FingerprintKeys([][]byte{testKey(64)}, fps)
	refused("PutFingerprints", func() { m.PutFingerprints(fps, []int64{100}) })

	// Repeated keys, buffered past the table's slots: the room check
	// writes the buffer when the bound reaches Slots, and the map holds
	// the 10 keys.
	m.Clear()
	for i := range 200 {
		m.Put(testKey(i%10), int64(i))
	}
	if m.Size() != 10 || m.Get(testKey(9)) != 199 {
		t.Errorf("200 puts of 10 keys: Size %d, key 9 -> %d; want 10 and 199", m.Size(), m.Get(testKey(9)))
	}
}

// TestSetSortBuffer: a negative size is an error; turning the buffer off
// writes what it holds first.
func TestSetSortBuffer(t *testing.T) {
	m := mustNew(t, LayoutBucket16, 1<<14, "xxh3-128").(*Bucket)
	if err := m.SetSortBuffer(-1); err == nil {
		t.Error("SetSortBuffer(-1): no error")
	}
	if err := m.SetSortBuffer(10); err != nil || m.SortBuffer() != 10 {
		t.Fatalf("SetSortBuffer(10): %v, SortBuffer %d", err, m.SortBuffer())
	}
	m.Put(testKey(1), 7)
	if err := m.SetSortBuffer(0); err != nil || m.SortBuffer() != 0 {
		t.Fatalf("SetSortBuffer(0): %v, SortBuffer %d", err, m.SortBuffer())
	}
	if m.entries != 1 || m.Get(testKey(1)) != 7 {
		t.Errorf("after turning the buffer off: %d written, key 1 -> %d; want 1 and 7", m.entries, m.Get(testKey(1)))
	}
	if got := SortBufferBytes(1 << 20); got != 32<<20 {
		t.Errorf("SortBufferBytes(1M) = %d, want 32 MiB", got)
	}
}

// TestMaxCarvedSortPuts: a quarter of the memory at 32 bytes a Put,
// rounded down: 1 MiB holds 1,048,576 / 128 = 8,192 (256 KiB of buffer);
// 128 bytes one, 127 none.
func TestMaxCarvedSortPuts(t *testing.T) {
	for _, c := range []struct{ bytes, want int64 }{{1 << 20, 8192}, {128, 1}, {127, 0}, {0, 0}, {-5, 0}} {
		if got := MaxCarvedSortPuts(c.bytes); got != c.want {
			t.Errorf("MaxCarvedSortPuts(%d) = %d, want %d", c.bytes, got, c.want)
		}
	}
}

// TestSortBufferOrdersByHomeBucket: a sort buffer's sort puts every Put
// in home-bucket order (home = f1 x buckets / 2^64) in tables of a bucket
// count that is not a power of two too, where two fingerprints whose top
// 22 bits agree can have different homes. Worked by hand for 3 buckets:
// bucket 1 starts at f1 = ceil(2^64 / 3) = 0x5555555555555556, and
// 0x5555555555555555, one less, is in bucket 0; put in that order (with
// f1 = 0, bucket 0, and 2^64 - 1, bucket 2, around them), the sort must
// give homes 0, 0, 1, 2. Then for 1,000 buckets: for each bucket k from 1
// to 999 the first f1 of k (ceil(k 2^64 / 1000)) is put before the last of
// k - 1 (one less), and the homes must come out non-decreasing.
func TestSortBufferOrdersByHomeBucket(t *testing.T) {
	sortedHomes := func(t *testing.T, m *Bucket, f1s []uint64) []uint64 {
		t.Helper()
		if err := m.SetSortBuffer(len(f1s) + 1); err != nil {
			t.Fatal(err)
		}
		for i, f1 := range f1s {
			k := make([]byte, 12)
			binary.BigEndian.PutUint64(k, f1)
			m.Put(k, int64(i))
		}
		if m.sortLen != len(f1s) {
			t.Fatalf("%d puts buffered, want %d", m.sortLen, len(f1s))
		}
		var homes []uint64
		for _, p := range m.sorted.sort() {
			home, _ := bits.Mul64(p.f1, m.buckets)
			homes = append(homes, home)
		}
		return homes
	}
	m, err := NewBucket(3*bucketBytes+63, digestHasher{})
	if err != nil {
		t.Fatal(err)
	}
	if m.buckets != 3 {
		t.Fatalf("%d buckets, want 3", m.buckets)
	}
	got := sortedHomes(t, m, []uint64{^uint64(0), 0x5555555555555556, 0x5555555555555555, 0})
	if want := []uint64{0, 0, 1, 2}; !slices.Equal(got, want) {
		t.Errorf("3 buckets: homes in sorted order %v, want %v", got, want)
	}

	m, err = NewBucket(1000*bucketBytes+63, digestHasher{})
	if err != nil {
		t.Fatal(err)
	}
	if m.buckets != 1000 {
		t.Fatalf("%d buckets, want 1000", m.buckets)
	}
	var f1s []uint64
	for k := uint64(1); k < 1000; k++ {
		q, r := bits.Div64(k, 0, 1000) // k 2^64 / 1000
		if r != 0 {
			q++
		}
		f1s = append(f1s, q, q-1)
	}
	got = sortedHomes(t, m, f1s)
	if !slices.IsSorted(got) {
		for i := 1; i < len(got); i++ {
			if got[i] < got[i-1] {
				t.Fatalf("1,000 buckets: put %d of the sorted order has home %d after home %d", i, got[i], got[i-1])
			}
		}
	}
}
