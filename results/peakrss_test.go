package results

import (
	"runtime"
	"runtime/debug"
	"testing"
)

// TestPeakRSS: touching 64 MiB of fresh memory after ResetPeakRSS raises
// the peak by at least those 64 MiB over the resident set at the reset;
// once they are freed and returned to the OS, a second reset brings the
// peak back down by at least half of them.
func TestPeakRSS(t *testing.T) {
	const n = 64 << 20
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	if err := ResetPeakRSS(); err != nil {
		t.Fatalf("ResetPeakRSS: %v", err)
	}
	at, err := residentBytes()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, n)
	for i := 0; i < n; i += 4096 {
		buf[i] = 1
	}
	peak, err := PeakRSS()
	if err != nil {
		t.Fatalf("PeakRSS: %v", err)
	}
	if peak < at+n {
		t.Fatalf("peak RSS %d after touching %d bytes, want at least the %d resident at the reset plus them", peak, n, at)
	}
	runtime.KeepAlive(buf)
	buf = nil
	runtime.GC()
	debug.FreeOSMemory()
	if err := ResetPeakRSS(); err != nil {
		t.Fatalf("ResetPeakRSS again: %v", err)
	}
	after, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	if after > peak-n/2 {
		t.Errorf("peak RSS %d after freeing %d bytes and resetting, want at most %d (the reset is not taken)", after, n, peak-n/2)
	}
}
