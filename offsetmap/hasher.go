package offsetmap

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/dgryski/go-metro"
	"github.com/twmb/murmur3"
	"github.com/zeebo/xxh3"
)

// Hasher computes the fixed-size digest that a map stores in place of a key.
// Two keys with equal digests are the same key to the map (as in Kafka: a
// collision can drop a live record), so the digest must be wide enough to make
// that improbable.
type Hasher interface {
	// Name is the hasher's name as NewHasher accepts it: "md5", "xxh3-128", ...
	Name() string
	// Size is the digest length in bytes: 16 for md5 and xxh3-128.
	Size() int
	// Sum writes the digest of key into dst[:Size()]. len(dst) must be at
	// least Size(). Sum does not allocate and does not retain key or dst.
	Sum(dst, key []byte)
}

// Hasher names accepted by NewHasher.
const (
	// HasherMD5 is Kafka's default ("MD5", crypto/md5): 16-byte digest.
	HasherMD5 = "md5"
	// HasherSHA1 is crypto/sha1 ("SHA-1" in Kafka's hashAlgorithm): 20 bytes.
	HasherSHA1 = "sha1"
	// HasherSHA256 is crypto/sha256 ("SHA-256" in Kafka's hashAlgorithm): 32 bytes.
	HasherSHA256 = "sha256"
	// HasherXXH3_64 is github.com/zeebo/xxh3 Hash, unseeded: 8 bytes,
	// big-endian. Not available to Kafka (no Java MessageDigest this short).
	HasherXXH3_64 = "xxh3-64"
	// HasherXXH3_128 is github.com/zeebo/xxh3 Hash128, unseeded: 16 bytes, Hi
	// then Lo, each big-endian (the same bytes as xxh3.Uint128.Bytes).
	HasherXXH3_128 = "xxh3-128"
	// HasherMetro64 is github.com/dgryski/go-metro Hash64 (MetroHash64),
	// seed 0: 8 bytes, little-endian, as the reference implementation copies
	// its result to memory on x86.
	HasherMetro64 = "metro-64"
	// HasherMetro128 is github.com/dgryski/go-metro Hash128 (MetroHash128),
	// seed 0: 16 bytes, the two 64-bit halves in order, each little-endian,
	// as the reference implementation's output buffer.
	HasherMetro128 = "metro-128"
	// HasherMurmur3_128 is github.com/twmb/murmur3 Sum128 (MurmurHash3
	// x64_128), seed 0: 16 bytes, h1 then h2, each little-endian, as the
	// reference MurmurHash3_x64_128 writes its output (and Guava's
	// Hashing.murmur3_128 prints it).
	HasherMurmur3_128 = "murmur3-128"
	// HasherFNV1a64 is 64-bit FNV-1a (the same function as hash/fnv's
	// New64a, computed here without its allocation): 8 bytes, big-endian, as
	// hash/fnv's Sum appends it. Fast on short keys but not designed against
	// collisions of structured keys; listed to show what a weak hash costs.
	HasherFNV1a64 = "fnv1a-64"
)

// hasherNames lists every name NewHasher accepts, in the order HasherNames
// returns them.
var hasherNames = []string{
	HasherMD5, HasherSHA1, HasherSHA256, HasherXXH3_64, HasherXXH3_128,
	HasherMetro64, HasherMetro128, HasherMurmur3_128, HasherFNV1a64,
}

// HasherNames returns the names NewHasher accepts, md5 (Kafka's) first. The
// caller may modify the returned slice.
func HasherNames() []string {
	return append([]string(nil), hasherNames...)
}

// NewHasher returns the hasher called name. Names are matched without regard
// to case, and Kafka's MessageDigest names "SHA-1" and "SHA-256" are accepted
// as aliases, so Kafka's hashAlgorithm values ("MD5") work unchanged.
func NewHasher[S ~string](name S) (Hasher, error) {
	switch strings.ToLower(string(name)) {
	case HasherMD5:
		return md5Hasher{}, nil
	case HasherSHA1, "sha-1":
		return sha1Hasher{}, nil
	case HasherSHA256, "sha-256":
		return sha256Hasher{}, nil
	case HasherXXH3_64:
		return xxh3x64Hasher{}, nil
	case HasherXXH3_128:
		return xxh3x128Hasher{}, nil
	case HasherMetro64:
		return metro64Hasher{}, nil
	case HasherMetro128:
		return metro128Hasher{}, nil
	case HasherMurmur3_128:
		return murmur3x128Hasher{}, nil
	case HasherFNV1a64:
		return fnv1a64Hasher{}, nil
	}
	return nil, fmt.Errorf("offsetmap: unknown hasher %q (valid: %s)", name, strings.Join(hasherNames, ", "))
}

type md5Hasher struct{}

func (md5Hasher) Name() string { return HasherMD5 }
func (md5Hasher) Size() int    { return md5.Size }
func (md5Hasher) Sum(dst, key []byte) {
	d := md5.Sum(key)
	copy(dst[:md5.Size], d[:])
}

type sha1Hasher struct{}

func (sha1Hasher) Name() string { return HasherSHA1 }
func (sha1Hasher) Size() int    { return sha1.Size }
func (sha1Hasher) Sum(dst, key []byte) {
	d := sha1.Sum(key)
	copy(dst[:sha1.Size], d[:])
}

type sha256Hasher struct{}

func (sha256Hasher) Name() string { return HasherSHA256 }
func (sha256Hasher) Size() int    { return sha256.Size }
func (sha256Hasher) Sum(dst, key []byte) {
	d := sha256.Sum256(key)
	copy(dst[:sha256.Size], d[:])
}

type xxh3x64Hasher struct{}

func (xxh3x64Hasher) Name() string { return HasherXXH3_64 }
func (xxh3x64Hasher) Size() int    { return 8 }
func (xxh3x64Hasher) Sum(dst, key []byte) {
	binary.BigEndian.PutUint64(dst[:8], xxh3.Hash(key))
}

type xxh3x128Hasher struct{}

func (xxh3x128Hasher) Name() string { return HasherXXH3_128 }
func (xxh3x128Hasher) Size() int    { return 16 }
func (xxh3x128Hasher) Sum(dst, key []byte) {
	h := xxh3.Hash128(key)
	_ = dst[15]
	binary.BigEndian.PutUint64(dst[0:8], h.Hi)
	binary.BigEndian.PutUint64(dst[8:16], h.Lo)
}

type metro64Hasher struct{}

func (metro64Hasher) Name() string { return HasherMetro64 }
func (metro64Hasher) Size() int    { return 8 }
func (metro64Hasher) Sum(dst, key []byte) {
	binary.LittleEndian.PutUint64(dst[:8], metro.Hash64(key, 0))
}

type metro128Hasher struct{}

func (metro128Hasher) Name() string { return HasherMetro128 }
func (metro128Hasher) Size() int    { return 16 }
func (metro128Hasher) Sum(dst, key []byte) {
	a, b := metro.Hash128(key, 0)
	_ = dst[15]
	binary.LittleEndian.PutUint64(dst[0:8], a)
	binary.LittleEndian.PutUint64(dst[8:16], b)
}

type murmur3x128Hasher struct{}

func (murmur3x128Hasher) Name() string { return HasherMurmur3_128 }
func (murmur3x128Hasher) Size() int    { return 16 }
func (murmur3x128Hasher) Sum(dst, key []byte) {
	h1, h2 := murmur3.Sum128(key)
	_ = dst[15]
	binary.LittleEndian.PutUint64(dst[0:8], h1)
	binary.LittleEndian.PutUint64(dst[8:16], h2)
}

// FNV-1a parameters for 64 bits (Fowler, Noll, Vo; the IETF draft
// draft-eastlake-fnv and hash/fnv use the same).
const (
	fnv64Offset = 0xcbf29ce484222325
	fnv64Prime  = 0x100000001b3
)

// fnv1a64Hasher is hand-rolled because hash/fnv.New64a returns a heap-allocated
// hash.Hash64: one allocation per key unless the caller keeps one, and then
// Reset/Write/Sum64 cost three interface calls per key.
type fnv1a64Hasher struct{}

func (fnv1a64Hasher) Name() string { return HasherFNV1a64 }
func (fnv1a64Hasher) Size() int    { return 8 }
func (fnv1a64Hasher) Sum(dst, key []byte) {
	h := uint64(fnv64Offset)
	for _, c := range key {
		h ^= uint64(c)
		h *= fnv64Prime
	}
	binary.BigEndian.PutUint64(dst[:8], h)
}
