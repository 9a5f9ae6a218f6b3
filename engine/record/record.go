package record

import (
	"errors"
	"fmt"
)

// Record is a view of one decoded record of a v2 batch. Key, Value and
// Headers alias the batch bytes (or the Decoder's decompression buffer) and
// stay valid until that buffer is reused.
type Record struct {
	Attributes     int8   // unused by Kafka; always 0 as written
	TimestampDelta int64  // ms, relative to the batch's BaseTimestamp
	OffsetDelta    int32  // relative to the batch's BaseOffset
	Key            []byte // nil = null key
	Value          []byte // nil = null value (tombstone); non-nil and empty = empty value, NOT a tombstone
	HeaderCount    int32
	Headers        []byte // the raw encoded headers (HeaderCount entries), for verbatim re-encoding
}

// Offset returns the record's offset: h.BaseOffset + OffsetDelta.
func (r *Record) Offset(h *BatchHeader) Offset { return h.BaseOffset + Offset(r.OffsetDelta) }

// Timestamp returns the record's timestamp in ms since the epoch: the batch's
// MaxTimestamp when its timestamp type is LOG_APPEND_TIME, else
// BaseTimestamp + TimestampDelta (BaseTimestamp being the delete horizon when
// that attribute is set, as Kafka's DefaultRecordBatch does).
func (r *Record) Timestamp(h *BatchHeader) int64 {
	if h.Attributes.LogAppendTime() {
		return h.MaxTimestamp
	}
	return h.BaseTimestamp + r.TimestampDelta
}

// IsTombstone reports whether the value is null (Value == nil). An empty,
// non-nil value is not a tombstone.
func (r *Record) IsTombstone() bool { return r.Value == nil }

// Header is one record header. Key is never nil once decoded (a header key
// cannot be null); Value nil = null value.
type Header struct {
	Key, Value []byte
}

// HeaderIterator walks the raw headers of a Record without allocating.
type HeaderIterator struct {
	b    []byte
	pos  int
	left int32
}

// HeaderIter returns an iterator over r's HeaderCount headers in r.Headers.
func (r *Record) HeaderIter() HeaderIterator {
	return HeaderIterator{b: r.Headers, left: r.HeaderCount}
}

// Next decodes the next header into h (h's slices alias the record's bytes).
// It returns false, nil after the last header, and an error wrapping
// ErrMalformedRecord when the header bytes are truncated, a key length is
// negative, a value length is below -1, or bytes remain after the last header.
func (it *HeaderIterator) Next(h *Header) (bool, error) {
	if it.left <= 0 {
		if it.pos != len(it.b) {
			return false, fmt.Errorf("%w: %d bytes left after the last header", ErrMalformedRecord, len(it.b)-it.pos)
		}
		return false, nil
	}
	n, err := readHeader(it.b[it.pos:], h)
	if err != nil {
		pos := it.pos
		it.left = 0
		it.pos = len(it.b)
		return false, fmt.Errorf("%w: header at byte %d of the headers: %w", ErrMalformedRecord, pos, err)
	}
	it.pos += n
	it.left--
	return true, nil
}

// readHeader decodes one header at the start of b into h and returns the
// bytes it took.
func readHeader(b []byte, h *Header) (int, error) {
	kl, n, err := readVarint(b)
	if err != nil {
		return 0, err
	}
	p := n
	if kl < 0 {
		return 0, fmt.Errorf("header key length %d is negative", kl)
	}
	if int(kl) > len(b)-p {
		return 0, fmt.Errorf("header key length %d runs past the record (%d bytes left)", kl, len(b)-p)
	}
	h.Key = b[p : p+int(kl) : p+int(kl)]
	p += int(kl)
	vl, n, err := readVarint(b[p:])
	if err != nil {
		return 0, err
	}
	p += n
	switch {
	case vl == -1:
		h.Value = nil
	case vl < -1:
		return 0, fmt.Errorf("header value length %d", vl)
	case int(vl) > len(b)-p:
		return 0, fmt.Errorf("header value length %d runs past the record (%d bytes left)", vl, len(b)-p)
	default:
		h.Value = b[p : p+int(vl) : p+int(vl)]
		p += int(vl)
	}
	return p, nil
}

// AppendHeader appends the encoding of one header to dst: key length varint,
// key, value length varint (-1 when h.Value is nil), value. Use it to build
// Record.Headers (and count the headers in Record.HeaderCount).
func AppendHeader(dst []byte, h Header) []byte {
	dst = AppendVarint(dst, int32(len(h.Key)))
	dst = append(dst, h.Key...)
	return appendBytes(dst, h.Value)
}

// appendBytes appends a varint length (-1 for nil) and the bytes.
func appendBytes(dst, b []byte) []byte {
	if b == nil {
		return AppendVarint(dst, -1)
	}
	dst = AppendVarint(dst, int32(len(b)))
	return append(dst, b...)
}

func sizeofBytes(b []byte) int {
	if b == nil {
		return 1 // varint -1
	}
	return SizeofVarint(int32(len(b))) + len(b)
}

// SizeofRecordBody returns the bytes of r's body: everything after the
// leading length varint, which is this number itself.
func SizeofRecordBody(r *Record) int {
	return 1 + SizeofVarlong(r.TimestampDelta) + SizeofVarint(r.OffsetDelta) +
		sizeofBytes(r.Key) + sizeofBytes(r.Value) +
		SizeofVarint(r.HeaderCount) + len(r.Headers)
}

// SizeofRecord returns the bytes AppendRecord writes for r, length varint included.
func SizeofRecord(r *Record) int {
	body := SizeofRecordBody(r)
	return SizeofVarint(int32(body)) + body
}

// AppendRecord appends the encoding of one record to dst: length varint,
// attributes, timestamp delta, offset delta, key, value, header count and
// r.Headers copied as they are (the caller keeps HeaderCount and Headers in
// agreement).
func AppendRecord(dst []byte, r *Record) []byte {
	dst = AppendVarint(dst, int32(SizeofRecordBody(r)))
	dst = append(dst, byte(r.Attributes))
	dst = AppendVarlong(dst, r.TimestampDelta)
	dst = AppendVarint(dst, r.OffsetDelta)
	dst = appendBytes(dst, r.Key)
	dst = appendBytes(dst, r.Value)
	dst = AppendVarint(dst, r.HeaderCount)
	return append(dst, r.Headers...)
}

// RecordIterator walks the records of an uncompressed records section
// without allocating. The zero value yields no records.
type RecordIterator struct {
	b     []byte
	pos   int   // byte position of the next record in b
	index int32 // records returned so far
	count int32
	err   error
}

// NewRecordIterator returns an iterator over count records encoded back to
// back in records (a batch's bytes after its header, decompressed).
func NewRecordIterator(records []byte, count int32) RecordIterator {
	return RecordIterator{b: records, count: count}
}

// Pos returns the byte position within the records section of the record
// Next decodes next: after a successful Next, the record it returned spans
// [Pos before the call, Pos after it).
func (it *RecordIterator) Pos() int { return it.pos }

// Section returns the records section the iterator walks (aliasing the
// batch, or the Decoder's decompression buffer).
func (it *RecordIterator) Section() []byte { return it.b }

// Count returns the number of records the iterator was made for.
func (it *RecordIterator) Count() int32 { return it.count }

// Index returns the number of records Next has returned so far.
func (it *RecordIterator) Index() int32 { return it.index }

// Next decodes the next record into r. It returns false, nil after count
// records, and an error wrapping ErrMalformedRecord (saying the record index
// and its byte position within the records section) when the bytes run out
// early, a varint is bad, a key or value length is negative other than -1, a
// header is malformed, the record's length varint disagrees with its fields,
// or bytes remain after count records. After an error, Next returns the same
// error again.
func (it *RecordIterator) Next(r *Record) (ok bool, err error) {
	if it.err != nil {
		return false, it.err
	}
	if it.index >= it.count {
		if it.pos != len(it.b) {
			it.err = fmt.Errorf("%w: %d bytes remain at byte %d of the records section after %d records",
				ErrMalformedRecord, len(it.b)-it.pos, it.pos, it.count)
			return false, it.err
		}
		return false, nil
	}
	n, reason := decodeRecord(it.b[it.pos:], r)
	if reason != nil {
		it.err = fmt.Errorf("%w: record %d of %d at byte %d of the records section: %w", ErrMalformedRecord, it.index, it.count, it.pos, reason)
		return false, it.err
	}
	it.pos += n
	it.index++
	return true, nil
}

// decodeRecord decodes the record at the start of b into r and returns the
// bytes it took. Errors give the reason only; the caller adds ErrMalformedRecord and where.
func decodeRecord(b []byte, r *Record) (int, error) {
	bodyLen, n, err := readVarint(b)
	if err != nil {
		return 0, fmt.Errorf("length: %w", err)
	}
	if bodyLen < 0 {
		return 0, fmt.Errorf("record length %d is negative", bodyLen)
	}
	if int(bodyLen) > len(b)-n {
		return 0, fmt.Errorf("record length %d runs past the records section (%d bytes left)", bodyLen, len(b)-n)
	}
	total := n + int(bodyLen)
	body := b[n:total:total]
	if len(body) < 1 {
		return 0, errors.New("record length 0 leaves no attributes")
	}
	r.Attributes = int8(body[0])
	p := 1
	if r.TimestampDelta, n, err = readVarlong(body[p:]); err != nil {
		return 0, fmt.Errorf("timestamp delta: %w", err)
	}
	p += n
	if r.OffsetDelta, n, err = readVarint(body[p:]); err != nil {
		return 0, fmt.Errorf("offset delta: %w", err)
	}
	p += n
	if r.Key, n, err = readBytes(body[p:]); err != nil {
		return 0, fmt.Errorf("key: %w", err)
	}
	p += n
	if r.Value, n, err = readBytes(body[p:]); err != nil {
		return 0, fmt.Errorf("value: %w", err)
	}
	p += n
	if r.HeaderCount, n, err = readVarint(body[p:]); err != nil {
		return 0, fmt.Errorf("header count: %w", err)
	}
	p += n
	if r.HeaderCount < 0 {
		return 0, fmt.Errorf("header count %d is negative", r.HeaderCount)
	}
	hstart := p
	var h Header
	for i := int32(0); i < r.HeaderCount; i++ {
		if n, err = readHeader(body[p:], &h); err != nil {
			return 0, fmt.Errorf("header %d: %w", i, err)
		}
		p += n
	}
	if p != len(body) {
		return 0, fmt.Errorf("record length %d but its fields end at %d", len(body), p)
	}
	r.Headers = body[hstart:p:p]
	return total, nil
}

// readBytes reads a varint length (-1 = null) and that many bytes.
func readBytes(b []byte) ([]byte, int, error) {
	l, n, err := readVarint(b)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case l == -1:
		return nil, n, nil
	case l < -1:
		return nil, 0, fmt.Errorf("length %d is negative", l)
	case int(l) > len(b)-n:
		return nil, 0, fmt.Errorf("length %d runs past the record (%d bytes left)", l, len(b)-n)
	}
	return b[n : n+int(l) : n+int(l)], n + int(l), nil
}
