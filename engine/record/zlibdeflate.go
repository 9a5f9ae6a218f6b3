package record

import (
	"encoding/binary"
	"hash/crc32"
)

// This file and zlibtrees.go hold a deflate compressor that writes exactly
// the bytes of zlib 1.2.13's deflate at level 6 (Z_DEFAULT_COMPRESSION),
// with a 32 KiB window (windowBits 15), memLevel 8 and the default
// strategy: what java.util.zip.Deflater writes on a system zlib (as
// Debian's OpenJDK links it) for GZIPOutputStream, and so what Kafka's
// GzipCompression writes at its default level. Deflate leaves the encoder
// free to pick matches, block boundaries and Huffman codes, and Go's
// compress/flate (and klauspost's) pick differently, so a batch the cleaner
// rebuilt with them holds the same records in other bytes.
//
// The reference's behaviour at this level, which the compressor follows
// (zlib's "lazy" matcher):
//   - a 64 KiB window: input is read into it as room allows; when the
//     position reaches 32 KiB + 32506 (the farthest match distance, 32 KiB
//     less 262) the upper half is moved down and every position in the
//     tables drops by 32 KiB (those that would go below zero become "none");
//     the 258 bytes past the data read so far are zeros the first time they
//     are exposed;
//   - a hash of the three bytes at each position, ((b0<<10) ^ (b1<<5) ^ b2)
//     masked to 15 bits, heads a chain of earlier positions with that hash
//     (a 32 Ki-entry head table and a 32 Ki-entry link per window position);
//     a position is inserted when the matcher reaches it, and the positions
//     covered by an emitted match are inserted too, except the last two
//     bytes' worth at the very end of the input;
//   - at each position the chain is searched, newest first, for the longest
//     match: at most 128 candidates (32 when the previous match was 8 bytes
//     or more), none farther than 32506 bytes, a candidate considered only
//     when it beats the best so far at the best's last byte and agrees at
//     its first two; the search stops at a match of 128 bytes (or reaching
//     the input's end), a match is capped at 258 bytes and at the input's
//     end; no search is made when the previous position's match was 16
//     bytes or more; a 3-byte match more than 4096 bytes back is dropped;
//   - lazy evaluation: a match found at one position is emitted only if
//     the next position's match is not longer; otherwise the first
//     position becomes a literal and the decision moves on;
//   - symbols are gathered until 16383 of them (literals and matches),
//     then a block is written (zlibtrees.go), and the last block at the end.

const (
	zWindowBits   = 15
	zWSize        = 1 << zWindowBits // 32 KiB
	zWMask        = zWSize - 1
	zWindowSize   = 2 * zWSize
	zHashBits     = 8 + 7 // memLevel 8 + 7
	zHashSize     = 1 << zHashBits
	zHashMask     = zHashSize - 1
	zHashShift    = (zHashBits + zMinMatch - 1) / zMinMatch // 5
	zMinMatch     = 3
	zMaxMatch     = 258
	zMinLookahead = zMaxMatch + zMinMatch + 1 // 262
	zMaxDist      = zWSize - zMinLookahead
	zWinInit      = zMaxMatch // bytes past the data zeroed before use
	zTooFar       = 4096      // 3-byte matches farther back are dropped
	zLitBufSize   = 1 << (8 + 6)
	zSymEnd       = zLitBufSize - 1 // symbols in a block at most

	// Level 6 of zlib's configuration table.
	zGoodLength = 8   // search a quarter of the chain after a match this long
	zMaxLazy    = 16  // no search after a match this long
	zNiceLength = 128 // stop searching at a match this long
	zMaxChain   = 128 // candidates searched
)

// zlibDeflater holds the window, tables and block state between streams so
// that compressing allocates little. The zero value is ready to use; it is
// not safe for concurrent use.
type zlibDeflater struct {
	window [zWindowSize]byte // searches read at most 258 bytes past a position 262 or more before its end
	head   [zHashSize]uint16
	prev   [zWSize]uint16

	src []byte // input not yet read into the window

	strstart, lookahead int
	blockStart          int // may go below zero after a slide
	insert              int
	insH                uint32
	highWater           int

	matchLength, prevLength int
	matchStart, prevMatch   int
	matchAvailable          bool

	zlibBlock // symbols and trees of the block being gathered (zlibtrees.go)
}

// appendDeflate appends src compressed as one raw deflate stream (no zlib
// or gzip wrapper), the bytes zlib 1.2.13's deflate writes for src given at
// once with Z_FINISH at the settings above.
func (z *zlibDeflater) appendDeflate(dst, src []byte) []byte {
	z.reset(dst, src)
	z.deflateSlow()
	out := z.bits.out
	z.bits.out = nil
	z.src = nil
	return out
}

// javaGzipHeader is the member header java.util.zip.GZIPOutputStream writes
// (JDK 16 and later): magic 1f 8b, method 8 (deflate), no flags, mtime 0,
// no extra flags, OS 255 (unknown).
var javaGzipHeader = [10]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// appendGzip appends src as one gzip member (RFC 1952) the way Kafka's
// GzipCompression writes it at its default level: GZIPOutputStream's
// header, the raw deflate stream appendDeflate writes (Deflater's bytes on
// a system zlib 1.2.13), then the CRC-32 (IEEE) of src and its length mod
// 2^32, little-endian.
func (z *zlibDeflater) appendGzip(dst, src []byte) []byte {
	dst = append(dst, javaGzipHeader[:]...)
	dst = z.appendDeflate(dst, src)
	dst = binary.LittleEndian.AppendUint32(dst, crc32.ChecksumIEEE(src))
	return binary.LittleEndian.AppendUint32(dst, uint32(len(src)))
}

func (z *zlibDeflater) reset(dst, src []byte) {
	clear(z.head[:])
	z.src = src
	z.strstart, z.lookahead, z.blockStart, z.insert = 0, 0, 0, 0
	z.insH = 0
	z.highWater = 0
	z.matchLength, z.prevLength = zMinMatch-1, zMinMatch-1
	z.matchStart, z.prevMatch = 0, 0
	z.matchAvailable = false
	z.initBlock()
	z.bits = zBitWriter{out: dst}
}

// insertString inserts the position p (its three bytes) into the hash
// chains and returns the chain's previous head.
func (z *zlibDeflater) insertString(p int) int {
	z.insH = ((z.insH << zHashShift) ^ uint32(z.window[p+zMinMatch-1])) & zHashMask
	h := z.head[z.insH]
	z.prev[p&zWMask] = h
	z.head[z.insH] = uint16(p)
	return int(h)
}

// fillWindow reads input into the window, sliding it first when the
// position has gone past the farthest match distance of the upper half.
func (z *zlibDeflater) fillWindow() {
	for {
		more := zWindowSize - z.lookahead - z.strstart
		if z.strstart >= zWSize+zMaxDist {
			copy(z.window[:zWSize-more], z.window[zWSize:zWSize+zWSize-more])
			z.matchStart -= zWSize
			z.strstart -= zWSize
			z.blockStart -= zWSize
			if z.insert > z.strstart {
				z.insert = z.strstart
			}
			z.slideHash()
			more += zWSize
		}
		if len(z.src) == 0 {
			break
		}
		n := copy(z.window[z.strstart+z.lookahead:z.strstart+z.lookahead+more], z.src)
		z.src = z.src[n:]
		z.lookahead += n

		if z.lookahead+z.insert >= zMinMatch {
			str := z.strstart - z.insert
			z.insH = uint32(z.window[str])
			z.insH = ((z.insH << zHashShift) ^ uint32(z.window[str+1])) & zHashMask
			for z.insert > 0 {
				z.insH = ((z.insH << zHashShift) ^ uint32(z.window[str+zMinMatch-1])) & zHashMask
				z.prev[str&zWMask] = z.head[z.insH]
				z.head[z.insH] = uint16(str)
				str++
				z.insert--
				if z.lookahead+z.insert < zMinMatch {
					break
				}
			}
		}
		if z.lookahead >= zMinLookahead || len(z.src) == 0 {
			break
		}
	}
	// Zero the bytes past the data that a search may read, once.
	if z.highWater < zWindowSize {
		curr := z.strstart + z.lookahead
		if z.highWater < curr {
			init := min(zWindowSize-curr, zWinInit)
			clear(z.window[curr : curr+init])
			z.highWater = curr + init
		} else if z.highWater < curr+zWinInit {
			init := min(curr+zWinInit-z.highWater, zWindowSize-z.highWater)
			clear(z.window[z.highWater : z.highWater+init])
			z.highWater += init
		}
	}
}

// slideHash moves every table position down by the window size; those
// that would fall below zero become none (0).
func (z *zlibDeflater) slideHash() {
	for i, m := range z.head {
		if m >= zWSize {
			z.head[i] = m - zWSize
		} else {
			z.head[i] = 0
		}
	}
	for i, m := range z.prev {
		if m >= zWSize {
			z.prev[i] = m - zWSize
		} else {
			z.prev[i] = 0
		}
	}
}

// longestMatch searches the chain from cur for the longest match at
// strstart longer than prevLength, sets matchStart to it and returns its
// length (or prevLength), capped at the lookahead.
func (z *zlibDeflater) longestMatch(cur int) int {
	chain := zMaxChain
	w := z.window[:]
	scan := z.strstart
	best := z.prevLength
	nice := zNiceLength
	limit := 0
	if z.strstart > zMaxDist {
		limit = z.strstart - zMaxDist
	}
	if z.prevLength >= zGoodLength {
		chain >>= 2
	}
	if nice > z.lookahead {
		nice = z.lookahead
	}
	scanEnd1, scanEnd := w[scan+best-1], w[scan+best]
	for {
		m := cur
		if w[m+best] == scanEnd && w[m+best-1] == scanEnd1 && w[m] == w[scan] && w[m+1] == w[scan+1] {
			// The third byte agrees through the hash; compare from the
			// fourth, up to 258 bytes.
			n := 3 + commonPrefix(w[scan+3:scan+zMaxMatch], w[m+3:m+zMaxMatch])
			if n > best {
				z.matchStart = cur
				best = n
				if n >= nice {
					break
				}
				scanEnd1, scanEnd = w[scan+best-1], w[scan+best]
			}
		}
		cur = int(z.prev[cur&zWMask])
		if cur <= limit {
			break
		}
		chain--
		if chain == 0 {
			break
		}
	}
	return min(best, z.lookahead)
}

// deflateSlow runs zlib's lazy matcher over the whole input, writing
// blocks as they fill and the last one at the end.
func (z *zlibDeflater) deflateSlow() {
	for {
		if z.lookahead < zMinLookahead {
			z.fillWindow()
			if z.lookahead == 0 {
				break
			}
		}
		hashHead := 0
		if z.lookahead >= zMinMatch {
			hashHead = z.insertString(z.strstart)
		}
		z.prevLength, z.prevMatch = z.matchLength, z.matchStart
		z.matchLength = zMinMatch - 1
		if hashHead != 0 && z.prevLength < zMaxLazy && z.strstart-hashHead <= zMaxDist {
			z.matchLength = z.longestMatch(hashHead)
			if z.matchLength == zMinMatch && z.strstart-z.matchStart > zTooFar {
				z.matchLength = zMinMatch - 1
			}
		}
		switch {
		case z.prevLength >= zMinMatch && z.matchLength <= z.prevLength:
			maxInsert := z.strstart + z.lookahead - zMinMatch
			full := z.tallyMatch(z.strstart-1-z.prevMatch, z.prevLength-zMinMatch)
			z.lookahead -= z.prevLength - 1
			for n := z.prevLength - 2; n > 0; n-- {
				z.strstart++
				if z.strstart <= maxInsert {
					z.insertString(z.strstart)
				}
			}
			z.prevLength = zMinMatch - 1
			z.matchAvailable = false
			z.matchLength = zMinMatch - 1
			z.strstart++
			if full {
				z.flushBlock(false)
			}
		case z.matchAvailable:
			if z.tallyLiteral(z.window[z.strstart-1]) {
				z.flushBlock(false)
			}
			z.strstart++
			z.lookahead--
		default:
			z.matchAvailable = true
			z.strstart++
			z.lookahead--
		}
	}
	if z.matchAvailable {
		z.tallyLiteral(z.window[z.strstart-1])
		z.matchAvailable = false
	}
	z.insert = min(z.strstart, zMinMatch-1)
	z.flushBlock(true)
}

// flushBlock writes the gathered symbols as one block; the input it covers
// is passed for a stored block while it is still in the window.
func (z *zlibDeflater) flushBlock(last bool) {
	var stored []byte
	if z.blockStart >= 0 {
		stored = z.window[z.blockStart:z.strstart]
	}
	z.writeBlock(stored, z.strstart-z.blockStart, last)
	z.blockStart = z.strstart
}
