//go:build !linux

package iosched

import (
	"errors"
	"fmt"
	"runtime"
)

func reopenReadOnly(int) (int, error) {
	return -1, fmt.Errorf("iosched: read-ahead on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func preadAt(int, []byte, int64) (int, error) { return 0, errors.ErrUnsupported }

func closeFd(int) {}

func rangeCached(int, int64, int64) bool { return false }
