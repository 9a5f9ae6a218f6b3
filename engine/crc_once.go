package engine

// crcRanges are, per dirty segment, the byte range [from, to) of whole
// batches whose CRCs the map build checked (CleanerConfig.VerifyCRCOnce):
// the build reads each segment from one batch boundary to the end or to
// where the map filled, so one range per segment covers it. The copy phase
// reads the map only (covers), so a copy worker may share it.
type crcRanges struct {
	on     bool
	ranges map[*Segment]fileRange
}

// fileRange is a byte range [from, to) of a file.
type fileRange struct{ from, to int64 }

// reset empties r for a new map build and turns it on or off.
func (r *crcRanges) reset(on bool) {
	r.on = on
	if !on {
		r.ranges = nil
		return
	}
	// A new map each build: a copy worker may still hold the last one.
	r.ranges = map[*Segment]fileRange{}
}

// note records that the CRC of the batch of s at byte pos, size bytes,
// was checked. A batch that does not follow the segment's range starts it
// anew (the build reads forward, so this happens only at its first batch).
func (r *crcRanges) note(s *Segment, pos, size int64) {
	if !r.on {
		return
	}
	if cur, ok := r.ranges[s]; ok && cur.to == pos {
		r.ranges[s] = fileRange{cur.from, pos + size}
		return
	}
	r.ranges[s] = fileRange{pos, pos + size}
}

// covers reports whether the batch of s at byte pos, size bytes, lies in
// the range whose CRCs were checked.
func (r *crcRanges) covers(s *Segment, pos, size int64) bool {
	if !r.on {
		return false
	}
	cur, ok := r.ranges[s]
	return ok && cur.from <= pos && pos+size <= cur.to
}
