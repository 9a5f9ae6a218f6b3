//go:build linux

package interference

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// Pin restricts this process to n of the CPUs it may run on now (the
// lowest-numbered n of its affinity mask) and sets GOMAXPROCS to n, so
// that a run uses at most n cores whatever else the machine does, and two
// profiles can be compared on the same cores. sched_setaffinity applies to
// one thread; Pin applies it to every thread of the process (listed in
// /proc/self/task, twice, for threads started meanwhile; threads started
// later inherit the mask of the thread that starts them). It returns the
// CPUs chosen. Errors: n < 1, n above the CPUs allowed now, or a
// sched_setaffinity failure (the mask is then partly applied: exit).
func Pin(n int) ([]int, error) {
	var cur unix.CPUSet
	if err := unix.SchedGetaffinity(0, &cur); err != nil {
		return nil, fmt.Errorf("--cpus %d: sched_getaffinity: %w", n, err)
	}
	if n < 1 || n > cur.Count() {
		return nil, fmt.Errorf("--cpus %d: want 0 (no pinning) or 1..%d (the CPUs this process may use)", n, cur.Count())
	}
	var set unix.CPUSet
	var cpus []int
	for c := 0; len(cpus) < n && c < 1024; c++ {
		if cur.IsSet(c) {
			set.Set(c)
			cpus = append(cpus, c)
		}
	}
	if err := setAll(&set); err != nil {
		return nil, fmt.Errorf("--cpus %d: %w", n, err)
	}
	runtime.GOMAXPROCS(n)
	return cpus, nil
}

// Allowed returns the number of CPUs this process may run on now.
func Allowed() int {
	return len(AllowedSet())
}

// AllowedSet returns the CPUs this process may run on now, in order (all
// of runtime.NumCPU's count, from 0, when the mask cannot be read).
func AllowedSet() []int {
	var cur unix.CPUSet
	var set []int
	if err := unix.SchedGetaffinity(0, &cur); err != nil {
		for c := range runtime.NumCPU() {
			set = append(set, c)
		}
		return set
	}
	for c := 0; len(set) < cur.Count() && c < 8192; c++ {
		if cur.IsSet(c) {
			set = append(set, c)
		}
	}
	return set
}

// setAll applies set to every thread of this process.
func setAll(set *unix.CPUSet) error {
	for pass := 0; pass < 2; pass++ {
		ents, err := os.ReadDir("/proc/self/task")
		if err != nil {
			// No /proc: the calling thread alone.
			if err := unix.SchedSetaffinity(0, set); err != nil {
				return fmt.Errorf("sched_setaffinity: %w", err)
			}
			return nil
		}
		for _, e := range ents {
			tid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if err := unix.SchedSetaffinity(tid, set); err != nil && err != unix.ESRCH {
				return fmt.Errorf("sched_setaffinity of thread %d: %w", tid, err)
			}
		}
	}
	return nil
}
