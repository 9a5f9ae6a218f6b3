package record

import (
	"errors"
	"fmt"
)

// Zigzag varints as Kafka's ByteUtils and protobuf write them: the signed
// value is mapped to unsigned ((v << 1) ^ (v >> 63)) so small magnitudes of
// either sign take few bytes, then written 7 bits a byte, least significant
// group first, the high bit of each byte set when another byte follows.
// Kafka rejects a varint (int32) longer than 5 bytes and a varlong (int64)
// longer than 10; so do we, and we also reject a last byte carrying bits
// beyond the type's width.

const (
	// MaxVarintLen is the most bytes a zigzag varint (int32) takes.
	MaxVarintLen = 5
	// MaxVarlongLen is the most bytes a zigzag varlong (int64) takes.
	MaxVarlongLen = 10
)

// AppendVarint appends the zigzag varint encoding of v (1 to 5 bytes) to dst.
func AppendVarint(dst []byte, v int32) []byte {
	u := uint32(v<<1) ^ uint32(v>>31)
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// AppendVarlong appends the zigzag varlong encoding of v (1 to 10 bytes) to dst.
func AppendVarlong(dst []byte, v int64) []byte {
	u := uint64(v<<1) ^ uint64(v>>63)
	for u >= 0x80 {
		dst = append(dst, byte(u)|0x80)
		u >>= 7
	}
	return append(dst, byte(u))
}

// SizeofVarint returns the bytes AppendVarint writes for v (1 to 5).
func SizeofVarint(v int32) int {
	u := uint32(v<<1) ^ uint32(v>>31)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// SizeofVarlong returns the bytes AppendVarlong writes for v (1 to 10).
func SizeofVarlong(v int64) int {
	u := uint64(v<<1) ^ uint64(v>>63)
	n := 1
	for u >= 0x80 {
		u >>= 7
		n++
	}
	return n
}

// Reasons a varint is bad, without the sentinel: callers inside the package
// add the sentinel and the position once.
var (
	errVarTruncated = errors.New("varint truncated")
	errVarOverflow  = errors.New("varint too long or over its width")
)

// ReadVarint decodes a zigzag varint (int32) from the start of b and returns
// it with n, the bytes it took. It returns an error wrapping ErrMalformedRecord
// when b ends before the last byte (truncated), when the varint runs past 5
// bytes, or when its 5th byte holds bits beyond 32 (overflow).
func ReadVarint(b []byte) (v int32, n int, err error) {
	v, n, err = readVarint(b)
	if err != nil {
		err = fmt.Errorf("%w: %w (int32, max %d bytes)", ErrMalformedRecord, err, MaxVarintLen)
	}
	return v, n, err
}

// readVarint is ReadVarint returning errVarTruncated or errVarOverflow.
func readVarint(b []byte) (v int32, n int, err error) {
	var u uint32
	for i := 0; i < MaxVarintLen; i++ {
		if i >= len(b) {
			return 0, 0, errVarTruncated
		}
		c := b[i]
		if i == MaxVarintLen-1 && c > 0x0f {
			// 4 groups of 7 bits are 28; the 5th byte holds the top 4 bits.
			return 0, 0, errVarOverflow
		}
		u |= uint32(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int32(u>>1) ^ -int32(u&1), i + 1, nil
		}
	}
	panic("unreachable")
}

// ReadVarlong decodes a zigzag varlong (int64) from the start of b and returns
// it with n, the bytes it took. It returns an error wrapping ErrMalformedRecord
// when b ends before the last byte (truncated), when the varlong runs past 10
// bytes, or when its 10th byte holds bits beyond 64 (overflow).
func ReadVarlong(b []byte) (v int64, n int, err error) {
	v, n, err = readVarlong(b)
	if err != nil {
		err = fmt.Errorf("%w: %w (int64, max %d bytes)", ErrMalformedRecord, err, MaxVarlongLen)
	}
	return v, n, err
}

// readVarlong is ReadVarlong returning errVarTruncated or errVarOverflow.
func readVarlong(b []byte) (v int64, n int, err error) {
	var u uint64
	for i := 0; i < MaxVarlongLen; i++ {
		if i >= len(b) {
			return 0, 0, errVarTruncated
		}
		c := b[i]
		if i == MaxVarlongLen-1 && c > 0x01 {
			// 9 groups of 7 bits are 63; the 10th byte holds the top bit.
			return 0, 0, errVarOverflow
		}
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return int64(u>>1) ^ -int64(u&1), i + 1, nil
		}
	}
	panic("unreachable")
}
