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
	r      *iosched.Reader
	f      File
	pos    int64 // file position of the next batch
	limit  int64 // file size: bytes past it are never read
	buf    []byte
	bufPos int64 // file position of buf[0]
}

func newBatchIter(r *iosched.Reader, f File, start, limit int64) batchIter {
	return batchIter{r: r, f: f, pos: start, limit: limit, bufPos: start}
}

// next returns the next whole batch (or legacy message) and its position.
// It returns io.EOF at the limit, and a *record.CorruptionError for a batch
// whose size field is bad or runs past the limit (TornTail set when it is
// the last thing in the file).
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
	size, _, err := record.PeekBatch(it.buf[off:])
	if err != nil {
		return nil, FilePos(it.pos), it.corrupt(false, "bad batch size", err)
	}
	if int64(size) > it.limit-it.pos {
		return nil, FilePos(it.pos), it.corrupt(true, fmt.Sprintf("batch of %d bytes but only %d bytes left in the file", size, it.limit-it.pos), record.ErrTruncated)
	}
	if off+size > len(it.buf) {
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

func (it *batchIter) fill() error {
	b, err := it.r.Read(it.f, it.pos, it.limit)
	if err != nil {
		return fmt.Errorf("engine: read %s at byte %d: %w", it.f.Name(), it.pos, err)
	}
	it.buf = b
	it.bufPos = it.pos
	return nil
}

func (it *batchIter) corrupt(torn bool, reason string, err error) error {
	// A size field that is itself garbage is only a torn tail if nothing valid follows;
	// we cannot know that, so only a batch running past the end counts as torn.
	if errors.Is(err, iosched.ErrBatchTooLarge) {
		torn = false
	}
	return &record.CorruptionError{Path: it.f.Name(), Pos: it.pos, Reason: reason, TornTail: torn, Err: err}
}
