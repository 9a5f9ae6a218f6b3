//go:build !linux

package interference

import (
	"errors"
	"runtime"
)

// Pin is supported on Linux only.
func Pin(n int) ([]int, error) {
	return nil, errors.New("interference: --cpus: pinning to CPUs needs Linux's sched_setaffinity")
}

// Allowed returns runtime.NumCPU().
func Allowed() int { return runtime.NumCPU() }

// AllowedSet returns 0 .. runtime.NumCPU()-1.
func AllowedSet() []int {
	set := make([]int, runtime.NumCPU())
	for i := range set {
		set[i] = i
	}
	return set
}
