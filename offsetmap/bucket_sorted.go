package offsetmap

import (
	"fmt"
	"math/bits"
	"unsafe"
)

// sortedPut is one Put held in a Bucket's sort buffer: the fingerprint and
// the stamp, 16 bytes.
type sortedPut struct {
	f1    uint64
	f2    uint32
	stamp uint32
}

// sortDigitBits is the width of each of the two radix digits a sort buffer
// sorts by: its sort key (sortBuffer.key) is below 2^(2 x 11) = 2^22.
// (Digits of 8 bits sorted faster, 6.4 against 8.8 ns per put, but left
// each 2 KiB of a 128 MiB table in put order, and the build was no
// faster.)
const (
	sortDigitBits = 11
	sortDigits    = 1 << sortDigitBits
	sortDigitMask = sortDigits - 1
	// sortKeyBuckets is the most distinct sort keys: 2^22, the buckets of
	// a 256 MiB table.
	sortKeyBuckets = 1 << (2 * sortDigitBits)
)

// SortMinPuts is the fewest buffered Puts a flush of a sort buffer sorts
// (4,096); fewer are written in the order they were put (through the same
// prefetch window), as the sort's fixed cost (two histograms of 2,048
// counters) would outweigh what ordering saves. So a buffer of fewer Puts
// never sorts: a caller carving one out of a map's memory gives that
// memory to the table instead.
const SortMinPuts = 1 << 12

// sortAhead is how many puts ahead of the one it writes a flush prefetches
// the home bucket: in bucket order the lines come in quickly, and 64 ahead
// measured faster than 16 or 32 (BenchmarkBucketSortedPut).
const sortAhead = 64

// sortBuffer is the state of a Bucket's sorted puts (SetSortBuffer).
type sortBuffer struct {
	buf []sortedPut // the puts not yet written, in the order put; cap = the buffer's size
	tmp []sortedPut // the radix sort's second buffer, as long as cap(buf)
	// minSort is the fewest puts a flush sorts (SortMinPuts; tests lower it).
	minSort int
	// keyBuckets is min(the table's buckets, sortKeyBuckets): a put's sort
	// key is f1 x keyBuckets / 2^64 (key).
	keyBuckets uint64
	// lower and upper count buf's puts by their key's lower and upper
	// digit, as they are put (so the sort reads buf one time fewer).
	lower, upper [sortDigits]uint32
}

// SortBufferer is implemented by maps that can hold their Puts in a buffer
// and write them ordered by their place in the table (Bucket; see
// Bucket.SetSortBuffer for the contract). SortBuffer is the buffer's size
// in Puts, 0 when off.
type SortBufferer interface {
	SetSortBuffer(n int) error
	SortBuffer() int
}

var _ SortBufferer = (*Bucket)(nil)

// SortBufferBytes is the memory a sort buffer of n puts takes besides the
// table: two arrays of n 16-byte entries (the puts as put, and the radix
// sort's output).
func SortBufferBytes(n int) int64 { return 2 * 16 * int64(n) }

// MaxCarvedSortPuts is the most puts of a sort buffer carved out of
// memoryBytes, the rest going to a Bucket's table: a quarter of
// memoryBytes at 32 bytes a put, memoryBytes / 128 rounded down (0 under
// 128 bytes). The cap keeps three quarters for the table, which so loses
// at most a quarter of its slots, and a capped buffer's puts then land 1.5
// buckets apart when sorted (3/4 x memoryBytes / 64 buckets for
// memoryBytes / 128 puts), dense enough that a full buffer's writes go up
// the table nearly line by line: BenchmarkBucketSortedPut measured 1M
// puts into 2M buckets (2 apart) at 29.5 CPU ns a key, 512Ki (4 apart) at
// 34, 256Ki (8 apart) at 36, no buffer at 39.
func MaxCarvedSortPuts(memoryBytes int64) int64 {
	return max(0, memoryBytes) / 4 / SortBufferBytes(1)
}

// SetSortBuffer makes the map hold up to n Puts (Put, PutBatch,
// PutFingerprints) unwritten in a buffer, and write them all at once,
// ordered by home bucket, when the buffer is full or when anything reads
// the map (Get, GetBatch, Size, Stats, Utilization, Clear,
// RecordSuperseded), instead of through the write-behind queue of putDepth
// Puts. Ordered by home bucket, the writes go up through the table nearly
// in address order, so the hardware's streaming prefetch, the TLB and the
// DRAM rows serve them, where Puts in log order each miss at a random
// place. n = 0 turns the buffer off (Put writes behind, as without it).
// The buffer takes SortBufferBytes(n) bytes besides the table, allocated
// here. Pending Puts are written first.
//
// The order is a stable radix sort by home bucket (exact in tables of up
// to 2^22 buckets, 256 MiB; to within buckets / 2^22 buckets in larger
// ones: sortBuffer.key), so the Puts of one fingerprint keep their order:
// every key's latest offset, Size, Get's answers and the superseded
// offsets (RecordSuperseded) are those of writing each Put at once, in
// order. What may differ is where an entry sits within its probe run
// (another key may take the slot it would have taken) and so the table's
// bytes and the probe counts. A flush of fewer than SortMinPuts (4,096)
// Puts writes them in the order put. SizeAtMost counts the
// buffered Puts, so a caller keeping Size below a bound (the cleaner's
// MaxEntries) still asks Size, exact, before a Put that could pass it.
// Errors: n < 0.
func (m *Bucket) SetSortBuffer(n int) error {
	if n < 0 {
		return fmt.Errorf("offsetmap: sort buffer of %d puts", n)
	}
	m.flush()
	if n == 0 {
		m.sorted = nil
		return nil
	}
	m.sorted = &sortBuffer{
		buf:        make([]sortedPut, 0, n),
		tmp:        make([]sortedPut, n),
		minSort:    SortMinPuts,
		keyBuckets: min(m.buckets, sortKeyBuckets),
	}
	return nil
}

// SortBuffer is the sort buffer's size in Puts (SetSortBuffer), 0 when off.
func (m *Bucket) SortBuffer() int {
	if m.sorted == nil {
		return 0
	}
	return cap(m.sorted.buf)
}

// buffer appends one stamped Put to the sort buffer, writing the buffer
// when it is full.
func (m *Bucket) buffer(fp fingerprint, v uint32) {
	s := m.sorted
	s.buf = append(s.buf, sortedPut{f1: fp.f1, f2: fp.f2, stamp: v})
	k := s.key(fp.f1)
	s.lower[k&sortDigitMask]++
	s.upper[k>>sortDigitBits]++
	m.sortLen = len(s.buf)
	if len(s.buf) == cap(s.buf) {
		m.flushSorted()
	}
}

// flushSorted writes the sort buffer's Puts into the table: sorted by home
// bucket when there are at least minSort of them, else in the order put;
// either way a window of sortAhead prefetched home buckets runs ahead of
// the writes.
func (m *Bucket) flushSorted() {
	s := m.sorted
	puts := s.buf
	if len(puts) >= s.minSort {
		puts = s.sort()
	} else {
		// Take the few puts out of the counts, cheaper than clearing them.
		for i := range puts {
			k := s.key(puts[i].f1)
			s.lower[k&sortDigitMask]--
			s.upper[k>>sortDigitBits]--
		}
	}
	n := len(puts)
	for i := range min(n, sortAhead) {
		home, _ := bits.Mul64(puts[i].f1, m.buckets)
		prefetch(unsafe.Pointer(&m.tab[home*bucketBytes]))
	}
	for i := range puts {
		if j := i + sortAhead; j < n {
			home, _ := bits.Mul64(puts[j].f1, m.buckets)
			prefetch(unsafe.Pointer(&m.tab[home*bucketBytes]))
		}
		p := &puts[i]
		home, _ := bits.Mul64(p.f1, m.buckets)
		m.insert(fingerprint{f1: p.f1, f2: p.f2}, home, p.stamp)
	}
	s.buf = s.buf[:0]
	m.sortLen = 0
}

// key is the sort key of a put of fingerprint f1: f1 x keyBuckets / 2^64,
// below keyBuckets. With a table of at most 2^22 buckets (256 MiB) it is
// the put's home bucket itself (home = f1 x buckets / 2^64, Put's), so
// the sort orders the puts by home bucket exactly, whatever the bucket
// count; in a larger table it is f1's top 22 bits, and each key spans
// buckets / 2^22 buckets, so a put may be written before one whose home
// is up to ceil(buckets / 2^22) buckets lower (buckets / 2^22 - 1 when the
// count is a power of two). Either way the key is monotone in f1, so the
// puts of one fingerprint share it.
func (s *sortBuffer) key(f1 uint64) uint64 {
	k, _ := bits.Mul64(f1, s.keyBuckets)
	return k
}

// sort orders buf by key, stably: a least-significant-digit radix sort of
// two counting passes, buf to tmp by the key's lower digit, tmp back to
// buf by its upper one, from the counts taken as the puts came (which it
// leaves zero). It returns buf.
func (s *sortBuffer) sort() []sortedPut {
	buf := s.buf
	tmp := s.tmp[:len(buf)]
	c0, c1 := &s.lower, &s.upper
	var a0, a1 uint32
	for i := range c0 {
		a0, c0[i] = a0+c0[i], a0
		a1, c1[i] = a1+c1[i], a1
	}
	for i := range buf {
		p := buf[i]
		k := s.key(p.f1) & sortDigitMask
		tmp[c0[k]] = p
		c0[k]++
	}
	for i := range tmp {
		p := tmp[i]
		k := s.key(p.f1) >> sortDigitBits
		buf[c1[k]] = p
		c1[k]++
	}
	clear(c0[:])
	clear(c1[:])
	return buf
}
