//go:build !linux

package iosched

import (
	"errors"
	"fmt"
	"runtime"
)

func measureDevice(BaselineOptions, *Baseline) error {
	return fmt.Errorf("iosched: device baseline on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

// ProbeDirectIO is supported on Linux only; elsewhere it returns an error
// wrapping ErrDirectUnsupported and errors.ErrUnsupported.
func ProbeDirectIO(dir string) error {
	return fmt.Errorf("iosched: O_DIRECT on %s: %w: %w", runtime.GOOS, ErrDirectUnsupported, errors.ErrUnsupported)
}
