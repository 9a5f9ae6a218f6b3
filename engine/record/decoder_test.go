package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	xerial "github.com/eapache/go-xerial-snappy"
)

func buildTestBatch(t testing.TB, codec Codec, n, valueSize int) []byte {
	t.Helper()
	var b Builder
	b.Reset(BatchHeader{
		BaseOffset: 1000, PartitionLeaderEpoch: 3, Attributes: Attributes(codec),
		LastOffsetDelta: int32(max(n-1, 0)), BaseTimestamp: 1_700_000_000_000, MaxTimestamp: 1_700_000_000_000,
		ProducerID: NoProducerID, ProducerEpoch: NoProducerEpoch, BaseSequence: NoSequence,
	})
	for i := 0; i < n; i++ {
		b.Append(&Record{
			OffsetDelta: int32(i),
			Key:         fmt.Appendf(nil, "key-%08d", i),
			Value:       bytes.Repeat([]byte{byte('a' + i%26)}, valueSize),
		})
	}
	out, err := b.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// decodeAll decodes a whole batch and walks its records and headers.
func decodeAll(d *Decoder, batch []byte) (int, error) {
	_, it, err := d.Records(batch)
	if err != nil {
		return 0, err
	}
	var r Record
	var h Header
	n := 0
	for {
		ok, err := it.Next(&r)
		if err != nil || !ok {
			return n, err
		}
		n++
		hi := r.HeaderIter()
		for {
			ok, err := hi.Next(&h)
			if err != nil {
				return n, err
			}
			if !ok {
				break
			}
		}
	}
}

func TestDecoderBadBatches(t *testing.T) {
	good := buildTestBatch(t, CodecNone, 3, 10)
	patch := func(f func(b []byte), fixCRC bool) []byte {
		b := append([]byte{}, good...)
		f(b)
		if fixCRC {
			UpdateCRC(b)
		}
		return b
	}
	cases := []struct {
		name  string
		batch []byte
		want  error
	}{
		{"empty", nil, ErrShortHeader},
		{"short header", good[:40], ErrShortHeader},
		{"truncated batch", good[:len(good)-1], ErrTruncated},
		{"header only", good[:BatchHeaderSize], ErrTruncated},
		{"extra byte", append(append([]byte{}, good...), 0), ErrBadLength},
		{"magic 3", patch(func(b []byte) { b[MagicPos] = 3 }, false), ErrBadMagic},
		{"magic 1", patch(func(b []byte) { b[MagicPos] = 1 }, false), ErrLegacyMagic},
		{"length below a header", patch(func(b []byte) { binary.BigEndian.PutUint32(b[LengthPos:], 10) }, false), ErrBadLength},
		{"negative length", patch(func(b []byte) { binary.BigEndian.PutUint32(b[LengthPos:], 0xffffff00) }, false), ErrBadLength},
		{"negative record count", patch(func(b []byte) { binary.BigEndian.PutUint32(b[RecordCountPos:], 0xffffffff) }, true), ErrBadLength},
		{"record count larger than the bytes", patch(func(b []byte) { binary.BigEndian.PutUint32(b[RecordCountPos:], 1000) }, true), ErrMalformedRecord},
		{"record count smaller than the bytes", patch(func(b []byte) { binary.BigEndian.PutUint32(b[RecordCountPos:], 2) }, true), ErrMalformedRecord},
		{"unknown codec 5", patch(func(b []byte) { b[AttributesPos+1] |= 5 }, true), ErrCodec},
		{"gzip codec on plain records", patch(func(b []byte) { b[AttributesPos+1] |= byte(CodecGzip) }, true), ErrCodec},
		{"lz4 codec on plain records", patch(func(b []byte) { b[AttributesPos+1] |= byte(CodecLZ4) }, true), ErrCodec},
		{"zstd codec on plain records", patch(func(b []byte) { b[AttributesPos+1] |= byte(CodecZstd) }, true), ErrCodec},
	}
	var d Decoder
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeAll(&d, c.batch)
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			t.Log(err)
		})
	}

	// A flipped byte anywhere after the CRC field: VerifyCRC says so, and
	// decoding the records never panics.
	for i := AttributesPos; i < len(good); i++ {
		b := append([]byte{}, good...)
		b[i] ^= 0x10
		if err := VerifyCRC(b); !errors.Is(err, ErrCRCMismatch) {
			t.Fatalf("byte %d flipped: VerifyCRC = %v", i, err)
		}
		decodeAll(&d, b)
	}
	if err := VerifyCRC(good); err != nil {
		t.Fatal(err)
	}
}

// TestDecoderHostileSizes: compressed records that would decompress past
// MaxDecompressedBytes fail with ErrCodec, and the decoder does not allocate
// anywhere near what the batch asks for.
func TestDecoderHostileSizes(t *testing.T) {
	const limit = 1 << 20
	big := make([]byte, 32<<20) // 32 MiB of zeros compresses to little
	for _, c := range allCodecs[1:] {
		t.Run(c.String(), func(t *testing.T) {
			comp := compressIndependently(t, c, big)
			d := Decoder{MaxDecompressedBytes: limit}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			_, err := d.Decompress(c, comp)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrCodec) {
				t.Fatalf("error %v, want ErrCodec", err)
			}
			t.Log(err)
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 12<<20 {
				t.Fatalf("allocated %d bytes for a %d-byte limit", alloc, limit)
			}
			// Under the limit it decodes.
			small := compressIndependently(t, c, big[:limit])
			if out, err := d.Decompress(c, small); err != nil || len(out) != limit {
				t.Fatalf("at the limit: %d bytes, %v", len(out), err)
			}
		})
	}
	// A plain snappy block whose header claims 4 GiB - 1.
	var d Decoder
	hostile := []byte{0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, 0x00}
	if _, err := d.Decompress(CodecSnappy, hostile); !errors.Is(err, ErrCodec) {
		t.Fatalf("snappy 4 GiB claim: %v", err)
	}
	// The same block inside xerial framing, and a block length past the end.
	x := append(xerial.EncodeStream(nil, []byte("x"))[:16], 0, 0, 0, byte(len(hostile)))
	x = append(x, hostile...)
	if _, err := d.Decompress(CodecSnappy, x); !errors.Is(err, ErrCodec) {
		t.Fatalf("xerial 4 GiB claim: %v", err)
	}
	x = append(xerial.EncodeStream(nil, []byte("x"))[:16], 0x7f, 0xff, 0xff, 0xff, 0)
	if _, err := d.Decompress(CodecSnappy, x); !errors.Is(err, ErrCodec) {
		t.Fatalf("xerial block past the end: %v", err)
	}
	x = append(xerial.EncodeStream(nil, []byte("x")), 0, 0)
	if _, err := d.Decompress(CodecSnappy, x); !errors.Is(err, ErrCodec) {
		t.Fatalf("xerial trailing 2 bytes: %v", err)
	}
	// A whole batch with a hostile compressed section reports ErrCodec through Records.
	batch := buildTestBatch(t, CodecSnappy, 1, 1)
	batch = append(batch[:RecordsPos], hostile...)
	binary.BigEndian.PutUint32(batch[LengthPos:], uint32(len(batch)-LogOverhead))
	UpdateCRC(batch)
	if _, _, err := d.Records(batch); !errors.Is(err, ErrCodec) {
		t.Fatalf("batch: %v", err)
	}
}

// TestDecoderReuse decodes batches of every codec in turn with one Decoder.
func TestDecoderReuse(t *testing.T) {
	var d Decoder
	for round := 0; round < 3; round++ {
		for _, c := range allCodecs {
			for _, n := range []int{0, 1, 500} {
				batch := buildTestBatch(t, c, n, 100)
				got, err := decodeAll(&d, batch)
				if err != nil || got != n {
					t.Fatalf("%s n=%d: %d records, %v", c, n, got, err)
				}
			}
		}
	}
}

func TestIterateNoAlloc(t *testing.T) {
	batch := buildTestBatch(t, CodecNone, 100, 80)
	var d Decoder
	allocs := testing.AllocsPerRun(100, func() {
		if n, err := decodeAll(&d, batch); err != nil || n != 100 {
			t.Fatal(n, err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocs per batch, want 0", allocs)
	}
}

// BenchmarkIterate decodes a batch of records of about 100 bytes each
// (16-byte key, 80-byte value) and walks every record.
func BenchmarkIterate(b *testing.B) {
	for _, c := range allCodecs {
		for _, n := range []int{100, 1000} {
			b.Run(fmt.Sprintf("codec=%s/records=%d", c, n), func(b *testing.B) {
				batch := buildTestBatch(b, c, n, 80)
				var d Decoder
				decodeAll(&d, batch) // warm the buffers
				b.SetBytes(int64(len(batch)))
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if got, err := decodeAll(&d, batch); err != nil || got != n {
						b.Fatal(got, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/record")
			})
		}
	}
}

// BenchmarkBuild encodes a batch of ~100-byte records.
func BenchmarkBuild(b *testing.B) {
	for _, c := range allCodecs {
		b.Run(fmt.Sprintf("codec=%s/records=1000", c), func(b *testing.B) {
			var bl Builder
			recs := make([]Record, 1000)
			for i := range recs {
				recs[i] = Record{OffsetDelta: int32(i), Key: fmt.Appendf(nil, "key-%08d", i), Value: bytes.Repeat([]byte{'v'}, 80)}
			}
			var out []byte
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				bl.Reset(BatchHeader{Attributes: Attributes(c), LastOffsetDelta: 999})
				for j := range recs {
					bl.Append(&recs[j])
				}
				var err error
				if out, err = bl.Finish(out[:0]); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(bl.UncompressedSize()))
		})
	}
}

// FuzzDecoder's invariants: decoding never panics; never reads past the
// input (the input is passed with its capacity cut to its length, and every
// key, value and headers slice of an uncompressed batch lies inside it); and
// when a batch decodes, rebuilding it from its records and decoding again
// gives the same records.
func FuzzDecoder(f *testing.F) {
	for _, c := range allCodecs {
		f.Add(buildTestBatch(f, c, 3, 20), false)
	}
	rng := testBatches(9)
	for i := 0; i < len(rng); i += 17 {
		g := rng[i]
		b, err := BuildBatch(nil, g.h, g.recs)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, fixLength bool) {
		in := append([]byte{}, data...)
		if fixLength && len(in) >= BatchHeaderSize {
			// Help the fuzzer past the length check.
			binary.BigEndian.PutUint32(in[LengthPos:], uint32(len(in)-LogOverhead))
		}
		in = in[:len(in):len(in)]
		d := Decoder{MaxDecompressedBytes: 4 << 20}
		h, it, err := d.Records(in)
		if err != nil {
			return
		}
		var recs []Record
		var r Record
		for {
			ok, err := it.Next(&r)
			if err != nil {
				return
			}
			if !ok {
				break
			}
			if h.Attributes.Codec() == CodecNone {
				for _, s := range [][]byte{r.Key, r.Value, r.Headers} {
					if !inside(s, in) {
						t.Fatalf("a record slice lies outside the input")
					}
				}
			}
			hi := r.HeaderIter()
			var hd Header
			for {
				ok, err := hi.Next(&hd)
				if err != nil {
					t.Fatalf("headers passed the iterator's check but fail: %v", err)
				}
				if !ok {
					break
				}
			}
			recs = append(recs, cloneRecord(r))
		}
		var b Builder
		b.Reset(h)
		for i := range recs {
			b.Append(&recs[i])
		}
		out, err := b.Finish(nil)
		if err != nil {
			t.Fatal(err)
		}
		var d2 Decoder
		_, it2, err := d2.Records(out)
		if err != nil {
			t.Fatal(err)
		}
		compareRecords(t, &it2, recs)
	})
}

// inside reports whether s (when non-empty) lies within buf's memory.
func inside(s, buf []byte) bool {
	if len(s) == 0 {
		return true
	}
	if len(buf) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(s)))
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	return p >= lo && p+uintptr(len(s)) <= lo+uintptr(len(buf))
}

// TestHeaderOnlyBatch: a 61-byte batch with no records decodes to zero
// records, whatever its codec bits.
func TestHeaderOnlyBatch(t *testing.T) {
	var d Decoder
	for _, c := range allCodecs {
		var b Builder
		b.Reset(BatchHeader{BaseOffset: 5, LastOffsetDelta: 3, BaseTimestamp: NoTimestamp, ProducerID: 9, ProducerEpoch: 1, BaseSequence: 4})
		batch, err := b.Finish(nil)
		if err != nil || len(batch) != BatchHeaderSize {
			t.Fatalf("%d bytes, %v", len(batch), err)
		}
		batch[AttributesPos+1] |= byte(c)
		UpdateCRC(batch)
		h, it, err := d.Records(batch)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		if h.Length != BatchHeaderSize-LogOverhead || h.RecordCount != 0 || h.NextOffset() != 9 {
			t.Fatalf("%s: header %+v", c, h)
		}
		var r Record
		if ok, err := it.Next(&r); ok || err != nil {
			t.Fatalf("%s: Next = %v, %v", c, ok, err)
		}
	}
}
