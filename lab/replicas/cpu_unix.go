//go:build unix

package replicas

import (
	"syscall"
	"time"
)

// processCPU is this process's user + system CPU time so far
// (getrusage RUSAGE_SELF: every thread, exited ones included); 0 when
// it cannot be read.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
