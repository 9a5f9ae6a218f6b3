package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/golang/snappy"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// DefaultMaxDecompressedBytes is the Decoder's limit on one batch's
// decompressed records section when MaxDecompressedBytes is 0: 64 MiB.
const DefaultMaxDecompressedBytes = 64 << 20

// Decoder decodes whole v2 batches, decompressing their records into a
// buffer it reuses. The zero value is ready to use. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	// MaxDecompressedBytes bounds the decompressed records section of one
	// batch, in bytes; a batch that would decompress to more fails with
	// ErrCodec rather than allocate. 0 means DefaultMaxDecompressedBytes.
	MaxDecompressedBytes int

	buf []byte // decompressed records of the last batch

	src     bytes.Reader
	gz      gzip.Reader
	lz      *lz4.Reader
	zs      *zstd.Decoder
	zsLimit int // the limit zs was made with
}

func (d *Decoder) limit() int {
	if d.MaxDecompressedBytes > 0 {
		return d.MaxDecompressedBytes
	}
	return DefaultMaxDecompressedBytes
}

// Records decodes one whole v2 batch: batch must be exactly one batch
// (len(batch) == the header's Size()). It returns the header and an iterator
// over the header's RecordCount records. For a compressed batch the records
// are decompressed into the Decoder's buffer, so the iterator and the
// records it yields are valid only until the next call on d.
//
// Records does not check the CRC (see VerifyCRC). Errors: those of
// ParseHeader; ErrTruncated when batch is shorter than the header's Size();
// ErrBadLength when it is longer; ErrCodec for an unknown codec, corrupt
// compressed data, or records decompressing past MaxDecompressedBytes.
// Malformed records are reported by the iterator.
func (d *Decoder) Records(batch []byte) (BatchHeader, RecordIterator, error) {
	h, err := ParseHeader(batch)
	if err != nil {
		return h, RecordIterator{}, err
	}
	if size := h.Size(); len(batch) != size {
		if len(batch) < size {
			return h, RecordIterator{}, fmt.Errorf("%w: batch at offset %d is %d bytes, have %d", ErrTruncated, h.BaseOffset, size, len(batch))
		}
		return h, RecordIterator{}, fmt.Errorf("%w: batch at offset %d is %d bytes but %d were given", ErrBadLength, h.BaseOffset, size, len(batch))
	}
	records := batch[RecordsPos:]
	// A header-only batch (as cleaning leaves when it must keep an empty
	// batch) has nothing to decompress whatever its codec bits say.
	if c := h.Attributes.Codec(); c != CodecNone && (len(records) > 0 || h.RecordCount > 0) {
		records, err = d.Decompress(c, records)
		if err != nil {
			return h, RecordIterator{}, fmt.Errorf("batch at offset %d: %w", h.BaseOffset, err)
		}
	}
	return h, NewRecordIterator(records, h.RecordCount), nil
}

// Decompress decompresses src, the records section of a batch compressed
// with codec c, into the Decoder's buffer and returns it (valid until the
// next call on d). CodecNone returns src itself. Errors wrap ErrCodec: an
// unknown codec, corrupt data, or output past MaxDecompressedBytes.
func (d *Decoder) Decompress(c Codec, src []byte) ([]byte, error) {
	var err error
	switch c {
	case CodecNone:
		return src, nil
	case CodecGzip:
		err = d.gunzip(src)
	case CodecSnappy:
		err = d.unsnappy(src)
	case CodecLZ4:
		err = d.unlz4(src)
	case CodecZstd:
		err = d.unzstd(src)
	default:
		return nil, fmt.Errorf("%w: unknown codec id %d", ErrCodec, int8(c))
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCodec, c, err)
	}
	return d.buf, nil
}

var errTooBig = errors.New("decompressed records exceed the decoder's limit")

func (d *Decoder) tooBig() error {
	return fmt.Errorf("%w of %d bytes", errTooBig, d.limit())
}

// readAll reads r to its end into d.buf, growing d.buf at most to limit+1
// bytes so that going past the limit is detected without reading further.
func (d *Decoder) readAll(r io.Reader) error {
	limit := d.limit()
	buf := d.buf[:0]
	zeroReads := 0
	for {
		if len(buf) == cap(buf) {
			if len(buf) > limit {
				d.buf = buf[:0]
				return d.tooBig()
			}
			newCap := max(2*cap(buf), 64<<10)
			newCap = min(newCap, limit+1)
			nb := make([]byte, len(buf), newCap)
			copy(nb, buf)
			buf = nb
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if len(buf) > limit {
			d.buf = buf[:0]
			return d.tooBig()
		}
		if err == io.EOF {
			d.buf = buf
			return nil
		}
		if err != nil {
			d.buf = buf[:0]
			return err
		}
		if n == 0 {
			if zeroReads++; zeroReads > 100 {
				d.buf = buf[:0]
				return io.ErrNoProgress
			}
		} else {
			zeroReads = 0
		}
	}
}

func (d *Decoder) gunzip(src []byte) error {
	d.src.Reset(src)
	if err := d.gz.Reset(&d.src); err != nil {
		return err
	}
	return d.readAll(&d.gz)
}

func (d *Decoder) unlz4(src []byte) error {
	d.src.Reset(src)
	if d.lz == nil {
		d.lz = lz4.NewReader(&d.src)
	} else {
		d.lz.Reset(&d.src)
	}
	return d.readAll(d.lz)
}

func (d *Decoder) unzstd(src []byte) error {
	limit := d.limit()
	if d.zs == nil || d.zsLimit != limit {
		if d.zs != nil {
			d.zs.Close()
		}
		zs, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(limit)),
		)
		if err != nil {
			return err
		}
		d.zs, d.zsLimit = zs, limit
	}
	out, err := d.zs.DecodeAll(src, d.buf[:0])
	if err != nil {
		if errors.Is(err, zstd.ErrDecoderSizeExceeded) || errors.Is(err, zstd.ErrWindowSizeExceeded) {
			return d.tooBig()
		}
		return err
	}
	if len(out) > limit {
		return d.tooBig()
	}
	d.buf = out
	return nil
}

// xerialMagic starts a snappy stream in xerial framing, as snappy-java's
// SnappyOutputStream writes it (and Kafka uses it): 0x82 "SNAPPY" 0x00, then
// int32 version 1 and int32 minimum compatible version 1, big-endian.
var xerialMagic = [8]byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

const (
	xerialHeaderSize = 16       // magic + version + compatible version
	xerialBlockSize  = 32 << 10 // snappy-java's default block: 32 KiB of input
)

// unsnappy decodes a xerial-framed snappy stream (header, then blocks of
// int32 BE compressed length + snappy block), or, when src does not start
// with the xerial magic, one plain snappy block. Each block's decoded length
// is checked against the limit before anything is allocated.
func (d *Decoder) unsnappy(src []byte) error {
	if len(src) < len(xerialMagic) || !bytes.Equal(src[:len(xerialMagic)], xerialMagic[:]) {
		d.buf = d.buf[:0]
		return d.appendSnappyBlock(src)
	}
	if len(src) < xerialHeaderSize {
		return fmt.Errorf("xerial header is %d bytes, want %d", len(src), xerialHeaderSize)
	}
	d.buf = d.buf[:0]
	for pos := xerialHeaderSize; pos < len(src); {
		if len(src)-pos < 4 {
			return fmt.Errorf("xerial block length at byte %d truncated", pos)
		}
		n := int(binary.BigEndian.Uint32(src[pos:]))
		pos += 4
		if n < 0 || n > len(src)-pos {
			return fmt.Errorf("xerial block of %d bytes at byte %d runs past the %d bytes", n, pos-4, len(src))
		}
		if err := d.appendSnappyBlock(src[pos : pos+n]); err != nil {
			return fmt.Errorf("xerial block at byte %d: %w", pos-4, err)
		}
		pos += n
	}
	return nil
}

// appendSnappyBlock decodes one snappy block and appends it to d.buf.
func (d *Decoder) appendSnappyBlock(block []byte) error {
	n, err := snappy.DecodedLen(block)
	if err != nil {
		return err
	}
	limit := d.limit()
	if n > limit-len(d.buf) {
		d.buf = d.buf[:0]
		return d.tooBig()
	}
	start := len(d.buf)
	if cap(d.buf)-start < n {
		nb := make([]byte, start, min(max(start+n, 2*cap(d.buf)), limit))
		copy(nb, d.buf)
		d.buf = nb
	}
	out, err := snappy.Decode(d.buf[start:start+n], block)
	if err != nil {
		d.buf = d.buf[:0]
		return err
	}
	if len(out) != n {
		d.buf = d.buf[:0]
		return fmt.Errorf("snappy block decoded to %d bytes, header said %d", len(out), n)
	}
	d.buf = d.buf[:start+n]
	return nil
}
