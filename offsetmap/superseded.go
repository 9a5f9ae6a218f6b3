package offsetmap

// SupersedeRecorder is implemented by maps that can tell their caller which
// of the pass's offsets a later Put replaced. The cleaner uses it to decide
// the dirty section's records in the copy phase without looking them up
// again (engine.CleanerConfig.SkipDirtyLookups): a record put at offset o
// whose entry a later Put overwrote with a larger offset is obsolete, since
// the map's offset for its key is then above o; a record put and never
// overwritten is the latest for its key. Maps store digests or
// fingerprints, so "its key" means every key with the same digest, exactly
// as Get answers; the verdicts are Get's.
type SupersedeRecorder interface {
	// RecordSuperseded has every later Put that overwrites an entry of this
	// pass holding an offset old smaller than the Put's set bit old-base of
	// bits (bits[(old-base)/64], bit (old-base)%64), when 0 <= old-base <
	// 64*len(bits); offsets outside that range are not recorded. Puts the
	// map still holds queued (Bucket's write-behind) are written first, so
	// they record into the previous target. RecordSuperseded(nil, 0) and
	// Clear stop the recording. The map keeps bits until then.
	RecordSuperseded(bits []uint64, base int64)
}

var (
	_ SupersedeRecorder = (*Bucket)(nil)
	_ SupersedeRecorder = (*Dense)(nil)
	_ SupersedeRecorder = (*Skimpy)(nil)
)

// supersededBits is a SupersedeRecorder's target: one bit per offset from
// base. The zero value records nothing.
type supersededBits struct {
	bits []uint64
	base int64
}

// note records that the entry holding offset old was overwritten by a Put
// of offset new.
func (s *supersededBits) note(old, new int64) {
	if d := uint64(old - s.base); d < uint64(len(s.bits))*64 && old < new {
		s.bits[d>>6] |= 1 << (d & 63)
	}
}
