package offsetmap

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// digestHasher's digest of a 12-byte key is the key itself, so a test
// chooses each key's fingerprint (f1 = bytes 0..7 big-endian, f2 = bytes
// 8..11) and so its home bucket and which keys share an f1.
type digestHasher struct{}

func (digestHasher) Name() string { return "digest-is-key" }
func (digestHasher) Size() int    { return 12 }
func (digestHasher) Sum(dst, key []byte) {
	copy(dst[:12], key)
}

// refSlot is one slot of refBucketMap.
type refSlot struct {
	f1     uint64
	f2     uint32
	offset int64
	pass   int // the pass that wrote it; 0 = never written
}

// refBucketMap is bucket16's table as the layout's description states it,
// written apart from Bucket's code as a model: buckets of four slots, the
// home bucket floor(f1 x buckets / 2^64), slots written in this pass
// (pass == current) in use and the rest free; a Put or Get reads buckets
// from home on, one probe each, and stops at the first bucket holding the
// fingerprint in a slot in use (Put overwrites its offset) or having a
// free slot (Put writes the first free one; Get answers -1).
type refBucketMap struct {
	slots      [][bucketSlots]refSlot
	pass       int
	entries    int
	probes     int64
	superseded map[int64]bool // offsets a later Put overwrote
}

func (r *refBucketMap) home(f1 uint64) int {
	hi, _ := bits.Mul64(f1, uint64(len(r.slots)))
	return int(hi)
}

// find returns the bucket and slot of (f1, f2) in use, or of the first free
// slot (found false), counting one probe per bucket read.
func (r *refBucketMap) find(f1 uint64, f2 uint32) (b, s int, found bool) {
	b = r.home(f1)
	for range r.slots {
		r.probes++
		free := -1
		for s := range bucketSlots {
			e := r.slots[b][s]
			if e.pass != r.pass {
				if free < 0 {
					free = s
				}
				continue
			}
			if e.f1 == f1 && e.f2 == f2 {
				return b, s, true
			}
		}
		if free >= 0 {
			return b, free, false
		}
		b = (b + 1) % len(r.slots)
	}
	return -1, -1, false
}

func (r *refBucketMap) put(f1 uint64, f2 uint32, offset int64) {
	b, s, found := r.find(f1, f2)
	if found {
		if old := r.slots[b][s].offset; old < offset {
			r.superseded[old] = true
		}
	} else {
		r.entries++
	}
	r.slots[b][s] = refSlot{f1: f1, f2: f2, offset: offset, pass: r.pass}
}

func (r *refBucketMap) get(f1 uint64, f2 uint32) int64 {
	if b, s, found := r.find(f1, f2); found {
		return r.slots[b][s].offset
	}
	return -1
}

func (r *refBucketMap) clear() {
	r.pass++
	r.entries, r.probes = 0, 0
	r.superseded = map[int64]bool{}
}

// TestBucketMatchesModel drives a Bucket (Put, PutBatch, Get, GetBatch,
// GetConcurrent, Clear, RecordSuperseded) with keys chosen to reach every
// case of a probe: keys sharing an f1 with different f2, a key whose slot
// from an earlier pass still holds its fingerprint, full home buckets and
// overflow to the next ones (wrapping round the table), absent keys. After
// every call the answers, Size, probe count, superseded offsets and every
// slot of the table (fingerprint; offset when in use, free otherwise) must
// be those of refBucketMap, over several passes. It guards any rewrite of
// Bucket's probe (one was tried: docs/speed.md, "Offset map locality").
func TestBucketMatchesModel(t *testing.T) {
	for seed := range uint64(20) {
		rng := rand.New(rand.NewPCG(seed, 7))
		m, err := NewBucket(9*bucketBytes, digestHasher{})
		if err != nil {
			t.Fatal(err)
		}
		ref := &refBucketMap{slots: make([][bucketSlots]refSlot, m.buckets), pass: 1, superseded: map[int64]bool{}}
		// A few f1 values (so homes collide and keys share an f1), each
		// with a few f2 values, and some keys of their own.
		var f1s []uint64
		for range 6 {
			f1s = append(f1s, rng.Uint64())
		}
		f1s = append(f1s, 0, ^uint64(0)) // first and last bucket
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
		var bitsOf []uint64
		var base int64
		record := func() {
			bitsOf, base = make([]uint64, 4), 1000*int64(ref.pass)
			m.RecordSuperseded(bitsOf, base)
		}
		record()
		offset := int64(1000)
		var keys [][]byte
		var offs []int64
		for step := range 3000 {
			switch op := rng.IntN(100); {
			case op < 50:
				if m.Size() >= m.Slots()-1 {
					continue
				}
				k := key()
				offset++
				m.Put(k, offset)
				f1, f2 := fp(k)
				ref.put(f1, f2, offset)
			case op < 60:
				// PutBatch of keys until the table is nearly full.
				keys, offs = keys[:0], offs[:0]
				for range rng.IntN(20) {
					if m.SizeAtMost()+len(keys) >= m.Slots()-1 {
						break
					}
					offset++
					keys, offs = append(keys, key()), append(offs, offset)
				}
				m.PutBatch(keys, offs)
				for i, k := range keys {
					f1, f2 := fp(k)
					ref.put(f1, f2, offs[i])
				}
			case op < 75:
				k := key()
				f1, f2 := fp(k)
				if got, want := m.Get(k), ref.get(f1, f2); got != want {
					t.Fatalf("seed %d step %d: Get(%x) = %d, want %d", seed, step, k, got, want)
				}
			case op < 97:
				keys = keys[:0]
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
				conc := make([]int64, len(keys))
				m.GetConcurrent(keys, conc)
				for i := range keys {
					if conc[i] != got[i] {
						t.Fatalf("seed %d step %d: GetConcurrent key %d = %d, GetBatch %d", seed, step, i, conc[i], got[i])
					}
				}
			default:
				m.Clear()
				ref.clear()
				offset = 1000*int64(ref.pass) - 1 + int64(rng.IntN(2))
				record()
			}
			checkAgainstModel(t, m, ref, bitsOf, base, seed, step)
		}
	}
}

// checkAgainstModel compares m's size, probes, superseded bits and every
// slot with ref's.
func checkAgainstModel(t *testing.T, m *Bucket, ref *refBucketMap, bitsOf []uint64, base int64, seed uint64, step int) {
	t.Helper()
	if m.Size() != ref.entries {
		t.Fatalf("seed %d step %d: Size %d, want %d", seed, step, m.Size(), ref.entries)
	}
	if got := m.Stats().Probes; got != ref.probes {
		t.Fatalf("seed %d step %d: Probes %d, want %d", seed, step, got, ref.probes)
	}
	for i := range int64(64 * len(bitsOf)) {
		if got, want := bitsOf[i/64]>>(i%64)&1 == 1, ref.superseded[base+i]; got != want {
			t.Fatalf("seed %d step %d: superseded(%d) = %v, want %v", seed, step, base+i, got, want)
		}
	}
	le := binary.LittleEndian
	for b := range ref.slots {
		e := m.bucket(uint64(b))
		for s, want := range ref.slots[b] {
			stamp := le.Uint32(e[bucketStamp+4*s:])
			inUse := stamp >= m.w.lo
			if inUse != (want.pass == ref.pass) {
				t.Fatalf("seed %d step %d: bucket %d slot %d in use %v, want %v", seed, step, b, s, inUse, !inUse)
			}
			if want.pass == 0 {
				continue
			}
			if f1, f2 := le.Uint64(e[8*s:]), le.Uint32(e[bucketF2+4*s:]); f1 != want.f1 || f2 != want.f2 {
				t.Fatalf("seed %d step %d: bucket %d slot %d holds %x/%x, want %x/%x", seed, step, b, s, f1, f2, want.f1, want.f2)
			}
			if inUse && m.w.offset(stamp) != want.offset {
				t.Fatalf("seed %d step %d: bucket %d slot %d offset %d, want %d", seed, step, b, s, m.w.offset(stamp), want.offset)
			}
		}
	}
}
