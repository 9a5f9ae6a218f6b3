//go:build !linux

package iosched

import (
	"errors"
	"fmt"
	"runtime"
)

// errNoPageCacheControl: fdatasync, fadvise, drop_caches and mincore are used through
// their Linux interfaces only.
var errNoPageCacheControl = fmt.Errorf("iosched: page-cache control on %s: %w", runtime.GOOS, errors.ErrUnsupported)

// DropFileCache is supported on Linux only; elsewhere it returns an error wrapping
// errors.ErrUnsupported.
func DropFileCache(f File) error { return errNoPageCacheControl }

// DropCachesGlobal is supported on Linux only; elsewhere it returns an error wrapping
// errors.ErrUnsupported.
func DropCachesGlobal() error { return errNoPageCacheControl }

// Residency is supported on Linux only; elsewhere it returns an error wrapping
// errors.ErrUnsupported.
func Residency(f File, size int64) (int64, error) { return 0, errNoPageCacheControl }

// FileCacheState is supported on Linux only; elsewhere it returns an error
// wrapping errors.ErrUnsupported.
func FileCacheState(f File, size int64) (CacheState, error) {
	return CacheState{}, errNoPageCacheControl
}

// RangeCacheState is supported on Linux only; elsewhere it returns an error
// wrapping errors.ErrUnsupported.
func RangeCacheState(f File, off, n int64) (CacheState, error) {
	return CacheState{}, errNoPageCacheControl
}

// MincoreResidency is supported on Linux only; elsewhere it returns an error
// wrapping errors.ErrUnsupported.
func MincoreResidency(f File, size int64) (int64, error) { return 0, errNoPageCacheControl }

// ResidencyMethod is "" where page-cache residency cannot be measured.
func ResidencyMethod() string { return "" }
