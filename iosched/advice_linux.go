package iosched

import "golang.org/x/sys/unix"

// fadvise gives posix_fadvise advice over [off, off+n) of fd (n 0: to the
// end of the file).
func fadvise(fd int, off, n int64, kind adviceKind) error {
	adv := unix.FADV_NORMAL
	switch kind {
	case adviseSequential:
		adv = unix.FADV_SEQUENTIAL
	case adviseWillneed:
		adv = unix.FADV_WILLNEED
	case adviseDontneed:
		adv = unix.FADV_DONTNEED
	}
	return unix.Fadvise(fd, off, n, adv)
}
