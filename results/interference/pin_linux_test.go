//go:build linux

package interference

import (
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// TestPin pins the test process to one CPU: every thread's mask holds one
// CPU and GOMAXPROCS is 1; the original mask and GOMAXPROCS are restored.
func TestPin(t *testing.T) {
	var orig unix.CPUSet
	if err := unix.SchedGetaffinity(0, &orig); err != nil {
		t.Fatal(err)
	}
	procs := runtime.GOMAXPROCS(0)
	defer func() {
		if err := setAll(&orig); err != nil {
			t.Error(err)
		}
		runtime.GOMAXPROCS(procs)
	}()
	cpus, err := Pin(1)
	if err != nil {
		t.Fatal(err)
	}
	if len(cpus) != 1 || !orig.IsSet(cpus[0]) || runtime.GOMAXPROCS(0) != 1 || Allowed() != 1 {
		t.Fatalf("Pin(1) = %v, GOMAXPROCS %d, allowed %d", cpus, runtime.GOMAXPROCS(0), Allowed())
	}
	if _, err := Pin(0); err == nil {
		t.Error("Pin(0): no error")
	}
	if _, err := Pin(orig.Count() + 1); err == nil {
		t.Error("Pin above the allowed CPUs: no error")
	}
}
