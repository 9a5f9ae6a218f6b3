package iosched

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dropCachesPath is the kernel's global page-cache drop knob.
const dropCachesPath = "/proc/sys/vm/drop_caches"

// DropFileCache makes f's pages leave the page cache: fdatasync (dirty pages cannot be
// dropped) then posix_fadvise(POSIX_FADV_DONTNEED) over the whole file. The kernel
// treats DONTNEED as advice: pages mapped or locked elsewhere stay; measure with
// Residency. Errors are *IOError values wrapping the errno.
func DropFileCache(f File) error {
	fd := int(f.Fd())
	if err := unix.Fdatasync(fd); err != nil {
		return &IOError{Op: "fdatasync", Path: f.Name(), Pos: -1, Err: err}
	}
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return &IOError{Op: "fadvise DONTNEED", Path: f.Name(), Pos: -1, Err: err}
	}
	return nil
}

// DropCachesGlobal syncs all file systems, then writes 3 to /proc/sys/vm/drop_caches
// (free page cache, dentries and inodes). Without the permission (not root, or a
// read-only /proc/sys in a container) it returns an error wrapping the cause; callers
// then fall back to DropFileCache on each file.
func DropCachesGlobal() error {
	unix.Sync()
	f, err := os.OpenFile(dropCachesPath, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("iosched: drop caches: %w", err)
	}
	_, werr := f.WriteString("3\n")
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("iosched: drop caches: %w", err)
	}
	return nil
}

// Residency returns how many of the first size bytes of f are in the page cache: it
// maps them (mmap, PROT_READ, MAP_SHARED; mapping does not fault pages in), asks
// mincore which pages are resident, and returns resident pages x page size, capped at
// size. size 0 gives 0. Errors are *IOError values wrapping the errno.
func Residency(f File, size int64) (residentBytes int64, err error) {
	if size <= 0 {
		return 0, nil
	}
	if int64(int(size)) != size {
		return 0, &IOError{Op: "mincore", Path: f.Name(), Pos: -1, Err: fmt.Errorf("size %d does not fit an int", size)}
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, &IOError{Op: "mmap", Path: f.Name(), Pos: -1, Err: err}
	}
	defer func() {
		if uerr := unix.Munmap(mem); uerr != nil && err == nil {
			err = &IOError{Op: "munmap", Path: f.Name(), Pos: -1, Err: uerr}
		}
	}()
	page := int64(unix.Getpagesize())
	vec := make([]byte, (size+page-1)/page)
	if err := mincore(mem, vec); err != nil {
		return 0, &IOError{Op: "mincore", Path: f.Name(), Pos: -1, Err: err}
	}
	var pages int64
	for _, v := range vec {
		pages += int64(bits.OnesCount8(v & 1)) // bit 0: resident; the other bits are reserved
	}
	return min(pages*page, size), nil
}

// mincore fills vec with one byte per page of mem, bit 0 set when the page is
// resident. golang.org/x/sys/unix has no Mincore wrapper on Linux, so this calls the
// system call directly.
func mincore(mem []byte, vec []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MINCORE,
		uintptr(unsafe.Pointer(unsafe.SliceData(mem))), uintptr(len(mem)),
		uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		return errno
	}
	return nil
}
