package iosched

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Default sizes, as Kafka's defaults.
const (
	// DefaultReadBufferBytes is log.cleaner.io.buffer.size (524288) / threads (1) / 2:
	// the per-thread read buffer of Kafka's cleaner.
	DefaultReadBufferBytes = 256 << 10
	// DefaultMaxBufferBytes is max.message.bytes (1048588): the largest batch the
	// cleaner's buffers may grow to hold.
	DefaultMaxBufferBytes = 1048588
)

// ReadStats counts what a SegmentReader did since it was made.
type ReadStats struct {
	Bytes int64 // bytes returned by Read calls, re-reads after a Grow included
	// Reads counts pread calls (pread and direct paths; retries of short
	// reads included) or Read calls (mmap path, where a read is a slice of
	// the mapping and the bytes come in by page faults).
	Reads int64
	// Time is the wall time inside pread calls, or for mmap inside mmap,
	// madvise and munmap (not page faults: see the phase counters' major
	// faults and I/O wait).
	Time time.Duration
	// Maps counts files mapped (mmap path).
	Maps int64
	// Advice counts fadvise and madvise calls; AdviceErrors those that
	// failed (advice is best effort: reading goes on).
	Advice       int64
	AdviceErrors int64
	// ReadaheadSteps counts the moves of the read-ahead's target
	// (ReaderOptions.ReadaheadBytes: each asks its helper to read up to
	// that many bytes past the read position); ReadaheadErrors the steps
	// that could not start a helper (the file's second descriptor would not
	// open). ReadaheadBytes counts the bytes the helpers went through so
	// far, ReadaheadCachedBytes those of them found in the page cache and
	// so not read: the helpers run on after Read returns, and after Restore
	// until their current chunk ends.
	ReadaheadSteps       int64
	ReadaheadErrors      int64
	ReadaheadBytes       int64
	ReadaheadCachedBytes int64
	// DroppedBytes counts bytes handed to fadvise DONTNEED by the
	// cache-friendly mode (SetDropBehind).
	DroppedBytes int64
	// Fallbacks counts files the direct path read with buffered pread
	// because O_DIRECT was refused (ReaderOptions.DirectFallback);
	// FallbackReason says why, for the first of them, and
	// LastFallbackReason for the latest (a caller counting one span of
	// reads, such as a clean, takes that span's with the latest).
	Fallbacks          int64
	FallbackReason     string
	LastFallbackReason string
}

// Add returns the counts of s and o summed, field by field (two readers
// reading for one phase); the reasons are s's, or o's where s has none.
func (s ReadStats) Add(o ReadStats) ReadStats {
	s.Bytes += o.Bytes
	s.Reads += o.Reads
	s.Time += o.Time
	s.Maps += o.Maps
	s.Advice += o.Advice
	s.AdviceErrors += o.AdviceErrors
	s.ReadaheadSteps += o.ReadaheadSteps
	s.ReadaheadErrors += o.ReadaheadErrors
	s.ReadaheadBytes += o.ReadaheadBytes
	s.ReadaheadCachedBytes += o.ReadaheadCachedBytes
	s.DroppedBytes += o.DroppedBytes
	s.Fallbacks += o.Fallbacks
	if s.FallbackReason == "" {
		s.FallbackReason = o.FallbackReason
	}
	if s.LastFallbackReason == "" {
		s.LastFallbackReason = o.LastFallbackReason
	}
	return s
}

// Reader is the pread SegmentReader: it reads a segment file sequentially by
// pread into one reusable buffer, as Kafka's cleaner reads with its read
// buffer. The buffer is allocated once, at bufferBytes, in NewReader, and
// Read never allocates (but with a read-ahead distance, which
// NewSegmentReader sets: its first step allocates the helper's 1 MiB
// scratch buffer, once, and each file's helper a goroutine and two
// channels). Grow allocates only when it goes past the largest
// size reached so far (at most log2(max/initial) times in a Reader's life,
// and never for batches that fit the initial buffer); Restore keeps the
// larger array and only shrinks what a Read fills. So a Reader costs
// bufferBytes until a batch needs more, not maxBufferBytes up front, which
// matters when there is one Reader per open log. A Reader is not safe for
// concurrent use: one per thread.
type Reader struct {
	backing []byte // len == the largest size reached; allocated by NewReader and growing Grow calls only
	window
	hint  ReadaheadHint
	adv   advice
	stats ReadStats
}

// NewReader returns a pread Reader whose buffer holds bufferBytes (Kafka:
// log.cleaner.io.buffer.size / log.cleaner.threads / 2; 256 KiB by default)
// and may grow up to maxBufferBytes (Kafka: max.message.bytes; 1048588 by
// default). A maxBufferBytes below bufferBytes is raised to it, and a
// bufferBytes < 1 becomes DefaultReadBufferBytes. It gives no readahead
// advice; NewSegmentReader makes one that does.
func NewReader(bufferBytes, maxBufferBytes int) *Reader {
	w := newWindow(bufferBytes, maxBufferBytes)
	return &Reader{backing: make([]byte, w.size), window: w, hint: HintNone}
}

// Read fills the buffer with up to BufferBytes() bytes of f starting at byte pos,
// never reading at or past limit (the file size in bytes). It returns the bytes read,
// which alias the buffer and stay valid until the next Read or Grow. At or
// beyond limit it returns an empty slice and nil; a negative pos is an *IOError.
//
// Short reads are retried until the buffer or limit is reached. io.EOF (or a read
// making no progress) before limit is an *IOError wrapping io.ErrUnexpectedEOF (or
// ErrNoProgress) naming the file and the position reached; other read errors are
// returned as an *IOError wrapping them.
func (r *Reader) Read(f File, pos, limit int64) ([]byte, error) {
	if pos < 0 {
		return nil, &IOError{Op: "read", Path: f.Name(), Pos: pos, Err: errors.New("negative position")}
	}
	if pos >= limit {
		return r.backing[:0], nil
	}
	r.adv.begin(f, pos, limit, r.hint, &r.stats)
	want := int64(r.size)
	if rem := limit - pos; rem < want {
		want = rem
	}
	r.adv.readAhead(pos, pos+want, &r.stats)
	buf := r.backing[:want]
	if err := preadFull(f, buf, pos, limit, &r.stats); err != nil {
		return nil, err
	}
	r.adv.end(pos+want, r.hint, r.size, &r.stats)
	return buf, nil
}

// preadFull fills buf from f at pos with ReadAt, retrying short reads, and
// counts the calls in st. limit is only named in the error of an early EOF.
func preadFull(f File, buf []byte, pos, limit int64, st *ReadStats) error {
	filled := 0
	for filled < len(buf) {
		start := time.Now()
		n, err := f.ReadAt(buf[filled:], pos+int64(filled))
		st.Time += time.Since(start)
		st.Reads++
		st.Bytes += int64(n)
		filled += n
		if filled == len(buf) {
			break // a full read may come with io.EOF at the file's end: not an error
		}
		switch {
		case errors.Is(err, io.EOF):
			return &IOError{Op: "read", Path: f.Name(), Pos: pos + int64(filled),
				Err: fmt.Errorf("end of file before limit %d: %w", limit, io.ErrUnexpectedEOF)}
		case err != nil:
			return &IOError{Op: "read", Path: f.Name(), Pos: pos + int64(filled), Err: err}
		case n == 0:
			return &IOError{Op: "read", Path: f.Name(), Pos: pos + int64(filled), Err: ErrNoProgress}
		}
	}
	return nil
}

// Grow doubles the buffer (Kafka's growBuffers) until it holds need bytes, capped at
// the max buffer size in bytes. If need exceeds the cap it returns an error wrapping
// ErrBatchTooLarge that names need and the cap, and leaves the size unchanged. The
// bytes of the last Read are not kept: Read again after Grow.
func (r *Reader) Grow(need int) error {
	if err := r.grow(need); err != nil {
		return err
	}
	if r.size > len(r.backing) {
		r.backing = make([]byte, r.size)
	}
	return nil
}

// Restore sets the buffer back to its initial size (Kafka's restoreBuffers)
// and, in the cache-friendly mode, drops the rest of the file last read.
func (r *Reader) Restore() {
	r.size = r.initial
	r.adv.release(&r.stats)
}

// BufferBytes is the current buffer size in bytes: the most one Read returns.
func (r *Reader) BufferBytes() int { return r.size }

// MaxBufferBytes is the cap of Grow in bytes.
func (r *Reader) MaxBufferBytes() int { return r.maxCap }

// SetDropBehind turns the cache-friendly mode on or off (SegmentReader).
func (r *Reader) SetDropBehind(on bool) { r.adv.dropBehind = on }

// Path is ReadPread.
func (r *Reader) Path() ReadPath { return ReadPread }

// Stats returns the counts since NewReader.
func (r *Reader) Stats() ReadStats {
	st := r.stats
	st.ReadaheadBytes, st.ReadaheadCachedBytes = r.adv.ahead.done.Load(), r.adv.ahead.cached.Load()
	return st
}
