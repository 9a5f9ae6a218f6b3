package iosched

import (
	"errors"
	"fmt"
	"io"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// directReader is the O_DIRECT SegmentReader. It opens a second descriptor
// of each file it reads, with O_DIRECT, through /proc/self/fd (the same
// inode, whatever its name now), and reads whole aligned blocks around the
// bytes asked for into an aligned buffer. Where that open fails (the file
// system refuses O_DIRECT, or the File has no OS descriptor), the file is
// read with buffered pread when fallback is set, and counted.
type directReader struct {
	window
	raw      []byte // allocation holding backing
	backing  []byte // aligned to directAlignBytes; len = size + 2 blocks
	fallback bool
	f        File // the file of dfd (or of the fallback)
	dfd      int  // O_DIRECT descriptor of f; -1 when reading f by pread
	stats    ReadStats
}

func newDirectReader(bufferBytes, maxBufferBytes int, fallback bool) (*directReader, error) {
	r := &directReader{window: newWindow(bufferBytes, maxBufferBytes), fallback: fallback, dfd: -1}
	r.alloc(r.size)
	return r, nil
}

// alloc makes backing hold a window of size bytes plus a block on each side.
func (r *directReader) alloc(size int) {
	n := size + 2*directAlignBytes
	r.raw = make([]byte, n+directAlignBytes)
	off := int(alignUp(int64(uintptr(unsafe.Pointer(unsafe.SliceData(r.raw)))), directAlignBytes) - int64(uintptr(unsafe.Pointer(unsafe.SliceData(r.raw)))))
	r.backing = r.raw[off : off+n : off+n]
}

func (r *directReader) Read(f File, pos, limit int64) ([]byte, error) {
	if pos < 0 {
		return nil, &IOError{Op: "read", Path: f.Name(), Pos: pos, Err: errors.New("negative position")}
	}
	if pos >= limit {
		return r.backing[:0], nil
	}
	if f != r.f {
		if err := r.open(f); err != nil {
			return nil, err
		}
	}
	end := min(limit, pos+int64(r.size))
	if r.dfd < 0 {
		buf := r.backing[:end-pos]
		if err := preadFull(f, buf, pos, limit, &r.stats); err != nil {
			return nil, err
		}
		return buf, nil
	}
	from := alignDown(pos, directAlignBytes)
	to := alignUp(end, directAlignBytes)
	buf := r.backing[:to-from]
	filled := int64(0)
	for from+filled < end {
		start := time.Now()
		n, err := unix.Pread(r.dfd, buf[filled:], from+filled)
		r.stats.Time += time.Since(start)
		r.stats.Reads++
		switch {
		case err == unix.EINTR:
			continue
		case err != nil:
			return nil, &IOError{Op: "read O_DIRECT", Path: f.Name(), Pos: from + filled, Err: err}
		case n == 0:
			return nil, &IOError{Op: "read O_DIRECT", Path: f.Name(), Pos: from + filled,
				Err: fmt.Errorf("end of file before limit %d: %w", limit, io.ErrUnexpectedEOF)}
		}
		filled += int64(n)
		if filled%directAlignBytes != 0 && from+filled < end {
			// A read that stops off a block boundary stopped at the end of the file.
			return nil, &IOError{Op: "read O_DIRECT", Path: f.Name(), Pos: from + filled,
				Err: fmt.Errorf("end of file before limit %d: %w", limit, io.ErrUnexpectedEOF)}
		}
	}
	r.stats.Bytes += end - pos
	return buf[pos-from : end-from : end-from], nil
}

// open lets go of the previous file and opens f with O_DIRECT.
func (r *directReader) open(f File) error {
	r.release()
	r.f = f
	fd, ok := osFd(f)
	var err error
	if !ok {
		err = errors.New("the file has no OS descriptor")
	} else {
		r.dfd, err = reopen(fd, unix.O_RDONLY|unix.O_DIRECT|unix.O_CLOEXEC)
		if err != nil {
			r.dfd = -1
		}
	}
	if err == nil {
		return nil
	}
	if !r.fallback {
		r.f = nil
		return &IOError{Op: "open O_DIRECT", Path: f.Name(), Pos: -1, Err: fmt.Errorf("%w: %w", ErrDirectUnsupported, err)}
	}
	r.stats.Fallbacks++
	r.stats.LastFallbackReason = fmt.Sprintf("O_DIRECT open of %s failed (%v): read with buffered pread", f.Name(), err)
	if r.stats.FallbackReason == "" {
		r.stats.FallbackReason = r.stats.LastFallbackReason
	}
	return nil
}

func (r *directReader) release() {
	if r.dfd >= 0 {
		unix.Close(r.dfd)
	}
	r.f, r.dfd = nil, -1
}

func (r *directReader) Grow(need int) error {
	if err := r.grow(need); err != nil {
		return err
	}
	if r.size+2*directAlignBytes > len(r.backing) {
		r.alloc(r.size)
	}
	return nil
}

// Restore sets the window back and closes the O_DIRECT descriptor.
func (r *directReader) Restore() {
	r.size = r.initial
	r.release()
}

func (r *directReader) BufferBytes() int    { return r.size }
func (r *directReader) MaxBufferBytes() int { return r.maxCap }

// SetDropBehind does nothing: O_DIRECT reads leave no pages in the cache
// (a fallback file read by pread does; it is not dropped).
func (r *directReader) SetDropBehind(bool) {}
func (r *directReader) Path() ReadPath     { return ReadDirect }
func (r *directReader) Stats() ReadStats   { return r.stats }
