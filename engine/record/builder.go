package record

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// Compression levels Kafka uses by default (compression.gzip.level,
// compression.lz4.level, compression.zstd.level), which the cleaner also
// uses when it recompresses a batch (MemoryRecords.filterTo builds the new
// batch with Compression.of(codec).build(): the default level, whatever the
// topic's). The Builder always compresses at these levels.
const (
	// GzipLevel is Kafka's default gzip level, Deflater.DEFAULT_COMPRESSION:
	// zlib's level 6, whose bytes the Builder writes (zlibdeflate.go).
	GzipLevel = -1
	// LZ4Level is Kafka's default lz4 level. At this level Kafka's
	// Lz4BlockOutputStream does not use lz4's HC compressor but lz4-java's
	// fast one (LZ4_compress_default), whose bytes the Builder writes
	// (lz4fast.go); the HC compressor Kafka uses for other levels is not
	// implemented.
	LZ4Level  = 9
	ZstdLevel = 3 // zstd level 3 (klauspost's SpeedDefault)
)

// Builder encodes one v2 batch at a time. Reset starts a batch, Append adds
// records, Finish appends the finished batch to a buffer. The zero value is
// ready to use; a Builder keeps its buffers and compressors across batches.
// It is not safe for concurrent use.
type Builder struct {
	h       BatchHeader
	records []byte // encoded, uncompressed records
	n       int32  // records appended

	gz *zlibDeflater
	lz *lz4FastCompressor
	sn *snappyCompressor
	zs *zstd.Encoder
}

// Reset starts a new batch with header h, taken as given (BaseOffset,
// PartitionLeaderEpoch, Attributes including the codec, LastOffsetDelta,
// BaseTimestamp, MaxTimestamp, ProducerID, ProducerEpoch, BaseSequence);
// Magic is forced to 2, and Length, CRC and RecordCount are computed by Finish.
func (b *Builder) Reset(h BatchHeader) {
	h.Magic = MagicV2
	b.h = h
	b.records = b.records[:0]
	b.n = 0
}

// Header returns the header the batch will be written with (Length, CRC and
// RecordCount are filled by Finish).
func (b *Builder) Header() BatchHeader { return b.h }

// Append encodes r (see AppendRecord) at the end of the batch's records.
func (b *Builder) Append(r *Record) {
	b.records = AppendRecord(b.records, r)
	b.n++
}

// AppendRaw appends records already encoded (length varint first), count of
// them, as a RecordIterator reads them; the bytes are not checked.
func (b *Builder) AppendRaw(encoded []byte, count int32) {
	b.records = append(b.records, encoded...)
	b.n += count
}

// AppendRetimed appends one record already encoded (length varint first,
// as a RecordIterator read it: a span [Pos, Pos) of its Section) with its
// timestamp delta set to delta (ms). When delta is the record's own the
// bytes go as they are; otherwise only the length varint and the
// timestamp delta are re-encoded and the rest (attributes, offset delta,
// key, value, headers) is copied, so the result is the bytes AppendRecord
// writes for the decoded record with that delta. Errors wrap
// ErrMalformedRecord when rec does not start with a length, an attributes
// byte and a timestamp delta within its bytes; nothing is appended then.
func (b *Builder) AppendRetimed(rec []byte, delta int64) error {
	records, err := AppendRetimed(b.records, rec, delta)
	if err != nil {
		return err
	}
	b.records = records
	b.n++
	return nil
}

// MaxRetimedGrowth is the most bytes AppendRetimed adds to a record: its
// length varint and its timestamp delta re-encoded, from one byte each to
// MaxVarintLen and MaxVarlongLen.
const MaxRetimedGrowth = MaxVarintLen - 1 + MaxVarlongLen - 1

// AppendRetimed is Builder.AppendRetimed appending to dst: it returns dst
// with rec appended, its timestamp delta set to delta, or dst unchanged
// and the error.
func AppendRetimed(dst, rec []byte, delta int64) ([]byte, error) {
	bodyLen, n, err := readVarint(rec)
	if err != nil || bodyLen < 1 || int(bodyLen) != len(rec)-n {
		return dst, fmt.Errorf("%w: re-timing a record of %d bytes: bad length", ErrMalformedRecord, len(rec))
	}
	old, m, err := readVarlong(rec[n+1:])
	if err != nil {
		return dst, fmt.Errorf("%w: re-timing a record of %d bytes: timestamp delta: %v", ErrMalformedRecord, len(rec), err)
	}
	if old == delta {
		return append(dst, rec...), nil
	}
	rest := rec[n+1+m:]
	dst = AppendVarint(dst, int32(1+SizeofVarlong(delta)+len(rest)))
	dst = append(dst, rec[n])
	dst = AppendVarlong(dst, delta)
	return append(dst, rest...), nil
}

// Len returns the number of records appended since Reset.
func (b *Builder) Len() int { return int(b.n) }

// UncompressedSize returns the bytes the batch would take with codec none:
// BatchHeaderSize plus the encoded records.
func (b *Builder) UncompressedSize() int { return BatchHeaderSize + len(b.records) }

// Finish appends the whole batch to dst and returns the extended slice: the
// header with Length and RecordCount computed, the records compressed with
// the codec of the header's attributes at Kafka's default level (snappy in
// xerial framing), and the CRC-32C. The Builder keeps its records; call Reset
// before the next batch. Errors wrap ErrCodec (an unknown codec or a
// compressor failure) or ErrBadLength (a batch over 2 GiB).
func (b *Builder) Finish(dst []byte) ([]byte, error) {
	start := len(dst)
	dst = append(dst, zeroHeader[:]...)
	var err error
	switch c := b.h.Attributes.Codec(); c {
	case CodecNone:
		dst = append(dst, b.records...)
	case CodecGzip:
		dst = b.gzip(dst)
	case CodecSnappy:
		dst = b.snappy(dst)
	case CodecLZ4:
		dst = b.lz4(dst)
	case CodecZstd:
		dst, err = b.zstd(dst)
	default:
		err = fmt.Errorf("%w: unknown codec id %d", ErrCodec, int8(c))
	}
	if err != nil {
		return dst[:start], err
	}
	if err := finishHeader(dst[start:], b.h, b.n); err != nil {
		return dst[:start], err
	}
	return dst, nil
}

// FinishUncompressed completes an uncompressed batch built in place:
// batch is BatchHeaderSize bytes of room, then count encoded records
// (appended with AppendRetimed, say). It writes there the header h (its
// codec none), with Magic 2, Length, RecordCount and the CRC-32C computed:
// the bytes Builder.Finish writes for the same header and records. Errors
// wrap ErrCodec (h's codec is not none) or ErrBadLength (batch shorter
// than a header, or over 2 GiB).
func FinishUncompressed(batch []byte, h BatchHeader, count int32) error {
	if c := h.Attributes.Codec(); c != CodecNone {
		return fmt.Errorf("%w: batch built in place with codec %s", ErrCodec, c)
	}
	if len(batch) < BatchHeaderSize {
		return fmt.Errorf("%w: batch of %d bytes is shorter than its header", ErrBadLength, len(batch))
	}
	h.Magic = MagicV2
	return finishHeader(batch, h, count)
}

// finishHeader writes header h of a whole batch (header room, then its
// records section) with Length, RecordCount n and the CRC computed.
func finishHeader(batch []byte, h BatchHeader, n int32) error {
	size := len(batch)
	if size-LogOverhead > math.MaxInt32 {
		return fmt.Errorf("%w: batch of %d bytes exceeds the int32 length field", ErrBadLength, size)
	}
	h.Length = int32(size - LogOverhead)
	h.RecordCount = n
	h.CRC = 0
	PutHeader(batch, &h)
	UpdateCRC(batch)
	return nil
}

var zeroHeader [BatchHeaderSize]byte

// gzip appends the records as Kafka's GzipCompression writes them: byte
// for byte the same (appendGzip).
func (b *Builder) gzip(dst []byte) []byte {
	if b.gz == nil {
		b.gz = new(zlibDeflater)
	}
	return b.gz.appendGzip(dst, b.records)
}

// lz4 appends the records as Kafka's Lz4BlockOutputStream frames them for a
// magic 2 batch at the default level: byte for byte the same (lz4fast.go).
func (b *Builder) lz4(dst []byte) []byte {
	if b.lz == nil {
		b.lz = new(lz4FastCompressor)
	}
	return b.lz.appendLZ4Frame(dst, b.records, false)
}

func (b *Builder) zstd(dst []byte) ([]byte, error) {
	if b.zs == nil {
		zs, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(ZstdLevel)),
			zstd.WithEncoderConcurrency(1),
			zstd.WithEncoderCRC(false), // libzstd's default, as Kafka's zstd-jni stream writes
			zstd.WithZeroFrames(true),  // an empty input is still one valid frame
		)
		if err != nil {
			return dst, fmt.Errorf("%w: zstd: %w", ErrCodec, err)
		}
		b.zs = zs
	}
	return b.zs.EncodeAll(b.records, dst), nil
}

// snappy appends the records as Kafka's SnappyCompression writes them for a
// magic 2 batch: byte for byte the same (snappyblock.go).
func (b *Builder) snappy(dst []byte) []byte {
	if b.sn == nil {
		b.sn = new(snappyCompressor)
	}
	return b.sn.appendXerial(dst, b.records)
}

// appendXerial appends src compressed as snappy-java's SnappyOutputStream
// (at its default block size, as Kafka's SnappyCompression opens it) writes
// it: the 16-byte xerial header, then for each 32 KiB of input (the last
// piece shorter; none for an empty input) an int32 BE compressed length and
// the snappy block libsnappy writes for that piece.
func (c *snappyCompressor) appendXerial(dst, src []byte) []byte {
	dst = append(dst, xerialMagic[:]...)
	dst = binary.BigEndian.AppendUint32(dst, 1) // version
	dst = binary.BigEndian.AppendUint32(dst, 1) // minimum compatible version
	for len(src) > 0 {
		chunk := src[:min(len(src), xerialBlockSize)]
		src = src[len(chunk):]
		lenPos := len(dst)
		dst = append(dst, 0, 0, 0, 0)
		dst = slices.Grow(dst, snappyMaxEncodedLen(len(chunk)))
		dst = c.appendBlock(dst, chunk)
		binary.BigEndian.PutUint32(dst[lenPos:], uint32(len(dst)-lenPos-4))
	}
	return dst
}

// BuildBatch is a convenience for tests and workload generators: it encodes
// records into one batch with header h (taken as Builder.Reset takes it) and
// appends it to dst. Errors are those of Builder.Finish.
func BuildBatch(dst []byte, h BatchHeader, records []Record) ([]byte, error) {
	var b Builder
	b.Reset(h)
	for i := range records {
		b.Append(&records[i])
	}
	return b.Finish(dst)
}
