package record

import (
	"encoding/binary"
	"errors"
	"math/bits"
)

// This file holds an LZ4 block compressor that writes exactly the bytes of
// the reference library's fast compressor (liblz4's LZ4_compress_default,
// acceleration 1) for inputs below its 16-bit-table limit, which covers the
// 64 KiB blocks of Kafka's LZ4 frames. Kafka's Lz4BlockOutputStream calls
// lz4-java's fastCompressor at the default level, and that is a binding of
// LZ4_compress_default; a different match finder (pierrec's, or liblz4's HC)
// writes valid but different blocks, so a batch the cleaner rebuilds would
// not be Kafka's byte for byte.
//
// The block format (LZ4 Block Format Description): a sequence is a token
// byte (high nibble literal length, low nibble match length - 4, 15 meaning
// "more in following bytes of 255 until one below 255"), the literals, a
// 2-byte little-endian offset and the extra match-length bytes. The last
// sequence is literals only. A block's last 5 bytes are always literals and
// no match starts within its last 12 bytes.
//
// The match finder follows the reference's documented behaviour for small
// inputs: a hash table of 2^13 16-bit positions, zeroed for each block (so
// an empty slot points at position 0, which is then tested like any
// other); the hash of the 4 little-endian bytes at a position is
// (v * 2654435761) >> 19; the search moves forward one byte at a time,
// and after every 64 failed probes the step grows by one; a found match is
// extended backwards over equal bytes down to the last sequence's end and
// forwards up to 5 bytes before the end of the block; after a match the
// position two bytes before its end is hashed, and the position right
// after it is tried at once for another match before searching again.
// Golden blocks made by the reference library (testdata/lz4) check every
// byte.

const (
	lz4MinMatch     = 4  // shortest match the format encodes
	lz4MFLimit      = 12 // no match starts within the last 12 bytes
	lz4LastLiterals = 5  // the last 5 bytes are always literals
	lz4MinLength    = lz4MFLimit + 1
	lz4HashLog      = 13 // 16-bit table: 2^13 slots in the reference's 16 KiB state
	lz4SkipTrigger  = 6  // the step grows by one every 2^6 failed probes

	// lz4MaxFastInput is the largest input the 16-bit table variant takes
	// (the reference uses it below 64 KiB + 11 bytes; above, its tables
	// hold 32-bit positions and its output may differ from ours).
	lz4MaxFastInput = 64<<10 + lz4MFLimit - 2
)

// errLZ4InputTooLarge is returned for a block over lz4MaxFastInput bytes.
var errLZ4InputTooLarge = errors.New("record: lz4 block input over 65546 bytes")

// lz4FastCompressor holds the match finder's hash table between blocks so
// that compressing allocates nothing. The zero value is ready to use; it is
// not safe for concurrent use.
type lz4FastCompressor struct {
	table [1 << lz4HashLog]uint16
}

func lz4Hash(v uint32) uint32 { return (v * 2654435761) >> (32 - lz4HashLog) }

func lz4Load32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }

// lz4CompressBound is the largest block appendBlock writes for n bytes of
// input (the reference's LZ4_compressBound).
func lz4CompressBound(n int) int { return n + n/255 + 16 }

// appendBlock appends src compressed as one raw LZ4 block (no frame) to dst
// and returns the extended slice: the bytes LZ4_compress_default writes.
// An empty src gives the single byte 0. Inputs over lz4MaxFastInput bytes
// return dst unchanged and errLZ4InputTooLarge.
func (c *lz4FastCompressor) appendBlock(dst, src []byte) ([]byte, error) {
	if len(src) > lz4MaxFastInput {
		return dst, errLZ4InputTooLarge
	}
	return c.block(dst, src), nil
}

// block is appendBlock. REQUIRES: len(src) <= lz4MaxFastInput.
func (c *lz4FastCompressor) block(dst, src []byte) []byte {
	n := len(src)
	if need := len(dst) + lz4CompressBound(n); cap(dst) < need {
		grown := make([]byte, len(dst), max(need, 2*cap(dst)))
		copy(grown, dst)
		dst = grown
	}
	anchor := 0 // start of the literals not yet written
	if n >= lz4MinLength {
		dst, anchor = c.sequences(dst, src)
	}
	return lz4AppendLiterals(dst, src[anchor:]) // the last sequence: literals only
}

// sequences appends every sequence with a match and returns the extended
// dst and the position of the first byte not yet written (the start of the
// last literals). REQUIRES: len(src) >= lz4MinLength.
func (c *lz4FastCompressor) sequences(dst, src []byte) ([]byte, int) {
	t := &c.table
	clear(t[:])
	n := len(src)
	mfLimitPlusOne := n - lz4MFLimit + 1 // a probe at or past it ends the search
	matchLimit := n - lz4LastLiterals    // matches end before it

	anchor := 0
	t[lz4Hash(lz4Load32(src, 0))] = 0
	ip := 1
	nextHash := lz4Hash(lz4Load32(src, ip))
	for {
		// Search forward from ip for a position whose table entry holds
		// the same 4 bytes; the step grows as probes fail.
		var match int
		next := ip
		step, probes := 1, 1<<lz4SkipTrigger
		for {
			h := nextHash
			ip = next
			next += step
			step = probes >> lz4SkipTrigger
			probes++
			if next > mfLimitPlusOne {
				return dst, anchor
			}
			match = int(t[h])
			nextHash = lz4Hash(lz4Load32(src, next))
			t[h] = uint16(ip)
			if lz4Load32(src, match) == lz4Load32(src, ip) {
				break
			}
		}
		// Extend the match backwards over the pending literals.
		for ip > anchor && match > 0 && src[ip-1] == src[match-1] {
			ip--
			match--
		}
		token := len(dst)
		dst = lz4AppendLiterals(dst, src[anchor:ip])

		// Write the match, then try the position right after it at once;
		// repeat while that finds another match.
		for {
			off := ip - match
			dst = append(dst, byte(off), byte(off>>8))
			ml := lz4Count(src, ip+lz4MinMatch, match+lz4MinMatch, matchLimit)
			ip += ml + lz4MinMatch
			dst = lz4AppendMatchLength(dst, token, ml)
			anchor = ip
			if ip >= mfLimitPlusOne {
				return dst, anchor
			}
			t[lz4Hash(lz4Load32(src, ip-2))] = uint16(ip - 2)
			h := lz4Hash(lz4Load32(src, ip))
			match = int(t[h])
			t[h] = uint16(ip)
			if lz4Load32(src, match) != lz4Load32(src, ip) {
				break
			}
			token = len(dst)
			dst = append(dst, 0) // no literals before this match
		}
		ip++
		nextHash = lz4Hash(lz4Load32(src, ip))
	}
}

// lz4Count returns how many bytes at a and b are equal, counting forward
// and stopping at limit (a's bound). REQUIRES: b < a <= limit <= len(src).
func lz4Count(src []byte, a, b, limit int) int {
	start := a
	for a+8 <= limit {
		if x := binary.LittleEndian.Uint64(src[a:]) ^ binary.LittleEndian.Uint64(src[b:]); x != 0 {
			return a - start + bits.TrailingZeros64(x)/8
		}
		a += 8
		b += 8
	}
	for a < limit && src[a] == src[b] {
		a++
		b++
	}
	return a - start
}

// lz4AppendLiterals appends a sequence's token (literal length only; the
// match length is added by lz4AppendMatchLength), the extra length bytes
// and the literals themselves.
func lz4AppendLiterals(dst, lit []byte) []byte {
	if n := len(lit); n < 15 {
		dst = append(dst, byte(n<<4))
	} else {
		dst = append(dst, 15<<4)
		dst = lz4AppendLengthBytes(dst, n-15)
	}
	return append(dst, lit...)
}

// lz4AppendMatchLength sets the low nibble of the token at dst[token] for
// ml bytes of match beyond the first four, and appends the extra bytes.
func lz4AppendMatchLength(dst []byte, token, ml int) []byte {
	if ml < 15 {
		dst[token] |= byte(ml)
		return dst
	}
	dst[token] |= 15
	return lz4AppendLengthBytes(dst, ml-15)
}

// lz4AppendLengthBytes appends n as the format's extra length bytes: 255
// while n >= 255, then the rest (possibly 0).
func lz4AppendLengthBytes(dst []byte, n int) []byte {
	for ; n >= 255; n -= 255 {
		dst = append(dst, 255)
	}
	return append(dst, byte(n))
}

// Kafka's LZ4 frame, as org.apache.kafka.common.compress.Lz4BlockOutputStream
// writes it at the default level: the LZ4 frame magic, FLG (version 1,
// independent blocks, no block checksum, no content size, no content
// checksum), BD (64 KiB maximum block size) and the header checksum byte;
// then each 64 KiB of input (the last piece shorter) as a little-endian
// int32 size and the block, stored as it is with the size's high bit set
// when compressing does not make it shorter; then a zero size word (the end
// mark) and no content checksum. An empty input is the header and the end
// mark alone.
const (
	lz4FrameMagic        = 0x184D2204
	lz4FrameFLG          = 1<<6 | 1<<5 // version 1, block independence
	lz4FrameBD           = 4 << 4      // block maximum size id 4: 64 KiB
	lz4FrameBlockSize    = 64 << 10
	lz4FrameUncompressed = 1 << 31 // size-word flag of a block stored as it is
)

// appendLZ4Frame appends src framed and compressed as Kafka's
// Lz4BlockOutputStream writes it at the default level (lz4-java's fast
// compressor) and returns the extended slice. magic0 selects the header
// checksum Kafka writes for magic 0 messages (useBrokenFlagDescriptorChecksum:
// xxh32 over the frame magic as well as FLG and BD); otherwise it covers FLG
// and BD only, as the LZ4 frame format says.
func (c *lz4FastCompressor) appendLZ4Frame(dst, src []byte, magic0 bool) []byte {
	start := len(dst)
	dst = binary.LittleEndian.AppendUint32(dst, lz4FrameMagic)
	dst = append(dst, lz4FrameFLG, lz4FrameBD)
	desc := dst[start+4:]
	if magic0 {
		desc = dst[start:]
	}
	dst = append(dst, byte(xxh32(desc, 0)>>8))
	for len(src) > 0 {
		block := src[:min(len(src), lz4FrameBlockSize)]
		src = src[len(block):]
		sizePos := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = c.block(dst, block)
		if n := len(dst) - sizePos - 4; n < len(block) {
			binary.LittleEndian.PutUint32(dst[sizePos:], uint32(n))
		} else {
			dst = append(dst[:sizePos+4], block...)
			binary.LittleEndian.PutUint32(dst[sizePos:], uint32(len(block))|lz4FrameUncompressed)
		}
	}
	return binary.LittleEndian.AppendUint32(dst, 0) // end mark
}
