package iosched

import (
	"errors"
	"fmt"
	"math/bits"
	"os"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// dropCachesPath is the kernel's global page-cache drop knob (a variable
// so that tests can point it at a file of their own).
var dropCachesPath = "/proc/sys/vm/drop_caches"

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

// cachestatMissing is set once cachestat(2) failed with ENOSYS (kernel before
// 6.5) or EPERM (a seccomp filter): mincore is used from then on.
var cachestatMissing atomic.Bool

// FileCacheState reports what the page cache holds of the first size bytes
// of f, from cachestat(2) where the kernel has it, else from mincore (which
// gives CachedBytes only). size 0 gives zeros. Errors are *IOError values.
func FileCacheState(f File, size int64) (CacheState, error) { return RangeCacheState(f, 0, size) }

// RangeCacheState is FileCacheState over bytes [off, off+n) of f. The
// figures count whole pages overlapping the range, capped at n.
func RangeCacheState(f File, off, n int64) (CacheState, error) {
	if n <= 0 || off < 0 {
		return CacheState{Method: ResidencyMethod()}, nil
	}
	fd, ok := osFd(f)
	if !ok {
		return CacheState{}, &IOError{Op: "residency", Path: f.Name(), Pos: -1, Err: errors.New("the file has no OS descriptor")}
	}
	if !cachestatMissing.Load() {
		var cs unix.Cachestat_t
		err := unix.Cachestat(uint(fd), &unix.CachestatRange{Off: uint64(off), Len: uint64(n)}, &cs, 0)
		if err == nil {
			b := func(pages uint64) int64 { return min(int64(pages)*pageBytes, n) }
			return CacheState{CachedBytes: b(cs.Cache), DirtyBytes: b(cs.Dirty), WritebackBytes: b(cs.Writeback),
				EvictedBytes: b(cs.Evicted), RecentlyEvictedBytes: b(cs.Recently_evicted), Method: MethodCachestat}, nil
		}
		if err != unix.ENOSYS && err != unix.EPERM {
			return CacheState{}, &IOError{Op: "cachestat", Path: f.Name(), Pos: off, Err: err}
		}
		cachestatMissing.Store(true)
	}
	cached, err := mincoreResidency(f, fd, off, n)
	return CacheState{CachedBytes: cached, Method: MethodMincore}, err
}

// ResidencyMethod names the method FileCacheState and Residency use on this
// machine: MethodCachestat until cachestat(2) was found missing.
func ResidencyMethod() string {
	if cachestatMissing.Load() {
		return MethodMincore
	}
	return MethodCachestat
}

// Residency returns how many of the first size bytes of f are in the page
// cache (FileCacheState's CachedBytes: cachestat(2), else mincore), capped at
// size. size 0 gives 0. Errors are *IOError values wrapping the errno.
func Residency(f File, size int64) (residentBytes int64, err error) {
	cs, err := FileCacheState(f, size)
	return cs.CachedBytes, err
}

// MincoreResidency is Residency by mmap + mincore whatever the kernel has
// (mapping does not fault pages in): for checking cachestat against it.
func MincoreResidency(f File, size int64) (int64, error) {
	if size <= 0 {
		return 0, nil
	}
	fd, ok := osFd(f)
	if !ok {
		return 0, &IOError{Op: "mincore", Path: f.Name(), Pos: -1, Err: errors.New("the file has no OS descriptor")}
	}
	return mincoreResidency(f, fd, 0, size)
}

// mincoreResidency maps the pages holding bytes [off, off+n) of f and counts
// those mincore says are resident, as bytes capped at n.
func mincoreResidency(f File, fd int, off, n int64) (residentBytes int64, err error) {
	from := alignDown(off, pageBytes)
	size := off + n - from
	if int64(int(size)) != size {
		return 0, &IOError{Op: "mincore", Path: f.Name(), Pos: -1, Err: fmt.Errorf("size %d does not fit an int", size)}
	}
	mem, err := unix.Mmap(fd, from, int(size), unix.PROT_READ, unix.MAP_SHARED)
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
	return min(pages*page, n), nil
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
