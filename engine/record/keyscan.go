package record

// A key scan walks the records of a batch reading only what the cleaner's
// decisions need: each record's offset and timestamp deltas, its key, and
// whether its value is null. Value bytes and headers are stepped over by
// their lengths, never sliced out or stored. It accepts exactly the records
// the full decoder (RecordIterator.Next) accepts, with the same checks in
// the same order; on any record it cannot take, it hands the record to the
// full decoder, so that errors (text, record index, byte position) are the
// decoder's own.

// KeyRecord is what a key scan reads of one record. Key aliases the batch
// bytes (or the Decoder's decompression buffer), as Record.Key does.
type KeyRecord struct {
	TimestampDelta int64  // ms, relative to the batch's BaseTimestamp
	OffsetDelta    int32  // relative to the batch's BaseOffset
	Key            []byte // nil = null key
	NullValue      bool   // the value is null (a tombstone in a data batch); an empty value is not null
}

// Offset returns the record's offset: h.BaseOffset + OffsetDelta.
func (r *KeyRecord) Offset(h *BatchHeader) Offset { return h.BaseOffset + Offset(r.OffsetDelta) }

// Timestamp returns the record's timestamp in ms, as Record.Timestamp.
func (r *KeyRecord) Timestamp(h *BatchHeader) int64 {
	if h.Attributes.LogAppendTime() {
		return h.MaxTimestamp
	}
	return h.BaseTimestamp + r.TimestampDelta
}

// NextKey is Next reading only a KeyRecord: the same records, the same
// positions (Pos), the same errors, and the same state afterwards, so
// that calls of Next and NextKey may be mixed on one iterator.
func (it *RecordIterator) NextKey(r *KeyRecord) (bool, error) {
	if it.err == nil && it.index < it.count {
		if n := scanRecord(it.b[it.pos:], r); n > 0 {
			it.pos += n
			it.index++
			return true, nil
		}
	}
	// The end, an error, or a record the scan does not take: the full
	// decoder decides, and says why.
	var full Record
	ok, err := it.Next(&full)
	if ok {
		r.TimestampDelta, r.OffsetDelta, r.Key, r.NullValue = full.TimestampDelta, full.OffsetDelta, full.Key, full.Value == nil
	}
	return ok, err
}

// scanRecord reads the record at the start of b into r and returns the
// bytes it took, or 0 when decodeRecord would reject it. Its checks are
// decodeRecord's: the length varint and its bound, an attributes byte,
// the timestamp delta (varlong) and offset delta (varint), the key and
// value lengths (-1 or within the record), a non-negative header count,
// every header (readHeader), and the fields ending where the length says.
// One-byte varints, the common case, are read inline.
func scanRecord(b []byte, r *KeyRecord) int {
	l, p := varintFast(b)
	if p == 0 {
		if l, p = varintSlow(b); p == 0 {
			return 0
		}
	}
	bodyLen := int(l)
	// bodyLen 0 leaves no attributes byte: rejected as decodeRecord does.
	if bodyLen < 1 || bodyLen > len(b)-p {
		return 0
	}
	total := p + bodyLen
	body := b[p:total:total]
	q := 1 // the attributes byte, unused by Kafka

	ts, n := varintFast(body[q:])
	if n > 0 {
		r.TimestampDelta = int64(ts)
	} else {
		v, m, err := readVarlong(body[q:])
		if err != nil {
			return 0
		}
		r.TimestampDelta, n = v, m
	}
	q += n
	if r.OffsetDelta, n = varintFast(body[q:]); n == 0 {
		if r.OffsetDelta, n = varintSlow(body[q:]); n == 0 {
			return 0
		}
	}
	q += n

	kl, n := varintFast(body[q:])
	if n == 0 {
		if kl, n = varintSlow(body[q:]); n == 0 {
			return 0
		}
	}
	q += n
	switch {
	case kl == -1:
		r.Key = nil
	case kl < -1 || int(kl) > len(body)-q:
		return 0
	default:
		r.Key = body[q : q+int(kl) : q+int(kl)]
		q += int(kl)
	}
	vl, n := varintFast(body[q:])
	if n == 0 {
		if vl, n = varintSlow(body[q:]); n == 0 {
			return 0
		}
	}
	q += n
	switch {
	case vl == -1:
		r.NullValue = true
	case vl < -1 || int(vl) > len(body)-q:
		return 0
	default:
		r.NullValue = false
		q += int(vl)
	}

	if q < len(body) && body[q] == 0 {
		// No headers: the common case.
		q++
	} else {
		hc, n, err := readVarint(body[q:])
		if err != nil || hc < 0 {
			return 0
		}
		q += n
		var h Header
		for i := int32(0); i < hc; i++ {
			n, err := readHeader(body[q:], &h)
			if err != nil {
				return 0
			}
			q += n
		}
	}
	if q != len(body) {
		return 0
	}
	return total
}

// varintFast decodes a zigzag varint of one or two bytes at the start of
// b (every such varint is valid for both int32 and int64); n is 0 when b
// starts with a longer varint, or a truncated one.
func varintFast(b []byte) (v int32, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return zigzag32(uint32(b[0])), 1
	}
	if len(b) > 1 && b[1] < 0x80 {
		return zigzag32(uint32(b[0]&0x7f) | uint32(b[1])<<7), 2
	}
	return 0, 0
}

// varintSlow is readVarint with n == 0 for an error.
func varintSlow(b []byte) (v int32, n int) {
	v, n, err := readVarint(b)
	if err != nil {
		return 0, 0
	}
	return v, n
}

// zigzag32 decodes a zigzag-encoded 32-bit value.
func zigzag32(u uint32) int32 { return int32(u>>1) ^ -int32(u&1) }
