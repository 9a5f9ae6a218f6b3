package offsetmap

import (
	"fmt"
	"math"
	"strings"
)

// Layout names accepted by New.
const (
	// LayoutSkimpy is Kafka's SkimpyOffsetMap (Skimpy): whole digest and
	// 8-byte offset per entry, 24 bytes with md5. The default.
	LayoutSkimpy = "skimpy"
	// LayoutDense16 is Dense with 16-byte entries: 96-bit fingerprint and
	// 32-bit relative offset; flat, linear probing.
	LayoutDense16 = "dense16"
	// LayoutDense12 is Dense with 12-byte entries: 64-bit fingerprint and
	// 32-bit relative offset; flat, linear probing.
	LayoutDense12 = "dense12"
	// LayoutBucket16 is Bucket: the entries of dense16 grouped four to a
	// 64-byte cache line, probed a whole line at a time.
	LayoutBucket16 = "bucket16"
)

// layoutNames lists every name New accepts, in the order LayoutNames
// returns them.
var layoutNames = []string{LayoutSkimpy, LayoutDense16, LayoutDense12, LayoutBucket16}

// LayoutNames returns the names New accepts, skimpy (Kafka's) first. The
// caller may modify the returned slice.
func LayoutNames() []string { return append([]string(nil), layoutNames...) }

// New returns an empty map of the named layout, of memoryBytes bytes, that
// stores digests of h. The empty name means LayoutSkimpy; names are matched
// without regard to case. Errors: an unknown layout, and those of the
// layout's constructor (NewSkimpy, NewDense, NewBucket).
func New[S ~string](layout S, memoryBytes int, h Hasher) (Map, error) {
	switch strings.ToLower(string(layout)) {
	case "", LayoutSkimpy:
		return NewSkimpy(memoryBytes, h)
	case LayoutDense16:
		return NewDense(memoryBytes, dense16Bytes, h)
	case LayoutDense12:
		return NewDense(memoryBytes, dense12Bytes, h)
	case LayoutBucket16:
		return NewBucket(memoryBytes, h)
	}
	return nil, unknownLayout(string(layout))
}

func unknownLayout(layout string) error {
	return fmt.Errorf("offsetmap: unknown offset map layout %q (valid: %s)", layout, strings.Join(layoutNames, ", "))
}

// LayoutInfo states what a layout costs in memory and risks in collisions
// with a given hasher.
type LayoutInfo struct {
	// Layout and Hasher are the names.
	Layout, Hasher string
	// EntryBytes is the table memory per slot, in bytes: digest size + 8
	// for skimpy (Kafka's bytesPerEntry), 16 or 12 for the dense layouts
	// (64 bytes per 4-slot bucket for bucket16).
	EntryBytes int
	// FingerprintBits is the number of digest bits the map compares to tell
	// two keys apart: the whole digest for skimpy, at most 96 or 64 for the
	// dense layouts (fewer when the digest is shorter).
	FingerprintBits int
	// RelativeOffsets is true when the map stores offsets relative to the
	// pass's first one (so Fits can refuse an offset).
	RelativeOffsets bool
	// ClearIsConstant is true when Clear costs O(1) amortised rather than a
	// zero-fill of the whole buffer.
	ClearIsConstant bool
}

// Describe returns the LayoutInfo of layout with hasher h, or the error New
// would give for an unknown layout.
func Describe[S ~string](layout S, h Hasher) (LayoutInfo, error) {
	if h == nil {
		return LayoutInfo{}, fmt.Errorf("offsetmap: nil hasher")
	}
	digestBits := 8 * h.Size()
	info := LayoutInfo{Layout: strings.ToLower(string(layout)), Hasher: h.Name(), RelativeOffsets: true, ClearIsConstant: true}
	switch info.Layout {
	case "", LayoutSkimpy:
		info.Layout = LayoutSkimpy
		info.EntryBytes = h.Size() + offsetBytes
		info.FingerprintBits = digestBits
		info.RelativeOffsets = false
		info.ClearIsConstant = false
	case LayoutDense16, LayoutBucket16:
		info.EntryBytes = dense16Bytes
		info.FingerprintBits = min(digestBits, 8*(dense16Bytes-stampBytes))
	case LayoutDense12:
		info.EntryBytes = dense12Bytes
		info.FingerprintBits = min(digestBits, 8*(dense12Bytes-stampBytes))
	default:
		return LayoutInfo{}, unknownLayout(string(layout))
	}
	return info, nil
}

// KeysPerMiB is the number of slots in one MiB (2^20 bytes) of table:
// 2^20 / EntryBytes. The cleaner fills a share loadFactor of them per pass.
func (l LayoutInfo) KeysPerMiB() float64 { return float64(1<<20) / float64(l.EntryBytes) }

// MaxKeys is the number of keys one pass can hold in memoryBytes of table
// at loadFactor: int(slots x loadFactor), as MaxEntries (and Kafka's
// maxDesiredMapSize). For bucket16 the slots are those of the whole
// 64-byte buckets of 4 slots in memoryBytes (Bucket's), counted as if the
// table started on a cache-line boundary, as large buffers do; a table of
// 32 bytes over (which a map sort buffer of 32-byte Puts can leave) holds
// no slot more.
func (l LayoutInfo) MaxKeys(memoryBytes int, loadFactor float64) int {
	slots := memoryBytes / l.EntryBytes
	if l.Layout == LayoutBucket16 {
		slots = memoryBytes / bucketBytes * bucketSlots
	}
	return int(float64(slots) * loadFactor)
}

// CollisionProbability is the probability that a pass over keys distinct keys
// holds two keys with equal fingerprints (which the cleaner takes for one).
func (l LayoutInfo) CollisionProbability(keys int64) float64 {
	return CollisionProbability(keys, l.FingerprintBits)
}

// CollisionProbability is the probability that among n keys with independent
// uniform b-bit fingerprints two are equal (the birthday bound):
//
//	p = 1 - prod_{i<n} (1 - i/2^b) ~ 1 - exp(-n(n-1) / 2^(b+1))
//
// computed as -expm1(-n(n-1)/2^(b+1)), which keeps its precision when p is
// tiny (about n^2 / 2^(b+1)), where 1 - exp(-x) would round to 0. The
// approximation is good while n is far below 2^b; it is 0 for n < 2 and
// tends to 1 when n approaches 2^(b/2) and beyond. With md5 and skimpy
// (b = 128) and 5,033,164 keys (one full default pass) p is about 3.7e-26;
// with b = 64 and 10M keys about 2.7e-6.
func CollisionProbability(n int64, b int) float64 {
	if n < 2 {
		return 0
	}
	if b <= 0 {
		return 1
	}
	pairs := float64(n) * float64(n-1) / 2
	return -math.Expm1(-pairs / math.Ldexp(1, b))
}
