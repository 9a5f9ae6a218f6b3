package lab

import (
	"testing"
	"time"
)

// TestProgressLabel: no rate before a second of work; after it, the bytes,
// the rate in MiB/s and the time.
func TestProgressLabel(t *testing.T) {
	if got := progressLabel("clean", 5<<20, 999*time.Millisecond); got != "clean" {
		t.Errorf("before a second: %q", got)
	}
	// 30 MiB in 2 s: 15.0 MiB/s.
	if got := progressLabel("clean", 30<<20, 2*time.Second); got != "clean 30.0 MiB, 15.0 MiB/s, 2s" {
		t.Errorf("after 2 s: %q", got)
	}
	if got := progressLabelRuns("1/4 keys=1", 0, 5*time.Second); got != "1/4 keys=1" {
		t.Errorf("sweep before a run is done: %q", got)
	}
}
