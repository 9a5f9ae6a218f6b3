package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// legacyMsg hand-builds one magic 0/1 message from the format's definition
// (docs/kafka-rules.md §1, Kafka's LegacyRecord): offset, size, CRC-32 IEEE of
// the rest, magic, attributes, [timestamp], key and value with int32
// lengths (-1 = null).
func legacyMsg(offset int64, magic int8, attrs int8, ts int64, key, value []byte) []byte {
	var body []byte
	body = append(body, byte(magic), byte(attrs))
	if magic == 1 {
		body = binary.BigEndian.AppendUint64(body, uint64(ts))
	}
	for _, b := range [][]byte{key, value} {
		if b == nil {
			body = binary.BigEndian.AppendUint32(body, 0xffffffff)
		} else {
			body = binary.BigEndian.AppendUint32(body, uint32(len(b)))
			body = append(body, b...)
		}
	}
	msg := binary.BigEndian.AppendUint64(nil, uint64(offset))
	msg = binary.BigEndian.AppendUint32(msg, uint32(4+len(body)))
	msg = binary.BigEndian.AppendUint32(msg, crc32.ChecksumIEEE(body))
	return append(msg, body...)
}

func TestXXH32(t *testing.T) {
	// Published test vectors of XXH32.
	for _, v := range []struct {
		in   string
		seed uint32
		want uint32
	}{
		{"", 0, 0x02cc5d05},
		{"a", 0, 0x550d7456},
		{"abc", 0, 0x32d153ff},
		{"Nobody inspects the spammish repetition", 0, 0xe2293b2f},
	} {
		if got := xxh32([]byte(v.in), v.seed); got != v.want {
			t.Errorf("xxh32(%q, %d) = %#08x, want %#08x", v.in, v.seed, got, v.want)
		}
	}
}

func TestLegacyUncompressed(t *testing.T) {
	var d Decoder
	// magic 0: no timestamp; key "k", value "v" at offset 7.
	m0 := legacyMsg(7, 0, 0, 0, []byte("k"), []byte("v"))
	if len(m0) != 12+4+2+4+1+4+1 {
		t.Fatalf("magic 0 message is %d bytes", len(m0))
	}
	recs, err := d.LegacyRecords(m0, nil)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%v %v", recs, err)
	}
	if r := recs[0]; r.Offset != 7 || r.Magic != 0 || r.Timestamp != NoTimestamp || string(r.Key) != "k" || string(r.Value) != "v" || r.Size != len(m0) {
		t.Errorf("magic 0: %+v", r)
	}
	if err := VerifyLegacyCRC(m0); err != nil {
		t.Error(err)
	}
	// magic 1: a timestamp; null key; null value (a tombstone).
	m1 := legacyMsg(9, 1, 0, 1234, nil, nil)
	recs, err = d.LegacyRecords(m1, nil)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%v %v", recs, err)
	}
	if r := recs[0]; r.Offset != 9 || r.Timestamp != 1234 || r.Key != nil || r.Value != nil {
		t.Errorf("magic 1: %+v", r)
	}
	// An empty value is not null.
	recs, _ = d.LegacyRecords(legacyMsg(1, 1, 0, 5, []byte{}, []byte{}), nil)
	if recs[0].Key == nil || recs[0].Value == nil {
		t.Errorf("empty key/value read as null: %+v", recs[0])
	}
	m1[len(m1)-1] ^= 1
	if err := VerifyLegacyCRC(m1); !errors.Is(err, ErrCRCMismatch) {
		t.Errorf("flipped byte: %v", err)
	}
}

func compressLegacy(t *testing.T, c Codec, src []byte) []byte {
	t.Helper()
	if c == CodecLZ4 {
		var buf bytes.Buffer
		zw := lz4.NewWriter(&buf)
		zw.Write(src)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	return compressIndependently(t, c, src)
}

func TestLegacyCompressedWrappers(t *testing.T) {
	for _, c := range []Codec{CodecGzip, CodecSnappy, CodecLZ4} {
		for _, magic := range []int8{0, 1} {
			t.Run(c.String()+"/magic="+string(rune('0'+magic)), func(t *testing.T) {
				// Three inner messages. Magic 1: relative offsets 0..2 and the
				// wrapper at the last absolute offset (102), so they are
				// 100, 101, 102. Magic 0: absolute offsets 100..102.
				var inner []byte
				for i := int64(0); i < 3; i++ {
					off := i
					if magic == 0 {
						off = 100 + i
					}
					v := []byte{byte('a' + i)}
					if i == 1 {
						v = nil
					}
					inner = append(inner, legacyMsg(off, magic, 0, 50+i, []byte{byte('x' + i)}, v)...)
				}
				value := compressLegacy(t, c, inner)
				if c == CodecLZ4 && magic == 0 {
					// Kafka's magic 0 LZ4 header checksum covers the frame magic
					// too (KAFKA-3160): reproduce that broken byte.
					value[6] = byte(xxh32(value[:6], 0) >> 8)
				}
				w := legacyMsg(102, magic, int8(c), 60, nil, value)
				var d Decoder
				recs, err := d.LegacyRecords(w, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(recs) != 3 {
					t.Fatalf("%d records", len(recs))
				}
				for i, r := range recs {
					wantTs := int64(NoTimestamp)
					if magic == 1 {
						wantTs = 50 + int64(i)
					}
					if r.Offset != Offset(100+i) || string(r.Key) != string(rune('x'+i)) || r.Timestamp != wantTs {
						t.Errorf("record %d: %+v", i, r)
					}
					if (i == 1) != (r.Value == nil) {
						t.Errorf("record %d value %q", i, r.Value)
					}
				}
			})
		}
	}
}

func TestLegacyLogAppendTimeWrapper(t *testing.T) {
	inner := append(legacyMsg(0, 1, 0, 5, []byte("a"), []byte("1")), legacyMsg(1, 1, 0, 6, []byte("b"), []byte("2"))...)
	w := legacyMsg(41, 1, int8(CodecGzip)|legacyAttrTimestampType, 999, nil, compressLegacy(t, CodecGzip, inner))
	var d Decoder
	recs, err := d.LegacyRecords(w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Offset != 40 || recs[1].Offset != 41 || recs[0].Timestamp != 999 || recs[1].Timestamp != 999 {
		t.Errorf("%+v", recs)
	}
}

func TestLegacyBadInput(t *testing.T) {
	good := legacyMsg(0, 1, 0, 5, []byte("a"), []byte("1"))
	nested := legacyMsg(0, 1, int8(CodecGzip), 5, nil, compressLegacy(t, CodecGzip, good))
	badInner := append([]byte(nil), good...)
	badInner[len(badInner)-1] ^= 1
	descending := append(legacyMsg(5, 0, 0, 0, nil, []byte("1")), legacyMsg(4, 0, 0, 0, nil, []byte("2"))...)
	for _, v := range []struct {
		name string
		msg  []byte
		want error
	}{
		{"nested compression", legacyMsg(1, 1, int8(CodecGzip), 5, nil, compressLegacy(t, CodecGzip, nested)), ErrMalformedRecord},
		{"inner CRC", legacyMsg(0, 1, int8(CodecGzip), 5, nil, compressLegacy(t, CodecGzip, badInner)), ErrCRCMismatch},
		{"inner offsets descending", legacyMsg(4, 0, int8(CodecGzip), 0, nil, compressLegacy(t, CodecGzip, descending)), ErrMalformedRecord},
		{"not gzip", legacyMsg(0, 1, int8(CodecGzip), 5, nil, []byte("plain")), ErrCodec},
		{"codec 4 (zstd) in magic 1", legacyMsg(0, 1, 4, 5, nil, []byte("x")), ErrCodec},
		{"empty wrapper", legacyMsg(0, 1, int8(CodecGzip), 5, nil, compressLegacy(t, CodecGzip, nil)), ErrMalformedRecord},
		{"key length past the end", func() []byte {
			m := append([]byte(nil), good...)
			binary.BigEndian.PutUint32(m[26:], 1000)
			return m
		}(), ErrMalformedRecord},
		{"size field past the bytes", good[:len(good)-1], ErrTruncated},
		{"magic 2", func() []byte { m := append([]byte(nil), good...); m[16] = 2; return m }(), ErrBadMagic},
	} {
		var d Decoder
		if _, err := d.LegacyRecords(v.msg, nil); !errors.Is(err, v.want) {
			t.Errorf("%s: %v, want %v", v.name, err, v.want)
		}
	}
}

// FuzzLegacyRecords: never panics; never reads past the input (an
// uncompressed message's key and value lie inside it); every record decoded
// re-encodes (as an uncompressed message of the same magic) to a message
// that decodes to the same key, value and timestamp.
func FuzzLegacyRecords(f *testing.F) {
	f.Add(legacyMsg(7, 0, 0, 0, []byte("k"), []byte("v")))
	f.Add(legacyMsg(9, 1, 0, 1234, nil, nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := data[:len(data):len(data)]
		var d Decoder
		d.MaxDecompressedBytes = 1 << 20
		recs, err := d.LegacyRecords(in, nil)
		if err != nil {
			return
		}
		for _, r := range recs {
			if r.Codec() == CodecNone && len(recs) == 1 && r.Attributes&0x07 == 0 {
				for _, s := range [][]byte{r.Key, r.Value} {
					if !inside(s, in) {
						t.Fatal("a key or value lies outside the input")
					}
				}
			}
			msg := legacyMsg(int64(r.Offset), r.Magic, 0, r.Timestamp, r.Key, r.Value)
			again, err := d.LegacyRecords(msg, nil)
			if err != nil || len(again) != 1 {
				t.Fatalf("re-encoded record does not decode: %v", err)
			}
			a := again[0]
			if !bytes.Equal(a.Key, r.Key) || (a.Key == nil) != (r.Key == nil) || !bytes.Equal(a.Value, r.Value) || (a.Value == nil) != (r.Value == nil) || a.Offset != r.Offset {
				t.Fatalf("round trip: %+v, want %+v", a, r)
			}
			if r.Magic == 1 && a.Timestamp != r.Timestamp {
				t.Fatalf("round trip timestamp %d, want %d", a.Timestamp, r.Timestamp)
			}
		}
	})
}
