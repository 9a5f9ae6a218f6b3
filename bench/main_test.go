package bench

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/results/interference"
)

// TestMain pins the process to -bench.cpus CPUs, when given, before any
// benchmark runs.
func TestMain(m *testing.M) {
	flag.Parse()
	if *benchCPUs != 0 {
		cpus, err := interference.Pin(*benchCPUs)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "bench: pinned to CPUs %v (GOMAXPROCS %d)\n", cpus, len(cpus))
	}
	os.Exit(m.Run())
}

// processCPU is the test process's user + system CPU time so far, every
// thread (getrusage RUSAGE_SELF).
func processCPU(tb testing.TB) time.Duration {
	user, sys := processUserSys(tb)
	return user + sys
}

// processUserSys is processCPU in its two parts: user and system (kernel)
// CPU time so far, every thread (getrusage RUSAGE_SELF's ru_utime and
// ru_stime).
func processUserSys(tb testing.TB) (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// reportInterference reports what else the machine did over a row: the
// other processes' CPU (other-cores; omitted when unknown) and, in the
// benchmark's log, the verdict with its reasons.
func reportInterference(b *testing.B, iv interference.Interval) {
	if iv.OtherCores >= 0 {
		b.ReportMetric(iv.OtherCores, "other-cores")
	}
	b.Logf("interference over the row: %s; %s", iv.VerdictText(), iv.MachineText())
}
