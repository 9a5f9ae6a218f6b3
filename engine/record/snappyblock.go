package record

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// This file holds a snappy block compressor that writes exactly the bytes
// of the C++ reference library, libsnappy 1.1.9 (snappy::RawCompress):
// snappy-java's Snappy.compress calls it for every block Kafka's
// SnappyOutputStream writes (Debian's snappy-java over the system
// libsnappy 1.1.9; other libsnappy versions hash differently, see
// testdata/snappy/README). Any match finder writes a valid
// block, and golang/snappy's differs from the reference's in its hash for
// inputs of 8 KiB and less, so a batch the cleaner rebuilt with it would
// not be Kafka's byte for byte.
//
// The block format (snappy's format_description.txt): the uncompressed
// length as a little-endian base-128 varint, then elements whose tag byte's
// low two bits say the kind: 00 a literal of n+1 bytes, n in the tag's high
// six bits when below 60, otherwise 60..63 saying n follows in 1..4
// little-endian bytes; 01 a copy of 4..11 bytes at an offset below 2048
// (length-4 in bits 2-4, offset bits 8-10 in bits 5-7, then offset's low
// byte); 10 a copy of 1..64 bytes (length-1 in the high six bits) with a
// 2-byte little-endian offset.
//
// The reference's behaviour, which the compressor follows:
//   - the input is compressed in fragments of 64 KiB, each with its own
//     table; Kafka's 32 KiB xerial blocks are one fragment each;
//   - the table holds 16-bit positions in the fragment, zeroed per
//     fragment (an empty slot points at position 0, which is then tested
//     like any other); its size is the smallest power of two not below the
//     fragment's length, clamped to [2^8, 2^14];
//   - the hash of the 4 little-endian bytes v at a position is bits 18 and
//     up of v*0x1e35a7bd (the top 14 bits of the 32-bit product), masked to
//     the table size: for tables below 2^14 this is not the top bits
//     golang/snappy takes, and the two pick different candidates;
//   - a fragment under 15 bytes is one literal; otherwise no search reaches
//     past its last 15 bytes;
//   - a search starts one byte after the last emitted element and probes
//     every byte while fewer than 32 probes have failed, then one byte in
//     two for the next 32 bytes of ground, one in three after that, and so
//     on (the step is skip/32, skip growing by the step from 32); a probe
//     hashes the position, takes the slot's position as candidate, stores
//     its own, and matches when the candidate's 4 bytes are equal. When
//     the next probe would pass the limit, the rest is one literal;
//   - a match is extended forwards as far as the bytes agree (to the
//     fragment's end), is preceded by the literal since the last element,
//     and is emitted as copies: 64 bytes at a time while 68 or more are
//     left, then 60 if more than 64 are left, then the rest, each as a
//     1-byte-offset copy when shorter than 12 bytes with an offset below
//     2048, else a 2-byte-offset copy;
//   - after a match ending at p (unless p is within the last 15 bytes,
//     where the rest becomes a literal), p-1 is stored in the table, p is
//     probed, and if it matches another copy follows at once.
//
// Golden blocks made by libsnappy and snappy-java (testdata/snappy) check
// every byte.

const (
	snappyFragmentSize  = 64 << 10 // input compressed with one table
	snappyMinTableBits  = 8
	snappyMaxTableBits  = 14
	snappyInputMargin   = 15 // no probe within a fragment's last 15 bytes
	snappyHashMul       = 0x1e35a7bd
	snappySkipStart     = 32 // step = skip >> 5 starts at one byte
	snappyEagerProbes   = 16 // probes the reference makes before its step checks
	snappyTagLiteral    = 0x00
	snappyTagCopy1      = 0x01
	snappyTagCopy2      = 0x02
	snappyMaxCopy1Len   = 11
	snappyMaxCopy1Off   = 2047
	snappyMaxCopyLength = 64
)

// snappyCompressor holds the match finder's table between blocks so that
// compressing allocates nothing. The zero value is ready to use; it is not
// safe for concurrent use.
type snappyCompressor struct {
	table [1 << snappyMaxTableBits]uint16
}

// snappyMaxEncodedLen is a bound on the block appendBlock writes for n
// input bytes: the reference's MaxCompressedLength (32 + n + n/6), which
// covers the varint and the worst mix of literals and copies.
func snappyMaxEncodedLen(n int) int { return 32 + n + n/6 }

// appendBlock appends the snappy block of src (varint length first) to dst,
// the bytes libsnappy 1.1.9's RawCompress writes for src.
func (c *snappyCompressor) appendBlock(dst, src []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(src)))
	for len(src) > 0 {
		frag := src[:min(len(src), snappyFragmentSize)]
		src = src[len(frag):]
		dst = c.appendFragment(dst, frag)
	}
	return dst
}

// snappyTableBits returns log2 of the table size for a fragment of n bytes.
func snappyTableBits(n int) int {
	b := snappyMinTableBits
	for b < snappyMaxTableBits && 1<<b < n {
		b++
	}
	return b
}

func snappyLoad32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// appendFragment appends the elements for one fragment of at most 64 KiB.
func (c *snappyCompressor) appendFragment(dst, src []byte) []byte {
	// Elements are written in place into room for the worst case.
	d := len(dst)
	dst = slices.Grow(dst, snappyMaxEncodedLen(len(src)))
	out := dst[:cap(dst)]
	if len(src) < snappyInputMargin {
		return out[:putSnappyLiteral(out, d, src)]
	}
	size := 1 << snappyTableBits(len(src))
	mask := uint32(size - 1)
	clear(c.table[:size])
	table := &c.table // indexed by hash & mask, below 2^14 (no bounds checks)
	limit := len(src) - snappyInputMargin

	s := 0 // where the next element starts
	for {
		emit := s // start of the literal before the next match
		s++
		var cand int
		found := false
		skip := uint32(snappySkipStart)
		if limit-s >= snappyEagerProbes {
			// The reference probes these positions without checking the
			// limit (it cannot be reached), then goes on as below with
			// skip advanced by as many probes.
			for i := range snappyEagerProbes {
				p := s + i
				v := snappyLoad32(src, p)
				h := (v * snappyHashMul) >> (32 - snappyMaxTableBits) & mask
				cand = int(table[h])
				table[h] = uint16(p)
				if snappyLoad32(src, cand) == v {
					s, found = p, true
					break
				}
			}
			if !found {
				s += snappyEagerProbes
				skip += snappyEagerProbes
			}
		}
		for !found {
			step := int(skip >> 5)
			skip += skip >> 5
			next := s + step
			if next > limit {
				return out[:putSnappyLiteral(out, d, src[emit:])]
			}
			v := snappyLoad32(src, s)
			h := (v * snappyHashMul) >> (32 - snappyMaxTableBits) & mask
			cand = int(table[h])
			table[h] = uint16(s)
			if snappyLoad32(src, cand) == v {
				break
			}
			s = next
		}
		d = putSnappyLiteral(out, d, src[emit:s])

		// Copies, as long as the position after one matches again.
		for {
			n := 4 + commonPrefix(src[cand+4:], src[s+4:])
			d = putSnappyCopy(out, d, s-cand, n)
			s += n
			if s >= limit {
				if s < len(src) {
					d = putSnappyLiteral(out, d, src[s:])
				}
				return out[:d]
			}
			// s-1+8 <= len(src): the bytes at s-1 and at s from one load.
			x := binary.LittleEndian.Uint64(src[s-1:])
			table[(uint32(x)*snappyHashMul)>>(32-snappyMaxTableBits)&mask] = uint16(s - 1)
			v := uint32(x >> 8)
			h := (v * snappyHashMul) >> (32 - snappyMaxTableBits) & mask
			cand = int(table[h])
			table[h] = uint16(s)
			if snappyLoad32(src, cand) != v {
				break
			}
		}
	}
}

// commonPrefix returns how many leading bytes a and b share.
func commonPrefix(a, b []byte) int {
	n := 0
	for len(a)-n >= 8 && len(b)-n >= 8 {
		x := binary.LittleEndian.Uint64(a[n:]) ^ binary.LittleEndian.Uint64(b[n:])
		if x != 0 {
			return n + bits.TrailingZeros64(x)>>3
		}
		n += 8
	}
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// putSnappyLiteral writes lit (not empty) as one literal element at
// out[d:], which has room, and returns the position after it.
func putSnappyLiteral(out []byte, d int, lit []byte) int {
	n := len(lit) - 1
	switch {
	case n < 60:
		out[d] = snappyTagLiteral | byte(n)<<2
		d++
	case n < 1<<8:
		out[d], out[d+1] = snappyTagLiteral|60<<2, byte(n)
		d += 2
	case n < 1<<16:
		out[d], out[d+1], out[d+2] = snappyTagLiteral|61<<2, byte(n), byte(n>>8)
		d += 3
	case n < 1<<24:
		out[d], out[d+1], out[d+2], out[d+3] = snappyTagLiteral|62<<2, byte(n), byte(n>>8), byte(n>>16)
		d += 4
	default:
		out[d], out[d+1], out[d+2], out[d+3], out[d+4] = snappyTagLiteral|63<<2, byte(n), byte(n>>8), byte(n>>16), byte(n>>24)
		d += 5
	}
	return d + copy(out[d:], lit)
}

// putSnappyCopy writes a copy of n >= 4 bytes at offset (1..65535) at
// out[d:], as the reference splits it: 64-byte copies while 68 or more are
// left, a 60-byte one if more than 64 are left, then the rest. It returns
// the position after it.
func putSnappyCopy(out []byte, d, offset, n int) int {
	for n >= snappyMaxCopyLength+4 {
		d = putSnappyCopyElement(out, d, offset, snappyMaxCopyLength)
		n -= snappyMaxCopyLength
	}
	if n > snappyMaxCopyLength {
		d = putSnappyCopyElement(out, d, offset, snappyMaxCopyLength-4)
		n -= snappyMaxCopyLength - 4
	}
	return putSnappyCopyElement(out, d, offset, n)
}

// putSnappyCopyElement writes one copy element of n (4..64) bytes.
func putSnappyCopyElement(out []byte, d, offset, n int) int {
	if n <= snappyMaxCopy1Len && offset <= snappyMaxCopy1Off {
		out[d], out[d+1] = snappyTagCopy1|byte(n-4)<<2|byte(offset>>8)<<5, byte(offset)
		return d + 2
	}
	out[d], out[d+1], out[d+2] = snappyTagCopy2|byte(n-1)<<2, byte(offset), byte(offset>>8)
	return d + 3
}
