package iosched

import (
	"errors"
	"io"
)

// WarmFile reads f once from byte 0 to its end through buf (a scratch buffer; nil
// gives a 1 MiB one), so that its pages are in the page cache. Errors are *IOError
// values naming the position.
func WarmFile(f File, buf []byte) error {
	if len(buf) == 0 {
		buf = make([]byte, 1<<20)
	}
	var pos int64
	for {
		n, err := f.ReadAt(buf, pos)
		pos += int64(n)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return &IOError{Op: "warm read", Path: f.Name(), Pos: pos, Err: err}
		}
		if n == 0 {
			return &IOError{Op: "warm read", Path: f.Name(), Pos: pos, Err: ErrNoProgress}
		}
	}
}
