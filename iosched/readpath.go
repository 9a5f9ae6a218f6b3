package iosched

import (
	"fmt"
	"math"
)

// ReadPath names how a SegmentReader moves a segment's bytes into memory.
type ReadPath string

const (
	// ReadPread reads with pread(2) into one reusable buffer, as Kafka's
	// cleaner reads into its read buffer. The default.
	ReadPread ReadPath = "pread"
	// ReadMmap maps each segment file (MAP_SHARED, read only) and returns
	// slices of the mapping: no copy. madvise SEQUENTIAL when a file is
	// mapped, WILLNEED on the window ahead of each read, DONTNEED on the
	// range behind it and on the whole mapping when it is released.
	ReadMmap ReadPath = "mmap"
	// ReadDirect reads with O_DIRECT (a second descriptor of the same file)
	// into a buffer aligned to directAlignBytes: the page cache is bypassed,
	// so there is no readahead either. Where the file system refuses
	// O_DIRECT, see ReaderOptions.DirectFallback.
	ReadDirect ReadPath = "direct"
)

// directAlignBytes is the alignment of the direct path's buffer address,
// file offsets and lengths: 4096 satisfies both 512-byte and 4 KiB logical
// block devices (statx's STATX_DIOALIGN would tell the exact figure).
const directAlignBytes = 4096

// ReadPaths lists the read paths, default first.
func ReadPaths() []ReadPath { return []ReadPath{ReadPread, ReadMmap, ReadDirect} }

// ParseReadPath parses "pread", "mmap" or "direct"; "" gives ReadPread.
func ParseReadPath(s string) (ReadPath, error) {
	switch p := ReadPath(s); p {
	case "":
		return ReadPread, nil
	case ReadPread, ReadMmap, ReadDirect:
		return p, nil
	}
	return "", fmt.Errorf("iosched: unknown read path %q (want pread, mmap or direct)", s)
}

func (p ReadPath) String() string { return string(p) }

// ReadaheadHint is the posix_fadvise advice a pread SegmentReader gives the
// kernel about each file it reads. The mmap path gives its madvise advice
// whatever the hint; the direct path bypasses the page cache and ignores it.
type ReadaheadHint string

const (
	// HintNone gives no advice: the kernel's default readahead. The default.
	HintNone ReadaheadHint = "none"
	// HintSequential advises POSIX_FADV_SEQUENTIAL over a file when its
	// reading begins: Linux doubles the file's readahead window.
	HintSequential ReadaheadHint = "sequential"
	// HintWillneed advises POSIX_FADV_WILLNEED over the buffer-sized window
	// after each read, so that the next read's pages are being fetched while
	// this one's batches are processed.
	HintWillneed ReadaheadHint = "willneed"
)

// ParseReadaheadHint parses "none", "sequential" or "willneed"; "" gives HintNone.
func ParseReadaheadHint(s string) (ReadaheadHint, error) {
	switch h := ReadaheadHint(s); h {
	case "":
		return HintNone, nil
	case HintNone, HintSequential, HintWillneed:
		return h, nil
	}
	return "", fmt.Errorf("iosched: unknown readahead hint %q (want none, sequential or willneed)", s)
}

// SegmentReader reads a segment file sequentially through one window of
// BufferBytes bytes that can grow for a large batch (Kafka's read buffer and
// its growBuffers/restoreBuffers). The engine's batch iterator uses it; the
// three read paths (ReadPaths) implement it. Not safe for concurrent use:
// one per cleaner thread.
type SegmentReader interface {
	// Read returns up to BufferBytes() bytes of f from byte pos, never at or
	// past limit (the file's size in bytes): an empty slice at or beyond
	// limit. The bytes are valid until the next Read, Grow or Restore. A
	// file ending before limit is an *IOError wrapping io.ErrUnexpectedEOF.
	Read(f File, pos, limit int64) ([]byte, error)
	// Grow doubles the window until it holds need bytes, up to
	// MaxBufferBytes; past it, an error wrapping ErrBatchTooLarge.
	Grow(need int) error
	// Restore sets the window back to its initial size and lets go of the
	// file last read: the engine calls it when it is done with a segment.
	// Readers that hold something per file (a mapping, an O_DIRECT
	// descriptor, a drop-behind position) release it here.
	Restore()
	// BufferBytes is the current window in bytes: the most one Read returns.
	BufferBytes() int
	// MaxBufferBytes is the cap of Grow in bytes.
	MaxBufferBytes() int
	// SetDropBehind turns the cache-friendly mode on or off: while on, the
	// pages of a file's bytes already read (everything before the position
	// of the latest Read, and at Restore the rest) are dropped from the page
	// cache with posix_fadvise DONTNEED as reading goes on.
	SetDropBehind(on bool)
	// Path names the read path.
	Path() ReadPath
	// Stats returns the counts since the reader was made.
	Stats() ReadStats
}

// ReaderOptions configure NewSegmentReader.
type ReaderOptions struct {
	// Path is the read path. Default ReadPread.
	Path ReadPath
	// BufferBytes is the initial window in bytes (Kafka:
	// log.cleaner.io.buffer.size / log.cleaner.threads / 2). A value < 1
	// gives DefaultReadBufferBytes.
	BufferBytes int
	// MaxBufferBytes caps Grow, in bytes (Kafka: max.message.bytes). Raised
	// to BufferBytes when below it.
	MaxBufferBytes int
	// Readahead is the pread path's fadvise hint. Default HintNone.
	Readahead ReadaheadHint
	// ReadaheadBytes is how far ahead of its read position, in bytes, the
	// pread path keeps a file being read into the page cache: a helper
	// goroutine per file preads up to that far past the position (never
	// past the Read's limit), its target moved in steps of at least half
	// the distance, so that on a cold page cache the disk reads while the
	// caller processes what it read. It costs a 1 MiB scratch buffer and a
	// second descriptor per file being read. Default 0: off, the kernel's
	// own readahead only, as Kafka. Linux only (elsewhere each step counts
	// a ReadStats.ReadaheadErrors); the mmap and direct paths ignore it.
	// Negative is an error.
	ReadaheadBytes int64
	// DirectFallback: when the direct path cannot open a file with O_DIRECT
	// (the file system refuses it, or the File has no OS descriptor), read
	// that file with buffered pread instead and count it in
	// ReadStats.Fallbacks with the reason in ReadStats.FallbackReason. When
	// false such a file is an *IOError wrapping ErrDirectUnsupported.
	DirectFallback bool
}

// NewSegmentReader returns a reader of the path o.Path. Its buffer (none for
// mmap) is allocated here, once. Errors: an unknown path or hint, a negative
// ReadaheadBytes, or a path this OS does not support (errors.ErrUnsupported).
func NewSegmentReader(o ReaderOptions) (SegmentReader, error) {
	p, err := ParseReadPath(string(o.Path))
	if err != nil {
		return nil, err
	}
	hint, err := ParseReadaheadHint(string(o.Readahead))
	if err != nil {
		return nil, err
	}
	if o.ReadaheadBytes < 0 {
		return nil, fmt.Errorf("iosched: read-ahead of %d bytes is negative", o.ReadaheadBytes)
	}
	switch p {
	case ReadMmap:
		return newMmapReader(o.BufferBytes, o.MaxBufferBytes)
	case ReadDirect:
		return newDirectReader(o.BufferBytes, o.MaxBufferBytes, o.DirectFallback)
	}
	r := NewReader(o.BufferBytes, o.MaxBufferBytes)
	r.hint = hint
	r.adv.ahead.distance = o.ReadaheadBytes
	return r, nil
}

// window is the growable size of a reader's window, shared by the three
// paths: Kafka's growBuffers (doubling up to max.message.bytes) and
// restoreBuffers.
type window struct {
	size    int // bytes a Read returns at most: initial..maxCap
	initial int // size after Restore
	maxCap  int // the cap of Grow
}

func newWindow(bufferBytes, maxBufferBytes int) window {
	if bufferBytes < 1 {
		bufferBytes = DefaultReadBufferBytes
	}
	if maxBufferBytes < bufferBytes {
		maxBufferBytes = bufferBytes
	}
	return window{size: bufferBytes, initial: bufferBytes, maxCap: maxBufferBytes}
}

// grow doubles size until it holds need, capped at maxCap.
func (w *window) grow(need int) error {
	if need > w.maxCap {
		return fmt.Errorf("%w: batch needs %d bytes, max buffer is %d bytes (max.message.bytes)",
			ErrBatchTooLarge, need, w.maxCap)
	}
	for w.size < need {
		w.size = min(w.size*2, w.maxCap)
	}
	return nil
}

// osFd returns f's OS descriptor, or false when f has none (a closed file,
// or a test double whose Fd returns ^uintptr(0)).
func osFd(f File) (int, bool) {
	fd := f.Fd()
	if fd == ^uintptr(0) || fd > math.MaxInt32 {
		return -1, false
	}
	return int(fd), true
}
