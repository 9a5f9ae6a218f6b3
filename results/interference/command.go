package interference

import (
	"os/exec"
	"syscall"
	"time"
)

// ChildrenCPU is the CPU time of this process's children that have ended
// and been waited for (getrusage RUSAGE_CHILDREN): a Sampler's SelfCPU
// when the work measured runs in child processes.
func ChildrenCPU() (user, system time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0, 0, err
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}

// MeasureCommand runs cmd (not started) to its end between two samples
// and returns the interval, in which "this process" is cmd and its
// children (their CPU time from RUSAGE_CHILDREN once waited for). The
// disk figures are left out: /proc/self/io does not count children, so
// their I/O could not be told from others'. Threads are not read. The
// error is cmd.Run's.
func MeasureCommand(cmd *exec.Cmd, procPath string, t Thresholds) (Interval, error) {
	s := Sampler{ProcPath: procPath, SelfCPU: ChildrenCPU}
	a := s.Take()
	err := cmd.Run()
	b := s.Take()
	// The children's threads are not this process's: no busiest thread.
	a.ThreadTicks, b.ThreadTicks = nil, nil
	a.Missing = append(a.Missing, SourceThreads+": the command's threads are not read")
	return Between(a, b, t), err
}
