package record

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// Hand-worked record encodings (DefaultRecord: length varint, attributes,
// timestamp delta varlong, offset delta varint, key, value, header count,
// headers; all lengths zigzag varints, -1 = null).
func TestRecordHandWorked(t *testing.T) {
	cases := []struct {
		name string
		r    Record
		enc  []byte
	}{{
		name: "key k value v, ts delta 2, offset delta 1",
		r:    Record{TimestampDelta: 2, OffsetDelta: 1, Key: []byte("k"), Value: []byte("v")},
		// body: 00 | 04 | 02 | 02 'k' | 02 'v' | 00 = 8 bytes, length varint 8 -> 0x10
		enc: []byte{0x10, 0x00, 0x04, 0x02, 0x02, 'k', 0x02, 'v', 0x00},
	}, {
		name: "null key, null value (tombstone)",
		r:    Record{},
		// body: 00 | 00 | 00 | 01 | 01 | 00 = 6 bytes -> 0x0c
		enc: []byte{0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00},
	}, {
		name: "empty key, empty value (not a tombstone)",
		r:    Record{Key: []byte{}, Value: []byte{}},
		enc:  []byte{0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00},
	}, {
		name: "one header h=null, negative ts delta -1",
		r: Record{TimestampDelta: -1, Key: []byte("a"), Value: []byte("b"),
			HeaderCount: 1, Headers: []byte{0x02, 'h', 0x01}},
		// body: 00 | 01 | 00 | 02 'a' | 02 'b' | 02 | 02 'h' 01 = 11 bytes -> 0x16
		enc: []byte{0x16, 0x00, 0x01, 0x00, 0x02, 'a', 0x02, 'b', 0x02, 0x02, 'h', 0x01},
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := AppendRecord(nil, &c.r); !bytes.Equal(got, c.enc) {
				t.Fatalf("AppendRecord = % x, want % x", got, c.enc)
			}
			if n := SizeofRecord(&c.r); n != len(c.enc) {
				t.Fatalf("SizeofRecord = %d, want %d", n, len(c.enc))
			}
			it := NewRecordIterator(c.enc, 1)
			var r Record
			if ok, err := it.Next(&r); !ok || err != nil {
				t.Fatalf("Next = %v, %v", ok, err)
			}
			if err := sameRecord(&r, &c.r); err != nil {
				t.Fatal(err)
			}
			if r.IsTombstone() != (c.r.Value == nil) {
				t.Fatalf("IsTombstone = %v", r.IsTombstone())
			}
			if ok, err := it.Next(&r); ok || err != nil {
				t.Fatalf("Next after the last = %v, %v", ok, err)
			}
		})
	}
	// The header built by AppendHeader, and read back.
	hb := AppendHeader(nil, Header{Key: []byte("h")})
	if !bytes.Equal(hb, []byte{0x02, 'h', 0x01}) {
		t.Fatalf("AppendHeader = % x", hb)
	}
}

func TestRecordTimestampAndOffset(t *testing.T) {
	h := BatchHeader{BaseOffset: 100, BaseTimestamp: 1000, MaxTimestamp: 5000}
	r := Record{OffsetDelta: 7, TimestampDelta: -30}
	if r.Offset(&h) != 107 || r.Timestamp(&h) != 970 {
		t.Fatalf("offset %d timestamp %d", r.Offset(&h), r.Timestamp(&h))
	}
	h.Attributes = AttrLogAppendTime
	if r.Timestamp(&h) != 5000 {
		t.Fatalf("LOG_APPEND_TIME timestamp %d, want MaxTimestamp", r.Timestamp(&h))
	}
}

// TestRecordIteratorErrors feeds hand-made malformed records sections.
func TestRecordIteratorErrors(t *testing.T) {
	good := []byte{0x10, 0x00, 0x04, 0x02, 0x02, 'k', 0x02, 'v', 0x00}
	cases := []struct {
		name  string
		b     []byte
		count int32
	}{
		{"empty section, one record", nil, 1},
		{"count larger than the bytes", good, 2},
		{"bytes left after count records", append(append([]byte{}, good...), good...), 1},
		{"bytes left after zero records", good, 0},
		{"negative record length", []byte{0x01}, 1},
		{"record length past the end", []byte{0x20, 0x00}, 1},
		{"record length 0", []byte{0x00}, 1},
		{"key length -2", []byte{0x0c, 0x00, 0x00, 0x00, 0x03, 0x01, 0x00}, 1},
		{"value length -3", []byte{0x0c, 0x00, 0x00, 0x00, 0x01, 0x05, 0x00}, 1},
		{"key past the record", []byte{0x0c, 0x00, 0x00, 0x00, 0x10, 0x01, 0x00}, 1},
		{"negative header count", []byte{0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x01}, 1},
		{"header count past the record", []byte{0x0c, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02}, 1},
		{"negative header key length", []byte{0x10, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x01, 0x01}, 1},
		{"header value length -2", []byte{0x10, 0x00, 0x00, 0x00, 0x01, 0x01, 0x02, 0x00, 0x03}, 1},
		{"record length longer than its fields", []byte{0x0e, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00}, 1},
		{"record length shorter than its fields", []byte{0x0a, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00}, 1},
		{"bad varint in timestamp delta", []byte{0x0c, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff}, 1},
		{"huge count", good, math.MaxInt32},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			it := NewRecordIterator(c.b, c.count)
			var r Record
			var err error
			for i := 0; i < 10 && err == nil; i++ {
				var ok bool
				ok, err = it.Next(&r)
				if !ok && err == nil {
					t.Fatalf("no error after %d records", i)
				}
			}
			if !errors.Is(err, ErrMalformedRecord) {
				t.Fatalf("error %v, want ErrMalformedRecord", err)
			}
			t.Log(err)
			// The error sticks.
			if ok, err2 := it.Next(&r); ok || err2 != err {
				t.Fatalf("Next after an error = %v, %v", ok, err2)
			}
		})
	}
}

func TestHeaderIteratorErrors(t *testing.T) {
	for _, c := range []struct {
		name  string
		b     []byte
		count int32
	}{
		{"truncated", []byte{0x02, 'h'}, 1},
		{"trailing bytes", []byte{0x02, 'h', 0x01, 0x00}, 1},
		{"negative key length", []byte{0x01, 0x01}, 1},
	} {
		r := Record{HeaderCount: c.count, Headers: c.b}
		it := r.HeaderIter()
		var h Header
		var err error
		for i := 0; i < 5 && err == nil; i++ {
			_, err = it.Next(&h)
		}
		if !errors.Is(err, ErrMalformedRecord) {
			t.Errorf("%s: error %v, want ErrMalformedRecord", c.name, err)
		}
	}
}

func TestControl(t *testing.T) {
	// Kafka's ControlRecordType ids and names.
	names := []string{"ABORT", "COMMIT", "LEADER_CHANGE", "SNAPSHOT_HEADER", "SNAPSHOT_FOOTER", "KRAFT_VERSION", "KRAFT_VOTERS"}
	for id, name := range names {
		ct := ControlType(id)
		if ct.String() != name {
			t.Errorf("ControlType(%d) = %s, want %s", id, ct, name)
		}
		key := AppendControlKey(nil, ct)
		if !bytes.Equal(key, []byte{0, 0, 0, byte(id)}) {
			t.Errorf("AppendControlKey(%s) = % x", ct, key)
		}
		got, err := ParseControlKey(key)
		if err != nil || got != ct {
			t.Errorf("ParseControlKey(% x) = %v, %v", key, got, err)
		}
	}
	if _, err := ParseControlKey([]byte{0, 0, 1}); !errors.Is(err, ErrMalformedRecord) {
		t.Errorf("3-byte key: %v", err)
	}
	if _, err := ParseControlKey(nil); !errors.Is(err, ErrMalformedRecord) {
		t.Errorf("null key: %v", err)
	}
	// ABORT/COMMIT value: version 0 (int16) + coordinator epoch 0x01020304 (int32).
	v := AppendEndTxnMarkerValue(nil, 0x01020304)
	if !bytes.Equal(v, []byte{0, 0, 1, 2, 3, 4}) {
		t.Fatalf("AppendEndTxnMarkerValue = % x", v)
	}
	if e, err := ParseEndTxnMarkerValue(v); err != nil || e != 0x01020304 {
		t.Fatalf("ParseEndTxnMarkerValue = %d, %v", e, err)
	}
	if e, err := ParseEndTxnMarkerValue([]byte{0, 0, 0xff, 0xff, 0xff, 0xff}); err != nil || e != -1 {
		t.Fatalf("epoch -1: %d, %v", e, err)
	}
	if _, err := ParseEndTxnMarkerValue([]byte{0, 0, 1}); !errors.Is(err, ErrMalformedRecord) {
		t.Fatalf("short value: %v", err)
	}
}
