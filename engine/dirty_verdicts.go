package engine

import (
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// dirtyVerdicts is CleanerConfig.SkipDirtyLookups: two bits per offset of
// the dirty section from the first dirty offset, filled while the offset
// map is built and read by the copy phase's filter. put says the map build
// put the record at that offset (a keyed record of a data batch not
// aborted, inside the pass); superseded says a later Put of the same key
// (digest) overwrote that entry, so the map's offset for the key is above
// it. Put in a pass whose Puts have strictly increasing offsets, a record
// is obsolete when superseded and the latest for its key otherwise: what
// a lookup answers, without the lookup's cache miss.
type dirtyVerdicts struct {
	put        []uint64
	superseded []uint64
	base       int64 // offset of bit 0
	n          int64 // offsets covered: [base, base+n)
	lastPut    int64 // the largest offset put so far; -1 before any
	// on is set for the pass when the map records superseded offsets and
	// cleared when a Put does not increase the offset (corrupt input):
	// the copy phase then looks every record up.
	on bool
}

// verdictOffsetsPerEntry bounds the bitmaps: offsets covered per entry the
// map may hold (4 x MaxMapEntries offsets, a quarter byte each).
const verdictOffsetsPerEntry = 4

// start readies the bitmaps for a pass over [first, end) of a map that
// holds at most maxEntries keys, and asks m to record superseded offsets;
// off when m cannot.
func (v *dirtyVerdicts) start(m offsetmap.Map, first, end int64, maxEntries int) {
	v.on = false
	r, ok := m.(offsetmap.SupersedeRecorder)
	if !ok || end <= first {
		return
	}
	v.base, v.n, v.lastPut = first, min(end-first, int64(maxEntries)*verdictOffsetsPerEntry), -1
	words := int((v.n + 63) / 64)
	v.put = resizeCleared(v.put, words)
	v.superseded = resizeCleared(v.superseded, words)
	r.RecordSuperseded(v.superseded, v.base)
	v.on = true
}

// resizeCleared returns b with n zero words, reusing its array when it is
// large enough.
func resizeCleared(b []uint64, n int) []uint64 {
	if cap(b) < n {
		return make([]uint64, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// stop ends the recording (the map writes its queued Puts first).
func (v *dirtyVerdicts) stop(m offsetmap.Map) {
	if r, ok := m.(offsetmap.SupersedeRecorder); ok {
		r.RecordSuperseded(nil, 0)
	}
}

// notePut records the Puts of offsets, in order.
func (v *dirtyVerdicts) notePut(offsets []int64) {
	if !v.on {
		return
	}
	for _, off := range offsets {
		if off <= v.lastPut {
			v.on = false
			return
		}
		v.lastPut = off
		if d := uint64(off - v.base); d < uint64(v.n) {
			v.put[d>>6] |= 1 << (d & 63)
		}
	}
}

// decided reports whether the record at off was put in this pass, and if
// so whether a later Put overwrote it.
func (v *dirtyVerdicts) decided(off int64) (known, superseded bool) {
	d := uint64(off - v.base)
	if !v.on || d >= uint64(v.n) || v.put[d>>6]&(1<<(d&63)) == 0 {
		return false, false
	}
	return true, v.superseded[d>>6]&(1<<(d&63)) != 0
}
