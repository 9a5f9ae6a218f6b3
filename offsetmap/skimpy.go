package offsetmap

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Sizes of Kafka's SkimpyOffsetMap and its defaults. They fix the byte layout
// that Skimpy shares with Kafka; changing one breaks that compatibility.
const (
	// DefaultMemoryBytes is Kafka's log.cleaner.dedupe.buffer.size default:
	// 134,217,728 bytes (128 MiB), shared by all cleaner threads.
	DefaultMemoryBytes = 128 << 20
	// DefaultLoadFactor is Kafka's log.cleaner.io.buffer.load.factor default,
	// the fraction of slots the cleaner fills before it ends a pass.
	DefaultLoadFactor = 0.9
	// MaxMemoryBytes is the largest table Kafka's SkimpyOffsetMap can have:
	// its memory argument is a Java int, and LogCleaner passes
	// min(dedupe.buffer.size / threads, Int.MaxValue) ("Cannot use more than
	// 2G of cleaner buffer space per cleaner thread").
	MaxMemoryBytes = math.MaxInt32
	// offsetBytes is the size of the offset stored after each digest: a
	// big-endian int64, as ByteBuffer.putLong writes it.
	offsetBytes = 8
	// windowBytes is the width of the digest window read as one big-endian
	// int32 per hashed probe (Kafka's ByteUtils.readIntBE).
	windowBytes = 4
	// emptyCheckBytes is how many leading bytes of a slot Kafka's isEmpty tests
	// for zero (three getLong calls), whatever the digest size.
	emptyCheckBytes = 24
)

// Skimpy is a Map with the exact table layout, probe sequence, emptiness test
// and statistics of Kafka's SkimpyOffsetMap: after the same puts with the same
// hasher, its buffer holds the same bytes as Kafka's ByteBuffer.
//
// The table is one buffer of Slots() entries of BytesPerEntry() bytes each:
// the key's digest, then the offset as 8 bytes big-endian. Open addressing:
// attempt a of a lookup probes the slot
//
//	abs(readIntBE(digest, min(a, size-4)) + max(0, a-size+4)) % slots
//
// in Java int (wrapping int32) arithmetic, where abs(MinInt32) = 0 (Kafka's
// Utils.abs) and size is the digest size: the first size-3 attempts read
// overlapping 4-byte windows of the digest, the later ones step linearly from
// the last window. Entries are never deleted; Clear zero-fills the table.
//
// A slot is empty when its first 24 bytes are zero (Kafka's isEmpty), or all
// of its bytes when the entry is shorter than 24 bytes (xxh3-64; Kafka, which
// has no digest that short, would read into the next slot there). So for md5
// and xxh3-128 the whole entry is tested, for sha1 the digest and the high 4
// bytes of the offset, for sha256 the first 24 digest bytes.
//
// Skimpy does not allocate after NewSkimpy: digests go into a scratch buffer
// that the map owns.
type Skimpy struct {
	buf           []byte // the table: slots * bytesPerEntry bytes, then any remainder of the memory
	hasher        Hasher
	hashSize      int            // digest bytes
	bytesPerEntry int            // hashSize + offsetBytes
	emptyBytes    int            // leading bytes of a slot tested by isEmpty: min(24, bytesPerEntry)
	slots         int            // entries the table can hold
	digest        []byte         // scratch: the digest of the key being looked up
	entries       int            // entries held
	lookups       int64          // Put and Get calls since Clear
	probes        int64          // slots examined since Clear
	lastOffset    int64          // latest offset, -1 when cleared
	superseded    supersededBits // the offsets overwritten (RecordSuperseded)
}

var _ Map = (*Skimpy)(nil)

// NewSkimpy allocates a map of memoryBytes bytes at once, as Kafka's
// SkimpyOffsetMap(memory, hashAlgorithm): each entry takes h.Size() + 8 bytes
// and Slots() = memoryBytes / (h.Size() + 8). With md5 and the default
// 134,217,728 bytes that is 24-byte entries and 5,592,405 slots.
//
// It fails when h is nil, when h's digest is shorter than 4 bytes (a probe
// reads a 4-byte window of it), when memoryBytes is over MaxMemoryBytes
// (Kafka's per-thread limit; engine.CleanerConfig.PerThreadMapBytes gives each thread its share), or when
// memoryBytes holds less than one entry.
func NewSkimpy(memoryBytes int, h Hasher) (*Skimpy, error) {
	if h == nil {
		return nil, fmt.Errorf("offsetmap: nil hasher")
	}
	hashSize := h.Size()
	if hashSize < windowBytes {
		return nil, fmt.Errorf("offsetmap: hasher %s has a %d-byte digest; the probe sequence needs at least %d bytes",
			h.Name(), hashSize, windowBytes)
	}
	if memoryBytes > MaxMemoryBytes {
		return nil, fmt.Errorf("offsetmap: memory %d bytes is over %d, the most one Kafka cleaner thread's map can use",
			memoryBytes, MaxMemoryBytes)
	}
	bytesPerEntry := hashSize + offsetBytes
	slots := memoryBytes / bytesPerEntry
	if memoryBytes < bytesPerEntry {
		return nil, fmt.Errorf("offsetmap: memory %d bytes holds no %d-byte entry (%s digest + %d-byte offset)",
			memoryBytes, bytesPerEntry, h.Name(), offsetBytes)
	}
	return &Skimpy{
		buf:           make([]byte, memoryBytes),
		hasher:        h,
		hashSize:      hashSize,
		bytesPerEntry: bytesPerEntry,
		emptyBytes:    min(emptyCheckBytes, bytesPerEntry),
		slots:         slots,
		digest:        make([]byte, hashSize),
		lastOffset:    -1,
	}, nil
}

// kafkaAbs is Kafka's Utils.abs: |n|, except that MinInt32 (whose negation
// overflows) maps to 0.
func kafkaAbs(n int32) int32 {
	switch {
	case n == math.MinInt32:
		return 0
	case n < 0:
		return -n
	}
	return n
}

// probeSlot is the slot that attempt number attempt (from 0) probes for a key
// with this digest in a table of slots slots, as Kafka's
// SkimpyOffsetMap.positionOf (which returns slot * bytesPerEntry). The sum is
// Java int arithmetic: it wraps in int32 before abs.
func probeSlot(digest []byte, attempt, slots int) int {
	last := len(digest) - windowBytes
	window := int32(binary.BigEndian.Uint32(digest[min(attempt, last):]))
	step := int32(max(0, attempt-last))
	// kafkaAbs is in [0, MaxInt32] and slots < MaxInt32 (NewSkimpy's limit),
	// so an unsigned 32-bit remainder gives Java's int % and is cheaper than a
	// 64-bit one.
	return int(uint32(kafkaAbs(window+step)) % uint32(slots))
}

// position is the byte offset in m.buf of the slot for attempt, counting one
// probe, as Kafka's positionOf.
func (m *Skimpy) position(attempt int) int {
	m.probes++
	return probeSlot(m.digest, attempt, m.slots) * m.bytesPerEntry
}

// isEmpty reports whether the slot at byte offset pos is free, as Kafka's
// isEmpty (see Skimpy for the bytes it tests).
func (m *Skimpy) isEmpty(pos int) bool {
	b := m.buf[pos : pos+m.emptyBytes]
	if len(b) == emptyCheckBytes {
		return binary.LittleEndian.Uint64(b[0:])|binary.LittleEndian.Uint64(b[8:])|binary.LittleEndian.Uint64(b[16:]) == 0
	}
	// Entries shorter than 24 bytes: test every byte.
	var or uint64
	for ; len(b) >= 8; b = b[8:] {
		or |= binary.LittleEndian.Uint64(b)
	}
	for _, c := range b {
		or |= uint64(c)
	}
	return or == 0
}

// Put maps key to offset, as Kafka's SkimpyOffsetMap.put: it probes until it
// finds an entry with key's digest, whose offset it overwrites, or an empty
// slot, where it writes the digest and offset. Either way LatestOffset becomes
// offset.
//
// The probe loop has no bound of its own, as in Kafka: while a slot is free,
// the sequence (linear in int32 after the digest windows, walking back after
// the wrap) reaches it.
//
// REQUIRES: Size() < Slots(). Put panics on a full map, even when key is
// already in it, as Kafka's put throws IllegalArgumentException when
// entries >= slots; the cleaner stops at MaxEntries long before that.
func (m *Skimpy) Put(key []byte, offset int64) {
	if m.entries >= m.slots {
		panic(fmt.Sprintf("offsetmap: attempted to add a new entry to a full offset map, entries: %d, slots: %d",
			m.entries, m.slots))
	}
	m.lookups++
	m.hasher.Sum(m.digest, key)
	hs := m.hashSize
	for attempt := 0; ; attempt++ {
		pos := m.position(attempt)
		entry := m.buf[pos : pos+m.bytesPerEntry]
		if m.isEmpty(pos) {
			copy(entry, m.digest)
			binary.BigEndian.PutUint64(entry[hs:], uint64(offset))
			m.entries++
			m.lastOffset = offset
			return
		}
		if bytes.Equal(entry[:hs], m.digest) {
			if m.superseded.bits != nil {
				m.superseded.note(int64(binary.BigEndian.Uint64(entry[hs:])), offset)
			}
			binary.BigEndian.PutUint64(entry[hs:], uint64(offset))
			m.lastOffset = offset
			return
		}
	}
}

// Get returns the offset put last for key, or -1 when key is absent, as
// Kafka's SkimpyOffsetMap.get: it probes until it finds key's digest (a hit)
// or an empty slot (a miss), and gives up after Slots() + digest size - 4
// attempts, so that a full map answers a miss without looping forever.
func (m *Skimpy) Get(key []byte) int64 {
	m.lookups++
	m.hasher.Sum(m.digest, key)
	hs := m.hashSize
	maxAttempts := m.slots + hs - windowBytes
	for attempt := 0; attempt < maxAttempts; attempt++ {
		pos := m.position(attempt)
		if m.isEmpty(pos) {
			return -1
		}
		entry := m.buf[pos : pos+m.bytesPerEntry]
		if bytes.Equal(entry[:hs], m.digest) {
			return int64(binary.BigEndian.Uint64(entry[hs:]))
		}
	}
	return -1
}

// RecordSuperseded: see SupersedeRecorder.
func (m *Skimpy) RecordSuperseded(bits []uint64, base int64) {
	m.superseded = supersededBits{bits: bits, base: base}
}

// Clear empties the map, as Kafka's SkimpyOffsetMap.clear: it zero-fills the
// whole buffer and resets the entry count, the statistics and the latest
// offset (to -1). It costs one pass over MemoryBytes().
func (m *Skimpy) Clear() {
	m.superseded = supersededBits{}
	clear(m.buf)
	m.entries = 0
	m.lookups = 0
	m.probes = 0
	m.lastOffset = -1
}

// Size is the number of entries held, as Kafka's size.
func (m *Skimpy) Size() int { return m.entries }

// Slots is the capacity in entries: MemoryBytes() / BytesPerEntry().
func (m *Skimpy) Slots() int { return m.slots }

// LatestOffset is the offset of the last Put or UpdateLatestOffset since
// Clear, or -1, as Kafka's latestOffset.
func (m *Skimpy) LatestOffset() int64 { return m.lastOffset }

// UpdateLatestOffset sets LatestOffset to offset, as Kafka's
// updateLatestOffset (it may move it backwards).
func (m *Skimpy) UpdateLatestOffset(offset int64) { m.lastOffset = offset }

// Utilization is Size() / Slots(), as Kafka's utilization.
func (m *Skimpy) Utilization() float64 { return float64(m.entries) / float64(m.slots) }

// Stats returns the lookups (Put and Get calls) and probes (slots examined)
// since Clear, as Kafka's lookups and probes counters.
func (m *Skimpy) Stats() Stats { return Stats{Lookups: m.lookups, Probes: m.probes} }

// MemoryBytes is the size of the buffer in bytes: the memoryBytes given to
// NewSkimpy, including any remainder smaller than one entry after the last
// slot (Kafka allocates it too).
func (m *Skimpy) MemoryBytes() int { return len(m.buf) }

// Hasher is the hasher given to NewSkimpy.
func (m *Skimpy) Hasher() Hasher { return m.hasher }

// BytesPerEntry is the size of one slot in bytes: digest size + 8, as Kafka's
// bytesPerEntry (24 for md5).
func (m *Skimpy) BytesPerEntry() int { return m.bytesPerEntry }

// Buffer returns the table itself, laid out as Kafka's SkimpyOffsetMap lays
// out its ByteBuffer, for tests and byte-for-byte comparison with Kafka. The
// caller must not modify it.
func (m *Skimpy) Buffer() []byte { return m.buf }
