//go:build !linux

package iosched

import (
	"errors"
	"fmt"
	"runtime"
	"time"
)

func newMmapReader(int, int) (SegmentReader, error) {
	return nil, fmt.Errorf("iosched: mmap read path on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func newDirectReader(int, int, bool) (SegmentReader, error) {
	return nil, fmt.Errorf("iosched: direct read path on %s: %w", runtime.GOOS, errors.ErrUnsupported)
}

func fadvise(int, int64, int64, adviceKind) error { return errNoPageCacheControl }

// fdatasync is not done here: Datasync falls back to File.Sync.
func fdatasync(int) (bool, error) { return false, nil }

func syncFileRange(int, int64, int64, int) error { return nil }

func fileSize(int) int64 { return 0 }

// ThreadPhaseProbe reads Linux's /proc; elsewhere it measures the wall time
// only and says so in Missing.
func ThreadPhaseProbe(phase string, inputs []FileSpan) func() PhaseCounters {
	start := time.Now()
	return func() PhaseCounters {
		return PhaseCounters{Scope: "process", Wall: time.Since(start), Missing: []string{runtime.GOOS + ": no /proc counters"}}
	}
}
