package engine

import (
	"errors"
	"fmt"
	"io"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// batchIter walks the batches of one .log file through an iosched.Reader's
// reusable buffer: one pread per buffer, not per batch. A batch larger than
// the buffer grows it (up to the reader's max, Kafka's max.message.bytes) and
// a batch past even that is an error. Each batch returned aliases the buffer
// and is valid until the next call.
type batchIter struct {
	r      iosched.SegmentReader
	f      File
	pos    int64 // file position of the next batch
	limit  int64 // file size: bytes past it are never read
	buf    []byte
	bufPos int64 // file position of buf[0]
	// beforeRead, when set, is called before every read of the file; its
	// error stops the walk (the cleaner's CheckDone).
	beforeRead func() error
	// oversize, when set, is reused to hold a batch larger than the
	// reader's max buffer; otherwise such a batch gets its own slice.
	oversize *[]byte
}

func newBatchIter(r iosched.SegmentReader, f File, start, limit int64) batchIter {
	return batchIter{r: r, f: f, pos: start, limit: limit, bufPos: start}
}

// next returns the next whole batch (or legacy message) and its position.
// It returns io.EOF at the limit, and a *record.CorruptionError for a batch
// whose size field is bad or runs past the limit. TornTail is set for a torn
// tail: fewer bytes left than a batch header, a batch of a known magic
// running past the end with no whole valid batch after its start, or a
// zero-filled tail.
func (it *batchIter) next() ([]byte, FilePos, error) {
	if it.pos >= it.limit {
		return nil, FilePos(it.pos), io.EOF
	}
	off := int(it.pos - it.bufPos)
	if off < 0 || off+record.MinPeekSize > len(it.buf) {
		if err := it.fill(); err != nil {
			return nil, FilePos(it.pos), err
		}
		off = 0
	}
	if len(it.buf)-off < record.MinPeekSize {
		return nil, FilePos(it.pos), it.corrupt(true, fmt.Sprintf("%d bytes left, less than a batch header", it.limit-it.pos), record.ErrTruncated)
	}
	size, magic, err := record.PeekBatch(it.buf[off:])
	if err != nil {
		// A zero-filled tail (a file extended by a write whose data never
		// reached the disk) is torn; any other bad size field is corruption.
		return nil, FilePos(it.pos), it.corrupt(it.zeroToEnd(), "bad batch size", err)
	}
	if int64(size) > it.limit-it.pos {
		torn := (magic == record.MagicV2 || magic == 0 || magic == 1) && size <= it.r.MaxBufferBytes() && !it.wholeBatchAfter()
		return nil, FilePos(it.pos), it.corrupt(torn, fmt.Sprintf("batch of %d bytes but only %d bytes left in the file", size, it.limit-it.pos), record.ErrTruncated)
	}
	if off+size > len(it.buf) {
		if size > it.r.MaxBufferBytes() {
			return it.readOversize(size, magic)
		}
		if size > it.r.BufferBytes() {
			if err := it.r.Grow(size); err != nil {
				return nil, FilePos(it.pos), it.corrupt(false, fmt.Sprintf("batch of %d bytes", size), err)
			}
		}
		if err := it.fill(); err != nil {
			return nil, FilePos(it.pos), err
		}
		off = 0
		if size > len(it.buf) {
			return nil, FilePos(it.pos), it.corrupt(true, fmt.Sprintf("batch of %d bytes, read only %d", size, len(it.buf)), record.ErrTruncated)
		}
	}
	batch := it.buf[off : off+size]
	pos := FilePos(it.pos)
	it.pos += int64(size)
	return batch, pos, nil
}

// peek returns the next batch when it lies whole in the buffer already, so
// that no read is needed and the slice stays valid until the call of next
// that returns it; otherwise nil. It does not advance, and checks nothing
// but the size field (next does the rest).
func (it *batchIter) peek() []byte {
	off := int(it.pos - it.bufPos)
	if it.pos >= it.limit || off < 0 || off+record.MinPeekSize > len(it.buf) {
		return nil
	}
	size, _, err := record.PeekBatch(it.buf[off:])
	if err != nil || off+size > len(it.buf) || int64(size) > it.limit-it.pos {
		return nil
	}
	return it.buf[off : off+size]
}

// readOversize reads one batch larger than the reader's buffer may grow to
// (max.message.bytes was lowered after it was written, or a clean's
// recompression or delete horizon made it larger), as Kafka's
// growBuffersOrFail does once the buffer is at max.message.bytes: only
// after a sanity check of its header (a known magic, a size within the
// bytes left in the file, a v2 header that parses) is a buffer of exactly
// its size used.
func (it *batchIter) readOversize(size int, magic int8) ([]byte, FilePos, error) {
	pos := FilePos(it.pos)
	if magic != record.MagicV2 && magic != 0 && magic != 1 {
		return nil, pos, it.corrupt(false, fmt.Sprintf("batch of %d bytes with magic %d", size, magic), record.ErrBadMagic)
	}
	if it.beforeRead != nil {
		if err := it.beforeRead(); err != nil {
			return nil, pos, err
		}
	}
	var buf []byte
	if it.oversize != nil {
		if cap(*it.oversize) < size {
			*it.oversize = make([]byte, size)
		}
		buf = (*it.oversize)[:size]
	} else {
		buf = make([]byte, size)
	}
	if n, err := it.f.ReadAt(buf, it.pos); n < size {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, pos, fmt.Errorf("engine: read %s at byte %d: %w", it.f.Name(), it.pos, err)
	}
	if magic == record.MagicV2 {
		if _, err := record.ParseHeader(buf); err != nil {
			return nil, pos, it.corrupt(false, fmt.Sprintf("batch of %d bytes", size), err)
		}
	}
	it.buf, it.bufPos = nil, it.pos+int64(size)
	it.pos += int64(size)
	return buf, pos, nil
}

// each calls fn for every remaining batch, in file order, and returns nil at
// the limit, fn's first error, or the first read or framing error.
func (it *batchIter) each(fn func(batch []byte, pos FilePos) error) error {
	for {
		batch, pos, err := it.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(batch, pos); err != nil {
			return err
		}
	}
}

// skipTo moves the walk forward to pos, a batch boundary at or after the
// next batch: the next call to next reads from pos, or, when the buffer
// already holds the bytes at pos, takes them from it without reading again.
func (it *batchIter) skipTo(pos int64) {
	if pos > it.pos {
		it.pos = pos
	}
}

func (it *batchIter) fill() error {
	if it.beforeRead != nil {
		if err := it.beforeRead(); err != nil {
			return err
		}
	}
	b, err := it.r.Read(it.f, it.pos, it.limit)
	if err != nil {
		return fmt.Errorf("engine: read %s at byte %d: %w", it.f.Name(), it.pos, err)
	}
	it.buf = b
	it.bufPos = it.pos
	return nil
}

// zeroToEnd reports whether every byte from it.pos to the limit is zero.
func (it *batchIter) zeroToEnd() bool {
	var buf [4096]byte
	for pos := it.pos; pos < it.limit; {
		n := int(min(int64(len(buf)), it.limit-pos))
		if _, err := it.f.ReadAt(buf[:n], pos); err != nil {
			return false
		}
		for _, b := range buf[:n] {
			if b != 0 {
				return false
			}
		}
		pos += int64(n)
	}
	return true
}

// wholeBatchAfter reports whether a whole v2 batch with a valid CRC starts
// somewhere between it.pos and the limit. The bytes from a batch whose size
// field runs past the end of the file are a torn tail only when they are a
// prefix of one batch; a valid batch inside them means the size field itself
// is corrupt, in the middle of the file. Only bytes within max.message.bytes
// of the end are searched (a longer batch is an error anyway).
func (it *batchIter) wholeBatchAfter() bool {
	n := it.limit - it.pos
	if n > int64(it.r.MaxBufferBytes()) || n < 2*record.BatchHeaderSize {
		return false
	}
	rest := make([]byte, n)
	if _, err := it.f.ReadAt(rest, it.pos); err != nil && !errors.Is(err, io.EOF) {
		return false
	}
	// Hostile bytes could make every position look like a header: past a
	// budget of CRC work, give up and call it corruption (never cut what is
	// not surely torn).
	budget := 8 * n
	for o := 1; o+record.BatchHeaderSize <= len(rest); o++ {
		b := rest[o:]
		if b[record.MagicPos] != record.MagicV2 {
			continue
		}
		h, err := record.ParseHeader(b)
		if err != nil || h.Size() > len(b) {
			continue
		}
		if budget -= int64(h.Size()); budget < 0 {
			return true
		}
		if record.VerifyCRC(b[:h.Size()]) == nil {
			return true
		}
	}
	return false
}

func (it *batchIter) corrupt(torn bool, reason string, err error) error {
	// A size field that is itself garbage is only a torn tail if nothing valid follows;
	// we cannot know that, so only a batch running past the end counts as torn.
	if errors.Is(err, iosched.ErrBatchTooLarge) {
		torn = false
	}
	return &record.CorruptionError{Path: it.f.Name(), Pos: it.pos, Reason: reason, TornTail: torn, Err: err}
}
