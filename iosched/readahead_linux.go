package iosched

import (
	"strconv"

	"golang.org/x/sys/unix"
)

// reopenReadOnly opens a second descriptor of the file of fd, read only:
// the same inode whatever its name now, with its own offset and readahead
// state.
func reopenReadOnly(fd int) (int, error) {
	return reopen(fd, unix.O_RDONLY|unix.O_CLOEXEC)
}

// reopen opens /proc/self/fd/<fd> with flags.
func reopen(fd, flags int) (int, error) {
	for {
		nfd, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), flags, 0)
		if err != unix.EINTR {
			return nfd, err
		}
	}
}

func preadAt(fd int, buf []byte, off int64) (int, error) {
	for {
		n, err := unix.Pread(fd, buf, off)
		if err != unix.EINTR {
			return n, err
		}
	}
}

func closeFd(fd int) { unix.Close(fd) }

// rangeCached says whether every page of [off, off+n) of fd is in the page
// cache, by cachestat(2); false where the kernel has no cachestat (before
// Linux 6.5, or refused: RangeCacheState then uses mincore) or it fails.
func rangeCached(fd int, off, n int64) bool {
	if cachestatMissing.Load() {
		return false
	}
	var cs unix.Cachestat_t
	if err := unix.Cachestat(uint(fd), &unix.CachestatRange{Off: uint64(off), Len: uint64(n)}, &cs, 0); err != nil {
		if err == unix.ENOSYS || err == unix.EPERM {
			cachestatMissing.Store(true)
		}
		return false
	}
	return int64(cs.Cache) >= (alignUp(off+n, pageBytes)-alignDown(off, pageBytes))/pageBytes
}
