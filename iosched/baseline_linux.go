package iosched

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// ProbeDirectIO tells whether dir's file system takes O_DIRECT: it makes a
// temporary file there, opens it with O_DIRECT and writes and reads one
// aligned 4096-byte block, then removes it. It returns nil when all of that
// works; an *IOError wrapping ErrDirectUnsupported when the open or the
// aligned I/O is refused with EINVAL (the file system has no O_DIRECT:
// tmpfs before Linux 6.6, some FUSE and network file systems); any other
// failure as it is, not wrapping ErrDirectUnsupported. Tests probe once and
// skip only on ErrDirectUnsupported.
func ProbeDirectIO(dir string) error {
	f, err := os.CreateTemp(dir, ".cleanerlab-odirect-probe-")
	if err != nil {
		return &IOError{Op: "create", Path: dir, Pos: -1, Err: err}
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return directError("open O_DIRECT", path, -1, err)
	}
	defer unix.Close(fd)
	buf := alignedBuffer(directAlignBytes)
	if err := fullIO(unix.Pwrite, fd, buf, 0); err != nil {
		return directError("write O_DIRECT", path, 0, err)
	}
	if err := fullIO(unix.Pread, fd, buf, 0); err != nil {
		return directError("read O_DIRECT", path, 0, err)
	}
	return nil
}

// directError wraps err in an *IOError, and in ErrDirectUnsupported when it
// is EINVAL (how Linux refuses O_DIRECT).
func directError(op, path string, pos int64, err error) error {
	if errors.Is(err, unix.EINVAL) {
		err = fmt.Errorf("%w: %w", ErrDirectUnsupported, err)
	}
	return &IOError{Op: op, Path: path, Pos: pos, Err: err}
}

// alignedBuffer returns n bytes starting at a multiple of directAlignBytes.
func alignedBuffer(n int) []byte {
	raw := make([]byte, n+directAlignBytes)
	addr := int64(uintptr(unsafe.Pointer(unsafe.SliceData(raw))))
	off := int(alignUp(addr, directAlignBytes) - addr)
	return raw[off : off+n]
}

// measureDevice runs o.Runs rounds in a file of o.FileBytes in o.Dir: write
// it with O_DIRECT and fdatasync (a write sample), drop it from the page
// cache, check that none of it is resident, read it with O_DIRECT (a read
// sample). It fills b's samples and drop and residency fields.
func measureDevice(o BaselineOptions, b *Baseline) error {
	f, err := os.CreateTemp(o.Dir, ".cleanerlab-baseline-")
	if err != nil {
		return &IOError{Op: "create", Path: o.Dir, Pos: -1, Err: err}
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return directError("open O_DIRECT", path, -1, err)
	}
	defer unix.Close(fd)
	// A buffered descriptor of the same file, for fadvise and the
	// residency check.
	cached, err := os.Open(path)
	if err != nil {
		return &IOError{Op: "open", Path: path, Pos: -1, Err: err}
	}
	defer cached.Close()
	if err := unix.Fallocate(fd, 0, 0, o.FileBytes); err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
		return &IOError{Op: "fallocate", Path: path, Pos: -1, Err: err}
	}
	buf := alignedBuffer(o.BlockBytes)
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i+8 <= len(buf); i += 8 {
		*(*uint64)(unsafe.Pointer(&buf[i])) = rng.Uint64() // incompressible, as fio's default buffers
	}
	blocks := (o.FileBytes + int64(o.BlockBytes) - 1) / int64(o.BlockBytes)
	total := blocks * int64(o.BlockBytes)
	b.DropMethod = "fadvise DONTNEED"
	b.ResidencyMethod = ResidencyMethod()
	done := func(i int64) error {
		if o.CheckDone == nil || i%64 != 0 {
			return nil
		}
		return o.CheckDone()
	}
	for range o.Runs {
		if err := done(0); err != nil {
			return err
		}
		start := time.Now()
		for i := range blocks {
			if err := done(i); err != nil {
				return err
			}
			if err := fullIO(unix.Pwrite, fd, buf, i*int64(o.BlockBytes)); err != nil {
				return &IOError{Op: "write O_DIRECT", Path: path, Pos: i * int64(o.BlockBytes), Err: err}
			}
		}
		if err := unix.Fdatasync(fd); err != nil {
			return &IOError{Op: "fdatasync", Path: path, Pos: -1, Err: err}
		}
		b.DeviceWriteSamples = append(b.DeviceWriteSamples, float64(total)/time.Since(start).Seconds())

		resident, err := dropForRead(o, b, cached, total)
		if err != nil {
			return err
		}
		b.ResidentBeforeReadBytes = max(b.ResidentBeforeReadBytes, resident)
		if resident > 0 {
			return fmt.Errorf("%w: %s: %d of %d bytes resident (%s) after fdatasync and %s, twice; refusing to report a read of them as the device's bandwidth",
				ErrBaselineCached, path, resident, total, b.ResidencyMethod, b.DropMethod)
		}

		start = time.Now()
		for i := range blocks {
			if err := done(i); err != nil {
				return err
			}
			if err := fullIO(unix.Pread, fd, buf, i*int64(o.BlockBytes)); err != nil {
				return &IOError{Op: "read O_DIRECT", Path: path, Pos: i * int64(o.BlockBytes), Err: err}
			}
		}
		b.DeviceReadSamples = append(b.DeviceReadSamples, float64(total)/time.Since(start).Seconds())
	}
	return nil
}

// dropForRead drops the test file from the page cache (drop_caches first
// when asked and permitted, then fdatasync + fadvise DONTNEED) and returns
// how many of its bytes are still resident; when some are, it drops once
// more before counting again.
func dropForRead(o BaselineOptions, b *Baseline, f *os.File, size int64) (int64, error) {
	var resident int64
	for range 2 {
		if o.DropCaches {
			if err := DropCachesGlobal(); err != nil {
				b.DropNote = fmt.Sprintf("drop_caches not permitted (%v): relied on fadvise DONTNEED", err)
			} else {
				b.DropMethod, b.DropNote = "drop_caches + fadvise DONTNEED", ""
			}
		}
		if err := DropFileCache(f); err != nil {
			return 0, err
		}
		if o.beforeCheck != nil {
			if err := o.beforeCheck(f.Name()); err != nil {
				return 0, err
			}
		}
		cs, err := FileCacheState(f, size)
		if err != nil {
			return 0, err
		}
		if resident = cs.CachedBytes; resident == 0 {
			return 0, nil
		}
	}
	return resident, nil
}

// fullIO does one block's pread or pwrite, retrying short transfers and EINTR.
func fullIO(op func(int, []byte, int64) (int, error), fd int, buf []byte, off int64) error {
	for done := 0; done < len(buf); {
		n, err := op(fd, buf[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return ErrNoProgress
		}
		done += n
	}
	return nil
}
