package iosched

import "golang.org/x/sys/unix"

// fdatasync calls fdatasync(2); done is always true on Linux.
func fdatasync(fd int) (done bool, err error) { return true, unix.Fdatasync(fd) }

func syncFileRange(fd int, off, n int64, flags int) error {
	return unix.SyncFileRange(fd, off, n, flags)
}

// fileSize is fd's size in bytes by fstat; 0 when fstat fails.
func fileSize(fd int) int64 {
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil {
		return 0
	}
	return st.Size
}
