package offsetmap

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"

	"github.com/dgryski/go-metro"
	"github.com/twmb/murmur3"
	"github.com/zeebo/xxh3"
)

// minPassSpan is the least span of offsets, above the pass's base, that a
// relative map accepts after any Clear: 2^31 offsets. A pass that runs into
// its limit ends early (Fits says false) and the next pass goes on from there.
const minPassSpan = 1 << 31

// passWindow turns the offsets of one pass into 32-bit stamps and back, so
// that a map can store an offset in 4 bytes and be cleared in O(1).
//
// The first Put after Clear fixes base, the offset that stamp lo stands for;
// offset o is stored as lo + (o - base). Stamps only grow from pass to pass:
// Clear moves lo past the largest stamp the pass wrote, so every slot
// written by an earlier pass holds a stamp below lo and reads as empty, and
// a zero-filled slot (stamp 0) too, since lo >= 1. When fewer than
// minPassSpan stamps are left above the new lo, Clear zero-fills the table
// and starts again at lo = 1: with passes spanning S offsets each, that is
// one zero-fill every 2^31 / S passes or so, instead of one per pass as in
// Kafka's SkimpyOffsetMap.clear.
type passWindow struct {
	lo   uint32 // stamp of base; a slot with a stamp below lo is empty
	hi   uint32 // largest stamp written since Clear; lo - 1 when none
	base int64  // offset of the first Put since Clear; -1 before it
}

func newPassWindow() passWindow { return passWindow{lo: 1, hi: 0, base: -1} }

// fits reports whether offset can be stamped in this pass: before the first
// Put any offset >= 0 can (it becomes the base); after it, offsets in
// [base, base + MaxUint32 - lo], a span of at least minPassSpan.
func (w *passWindow) fits(offset int64) bool {
	if w.base < 0 {
		return offset >= 0
	}
	return offset >= w.base && uint64(offset-w.base) <= uint64(math.MaxUint32-w.lo)
}

// stamp returns offset's stamp, fixing base on the first call of a pass.
// REQUIRES: w.fits(offset); it panics otherwise.
func (w *passWindow) stamp(offset int64) uint32 {
	if !w.fits(offset) {
		panic(fmt.Sprintf("offsetmap: offset %d does not fit this pass (base %d, span %d); check Fits before Put",
			offset, w.base, uint64(math.MaxUint32-w.lo)))
	}
	if w.base < 0 {
		w.base = offset
	}
	v := w.lo + uint32(offset-w.base)
	w.hi = max(w.hi, v)
	return v
}

// offset is the log offset that stamp v (>= lo) stands for.
func (w *passWindow) offset(v uint32) int64 { return w.base + int64(v-w.lo) }

// next starts a new pass. It returns true when the caller must zero-fill its
// table because the stamps are running out.
func (w *passWindow) next() (zeroFill bool) {
	lo := w.hi + 1 // wraps to 0 when the last pass used MaxUint32
	w.base = -1
	if lo == 0 || math.MaxUint32-lo < minPassSpan {
		*w = newPassWindow()
		return true
	}
	w.lo, w.hi = lo, lo-1
	return false
}

// fingerprint is what a dense map keeps of a key's digest: f1 is the digest's
// first 8 bytes read big-endian, f2 the next 4 (used by 96-bit layouts only).
// Digests shorter than that are zero-padded, which leaves fewer bits to tell
// keys apart (FingerprintBits counts them). The map's home slot or bucket
// comes from f1's high bits, so two keys with equal fingerprints always meet
// on one probe path: the fingerprint bits alone decide collisions.
type fingerprint struct {
	f1 uint64
	f2 uint32
}

// fingerprintOf reads a fingerprint from digest, whose length is at least
// 12 (the caller zero-pads shorter digests in its scratch buffer).
func fingerprintOf(digest []byte, fpBytes int) fingerprint {
	fp := fingerprint{f1: binary.BigEndian.Uint64(digest[0:8])}
	if fpBytes > 8 {
		fp.f2 = binary.BigEndian.Uint32(digest[8:12])
	}
	return fp
}

// scratchDigest returns a digest buffer for h, at least 12 bytes long so that
// fingerprintOf can read 12 bytes; bytes past h.Size() stay zero.
func scratchDigest(h Hasher) []byte { return make([]byte, max(h.Size(), 12)) }

// fingerprinter is implemented by hashers that can give a dense map a key's
// fingerprint straight from their result words, skipping the digest buffer's
// round trip (Sum's stores, then fingerprintOf's loads and byte swaps). The
// fingerprint must equal fingerprintOf(Sum(key), 12), byte order included,
// so a map's bytes do not depend on which path filled it.
type fingerprinter interface {
	fingerprint(key []byte) fingerprint
}

func (md5Hasher) fingerprint(key []byte) fingerprint {
	d := md5.Sum(key)
	return fingerprint{f1: binary.BigEndian.Uint64(d[0:8]), f2: binary.BigEndian.Uint32(d[8:12])}
}

func (sha1Hasher) fingerprint(key []byte) fingerprint {
	d := sha1.Sum(key)
	return fingerprint{f1: binary.BigEndian.Uint64(d[0:8]), f2: binary.BigEndian.Uint32(d[8:12])}
}

func (sha256Hasher) fingerprint(key []byte) fingerprint {
	d := sha256.Sum256(key)
	return fingerprint{f1: binary.BigEndian.Uint64(d[0:8]), f2: binary.BigEndian.Uint32(d[8:12])}
}

// The xxh3 digests are big-endian words: f1 is the first word as it is.
func (xxh3x64Hasher) fingerprint(key []byte) fingerprint {
	return fingerprint{f1: xxh3.Hash(key)}
}

func (xxh3x128Hasher) fingerprint(key []byte) fingerprint {
	h := xxh3.Hash128(key)
	return fingerprint{f1: h.Hi, f2: uint32(h.Lo >> 32)}
}

// The metro, murmur3 digests are little-endian words, read big-endian by
// fingerprintOf: byte-reversed words.
func (metro64Hasher) fingerprint(key []byte) fingerprint {
	return fingerprint{f1: bits.ReverseBytes64(metro.Hash64(key, 0))}
}

func (metro128Hasher) fingerprint(key []byte) fingerprint {
	a, b := metro.Hash128(key, 0)
	return fingerprint{f1: bits.ReverseBytes64(a), f2: bits.ReverseBytes32(uint32(b))}
}

func (murmur3x128Hasher) fingerprint(key []byte) fingerprint {
	h1, h2 := murmur3.Sum128(key)
	return fingerprint{f1: bits.ReverseBytes64(h1), f2: bits.ReverseBytes32(uint32(h2))}
}

// fnv1a-64's digest is big-endian.
func (fnv1a64Hasher) fingerprint(key []byte) fingerprint {
	h := uint64(fnv64Offset)
	for _, c := range key {
		h ^= uint64(c)
		h *= fnv64Prime
	}
	return fingerprint{f1: h}
}

// keyFingerprints computes a dense map's fingerprints of keys: through the
// hasher's fingerprinter when it has one, else through Sum into a scratch
// digest. Allocated once with the map; nothing per key.
type keyFingerprints struct {
	fpr     fingerprinter // nil when the hasher has none
	hasher  Hasher
	digest  []byte // scratch, at least 12 bytes, zero past the digest
	fpBytes int    // 12 or 8: with 8, f2 is always 0
}

func newKeyFingerprints(h Hasher, fpBytes int) keyFingerprints {
	fpr, _ := h.(fingerprinter)
	return keyFingerprints{fpr: fpr, hasher: h, digest: scratchDigest(h), fpBytes: fpBytes}
}

// of returns key's fingerprint.
func (k *keyFingerprints) of(key []byte) fingerprint { return k.ofWith(key, k.digest) }

// ofWith is of with digest as the hasher's scratch (at least as long as
// k.digest, zero past the digest), so that goroutines each with their own
// scratch may hash at once.
func (k *keyFingerprints) ofWith(key, digest []byte) fingerprint {
	var fp fingerprint
	if k.fpr != nil {
		fp = k.fpr.fingerprint(key)
	} else {
		k.hasher.Sum(digest, key)
		fp = fingerprintOf(digest, 12)
	}
	if k.fpBytes == 8 {
		fp.f2 = 0
	}
	return fp
}
