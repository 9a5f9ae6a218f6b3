package offsetmap

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Entry sizes of the dense layouts, in bytes: a fingerprint of the digest
// plus a 4-byte stamp (the offset relative to the pass's base, see
// passWindow).
const (
	// dense16Bytes: a 96-bit fingerprint and a 32-bit stamp.
	dense16Bytes = 16
	// dense12Bytes: a 64-bit fingerprint and a 32-bit stamp.
	dense12Bytes = 12
	// stampBytes is the size of the stored stamp.
	stampBytes = 4
)

// Dense is a Map with flat open addressing and linear probing over entries of
// 16 bytes (layout "dense16": a 96-bit fingerprint of the digest, then a
// 32-bit stamp) or 12 bytes (layout "dense12": a 64-bit fingerprint, then
// the stamp), all little-endian. Against Kafka's 24-byte md5 entries that is
// 1.5 or 2 times the keys per MiB, for a stated risk: two keys whose
// fingerprints are equal are one key to the map, with probability about
// N^2 / 2^(b+1) for N keys and b fingerprint bits (CollisionProbability).
//
// Offsets are stored relative to the first Put since Clear (see passWindow):
// Fits refuses offsets below that base or more than about 2^32 above it,
// and Get returns whole offsets. A slot is empty when its stamp is below the
// pass's first stamp, so Clear is O(1) except for one zero-fill of the
// buffer every 2^31 offsets of passes or so.
//
// The home slot is the fingerprint's first 64 bits scaled onto the slots
// (multiply and keep the high word, no division); probing is linear, with
// wraparound. Like Skimpy it allocates its buffer once, in NewDense, and
// nothing per key.
type Dense struct {
	buf        []byte // the table: slots * entryBytes bytes, then any remainder
	hasher     Hasher
	keys       keyFingerprints
	fpBytes    int // 12 (dense16) or 8 (dense12)
	entryBytes int // fpBytes + stampBytes
	slots      uint64
	w          passWindow
	entries    int
	lookups    int64
	probes     int64
	lastOffset int64
	// superseded records the offsets overwritten (RecordSuperseded).
	superseded supersededBits
}

var _ Map = (*Dense)(nil)

// NewDense allocates a dense map of memoryBytes bytes with entries of
// entryBytes (16 or 12) bytes: Slots() = memoryBytes / entryBytes. Errors:
// a nil hasher, another entry size, memoryBytes over MaxMemoryBytes (the
// per-thread limit the cleaner shares with Kafka) or below one entry.
func NewDense(memoryBytes, entryBytes int, h Hasher) (*Dense, error) {
	if h == nil {
		return nil, fmt.Errorf("offsetmap: nil hasher")
	}
	if entryBytes != dense16Bytes && entryBytes != dense12Bytes {
		return nil, fmt.Errorf("offsetmap: dense entries are %d or %d bytes, not %d", dense16Bytes, dense12Bytes, entryBytes)
	}
	if memoryBytes > MaxMemoryBytes {
		return nil, fmt.Errorf("offsetmap: memory %d bytes is over %d, the most one cleaner thread's map can use",
			memoryBytes, MaxMemoryBytes)
	}
	if memoryBytes < entryBytes {
		return nil, fmt.Errorf("offsetmap: memory %d bytes holds no %d-byte entry", memoryBytes, entryBytes)
	}
	return &Dense{
		buf:        make([]byte, memoryBytes),
		hasher:     h,
		keys:       newKeyFingerprints(h, entryBytes-stampBytes),
		fpBytes:    entryBytes - stampBytes,
		entryBytes: entryBytes,
		slots:      uint64(memoryBytes / entryBytes),
		w:          newPassWindow(),
		lastOffset: -1,
	}, nil
}

// lookup hashes key and returns its fingerprint and home slot.
func (m *Dense) lookup(key []byte) (fingerprint, uint64) {
	m.lookups++
	fp := m.keys.of(key)
	home, _ := bits.Mul64(fp.f1, m.slots)
	return fp, home
}

// entry returns slot s's bytes.
func (m *Dense) entry(s uint64) []byte {
	pos := s * uint64(m.entryBytes)
	return m.buf[pos : pos+uint64(m.entryBytes) : pos+uint64(m.entryBytes)]
}

// holds reports whether entry e holds fingerprint fp (its stamp aside).
func (m *Dense) holds(e []byte, fp fingerprint) bool {
	if binary.LittleEndian.Uint64(e[0:8]) != fp.f1 {
		return false
	}
	return m.fpBytes == 8 || binary.LittleEndian.Uint32(e[8:12]) == fp.f2
}

// Fits reports whether offset can be put in this pass (see passWindow).
func (m *Dense) Fits(offset int64) bool { return m.w.fits(offset) }

// Put maps key's fingerprint to offset: it probes from the home slot until
// it finds the fingerprint (and overwrites its stamp) or an empty slot
// (and writes fingerprint and stamp there).
//
// REQUIRES: Size() < Slots() and Fits(offset); Put panics otherwise, as
// Skimpy's does on a full map.
func (m *Dense) Put(key []byte, offset int64) {
	if m.entries >= int(m.slots) {
		panic(fmt.Sprintf("offsetmap: attempted to add a new entry to a full offset map, entries: %d, slots: %d",
			m.entries, m.slots))
	}
	v := m.w.stamp(offset)
	fp, s := m.lookup(key)
	lo := m.w.lo
	fb := m.fpBytes
	for {
		m.probes++
		e := m.entry(s)
		if binary.LittleEndian.Uint32(e[fb:]) < lo {
			binary.LittleEndian.PutUint64(e[0:8], fp.f1)
			if fb > 8 {
				binary.LittleEndian.PutUint32(e[8:12], fp.f2)
			}
			binary.LittleEndian.PutUint32(e[fb:], v)
			m.entries++
			break
		}
		if m.holds(e, fp) {
			if m.superseded.bits != nil {
				m.superseded.note(m.w.offset(binary.LittleEndian.Uint32(e[fb:])), offset)
			}
			binary.LittleEndian.PutUint32(e[fb:], v)
			break
		}
		if s++; s == m.slots {
			s = 0
		}
	}
	m.lastOffset = offset
}

// RecordSuperseded: see SupersedeRecorder.
func (m *Dense) RecordSuperseded(bits []uint64, base int64) {
	m.superseded = supersededBits{bits: bits, base: base}
}

// Get returns the offset put last for key, or -1: it probes from the home
// slot until it finds key's fingerprint or an empty slot, at most Slots()
// slots.
func (m *Dense) Get(key []byte) int64 {
	fp, s := m.lookup(key)
	lo := m.w.lo
	fb := m.fpBytes
	for range m.slots {
		m.probes++
		e := m.entry(s)
		v := binary.LittleEndian.Uint32(e[fb:])
		if v < lo {
			return -1
		}
		if m.holds(e, fp) {
			return m.w.offset(v)
		}
		if s++; s == m.slots {
			s = 0
		}
	}
	return -1
}

// Clear empties the map in O(1) by moving the stamp window past this pass
// (see passWindow); about once every 2^31 offsets of passes it zero-fills
// the buffer instead. It resets the entry count, the statistics and the
// latest offset (to -1).
func (m *Dense) Clear() {
	m.superseded = supersededBits{}
	if m.w.next() {
		clear(m.buf)
	}
	m.entries = 0
	m.lookups = 0
	m.probes = 0
	m.lastOffset = -1
}

// Size is the number of entries held.
func (m *Dense) Size() int { return m.entries }

// Slots is the capacity in entries: MemoryBytes() / BytesPerEntry().
func (m *Dense) Slots() int { return int(m.slots) }

// LatestOffset is the offset of the last Put or UpdateLatestOffset since
// Clear, or -1.
func (m *Dense) LatestOffset() int64 { return m.lastOffset }

// UpdateLatestOffset sets LatestOffset to offset. It is not bounded by Fits:
// the latest offset is kept whole.
func (m *Dense) UpdateLatestOffset(offset int64) { m.lastOffset = offset }

// Utilization is Size() / Slots().
func (m *Dense) Utilization() float64 { return float64(m.entries) / float64(m.slots) }

// Stats returns the lookups (Put and Get calls) and probes (slots examined)
// since Clear.
func (m *Dense) Stats() Stats { return Stats{Lookups: m.lookups, Probes: m.probes} }

// MemoryBytes is the size of the buffer, as given to NewDense.
func (m *Dense) MemoryBytes() int { return len(m.buf) }

// Hasher is the hasher given to NewDense.
func (m *Dense) Hasher() Hasher { return m.hasher }

// BytesPerEntry is the size of one slot: 16 or 12 bytes.
func (m *Dense) BytesPerEntry() int { return m.entryBytes }
