package iosched

import "golang.org/x/sys/unix"

// errInvalid is EINVAL: what a file system that needs a larger alignment
// answers an O_DIRECT write.
var errInvalid error = unix.EINVAL

// openDirectWrite opens a second descriptor of the file of fd for writing
// with O_DIRECT (through /proc/self/fd, as the direct read path does).
func openDirectWrite(fd int) (int, error) {
	return reopen(fd, unix.O_WRONLY|unix.O_DIRECT|unix.O_CLOEXEC)
}

// pwriteFull writes all of p at off, retrying EINTR and short writes that
// report no error; it returns the bytes written.
func pwriteFull(fd int, p []byte, off int64) (int, error) {
	done := 0
	for done < len(p) {
		n, err := unix.Pwrite(fd, p[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if n > 0 {
			done += n
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			return done, ErrNoProgress
		}
	}
	return done, nil
}

// appendOffset is where a Write of fd lands: the file's end when fd was
// opened O_APPEND (append true), else its offset; ok false when fd cannot
// say.
func appendOffset(fd int) (off int64, append, ok bool) {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return 0, false, false
	}
	if flags&unix.O_APPEND != 0 {
		return fileSize(fd), true, true
	}
	off, err = unix.Seek(fd, 0, unix.SEEK_CUR)
	return off, false, err == nil
}

// seekTo sets fd's offset to off.
func seekTo(fd int, off int64) error {
	_, err := unix.Seek(fd, off, unix.SEEK_SET)
	return err
}
