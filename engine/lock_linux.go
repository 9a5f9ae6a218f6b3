package engine

import (
	"errors"

	"golang.org/x/sys/unix"
)

// ofdLock takes a whole-file, non-blocking open-file-description write
// lock (F_OFD_SETLK, Linux 3.15+). It conflicts with the classic fcntl
// record lock a JVM's FileChannel.tryLock takes, so a Kafka broker using
// the directory is seen. A kernel without OFD locks (EINVAL) gets the
// flock alone.
func ofdLock(f File) error {
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: 0, Len: 0}
	err := unix.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk)
	if errors.Is(err, unix.EINVAL) {
		return nil
	}
	return err
}
