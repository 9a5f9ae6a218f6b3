package iosched

import (
	"errors"
	"fmt"
	"io"
	"time"

	"golang.org/x/sys/unix"
)

// mmapReader is the mmap SegmentReader. It maps the whole file being read
// (up to the limit of the Read) and returns slices of the mapping, so no
// byte is copied; the window only bounds how much one Read returns, as the
// pread path's buffer does, so that the engine's loop is the same.
type mmapReader struct {
	window
	mem   []byte // mapping of adv.f: adv.f's bytes [0, len(mem))
	adv   advice // the file mapped, and drop-behind
	stats ReadStats
}

func newMmapReader(bufferBytes, maxBufferBytes int) (*mmapReader, error) {
	return &mmapReader{window: newWindow(bufferBytes, maxBufferBytes), adv: advice{fd: -1}}, nil
}

// Read returns mem[pos:pos+n]. A new file, or a limit past the mapping, maps
// the file anew (madvise SEQUENTIAL); each Read asks for the window after it
// with madvise WILLNEED and lets go of the pages before pos with madvise
// DONTNEED (the pages stay in the page cache; drop-behind also drops them
// there). A file shorter than limit is an *IOError wrapping
// io.ErrUnexpectedEOF, found by fstat before mapping: touching a mapping
// past the end of its file would raise SIGBUS.
func (r *mmapReader) Read(f File, pos, limit int64) ([]byte, error) {
	if pos < 0 {
		return nil, &IOError{Op: "read", Path: f.Name(), Pos: pos, Err: errors.New("negative position")}
	}
	if pos >= limit {
		return nil, nil
	}
	if f != r.adv.f || limit > int64(len(r.mem)) {
		if err := r.mapFile(f, pos, limit); err != nil {
			return nil, err
		}
	} else {
		if pos > r.adv.dropFrom {
			// The pages behind pos are done with: unmap them from this
			// process (DONTNEED after), and in the cache-friendly mode drop
			// them from the page cache too.
			r.madvise(alignDown(r.adv.dropFrom, pageBytes), alignDown(pos, pageBytes), unix.MADV_DONTNEED)
			if r.adv.dropBehind {
				r.adv.drop(pos, &r.stats)
			} else {
				r.adv.dropFrom = pos
			}
		}
		r.adv.limit = limit
	}
	end := min(limit, pos+int64(r.size))
	// WILLNEED over the next window not yet asked for: its pages are read in
	// while this window's batches are processed.
	if ahead := min(limit, end+int64(r.size)); ahead > r.adv.aheadTo {
		from := alignDown(max(pos, r.adv.aheadTo), pageBytes)
		r.madvise(from, ahead, unix.MADV_WILLNEED)
		r.adv.aheadTo = ahead
	}
	r.adv.readEnd = max(r.adv.readEnd, end)
	r.stats.Reads++
	r.stats.Bytes += end - pos
	return r.mem[pos:end:end], nil
}

func (r *mmapReader) mapFile(f File, pos, limit int64) error {
	r.release()
	fd, ok := osFd(f)
	if !ok {
		return &IOError{Op: "mmap", Path: f.Name(), Pos: -1, Err: errors.New("the file has no OS descriptor to map")}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return &IOError{Op: "fstat", Path: f.Name(), Pos: -1, Err: err}
	}
	if st.Size < limit {
		return &IOError{Op: "read", Path: f.Name(), Pos: st.Size,
			Err: fmt.Errorf("end of file before limit %d: %w", limit, io.ErrUnexpectedEOF)}
	}
	if int64(int(limit)) != limit {
		return &IOError{Op: "mmap", Path: f.Name(), Pos: -1, Err: fmt.Errorf("size %d does not fit an int", limit)}
	}
	start := time.Now()
	mem, err := unix.Mmap(fd, 0, int(limit), unix.PROT_READ, unix.MAP_SHARED)
	r.stats.Time += time.Since(start)
	if err != nil {
		return &IOError{Op: "mmap", Path: f.Name(), Pos: -1, Err: err}
	}
	r.mem = mem
	r.stats.Maps++
	r.adv = advice{f: f, fd: fd, limit: limit, dropFrom: pos, readEnd: pos, aheadTo: pos, dropBehind: r.adv.dropBehind}
	r.madvise(0, limit, unix.MADV_SEQUENTIAL)
	return nil
}

// madvise advises [from, to) of the mapping; from must be page-aligned.
func (r *mmapReader) madvise(from, to int64, advice int) {
	if to <= from {
		return
	}
	start := time.Now()
	err := unix.Madvise(r.mem[from:to], advice)
	r.stats.Time += time.Since(start)
	r.stats.Advice++
	if err != nil {
		r.stats.AdviceErrors++
	}
}

// release unmaps the file: DONTNEED over the whole mapping, drop-behind of
// what is left, munmap.
func (r *mmapReader) release() {
	if r.mem == nil {
		r.adv.release(&r.stats)
		return
	}
	r.madvise(0, int64(len(r.mem)), unix.MADV_DONTNEED)
	r.adv.release(&r.stats)
	start := time.Now()
	err := unix.Munmap(r.mem)
	r.stats.Time += time.Since(start)
	if err != nil {
		// Nothing the caller can do; the mapping leaks until exit.
		r.stats.AdviceErrors++
	}
	r.mem = nil
}

func (r *mmapReader) Grow(need int) error { return r.grow(need) }

// Restore sets the window back and unmaps the file.
func (r *mmapReader) Restore() {
	r.size = r.initial
	r.release()
}

func (r *mmapReader) BufferBytes() int      { return r.size }
func (r *mmapReader) MaxBufferBytes() int   { return r.maxCap }
func (r *mmapReader) SetDropBehind(on bool) { r.adv.dropBehind = on }
func (r *mmapReader) Path() ReadPath        { return ReadMmap }
func (r *mmapReader) Stats() ReadStats      { return r.stats }
