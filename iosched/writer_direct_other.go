//go:build !linux

package iosched

import "errors"

var errNoDirectWrite = errors.New("O_DIRECT writes are supported on Linux only")

var errInvalid = errors.New("invalid argument")

func openDirectWrite(int) (int, error)              { return -1, errNoDirectWrite }
func pwriteFull(int, []byte, int64) (int, error)    { return 0, errNoDirectWrite }
func appendOffset(int) (off int64, append, ok bool) { return 0, false, false }
func seekTo(int, int64) error                       { return errNoDirectWrite }
