package record

// This file writes deflate blocks (RFC 1951) as zlib 1.2.13 does
// (trees.c), for the matcher in zlibdeflate.go. For each block of gathered
// symbols the reference:
//   - builds a Huffman code for the literal/length alphabet (286 symbols,
//     the end-of-block symbol counted once) and for the distances (30), by
//     repeatedly joining the two least frequent nodes of a heap (ties go to
//     the node of smaller depth, then to the heap's order), a code with
//     fewer than two used symbols getting dummy ones (symbols 0 and 1, or
//     the next after the largest); lengths over 15 bits are shortened by
//     moving leaves as zlib's gen_bitlen does, and codes are assigned in
//     symbol order within each length (canonical, bits reversed);
//   - codes the two codes' lengths with the run-length symbols 16, 17, 18
//     (repeat the previous length 3-6 times, zeros 3-10 times, zeros 11-138
//     times) and builds a third, 7-bit-limited code for those, sent in the
//     order 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15
//     with trailing zero lengths dropped (at least four kept);
//   - computes the block's size three ways and writes the smallest: stored
//     (when the block's input is still in the window and its length + 4 is
//     at most the others' size in bytes), fixed codes (when not larger than
//     the dynamic ones), or dynamic codes. Sizes in bytes are (bits + 3 +
//     7) / 8.

// Deflate's alphabets and their extra bits (RFC 1951, 3.2.5).
const (
	zLiterals  = 256
	zEndBlock  = 256
	zLCodes    = zLiterals + 1 + 29 // 286
	zDCodes    = 30
	zBLCodes   = 19
	zHeapSize  = 2*zLCodes + 1
	zMaxBits   = 15
	zMaxBLBits = 7
	zRep3To6   = 16
	zRepZ3To10 = 17
	zRepZ11To  = 18
)

var (
	zExtraLBits  = [29]int{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	zExtraDBits  = [zDCodes]int{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	zExtraBLBits = [zBLCodes]int{16: 2, 17: 3, 18: 7}
	zBLOrder     = [zBLCodes]int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

	zBaseLength [29]int    // first length-3 of each length code
	zLengthCode [256]uint8 // length-3 -> length code
	zBaseDist   [zDCodes]int
	zDistCode   [512]uint8 // distance-1 -> code, as zlib's d_code

	zStaticLTree [zLCodes + 2]zCode
	zStaticDTree [zDCodes]zCode
)

// zCode is one symbol's code: its bits (reversed, ready to send LSB first)
// and length.
type zCode struct {
	code uint16
	len  uint16
}

func init() {
	length := 0
	for c := 0; c < 28; c++ {
		zBaseLength[c] = length
		for range 1 << zExtraLBits[c] {
			zLengthCode[length] = uint8(c)
			length++
		}
	}
	// Length 258 (255 after the -3) has its own code, 28, with no extra
	// bits: it replaces what code 27's range would give it.
	zLengthCode[255] = 28
	zBaseLength[28] = 0
	dist := 0
	for c := 0; c < 16; c++ {
		zBaseDist[c] = dist
		for range 1 << zExtraDBits[c] {
			zDistCode[dist] = uint8(c)
			dist++
		}
	}
	dist >>= 7
	for c := 16; c < zDCodes; c++ {
		zBaseDist[c] = dist << 7
		for range 1 << (zExtraDBits[c] - 7) {
			zDistCode[256+dist] = uint8(c)
			dist++
		}
	}
	var lens [zLCodes + 2]uint16
	var count [zMaxBits + 1]int
	for n := range lens {
		switch {
		case n <= 143:
			lens[n] = 8
		case n <= 255:
			lens[n] = 9
		case n <= 279:
			lens[n] = 7
		default:
			lens[n] = 8
		}
		count[lens[n]]++
	}
	for n := range lens {
		zStaticLTree[n].len = lens[n]
	}
	zGenCodes(zStaticLTree[:], len(lens)-1, &count)
	for n := range zStaticDTree {
		zStaticDTree[n] = zCode{code: uint16(zReverse(n, 5)), len: 5}
	}
}

// zDCode returns the distance code of dist-1.
func zDCode(dist int) int {
	if dist < 256 {
		return int(zDistCode[dist])
	}
	return int(zDistCode[256+dist>>7])
}

func zReverse(code, n int) int {
	r := 0
	for range n {
		r = r<<1 | code&1
		code >>= 1
	}
	return r
}

// zGenCodes assigns canonical codes to tree[0..maxCode] from their
// lengths, count[b] being the number of codes of b bits.
func zGenCodes(tree []zCode, maxCode int, count *[zMaxBits + 1]int) {
	var next [zMaxBits + 1]int
	code := 0
	for b := 1; b <= zMaxBits; b++ {
		code = (code + count[b-1]) << 1
		next[b] = code
	}
	for n := 0; n <= maxCode; n++ {
		l := int(tree[n].len)
		if l == 0 {
			continue
		}
		tree[n].code = uint16(zReverse(next[l], l))
		next[l]++
	}
}

// zTree is one dynamic Huffman tree being built: frequencies, parents and
// depths of its leaves and inner nodes, and the resulting codes.
type zTree struct {
	freq  []int
	dad   []int
	codes []zCode
	depth []uint8

	maxCode int

	// The alphabet: how many leaves, where extra bits start, the static
	// code (nil for the bit-length code) and the length limit.
	elems     int
	extraBase int
	extra     []int
	static    []zCode
	maxLength int
}

func newZTree(nodes, elems, extraBase int, extra []int, static []zCode, maxLength int) zTree {
	return zTree{
		freq: make([]int, nodes), dad: make([]int, nodes), codes: make([]zCode, nodes), depth: make([]uint8, nodes),
		elems: elems, extraBase: extraBase, extra: extra, static: static, maxLength: maxLength,
	}
}

// zlibBlock gathers one block's symbols and writes it.
type zlibBlock struct {
	dists  [zSymEnd]uint16 // 0 for a literal, else the match distance
	lcs    [zSymEnd]uint8  // the literal, or the match length - 3
	nsyms  int
	ltree  zTree
	dtree  zTree
	bltree zTree

	heap    [zHeapSize]int
	heapLen int
	heapMax int
	blCount [zMaxBits + 1]int

	optLen, staticLen int // bits of the block with dynamic and fixed codes

	bits zBitWriter
}

func (b *zlibBlock) initBlock() {
	if b.ltree.freq == nil {
		b.ltree = newZTree(zHeapSize, zLCodes, zLiterals+1, zExtraLBits[:], zStaticLTree[:], zMaxBits)
		b.dtree = newZTree(2*zDCodes+1, zDCodes, 0, zExtraDBits[:], zStaticDTree[:], zMaxBits)
		b.bltree = newZTree(2*zBLCodes+1, zBLCodes, 0, zExtraBLBits[:], nil, zMaxBLBits)
	}
	clear(b.ltree.freq[:zLCodes])
	clear(b.dtree.freq[:zDCodes])
	clear(b.bltree.freq[:zBLCodes])
	b.ltree.freq[zEndBlock] = 1
	b.optLen, b.staticLen = 0, 0
	b.nsyms = 0
}

// tallyLiteral records a literal; it reports whether the block is full.
func (b *zlibBlock) tallyLiteral(c byte) bool {
	b.dists[b.nsyms], b.lcs[b.nsyms] = 0, c
	b.nsyms++
	b.ltree.freq[c]++
	return b.nsyms == zSymEnd
}

// tallyMatch records a match at distance dist of length lc+3; it reports
// whether the block is full.
func (b *zlibBlock) tallyMatch(dist, lc int) bool {
	b.dists[b.nsyms], b.lcs[b.nsyms] = uint16(dist), uint8(lc)
	b.nsyms++
	b.ltree.freq[int(zLengthCode[lc])+zLiterals+1]++
	b.dtree.freq[zDCode(dist-1)]++
	return b.nsyms == zSymEnd
}

// smaller orders heap nodes: by frequency, then by depth.
func (t *zTree) smaller(n, m int) bool {
	return t.freq[n] < t.freq[m] || (t.freq[n] == t.freq[m] && t.depth[n] <= t.depth[m])
}

func (b *zlibBlock) downHeap(t *zTree, k int) {
	v := b.heap[k]
	j := k << 1
	for j <= b.heapLen {
		if j < b.heapLen && t.smaller(b.heap[j+1], b.heap[j]) {
			j++
		}
		if t.smaller(v, b.heap[j]) {
			break
		}
		b.heap[k] = b.heap[j]
		k = j
		j <<= 1
	}
	b.heap[k] = v
}

// buildTree builds t's code from its frequencies (zlib's build_tree,
// gen_bitlen and gen_codes), adding to optLen and staticLen.
func (b *zlibBlock) buildTree(t *zTree) {
	b.heapLen, b.heapMax = 0, zHeapSize
	maxCode := -1
	for n := 0; n < t.elems; n++ {
		if t.freq[n] != 0 {
			b.heapLen++
			b.heap[b.heapLen] = n
			maxCode = n
			t.depth[n] = 0
		} else {
			t.codes[n].len = 0
		}
	}
	for b.heapLen < 2 {
		node := 0
		if maxCode < 2 {
			maxCode++
			node = maxCode
		}
		b.heapLen++
		b.heap[b.heapLen] = node
		t.freq[node] = 1
		t.depth[node] = 0
		b.optLen--
		if t.static != nil {
			b.staticLen -= int(t.static[node].len)
		}
	}
	t.maxCode = maxCode
	for n := b.heapLen / 2; n >= 1; n-- {
		b.downHeap(t, n)
	}
	node := t.elems
	for {
		n := b.heap[1]
		b.heap[1] = b.heap[b.heapLen]
		b.heapLen--
		b.downHeap(t, 1)
		m := b.heap[1]
		b.heapMax--
		b.heap[b.heapMax] = n
		b.heapMax--
		b.heap[b.heapMax] = m
		t.freq[node] = t.freq[n] + t.freq[m]
		t.depth[node] = max(t.depth[n], t.depth[m]) + 1
		t.dad[n], t.dad[m] = node, node
		b.heap[1] = node
		node++
		b.downHeap(t, 1)
		if b.heapLen < 2 {
			break
		}
	}
	b.heapMax--
	b.heap[b.heapMax] = b.heap[1]
	b.genBitLen(t)
	zGenCodes(t.codes, maxCode, &b.blCount)
}

// genBitLen sets the code lengths from the tree (the heap holds the nodes
// from heapMax on by decreasing frequency), limiting them to maxLength as
// zlib does, and adds the block's bits to optLen and staticLen.
func (b *zlibBlock) genBitLen(t *zTree) {
	clear(b.blCount[:])
	t.codes[b.heap[b.heapMax]].len = 0 // the root
	overflow := 0
	h := b.heapMax + 1
	for ; h < zHeapSize; h++ {
		n := b.heap[h]
		bits := int(t.codes[t.dad[n]].len) + 1
		if bits > t.maxLength {
			bits = t.maxLength
			overflow++
		}
		t.codes[n].len = uint16(bits)
		if n > t.maxCode {
			continue // an inner node
		}
		b.blCount[bits]++
		xbits := 0
		if n >= t.extraBase {
			xbits = t.extra[n-t.extraBase]
		}
		f := t.freq[n]
		b.optLen += f * (bits + xbits)
		if t.static != nil {
			b.staticLen += f * (int(t.static[n].len) + xbits)
		}
	}
	if overflow == 0 {
		return
	}
	for overflow > 0 {
		bits := t.maxLength - 1
		for b.blCount[bits] == 0 {
			bits--
		}
		b.blCount[bits]--
		b.blCount[bits+1] += 2
		b.blCount[t.maxLength]--
		overflow -= 2
	}
	for bits := t.maxLength; bits != 0; bits-- {
		n := b.blCount[bits]
		for n != 0 {
			h--
			m := b.heap[h]
			if m > t.maxCode {
				continue
			}
			if int(t.codes[m].len) != bits {
				b.optLen += (bits - int(t.codes[m].len)) * t.freq[m]
				t.codes[m].len = uint16(bits)
			}
			n--
		}
	}
}

// scanTree counts, in the bit-length tree, the symbols that send t's
// lengths (zlib's scan_tree). lens[maxCode+1] acts as a guard.
func (b *zlibBlock) scanTree(t *zTree) {
	b.walkTree(t, func(sym, _, _ int) { b.bltree.freq[sym]++ })
}

// sendTree sends t's lengths with the bit-length code (send_tree).
func (b *zlibBlock) sendTree(t *zTree) {
	b.walkTree(t, func(sym, extra, nbits int) {
		c := b.bltree.codes[sym]
		b.bits.send(uint64(c.code), int(c.len))
		if nbits > 0 {
			b.bits.send(uint64(extra), nbits)
		}
	})
}

// walkTree runs the run-length coding of t's lengths 0..maxCode, calling
// emit with each bit-length symbol and its extra bits.
func (b *zlibBlock) walkTree(t *zTree, emit func(sym, extra, nbits int)) {
	lenAt := func(n int) int {
		if n > t.maxCode {
			return -1 // the guard: never equal to a length
		}
		return int(t.codes[n].len)
	}
	prevLen := -1
	nextLen := lenAt(0)
	count := 0
	maxCount, minCount := 7, 4
	if nextLen == 0 {
		maxCount, minCount = 138, 3
	}
	for n := 0; n <= t.maxCode; n++ {
		curLen := nextLen
		nextLen = lenAt(n + 1)
		count++
		if count < maxCount && curLen == nextLen {
			continue
		}
		switch {
		case count < minCount:
			for ; count > 0; count-- {
				emit(curLen, 0, 0)
			}
		case curLen != 0:
			if curLen != prevLen {
				emit(curLen, 0, 0)
				count--
			}
			emit(zRep3To6, count-3, 2)
		case count <= 10:
			emit(zRepZ3To10, count-3, 3)
		default:
			emit(zRepZ11To, count-11, 7)
		}
		count = 0
		prevLen = curLen
		switch {
		case nextLen == 0:
			maxCount, minCount = 138, 3
		case curLen == nextLen:
			maxCount, minCount = 6, 3
		default:
			maxCount, minCount = 7, 4
		}
	}
}

// buildBLTree builds the bit-length code and returns the index in zBLOrder
// of the last length to send.
func (b *zlibBlock) buildBLTree() int {
	b.scanTree(&b.ltree)
	b.scanTree(&b.dtree)
	b.buildTree(&b.bltree)
	maxIndex := zBLCodes - 1
	for ; maxIndex >= 3; maxIndex-- {
		if b.bltree.codes[zBLOrder[maxIndex]].len != 0 {
			break
		}
	}
	b.optLen += 3*(maxIndex+1) + 5 + 5 + 4
	return maxIndex
}

// writeBlock writes the gathered symbols as one block (zlib's
// _tr_flush_block): stored holds the block's input when it is still in the
// window (nil otherwise), storedLen its length.
func (b *zlibBlock) writeBlock(stored []byte, storedLen int, last bool) {
	b.buildTree(&b.ltree)
	b.buildTree(&b.dtree)
	maxIndex := b.buildBLTree()
	optLenB := (b.optLen + 3 + 7) >> 3
	staticLenB := (b.staticLen + 3 + 7) >> 3
	if staticLenB <= optLenB {
		optLenB = staticLenB
	}
	lastBit := uint64(0)
	if last {
		lastBit = 1
	}
	switch {
	case storedLen+4 <= optLenB && stored != nil:
		b.bits.send(0<<1|lastBit, 3)
		b.bits.alignByte()
		b.bits.out = append(b.bits.out, byte(storedLen), byte(storedLen>>8), ^byte(storedLen), ^byte(storedLen>>8))
		b.bits.out = append(b.bits.out, stored...)
	case staticLenB == optLenB:
		b.bits.send(1<<1|lastBit, 3)
		b.compressBlock(zStaticLTree[:], zStaticDTree[:])
	default:
		b.bits.send(2<<1|lastBit, 3)
		b.sendAllTrees(b.ltree.maxCode+1, b.dtree.maxCode+1, maxIndex+1)
		b.compressBlock(b.ltree.codes, b.dtree.codes)
	}
	b.initBlock()
	if last {
		b.bits.alignByte()
	}
}

func (b *zlibBlock) sendAllTrees(lcodes, dcodes, blcodes int) {
	b.bits.send(uint64(lcodes-257), 5)
	b.bits.send(uint64(dcodes-1), 5)
	b.bits.send(uint64(blcodes-4), 4)
	for r := range blcodes {
		b.bits.send(uint64(b.bltree.codes[zBLOrder[r]].len), 3)
	}
	// lcodes-1 and dcodes-1 are the trees' maxCode.
	b.sendTree(&b.ltree)
	b.sendTree(&b.dtree)
}

// compressBlock sends the block's symbols with the given codes, then the
// end of block.
func (b *zlibBlock) compressBlock(ltree, dtree []zCode) {
	w := &b.bits
	for i := range b.nsyms {
		dist, lc := int(b.dists[i]), int(b.lcs[i])
		if dist == 0 {
			c := ltree[lc]
			w.send(uint64(c.code), int(c.len))
			continue
		}
		code := int(zLengthCode[lc])
		c := ltree[code+zLiterals+1]
		w.send(uint64(c.code), int(c.len))
		if extra := zExtraLBits[code]; extra != 0 {
			w.send(uint64(lc-zBaseLength[code]), extra)
		}
		dist--
		code = zDCode(dist)
		c = dtree[code]
		w.send(uint64(c.code), int(c.len))
		if extra := zExtraDBits[code]; extra != 0 {
			w.send(uint64(dist-zBaseDist[code]), extra)
		}
	}
	c := ltree[zEndBlock]
	w.send(uint64(c.code), int(c.len))
}

// zBitWriter appends bits least significant first, as deflate packs them.
type zBitWriter struct {
	out   []byte
	acc   uint64
	nbits int
}

func (w *zBitWriter) send(v uint64, n int) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out = append(w.out, byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// alignByte writes the pending bits, padded with zeros to a byte.
func (w *zBitWriter) alignByte() {
	if w.nbits > 0 {
		w.out = append(w.out, byte(w.acc))
	}
	w.acc, w.nbits = 0, 0
}
