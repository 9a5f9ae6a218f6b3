package workloads

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
)

// The generator's random choices and value bytes. They are defined here,
// rather than through math/rand/v2's Rand methods, so that a seed gives the
// same bytes whatever the Go release: only PCG's raw output is relied upon.

// newPartitionRand returns the PCG stream of partition p: seeded with
// (seed, p), so partitions draw independent sequences.
func newPartitionRand(seed uint64, p int) *rand.PCG {
	return rand.NewPCG(seed, uint64(p))
}

// drawBelow returns a number in [0, n) from one 64-bit draw: the high word of
// draw x n (Lemire's multiply-shift without the rejection step; its bias,
// below n / 2^64, is far under anything a benchmark can see).
func drawBelow(src *rand.PCG, n uint64) uint64 {
	hi, _ := bits.Mul64(src.Uint64(), n)
	return hi
}

// drawUnit returns a float64 in [0, 1) from one 64-bit draw (its top 53 bits).
func drawUnit(src *rand.PCG) float64 {
	return float64(src.Uint64()>>11) * (1.0 / (1 << 53))
}

// Constants of SplitMix64 (Steele, Lea and Flood, 2014).
const (
	golden64 = 0x9E3779B97F4A7C15
	mixMul1  = 0xBF58476D1CE4E5B9
	mixMul2  = 0x94D049BB133111EB
	// offsetMul spreads offsets before they meet the seed (an odd constant
	// of Steele and Vigna's "Computationally easy, spectrally good multipliers").
	offsetMul = 0xD1B54A32D192ED03
)

// mix64 is SplitMix64's output function: a bijection of uint64 that
// avalanches every input bit.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * mixMul1
	z = (z ^ (z >> 27)) * mixMul2
	return z ^ (z >> 31)
}

// valueSeed is the seed of partition p's value bytes.
func valueSeed(seed uint64, p int) uint64 {
	return mix64(seed + golden64*uint64(p+1))
}

// fillValue fills dst with the value bytes of the record at offset: the
// SplitMix64 sequence started at vseed ^ offset x offsetMul, 8 bytes
// little-endian per step, the last step cut to the bytes left.
func fillValue(dst []byte, vseed uint64, offset int64) {
	x := vseed ^ uint64(offset)*offsetMul
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x += golden64
		binary.LittleEndian.PutUint64(dst[i:], mix64(x))
	}
	if i < len(dst) {
		x += golden64
		var tail [8]byte
		binary.LittleEndian.PutUint64(tail[:], mix64(x))
		copy(dst[i:], tail[:])
	}
}

// fillKey writes the key of id into dst, which must be exactly the key
// size: KeyPrefix then id in decimal, zero-padded to fill dst.
func fillKey(dst []byte, id uint64) {
	n := copy(dst, KeyPrefix)
	for i := len(dst) - 1; i >= n; i-- {
		dst[i] = byte('0' + id%10)
		id /= 10
	}
}

// parseKey returns the id of a key written by fillKey for keys of keyBytes
// bytes, and false when key is not such a key.
func parseKey(key []byte, keyBytes int) (uint64, bool) {
	if len(key) != keyBytes {
		return 0, false
	}
	return parseKeyID(key)
}

// parseKeyID returns the id of a key written by fillKey, whatever its
// length, and false when key is not KeyPrefix followed by decimal digits.
func parseKeyID(key []byte) (uint64, bool) {
	if len(key) <= len(KeyPrefix) || string(key[:len(KeyPrefix)]) != KeyPrefix {
		return 0, false
	}
	var id uint64
	for _, c := range key[len(KeyPrefix):] {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if id > (1<<64-1-d)/10 {
			return 0, false
		}
		id = id*10 + d
	}
	return id, true
}

// mulHigh is the high word of a x n: a number in [0, n) when a is uniform.
func mulHigh(a, n uint64) uint64 {
	hi, _ := bits.Mul64(a, n)
	return hi
}
