package record

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"math/rand/v2"
	"testing"

	xerial "github.com/eapache/go-xerial-snappy"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// These tests check our encoder and decoder against an independent one:
// franz-go's kmsg (RecordBatch and Record), the compression libraries called
// directly, the standard library's gzip, zigzag varint and CRC-32C.

var allCodecs = []Codec{CodecNone, CodecGzip, CodecSnappy, CodecLZ4, CodecZstd}

// genBatch is a random batch: its header and records, with each record's
// headers kept as a list to compare against.
type genBatch struct {
	h       BatchHeader
	recs    []Record
	headers [][]Header
}

func randBytes(rng *rand.Rand, maxLen int) []byte {
	switch rng.IntN(8) {
	case 0:
		return nil
	case 1:
		return []byte{}
	}
	b := make([]byte, rng.IntN(maxLen+1))
	// Half compressible text, half random bytes.
	if rng.IntN(2) == 0 {
		for i := range b {
			b[i] = "abcdefgh"[rng.IntN(8)]
		}
	} else {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

func randomBatch(rng *rand.Rand, codec Codec) genBatch {
	var g genBatch
	n := rng.IntN(40)
	maxValue := 64
	switch rng.IntN(10) {
	case 0:
		n = 0
	case 1:
		// Big enough for several 32 KiB xerial blocks and 64 KiB lz4 blocks.
		n, maxValue = 60+rng.IntN(40), 8<<10
	}
	attrs := Attributes(codec)
	if rng.IntN(4) == 0 {
		attrs |= AttrLogAppendTime
	}
	if rng.IntN(4) == 0 {
		attrs |= AttrTransactional
	}
	if rng.IntN(4) == 0 {
		attrs |= AttrDeleteHorizon
	}
	g.h = BatchHeader{
		BaseOffset:           Offset(rng.Int64N(1 << 40)),
		PartitionLeaderEpoch: NoPartitionLeaderEpoch,
		Attributes:           attrs,
		BaseTimestamp:        1_600_000_000_000 + rng.Int64N(1<<36),
		ProducerID:           NoProducerID,
		ProducerEpoch:        NoProducerEpoch,
		BaseSequence:         NoSequence,
	}
	if rng.IntN(2) == 0 {
		g.h.PartitionLeaderEpoch = rng.Int32N(1000)
	}
	if rng.IntN(2) == 0 {
		g.h.ProducerID = rng.Int64N(1 << 50)
		g.h.ProducerEpoch = int16(rng.IntN(math.MaxInt16))
		g.h.BaseSequence = rng.Int32N(1 << 30)
	}
	g.h.MaxTimestamp = g.h.BaseTimestamp
	offset := int32(0)
	for i := 0; i < n; i++ {
		var r Record
		r.OffsetDelta = offset
		offset += 1 + int32(rng.IntN(3)) // gaps, as after cleaning
		r.TimestampDelta = rng.Int64N(100_000)
		if attrs.HasDeleteHorizon() {
			r.TimestampDelta -= 50_000 // deltas from a horizon may be negative
		}
		r.Key = randBytes(rng, 24)
		r.Value = randBytes(rng, maxValue)
		var hs []Header
		for j := rng.IntN(4); j > 0; j-- {
			h := Header{Key: []byte(fmt.Sprintf("h%d", j)), Value: randBytes(rng, 16)}
			hs = append(hs, h)
			r.Headers = AppendHeader(r.Headers, h)
		}
		r.HeaderCount = int32(len(hs))
		g.recs = append(g.recs, r)
		g.headers = append(g.headers, hs)
		g.h.MaxTimestamp = max(g.h.MaxTimestamp, g.h.BaseTimestamp+r.TimestampDelta)
	}
	g.h.LastOffsetDelta = max(offset-1, 0) + int32(rng.IntN(2))
	return g
}

// controlBatch is a transaction marker batch as Kafka writes one.
func controlBatch(rng *rand.Rand, t ControlType) genBatch {
	epoch := rng.Int32N(100)
	r := Record{
		Key:   AppendControlKey(nil, t),
		Value: AppendEndTxnMarkerValue(nil, epoch),
	}
	return genBatch{
		h: BatchHeader{
			BaseOffset:           Offset(rng.Int64N(1 << 40)),
			PartitionLeaderEpoch: 7,
			Attributes:           AttrTransactional | AttrControl,
			BaseTimestamp:        1_700_000_000_000,
			MaxTimestamp:         1_700_000_000_000,
			ProducerID:           12345,
			ProducerEpoch:        3,
			BaseSequence:         NoSequence,
		},
		recs:    []Record{r},
		headers: [][]Header{nil},
	}
}

func testBatches(seed uint64) []genBatch {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var gs []genBatch
	for _, c := range allCodecs {
		for i := 0; i < 40; i++ {
			gs = append(gs, randomBatch(rng, c))
		}
	}
	gs = append(gs, controlBatch(rng, ControlAbort), controlBatch(rng, ControlCommit))
	return gs
}

// decompressIndependently decompresses a records section with each library
// called directly (standard library gzip, eapache's xerial decoder, pierrec
// lz4, klauspost zstd), not through Decoder.
func decompressIndependently(t *testing.T, c Codec, src []byte) []byte {
	t.Helper()
	var out []byte
	var err error
	switch c {
	case CodecNone:
		return src
	case CodecGzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(src)); err == nil {
			out, err = io.ReadAll(zr)
		}
	case CodecSnappy:
		out, err = xerial.Decode(src)
	case CodecLZ4:
		out, err = io.ReadAll(lz4.NewReader(bytes.NewReader(src)))
	case CodecZstd:
		var zd *zstd.Decoder
		if zd, err = zstd.NewReader(nil); err == nil {
			out, err = zd.DecodeAll(src, nil)
			zd.Close()
		}
	}
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	return out
}

func compressIndependently(t *testing.T, c Codec, src []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	switch c {
	case CodecNone:
		return src
	case CodecGzip:
		zw := gzip.NewWriter(&buf)
		zw.Write(src)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	case CodecSnappy:
		return xerial.EncodeStream(nil, src)
	case CodecLZ4:
		zw := lz4.NewWriter(&buf) // pierrec's defaults: 4 MiB blocks, content checksum
		zw.Write(src)
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	case CodecZstd:
		ze, err := zstd.NewWriter(nil)
		if err != nil {
			t.Fatal(err)
		}
		return ze.EncodeAll(src, nil)
	}
	return buf.Bytes()
}

var crc32c = crc32.MakeTable(crc32.Castagnoli)

// TestBuilderDecodedByKmsg encodes random batches with Builder and decodes
// them with kmsg and the compression libraries.
func TestBuilderDecodedByKmsg(t *testing.T) {
	var b Builder
	var out []byte
	for i, g := range testBatches(1) {
		b.Reset(g.h)
		for j := range g.recs {
			b.Append(&g.recs[j])
		}
		if b.Len() != len(g.recs) {
			t.Fatalf("batch %d: Len %d, want %d", i, b.Len(), len(g.recs))
		}
		var err error
		out, err = b.Finish(out[:0])
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		var kb kmsg.RecordBatch
		if err := kb.ReadFrom(out); err != nil {
			t.Fatalf("batch %d: kmsg: %v", i, err)
		}
		if int(kb.Length)+12 != len(out) {
			t.Fatalf("batch %d: kmsg length %d, batch is %d bytes", i, kb.Length, len(out))
		}
		if crc := crc32.Checksum(out[21:], crc32c); uint32(kb.CRC) != crc {
			t.Fatalf("batch %d: CRC field 0x%08x, CRC-32C of bytes 21.. is 0x%08x", i, uint32(kb.CRC), crc)
		}
		h := g.h
		if kb.FirstOffset != int64(h.BaseOffset) || kb.PartitionLeaderEpoch != h.PartitionLeaderEpoch ||
			kb.Magic != 2 || kb.Attributes != int16(h.Attributes) || kb.LastOffsetDelta != h.LastOffsetDelta ||
			kb.FirstTimestamp != h.BaseTimestamp || kb.MaxTimestamp != h.MaxTimestamp ||
			kb.ProducerID != h.ProducerID || kb.ProducerEpoch != h.ProducerEpoch ||
			kb.FirstSequence != h.BaseSequence || kb.NumRecords != int32(len(g.recs)) {
			t.Fatalf("batch %d: kmsg header %+v, built from %+v", i, kb, h)
		}
		raw := decompressIndependently(t, h.Attributes.Codec(), kb.Records)
		for j := range g.recs {
			// The record's length varint read by the standard library.
			l, n := binary.Varint(raw)
			if n <= 0 || l < 0 || int(l) > len(raw)-n {
				t.Fatalf("batch %d record %d: bad length varint", i, j)
			}
			var kr kmsg.Record
			if err := kr.ReadFrom(raw[:n+int(l)]); err != nil {
				t.Fatalf("batch %d record %d: kmsg: %v", i, j, err)
			}
			want := &g.recs[j]
			if kr.Attributes != want.Attributes || kr.TimestampDelta64 != want.TimestampDelta ||
				kr.OffsetDelta != want.OffsetDelta || !sameNullable(kr.Key, want.Key) || !sameNullable(kr.Value, want.Value) {
				t.Fatalf("batch %d record %d: kmsg read %+v, want %+v", i, j, kr, want)
			}
			if len(kr.Headers) != len(g.headers[j]) {
				t.Fatalf("batch %d record %d: %d headers, want %d", i, j, len(kr.Headers), len(g.headers[j]))
			}
			for k, hd := range kr.Headers {
				if hd.Key != string(g.headers[j][k].Key) || !sameNullable(hd.Value, g.headers[j][k].Value) {
					t.Fatalf("batch %d record %d header %d: %q=%q, want %q", i, j, k, hd.Key, hd.Value, g.headers[j][k].Key)
				}
			}
			raw = raw[n+int(l):]
		}
		if len(raw) != 0 {
			t.Fatalf("batch %d: %d bytes after the last record", i, len(raw))
		}
	}
}

// TestDecoderReadsKmsgBatches builds batches with kmsg (records with
// kmsg.Record.AppendTo, compression with the libraries directly, the CRC
// with the standard library) and decodes them with Decoder.
func TestDecoderReadsKmsgBatches(t *testing.T) {
	var d Decoder
	for i, g := range testBatches(2) {
		var raw []byte
		for j, r := range g.recs {
			kr := kmsg.Record{
				Attributes:       r.Attributes,
				TimestampDelta64: r.TimestampDelta,
				OffsetDelta:      r.OffsetDelta,
				Key:              r.Key,
				Value:            r.Value,
			}
			for _, h := range g.headers[j] {
				kr.Headers = append(kr.Headers, kmsg.Header{Key: string(h.Key), Value: h.Value})
			}
			// kmsg writes Length as given: measure the body first (a zero
			// Length takes one byte).
			kr.Length = int32(len(kr.AppendTo(nil)) - 1)
			raw = kr.AppendTo(raw)
		}
		h := g.h
		kb := kmsg.RecordBatch{
			FirstOffset:          int64(h.BaseOffset),
			PartitionLeaderEpoch: h.PartitionLeaderEpoch,
			Magic:                2,
			Attributes:           int16(h.Attributes),
			LastOffsetDelta:      h.LastOffsetDelta,
			FirstTimestamp:       h.BaseTimestamp,
			MaxTimestamp:         h.MaxTimestamp,
			ProducerID:           h.ProducerID,
			ProducerEpoch:        h.ProducerEpoch,
			FirstSequence:        h.BaseSequence,
			NumRecords:           int32(len(g.recs)),
			Records:              compressIndependently(t, h.Attributes.Codec(), raw),
		}
		kb.Length = int32(49 + len(kb.Records))
		batch := kb.AppendTo(nil)
		kb.CRC = int32(crc32.Checksum(batch[21:], crc32c))
		batch = kb.AppendTo(batch[:0])

		if err := VerifyCRC(batch); err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		got, it, err := d.Records(batch)
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		h.Magic, h.Length, h.CRC, h.RecordCount = 2, kb.Length, uint32(kb.CRC), kb.NumRecords
		if got != h {
			t.Fatalf("batch %d: header %+v, want %+v", i, got, h)
		}
		var r Record
		for j := 0; ; j++ {
			ok, err := it.Next(&r)
			if err != nil {
				t.Fatalf("batch %d record %d: %v", i, j, err)
			}
			if !ok {
				if j != len(g.recs) {
					t.Fatalf("batch %d: %d records, want %d", i, j, len(g.recs))
				}
				break
			}
			if err := sameRecord(&r, &g.recs[j]); err != nil {
				t.Fatalf("batch %d record %d: %v", i, j, err)
			}
			if r.Offset(&got) != got.BaseOffset+Offset(g.recs[j].OffsetDelta) {
				t.Fatalf("batch %d record %d: offset %d", i, j, r.Offset(&got))
			}
			wantTS := got.BaseTimestamp + g.recs[j].TimestampDelta
			if got.Attributes.LogAppendTime() {
				wantTS = got.MaxTimestamp
			}
			if r.Timestamp(&got) != wantTS {
				t.Fatalf("batch %d record %d: timestamp %d, want %d", i, j, r.Timestamp(&got), wantTS)
			}
			hi := r.HeaderIter()
			var hd Header
			for k := 0; ; k++ {
				ok, err := hi.Next(&hd)
				if err != nil {
					t.Fatalf("batch %d record %d header %d: %v", i, j, k, err)
				}
				if !ok {
					if k != len(g.headers[j]) {
						t.Fatalf("batch %d record %d: %d headers, want %d", i, j, k, len(g.headers[j]))
					}
					break
				}
				w := g.headers[j][k]
				if !bytes.Equal(hd.Key, w.Key) || !sameNullable(hd.Value, w.Value) {
					t.Fatalf("batch %d record %d header %d: %q=%q, want %q=%q", i, j, k, hd.Key, hd.Value, w.Key, w.Value)
				}
			}
			if got.Attributes.Control() {
				ct, err := ParseControlKey(r.Key)
				if err != nil || !ct.IsTxnMarker() {
					t.Fatalf("batch %d: control key %x: %v %v", i, r.Key, ct, err)
				}
				if _, err := ParseEndTxnMarkerValue(r.Value); err != nil {
					t.Fatalf("batch %d: %v", i, err)
				}
			}
		}
	}
}

// TestDecoderPlainSnappyBlock: like eapache's decoder (and Sarama), a snappy
// payload without the xerial header is read as one plain snappy block.
func TestDecoderPlainSnappyBlock(t *testing.T) {
	raw := AppendRecord(nil, &Record{Key: []byte("k"), Value: []byte("v")})
	var d Decoder
	out, err := d.Decompress(CodecSnappy, snappy.Encode(nil, raw))
	if err != nil || !bytes.Equal(out, raw) {
		t.Fatalf("got %x, %v; want %x", out, err, raw)
	}
}

// TestCompressedFraming checks the framing our Builder writes against what
// Kafka writes: the fixture batches' bytes and Kafka's source
// (KafkaLZ4BlockOutputStream: 64 KiB blocks, independent, no checksums;
// snappy-java's SnappyOutputStream: xerial header, version 1, compatible 1).
func TestCompressedFraming(t *testing.T) {
	var b Builder
	build := func(c Codec, size int) []byte {
		b.Reset(BatchHeader{Attributes: Attributes(c)})
		v := bytes.Repeat([]byte("x"), size)
		b.Append(&Record{Value: v})
		out, err := b.Finish(nil)
		if err != nil {
			t.Fatal(err)
		}
		return out[RecordsPos:]
	}
	// From ak28-snappy-headers/some-topic-0 (Kafka 2.8 client): 82 53 4e 41 50 50 59 00 00 00 00 01 00 00 00 01.
	xerialHdr := []byte{0x82, 0x53, 0x4e, 0x41, 0x50, 0x50, 0x59, 0x00, 0, 0, 0, 1, 0, 0, 0, 1}
	s := build(CodecSnappy, 100<<10)
	if !bytes.HasPrefix(s, xerialHdr) {
		t.Fatalf("snappy framing starts % x, want % x", s[:16], xerialHdr)
	}
	// 100 KiB of value plus the record's own bytes: 4 blocks of up to 32 KiB input.
	blocks := 0
	for p := 16; p < len(s); blocks++ {
		n := int(binary.BigEndian.Uint32(s[p:]))
		dl, err := snappy.DecodedLen(s[p+4 : p+4+n])
		if err != nil {
			t.Fatal(err)
		}
		if p += 4 + n; p < len(s) && dl != 32<<10 {
			t.Fatalf("block %d decodes to %d bytes, want 32768", blocks, dl)
		}
	}
	if blocks != 4 {
		t.Fatalf("%d xerial blocks, want 4", blocks)
	}
	// From cp5-connect-lz4/_confluent-command-0: 04 22 4d 18 60 40 82.
	lz4Hdr := []byte{0x04, 0x22, 0x4d, 0x18, 0x60, 0x40, 0x82}
	if l := build(CodecLZ4, 100); !bytes.HasPrefix(l, lz4Hdr) {
		t.Fatalf("lz4 frame starts % x, want % x", l[:7], lz4Hdr)
	}
	// gzip magic 1f 8b, deflate 08; zstd frame magic 28 b5 2f fd.
	if g := build(CodecGzip, 100); !bytes.HasPrefix(g, []byte{0x1f, 0x8b, 0x08}) {
		t.Fatalf("gzip starts % x", g[:3])
	}
	if z := build(CodecZstd, 100); !bytes.HasPrefix(z, []byte{0x28, 0xb5, 0x2f, 0xfd}) {
		t.Fatalf("zstd starts % x", z[:4])
	}
}
