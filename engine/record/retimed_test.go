package record

import (
	"bytes"
	"errors"
	"testing"
)

// TestAppendRetimed checks Builder.AppendRetimed against AppendRecord of the
// decoded record with the new delta: the same bytes for deltas that keep,
// grow and shrink the delta's varint, and for bodies on both sides of the
// length varint's one-byte limit (63 bytes: zigzag 126 fits 7 bits; 64 does
// not), so that the re-encoded length is checked where its size changes.
func TestAppendRetimed(t *testing.T) {
	for _, valueLen := range []int{0, 40, 57, 58, 59, 200} {
		for _, c := range []struct{ old, new int64 }{
			{5, 5}, {0, 1_000_000}, {1_000_000, 0}, {300, 1}, {-1, 63}, {63, 64}, {5, -9_000_000_000},
		} {
			r := Record{TimestampDelta: c.old, OffsetDelta: 3, Key: []byte("key-1"), Value: bytes.Repeat([]byte{'v'}, valueLen),
				HeaderCount: 1, Headers: AppendHeader(nil, Header{Key: []byte("h"), Value: []byte("x")})}
			enc := AppendRecord(nil, &r)
			var b Builder
			b.Reset(BatchHeader{})
			if err := b.AppendRetimed(enc, c.new); err != nil {
				t.Fatalf("value %d, delta %d -> %d: %v", valueLen, c.old, c.new, err)
			}
			want := r
			want.TimestampDelta = c.new
			if got, w := b.records, AppendRecord(nil, &want); !bytes.Equal(got, w) {
				t.Errorf("value %d, delta %d -> %d:\n got %x\nwant %x", valueLen, c.old, c.new, got, w)
			}
			if b.Len() != 1 {
				t.Errorf("Len = %d after one AppendRetimed", b.Len())
			}
			// The result decodes to the record with the new delta.
			it := NewRecordIterator(b.records, 1)
			var d Record
			if ok, err := it.Next(&d); !ok || err != nil || d.TimestampDelta != c.new || !bytes.Equal(d.Value, r.Value) || it.Pos() != len(b.records) {
				t.Errorf("value %d, delta %d -> %d: decoded %+v, %v, %v, pos %d", valueLen, c.old, c.new, d, ok, err, it.Pos())
			}
		}
	}
}

// TestAppendRetimedBadInput: a span that is not one whole record is an
// ErrMalformedRecord and appends nothing.
func TestAppendRetimedBadInput(t *testing.T) {
	r := Record{TimestampDelta: 7, Key: []byte("k"), Value: []byte("v")}
	enc := AppendRecord(nil, &r)
	for name, rec := range map[string][]byte{
		"empty":       nil,
		"cut short":   enc[:len(enc)-1],
		"extra byte":  append(append([]byte(nil), enc...), 0),
		"bad varint":  {0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
		"no ts delta": {0x02, 0x00},
	} {
		var b Builder
		b.Reset(BatchHeader{})
		if err := b.AppendRetimed(rec, 9); !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("%s: error %v, want ErrMalformedRecord", name, err)
		}
		if len(b.records) != 0 || b.Len() != 0 {
			t.Errorf("%s: %d bytes, %d records appended after an error", name, len(b.records), b.Len())
		}
	}
}

// TestRecordIteratorSpans: Pos before and after each Next delimits exactly
// the bytes AppendRecord wrote for that record, and Section is the input.
func TestRecordIteratorSpans(t *testing.T) {
	var sec []byte
	var ends []int
	for i := range 5 {
		r := Record{TimestampDelta: int64(i * 1000), OffsetDelta: int32(i), Key: []byte{byte('a' + i)}, Value: bytes.Repeat([]byte{'x'}, i*30)}
		sec = AppendRecord(sec, &r)
		ends = append(ends, len(sec))
	}
	it := NewRecordIterator(sec, 5)
	if !bytes.Equal(it.Section(), sec) {
		t.Fatal("Section is not the records section")
	}
	var r Record
	for i, end := range ends {
		if ok, err := it.Next(&r); !ok || err != nil || it.Pos() != end {
			t.Fatalf("record %d: ok %v err %v, Pos %d, want %d", i, ok, err, it.Pos(), end)
		}
	}
}

// TestFinishUncompressed: records appended in place after a header's room
// (AppendRetimed) and finished there give the bytes Builder.Finish gives
// for the same header and records (Magic forced to 2, Length, RecordCount
// and CRC computed), and the growth bound MaxRetimedGrowth holds for the
// largest change of delta; a compressed header or a batch shorter than a
// header is refused.
func TestFinishUncompressed(t *testing.T) {
	h := BatchHeader{BaseOffset: 1000, PartitionLeaderEpoch: 4, Attributes: AttrDeleteHorizon, LastOffsetDelta: 9,
		BaseTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_500, ProducerID: 77, ProducerEpoch: 2, BaseSequence: 10}
	var b Builder
	b.Reset(h)
	batch := make([]byte, BatchHeaderSize)
	for i, c := range []struct{ old, new int64 }{{5, 5}, {0, -9_000_000_000_000_000_000}, {63, 64}} {
		r := Record{TimestampDelta: c.old, OffsetDelta: int32(i), Key: []byte("k"), Value: []byte("v")}
		enc := AppendRecord(nil, &r)
		if err := b.AppendRetimed(enc, c.new); err != nil {
			t.Fatal(err)
		}
		before := len(batch)
		var err error
		if batch, err = AppendRetimed(batch, enc, c.new); err != nil {
			t.Fatal(err)
		}
		if grew := len(batch) - before - len(enc); grew > MaxRetimedGrowth {
			t.Errorf("delta %d -> %d: the record grew %d bytes, more than MaxRetimedGrowth %d", c.old, c.new, grew, MaxRetimedGrowth)
		}
	}
	want, err := b.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := FinishUncompressed(batch, h, 3); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(batch, want) {
		t.Fatalf("in place:\n got %x\nwant %x", batch, want)
	}
	if err := VerifyCRC(batch); err != nil {
		t.Fatal(err)
	}
	lz := h
	lz.Attributes |= Attributes(CodecLZ4)
	if err := FinishUncompressed(batch, lz, 3); !errors.Is(err, ErrCodec) {
		t.Errorf("lz4 header: %v, want ErrCodec", err)
	}
	if err := FinishUncompressed(batch[:BatchHeaderSize-1], h, 0); !errors.Is(err, ErrBadLength) {
		t.Errorf("60 bytes: %v, want ErrBadLength", err)
	}
}
