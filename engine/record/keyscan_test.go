package record

import (
	"bytes"
	"fmt"
	"testing"
)

// A record worked out by hand from the format (docs: engine/record/FORMAT.md):
// length 7 (zigzag 14 = 0x0e), attributes 0, timestamp delta -2 (zigzag 3),
// offset delta 1 (zigzag 2), key length 1 (zigzag 2) "k", value length -1
// (zigzag 1: null), header count 0.
var handRecord = []byte{0x0e, 0x00, 0x03, 0x02, 0x02, 'k', 0x01, 0x00}

func TestKeyScanHandRecord(t *testing.T) {
	var r KeyRecord
	if n := scanRecord(handRecord, &r); n != len(handRecord) {
		t.Fatalf("scanRecord took %d bytes, want %d", n, len(handRecord))
	}
	if r.TimestampDelta != -2 || r.OffsetDelta != 1 || string(r.Key) != "k" || !r.NullValue {
		t.Fatalf("scanRecord read %+v, want delta -2, offset delta 1, key k, null value", r)
	}
	h := BatchHeader{BaseOffset: 100, BaseTimestamp: 5000, MaxTimestamp: 9000}
	if r.Offset(&h) != 101 || r.Timestamp(&h) != 4998 {
		t.Fatalf("offset %d timestamp %d, want 101 and 4998", r.Offset(&h), r.Timestamp(&h))
	}
	h.Attributes |= AttrLogAppendTime
	if r.Timestamp(&h) != 9000 {
		t.Fatalf("LOG_APPEND_TIME timestamp %d, want the batch's MaxTimestamp 9000", r.Timestamp(&h))
	}
	// An empty value (length 0, zigzag 0) is not null.
	empty := []byte{0x0e, 0x00, 0x03, 0x02, 0x02, 'k', 0x00, 0x00}
	if n := scanRecord(empty, &r); n != len(empty) || r.NullValue {
		t.Fatalf("empty value: took %d, null %v; want %d, false", n, r.NullValue, len(empty))
	}
}

// keyScanRecords are records of every shape the scan reads differently:
// one- and multi-byte varints in every field, null and empty keys and
// values, headers (with null and non-null values), negative deltas.
func keyScanRecords() []Record {
	long := bytes.Repeat([]byte{'x'}, 300)
	var hdrs []byte
	hdrs = AppendHeader(hdrs, Header{Key: []byte("h1"), Value: []byte("v")})
	hdrs = AppendHeader(hdrs, Header{Key: []byte("h2")})
	return []Record{
		{OffsetDelta: 0, Key: []byte("k"), Value: []byte("v")},
		{OffsetDelta: 1, TimestampDelta: -1, Key: []byte("k2")},
		{OffsetDelta: 2, Key: nil, Value: []byte("no key")},
		{OffsetDelta: 3, Key: []byte{}, Value: []byte{}},
		{OffsetDelta: 200, TimestampDelta: 1 << 40, Key: long, Value: long},
		{OffsetDelta: 1 << 30, TimestampDelta: -1 << 62, Key: []byte("k"), Value: long, HeaderCount: 2, Headers: hdrs},
		{OffsetDelta: -5, Attributes: 7, Key: long[:64], Value: nil, HeaderCount: 2, Headers: hdrs},
	}
}

func TestKeyScanMatchesDecoder(t *testing.T) {
	var section []byte
	recs := keyScanRecords()
	for i := range recs {
		section = AppendRecord(section, &recs[i])
	}
	full := NewRecordIterator(section, int32(len(recs)))
	scan := NewRecordIterator(section, int32(len(recs)))
	for i := 0; ; i++ {
		var r Record
		var k KeyRecord
		ok1, err1 := full.Next(&r)
		ok2, err2 := scan.NextKey(&k)
		if ok1 != ok2 || (err1 == nil) != (err2 == nil) || full.Pos() != scan.Pos() {
			t.Fatalf("record %d: Next %v %v at %d, NextKey %v %v at %d", i, ok1, err1, full.Pos(), ok2, err2, scan.Pos())
		}
		if !ok1 {
			if err1 != nil {
				t.Fatalf("record %d: %v", i, err1)
			}
			break
		}
		if k.TimestampDelta != r.TimestampDelta || k.OffsetDelta != r.OffsetDelta ||
			!bytes.Equal(k.Key, r.Key) || (k.Key == nil) != (r.Key == nil) || k.NullValue != (r.Value == nil) {
			t.Fatalf("record %d: NextKey read %+v, Next %+v", i, k, r)
		}
	}
}

// keyScanBad are malformed records sections, each rejected by the decoder
// for a different reason.
func keyScanBad() [][]byte {
	good := append([]byte{}, handRecord...)
	set := func(i int, v byte) []byte { b := append([]byte{}, good...); b[i] = v; return b }
	return [][]byte{
		{},                                       // nothing where a record should be
		{0x80},                                   // truncated length varint
		{0x01},                                   // length -1
		{0x00},                                   // length 0: no attributes
		{0x10, 0x00},                             // length 8 past the section
		good[:7],                                 // truncated body
		set(2, 0x80),                             // timestamp varlong runs into the next fields
		set(3, 0x81),                             // offset delta varint continues
		set(4, 0x03),                             // key length -2
		set(4, 0x0a),                             // key length 5 past the record
		set(6, 0x05),                             // value length -3
		set(6, 0x04),                             // value length 2 past the record
		set(7, 0x01),                             // header count -1
		set(7, 0x02),                             // header count 1, no header bytes
		set(0, 0x0c),                             // length 6: fields run past it
		append(set(0, 0x10), 0x00),               // length 8: a byte left after the fields
		append(good[:len(good):len(good)], 0x00), // a byte after the record (count 1)
		{0xff, 0xff, 0xff, 0xff, 0x1f},           // length varint over 32 bits
		{0x0e, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, // timestamp varlong over 10 bytes
	}
}

func TestKeyScanRejectsAsDecoder(t *testing.T) {
	for i, b := range keyScanBad() {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			var r Record
			var k KeyRecord
			_, derr := decodeRecord(b, &r)
			n := scanRecord(b, &k)
			full := NewRecordIterator(b, 1)
			scan := NewRecordIterator(b, 1)
			ok1, err1 := full.Next(&r)
			if ok1 {
				ok1, err1 = full.Next(&r) // the trailing byte case: the error comes after the record
			}
			ok2, err2 := scan.NextKey(&k)
			if ok2 {
				ok2, err2 = scan.NextKey(&k)
			}
			if err1 == nil {
				t.Fatalf("the decoder accepts %x", b)
			}
			if (derr == nil) != (n > 0) {
				t.Fatalf("decodeRecord error %v, scanRecord took %d", derr, n)
			}
			if ok1 != ok2 || err2 == nil || err1.Error() != err2.Error() || full.Pos() != scan.Pos() {
				t.Fatalf("Next: %v %v at %d; NextKey: %v %v at %d", ok1, err1, full.Pos(), ok2, err2, scan.Pos())
			}
		})
	}
}

// FuzzKeyScan's invariants: scanRecord takes a record iff decodeRecord
// does, the same number of bytes, with the same deltas, key and value
// nullness; it never panics or reads past its input; and NextKey walks a
// records section exactly as Next does (records, positions, error text).
func FuzzKeyScan(f *testing.F) {
	recs := keyScanRecords()
	var section []byte
	for i := range recs {
		section = AppendRecord(section, &recs[i])
		f.Add(AppendRecord(nil, &recs[i]), uint8(1))
	}
	f.Add(section, uint8(len(recs)))
	f.Add(handRecord, uint8(1))
	for _, b := range keyScanBad() {
		f.Add(b, uint8(1))
	}
	f.Fuzz(func(t *testing.T, data []byte, count uint8) {
		in := data[:len(data):len(data)]
		var r Record
		var k KeyRecord
		n1, err := decodeRecord(in, &r)
		n2 := scanRecord(in, &k)
		if (err == nil) != (n2 > 0) {
			t.Fatalf("decodeRecord: %d, %v; scanRecord took %d", n1, err, n2)
		}
		if err == nil {
			if n1 != n2 || k.TimestampDelta != r.TimestampDelta || k.OffsetDelta != r.OffsetDelta ||
				!bytes.Equal(k.Key, r.Key) || (k.Key == nil) != (r.Key == nil) || k.NullValue != (r.Value == nil) {
				t.Fatalf("decodeRecord %d %+v; scanRecord %d %+v", n1, r, n2, k)
			}
			if k.Key != nil && !inside(k.Key, in) {
				t.Fatalf("the key lies outside the input")
			}
		}
		full := NewRecordIterator(in, int32(count))
		scan := NewRecordIterator(in, int32(count))
		for i := 0; i <= int(count); i++ {
			ok1, err1 := full.Next(&r)
			ok2, err2 := scan.NextKey(&k)
			if ok1 != ok2 || (err1 == nil) != (err2 == nil) || full.Pos() != scan.Pos() || full.Index() != scan.Index() {
				t.Fatalf("record %d: Next %v %v at %d, NextKey %v %v at %d", i, ok1, err1, full.Pos(), ok2, err2, scan.Pos())
			}
			if err1 != nil {
				if err1.Error() != err2.Error() {
					t.Fatalf("record %d: Next says %q, NextKey %q", i, err1, err2)
				}
				break
			}
			if !ok1 {
				break
			}
			if k.OffsetDelta != r.OffsetDelta || !bytes.Equal(k.Key, r.Key) || k.NullValue != (r.Value == nil) {
				t.Fatalf("record %d: NextKey %+v, Next %+v", i, k, r)
			}
		}
	})
}

func BenchmarkKeyScan(b *testing.B) {
	for _, valueSize := range []int{100, 1024} {
		var section []byte
		const n = 16
		for i := 0; i < n; i++ {
			r := Record{OffsetDelta: int32(i), TimestampDelta: int64(i), Key: fmt.Appendf(nil, "key-%012d", i), Value: bytes.Repeat([]byte{'v'}, valueSize)}
			section = AppendRecord(section, &r)
		}
		b.Run(fmt.Sprintf("values=%d/walk=full", valueSize), func(b *testing.B) {
			var r Record
			for b.Loop() {
				it := NewRecordIterator(section, n)
				for {
					ok, err := it.Next(&r)
					if err != nil {
						b.Fatal(err)
					}
					if !ok {
						break
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
		b.Run(fmt.Sprintf("values=%d/walk=key-scan", valueSize), func(b *testing.B) {
			var r KeyRecord
			for b.Loop() {
				it := NewRecordIterator(section, n)
				for {
					ok, err := it.NextKey(&r)
					if err != nil {
						b.Fatal(err)
					}
					if !ok {
						break
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
		})
	}
}
