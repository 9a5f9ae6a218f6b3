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

// measureDevice writes, then reads, a file of o.FileBytes in o.Dir with
// O_DIRECT, o.Runs times each, and returns the bandwidths in bytes/s.
func measureDevice(o BaselineOptions) (writes, reads []float64, err error) {
	f, err := os.CreateTemp(o.Dir, ".cleanerlab-baseline-")
	if err != nil {
		return nil, nil, fmt.Errorf("iosched: baseline: %w", err)
	}
	path := f.Name()
	f.Close()
	defer os.Remove(path)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_DIRECT|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, &IOError{Op: "open O_DIRECT", Path: path, Pos: -1, Err: fmt.Errorf("%w: %w", ErrDirectUnsupported, err)}
	}
	defer unix.Close(fd)
	if err := unix.Fallocate(fd, 0, 0, o.FileBytes); err != nil && !errors.Is(err, unix.EOPNOTSUPP) {
		return nil, nil, &IOError{Op: "fallocate", Path: path, Pos: -1, Err: err}
	}
	raw := make([]byte, o.BlockBytes+directAlignBytes)
	off := int(alignUp(int64(uintptr(unsafe.Pointer(unsafe.SliceData(raw)))), directAlignBytes) - int64(uintptr(unsafe.Pointer(unsafe.SliceData(raw)))))
	buf := raw[off : off+o.BlockBytes]
	rng := rand.New(rand.NewPCG(7, 11))
	for i := 0; i+8 <= len(buf); i += 8 {
		*(*uint64)(unsafe.Pointer(&buf[i])) = rng.Uint64() // incompressible, as fio's default buffers
	}
	blocks := (o.FileBytes + int64(o.BlockBytes) - 1) / int64(o.BlockBytes)
	total := blocks * int64(o.BlockBytes)
	for range o.Runs {
		start := time.Now()
		for i := range blocks {
			if err := fullIO(unix.Pwrite, fd, buf, i*int64(o.BlockBytes)); err != nil {
				return nil, nil, &IOError{Op: "write O_DIRECT", Path: path, Pos: i * int64(o.BlockBytes), Err: err}
			}
		}
		if err := unix.Fdatasync(fd); err != nil {
			return nil, nil, &IOError{Op: "fdatasync", Path: path, Pos: -1, Err: err}
		}
		writes = append(writes, float64(total)/time.Since(start).Seconds())
	}
	for range o.Runs {
		start := time.Now()
		for i := range blocks {
			if err := fullIO(unix.Pread, fd, buf, i*int64(o.BlockBytes)); err != nil {
				return nil, nil, &IOError{Op: "read O_DIRECT", Path: path, Pos: i * int64(o.BlockBytes), Err: err}
			}
		}
		reads = append(reads, float64(total)/time.Since(start).Seconds())
	}
	return writes, reads, nil
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
