package offsetmap

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unsafe"
)

// Geometry of a Bucket's cache line. A bucket is 64 bytes, the cache line of
// current x86-64 and most arm64 cores:
//
//	bytes  0..31  f1 of slots 0..3 (uint64 each, little-endian)
//	bytes 32..47  f2 of slots 0..3 (uint32 each)
//	bytes 48..63  stamps of slots 0..3 (uint32 each; below lo = empty)
//
// so each slot costs 16 bytes, as dense16's entries.
const (
	bucketBytes = 64
	bucketSlots = 4
	bucketF2    = 32 // offset of the f2 words
	bucketStamp = 48 // offset of the stamps
	fullBucket  = 1<<bucketSlots - 1
)

// Bucket is a Map aimed at speed with dense16's density and risk: 16 bytes
// per key (a 96-bit fingerprint and a 32-bit stamp), grouped four to a
// 64-byte bucket that starts on a cache-line boundary. A lookup reads its
// home bucket, found from the fingerprint's high bits by a multiply (no
// division), and tests all four slots without a branch per slot; only when
// the bucket is full and holds no match does it move on to the next bucket
// (linear probing over buckets). So a Put or Get reads one cache line in
// nearly every case (1.10 buckets per key with 5M keys in 128 MiB, where
// dense16 reads 1.74 slots).
//
// That alone does not make single calls faster: a lookup's time is one
// cache miss (about 180 ns on the lab's VM, huge pages or not) less what the
// CPU overlaps with the next keys' misses, and that overlap shrinks with
// the instructions per key. So Put writes behind (see Put): it queues the
// write and does it putDepth Puts later, once the line has arrived, which
// makes single Puts as fast as batched ones. A Get has to answer at once;
// GetBatch hashes 16 keys and prefetches their buckets before probing any
// ([Batcher]), 2 to 3 times faster than single Gets on the same map (see
// bench/ and docs/speed.md).
//
// Offsets are stamped relative to the pass's first Put and Clear is O(1),
// as Dense (see passWindow). Stats count one probe per bucket read.
type Bucket struct {
	buf        []byte // as allocated: MemoryBytes() bytes
	tab        []byte // buf from its first 64-byte boundary, buckets * 64 bytes
	hasher     Hasher
	keys       keyFingerprints
	buckets    uint64
	w          passWindow
	entries    int
	lookups    int64
	probes     int64
	lastOffset int64
	group      [batchKeys]groupEntry // GetBatch's window of hashed keys
	// pending holds the Puts not yet written to the table, oldest at
	// pendHead: hashed, stamped and prefetched, waiting for their bucket's
	// cache line (see Put).
	pending  [putDepth]pendingPut
	pendHead int
	pendLen  int
	// superseded records the offsets overwritten (RecordSuperseded).
	superseded supersededBits
	// sorted, when not nil, holds Puts unwritten instead of pending, to
	// write them ordered by home bucket (SetSortBuffer).
	sorted  *sortBuffer
	sortLen int // len(sorted.buf), 0 when sorted is nil
}

// putDepth is the number of Puts a Bucket holds hashed and prefetched before
// it writes the oldest: the distance, in keys, between a bucket's prefetch
// and its write. Deep enough for the dozen or so cache misses a core keeps
// in flight, short enough that the lines are still in L1 when written.
const putDepth = 16

// pendingPut is one Put waiting for its cache line.
type pendingPut struct {
	fp    fingerprint
	home  uint64
	stamp uint32
}

// batchKeys is the number of keys GetBatch hashes and prefetches before
// probing: enough to keep a core's dozen or so outstanding cache
// misses busy (bench/ measured 8 to 32 alike on one x86 machine).
const batchKeys = 16

// groupEntry is one hashed key of a batch.
type groupEntry struct {
	fp   fingerprint
	home uint64
}

var (
	_ Map         = (*Bucket)(nil)
	_ Batcher     = (*Bucket)(nil)
	_ SizeBounder = (*Bucket)(nil)
	_ Prefetcher  = (*Bucket)(nil)

	_ ConcurrentGetter  = (*Bucket)(nil)
	_ FingerprintPutter = (*Bucket)(nil)
)

// NewBucket allocates a bucket map of memoryBytes bytes. The table starts at
// the buffer's first 64-byte boundary (large buffers start on one, being
// page-aligned); Slots() = 4 x the whole buckets after it, memoryBytes / 16
// for an aligned buffer. Errors: a nil hasher, memoryBytes over
// MaxMemoryBytes or too small for one bucket.
func NewBucket(memoryBytes int, h Hasher) (*Bucket, error) {
	if h == nil {
		return nil, fmt.Errorf("offsetmap: nil hasher")
	}
	if memoryBytes > MaxMemoryBytes {
		return nil, fmt.Errorf("offsetmap: memory %d bytes is over %d, the most one cleaner thread's map can use",
			memoryBytes, MaxMemoryBytes)
	}
	if memoryBytes < bucketBytes {
		return nil, fmt.Errorf("offsetmap: memory %d bytes holds no %d-byte bucket", memoryBytes, bucketBytes)
	}
	buf := make([]byte, memoryBytes)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf))) & (bucketBytes - 1))
	buckets := (memoryBytes - skip) / bucketBytes
	if buckets < 1 {
		return nil, fmt.Errorf("offsetmap: memory %d bytes holds no %d-byte bucket on a cache-line boundary", memoryBytes, bucketBytes)
	}
	return &Bucket{
		buf:        buf,
		tab:        buf[skip : skip+buckets*bucketBytes],
		hasher:     h,
		keys:       newKeyFingerprints(h, dense16Bytes-stampBytes),
		buckets:    uint64(buckets),
		w:          newPassWindow(),
		lastOffset: -1,
	}, nil
}

// b2u is 1 for true, 0 for false; the compiler turns it into a flag move, not
// a branch.
func b2u(b bool) uint32 {
	if b {
		return 1
	}
	return 0
}

// scan tests the four slots of bucket e against fp and the pass's first
// stamp lo. It returns a bitmask of the slots in use (stamp >= lo) and one of
// those holding fp. Slots in use always form a prefix of the bucket: Put
// fills the first free slot and nothing is removed within a pass.
func scan(e []byte, fp fingerprint, lo uint32) (used, match uint32) {
	e = e[:bucketBytes:bucketBytes]
	le := binary.LittleEndian
	u0 := b2u(le.Uint32(e[bucketStamp+0:]) >= lo)
	u1 := b2u(le.Uint32(e[bucketStamp+4:]) >= lo)
	u2 := b2u(le.Uint32(e[bucketStamp+8:]) >= lo)
	u3 := b2u(le.Uint32(e[bucketStamp+12:]) >= lo)
	m0 := u0 & b2u(le.Uint64(e[0:]) == fp.f1) & b2u(le.Uint32(e[bucketF2+0:]) == fp.f2)
	m1 := u1 & b2u(le.Uint64(e[8:]) == fp.f1) & b2u(le.Uint32(e[bucketF2+4:]) == fp.f2)
	m2 := u2 & b2u(le.Uint64(e[16:]) == fp.f1) & b2u(le.Uint32(e[bucketF2+8:]) == fp.f2)
	m3 := u3 & b2u(le.Uint64(e[24:]) == fp.f1) & b2u(le.Uint32(e[bucketF2+12:]) == fp.f2)
	return u0 | u1<<1 | u2<<2 | u3<<3, m0 | m1<<1 | m2<<2 | m3<<3
}

// lookup hashes key and returns its fingerprint and home bucket.
func (m *Bucket) lookup(key []byte) (fingerprint, uint64) {
	m.lookups++
	fp := m.keys.of(key)
	home, _ := bits.Mul64(fp.f1, m.buckets)
	return fp, home
}

// bucket returns bucket b's 64 bytes.
func (m *Bucket) bucket(b uint64) []byte {
	pos := b * bucketBytes
	return m.tab[pos : pos+bucketBytes : pos+bucketBytes]
}

// Fits reports whether offset can be put in this pass (see passWindow).
func (m *Bucket) Fits(offset int64) bool { return m.w.fits(offset) }

// Put maps key's fingerprint to offset: in the first bucket from home that
// holds the fingerprint (its stamp is overwritten) or has a free slot (the
// fingerprint and stamp go into the first free one).
//
// Put writes behind: it hashes the key, stamps the offset, prefetches the
// home bucket and queues the write; the write itself happens putDepth Puts
// later (or at the next call that reads the map: Get, GetBatch, Size,
// Stats, Utilization), once the bucket's cache line has arrived. So
// consecutive Puts overlap their cache misses as PutBatch's keys do, and
// the table, results and statistics any reader sees are those of writing
// each Put at once, in order. The key is not retained.
//
// REQUIRES: Size() < Slots() and Fits(offset); Put panics otherwise, before
// queueing anything.
func (m *Bucket) Put(key []byte, offset int64) {
	m.checkPut()
	v := m.w.stamp(offset)
	fp, b := m.lookup(key)
	if m.sorted != nil {
		m.buffer(fp, v)
	} else {
		m.queue(fp, b, v)
	}
	m.lastOffset = offset
}

// checkPut panics, as Put, when no room is left for one more entry. Small
// enough to inline: the rare case is flushFull's.
func (m *Bucket) checkPut() {
	if m.entries+m.pendLen+m.sortLen >= m.Slots() {
		m.flushFull()
	}
}

// flushFull writes the queued Puts, as the room bound is not exact, then
// panics if the table is full.
func (m *Bucket) flushFull() {
	m.flush()
	m.checkRoom()
}

// FingerprintKeys: see FingerprintPutter.
func (m *Bucket) FingerprintKeys(keys [][]byte, fps []Fingerprint) {
	var digest [maxDigestBytes]byte
	fps = fps[:len(keys)]
	for i, key := range keys {
		fps[i] = Fingerprint{m.keys.ofWith(key, digest[:])}
	}
}

// PutFingerprints: see FingerprintPutter. Each fingerprint goes through
// Put's write-behind queue, as PutBatch's keys.
func (m *Bucket) PutFingerprints(fps []Fingerprint, offsets []int64) {
	offsets = offsets[:len(fps)]
	if m.sorted != nil {
		for i, f := range fps {
			m.checkPut()
			m.buffer(f.fp, m.w.stamp(offsets[i]))
			m.lookups++
			m.lastOffset = offsets[i]
		}
		return
	}
	for i, f := range fps {
		m.checkPut()
		v := m.w.stamp(offsets[i])
		m.lookups++
		home, _ := bits.Mul64(f.fp.f1, m.buckets)
		m.queue(f.fp, home, v)
		m.lastOffset = offsets[i]
	}
}

// queue adds one hashed Put to pending and prefetches its home bucket,
// writing the oldest pending Put first when pending is full.
func (m *Bucket) queue(fp fingerprint, b uint64, v uint32) {
	prefetch(unsafe.Pointer(&m.tab[b*bucketBytes]))
	i := m.pendHead + m.pendLen
	if m.pendLen == putDepth {
		p := &m.pending[m.pendHead]
		m.insert(p.fp, p.home, p.stamp)
		m.pendHead = (m.pendHead + 1) % putDepth
		i = m.pendHead + putDepth - 1
	} else {
		m.pendLen++
	}
	m.pending[i%putDepth] = pendingPut{fp: fp, home: b, stamp: v}
}

// flush writes every pending Put into the table, oldest first, and the
// sort buffer's.
func (m *Bucket) flush() {
	for ; m.pendLen > 0; m.pendLen-- {
		p := &m.pending[m.pendHead]
		m.insert(p.fp, p.home, p.stamp)
		m.pendHead = (m.pendHead + 1) % putDepth
	}
	m.pendHead = 0
	if m.sortLen > 0 {
		m.flushSorted()
	}
}

// unwritten reports whether Puts wait in the queue or the sort buffer.
func (m *Bucket) unwritten() bool { return m.pendLen > 0 || m.sortLen > 0 }

// checkRoom panics when the table is full, as Skimpy's Put.
func (m *Bucket) checkRoom() {
	if m.entries >= m.Slots() {
		panic(fmt.Sprintf("offsetmap: attempted to add a new entry to a full offset map, entries: %d, slots: %d",
			m.entries, m.Slots()))
	}
}

// insert writes stamp v for fp, probing from bucket b.
func (m *Bucket) insert(fp fingerprint, b uint64, v uint32) {
	lo := m.w.lo
	for {
		m.probes++
		e := m.bucket(b)
		used, match := scan(e, fp, lo)
		if match != 0 {
			j := bits.TrailingZeros32(match)
			if m.superseded.bits != nil {
				old := binary.LittleEndian.Uint32(e[bucketStamp+4*j:])
				m.superseded.note(m.w.offset(old), m.w.offset(v))
			}
			binary.LittleEndian.PutUint32(e[bucketStamp+4*j:], v)
			return
		}
		if used != fullBucket {
			j := bits.TrailingZeros32(^used)
			binary.LittleEndian.PutUint64(e[8*j:], fp.f1)
			binary.LittleEndian.PutUint32(e[bucketF2+4*j:], fp.f2)
			binary.LittleEndian.PutUint32(e[bucketStamp+4*j:], v)
			m.entries++
			return
		}
		if b++; b == m.buckets {
			b = 0
		}
	}
}

// Get returns the offset put last for key, or -1: it reads buckets from home
// until one holds key's fingerprint or has a free slot, at most every bucket
// once.
func (m *Bucket) Get(key []byte) int64 {
	if m.unwritten() {
		m.flush()
	}
	fp, b := m.lookup(key)
	return m.find(fp, b)
}

// find returns the offset stamped for fp, probing from bucket b, or -1.
func (m *Bucket) find(fp fingerprint, b uint64) int64 {
	off, probes := m.probe(fp, b)
	m.probes += probes
	return off
}

// probe is find without the statistics: it returns the offset and the
// buckets read, and writes nothing.
func (m *Bucket) probe(fp fingerprint, b uint64) (offset, probes int64) {
	lo := m.w.lo
	for range m.buckets {
		probes++
		e := m.bucket(b)
		used, match := scan(e, fp, lo)
		if match != 0 {
			j := bits.TrailingZeros32(match)
			return m.w.offset(binary.LittleEndian.Uint32(e[bucketStamp+4*j:])), probes
		}
		if used != fullBucket {
			return -1, probes
		}
		if b++; b == m.buckets {
			b = 0
		}
	}
	return -1, probes
}

// GetConcurrent: see ConcurrentGetter. It is getRolling with scratch of
// the call's own.
func (m *Bucket) GetConcurrent(keys [][]byte, offsets []int64) {
	var window [batchKeys]groupEntry
	var digest [maxDigestBytes]byte
	m.getRolling(keys, offsets[:len(keys)], &window, digest[:])
}

// getRolling sets offsets[i] to the offset stamped for keys[i], or -1, and
// returns the buckets it read. It keeps a window of batchKeys keys hashed
// and their buckets prefetched ahead of the one it probes: key i+16 is
// hashed and prefetched just before key i is probed, so about 16 cache
// misses stay in flight the whole time, with no pause between groups
// while a group's first line arrives. It writes only window and digest
// (hashing scratch).
func (m *Bucket) getRolling(keys [][]byte, offsets []int64, window *[batchKeys]groupEntry, digest []byte) (probes int64) {
	hash := func(i int) {
		fp := m.keys.ofWith(keys[i], digest)
		home, _ := bits.Mul64(fp.f1, m.buckets)
		window[i%batchKeys] = groupEntry{fp: fp, home: home}
		prefetch(unsafe.Pointer(&m.tab[home*bucketBytes]))
	}
	n := len(keys)
	for i := range min(n, batchKeys) {
		hash(i)
	}
	for i := range n {
		g := window[i%batchKeys]
		if j := i + batchKeys; j < n {
			hash(j)
		}
		off, p := m.probe(g.fp, g.home)
		offsets[i] = off
		probes += p
	}
	return probes
}

// PutBatch puts keys[i] with offsets[i] for every i, in order, with the
// result and statistics of as many calls of Put. It is Put's write-behind
// queue fed a batch at a time: each key is hashed and its bucket prefetched
// putDepth keys before it is written, across calls, so one batch's writes
// overlap the next one's cache misses.
//
// REQUIRES: len(offsets) >= len(keys), and what Put requires before each
// key (room in the table, Fits); it panics where Put would, having put the
// keys before.
func (m *Bucket) PutBatch(keys [][]byte, offsets []int64) {
	offsets = offsets[:len(keys)]
	for i, key := range keys {
		m.Put(key, offsets[i])
	}
}

// GetBatch sets offsets[i] to Get(keys[i]) for every i, with the statistics
// of as many calls of Get: the keys are hashed and their buckets
// prefetched 16 keys ahead of the one probed (getRolling). REQUIRES:
// len(offsets) >= len(keys).
func (m *Bucket) GetBatch(keys [][]byte, offsets []int64) {
	offsets = offsets[:len(keys)]
	if m.unwritten() {
		m.flush()
	}
	m.lookups += int64(len(keys))
	m.probes += m.getRolling(keys, offsets, &m.group, m.keys.digest)
}

// Clear empties the map in O(1) (amortised) as Dense.Clear.
func (m *Bucket) Clear() {
	// Write what is pending, so that the table's bytes (stale entries of
	// the old pass included) are those of unqueued Puts.
	m.flush()
	m.superseded = supersededBits{}
	if m.w.next() {
		clear(m.buf)
	}
	m.entries = 0
	m.lookups = 0
	m.probes = 0
	m.lastOffset = -1
}

// RecordSuperseded: see SupersedeRecorder. The queued Puts are written
// first, into the previous target.
func (m *Bucket) RecordSuperseded(bits []uint64, base int64) {
	m.flush()
	m.superseded = supersededBits{bits: bits, base: base}
}

// Size is the number of entries held (after the pending Puts are written).
func (m *Bucket) Size() int {
	if m.unwritten() {
		m.flush()
	}
	return m.entries
}

// Prefetch hashes each key and prefetches its home bucket, without a
// lookup (see Prefetcher).
func (m *Bucket) Prefetch(keys [][]byte) {
	for _, key := range keys {
		fp := m.keys.of(key)
		home, _ := bits.Mul64(fp.f1, m.buckets)
		prefetch(unsafe.Pointer(&m.tab[home*bucketBytes]))
	}
}

// SizeAtMost is Size plus the Puts still queued: an upper bound on Size
// that writes nothing (see SizeBounder).
func (m *Bucket) SizeAtMost() int { return m.entries + m.pendLen + m.sortLen }

// Slots is the capacity in entries: 4 per bucket.
func (m *Bucket) Slots() int { return int(m.buckets) * bucketSlots }

// LatestOffset is the offset of the last Put or UpdateLatestOffset since
// Clear, or -1.
func (m *Bucket) LatestOffset() int64 { return m.lastOffset }

// UpdateLatestOffset sets LatestOffset to offset (not bounded by Fits).
func (m *Bucket) UpdateLatestOffset(offset int64) { m.lastOffset = offset }

// Utilization is Size() / Slots().
func (m *Bucket) Utilization() float64 { return float64(m.Size()) / float64(m.Slots()) }

// Stats returns the lookups (Put and Get calls) and probes (buckets read)
// since Clear.
func (m *Bucket) Stats() Stats {
	if m.unwritten() {
		m.flush()
	}
	return Stats{Lookups: m.lookups, Probes: m.probes}
}

// MemoryBytes is the size of the buffer, as given to NewBucket, including
// any bytes before the first cache-line boundary and after the last bucket.
func (m *Bucket) MemoryBytes() int { return len(m.buf) }

// Hasher is the hasher given to NewBucket.
func (m *Bucket) Hasher() Hasher { return m.hasher }

// BytesPerEntry is the table memory per slot: 16 bytes.
func (m *Bucket) BytesPerEntry() int { return bucketBytes / bucketSlots }
