package results

import (
	"testing"

	"golang.org/x/sys/unix"
)

// TestPeakRSS: touching 64 MiB of fresh anonymous memory after
// ResetPeakRSS raises the peak by at least those 64 MiB over the resident
// set at the reset; once they are unmapped, a second reset brings the
// peak back down by at least half of them. (The memory is mmap'd, not Go
// heap, so that neither the GC nor the race detector's shadow memory
// decides when it leaves the resident set.)
func TestPeakRSS(t *testing.T) {
	const n = 64 << 20
	if err := ResetPeakRSS(); err != nil {
		t.Fatalf("ResetPeakRSS: %v", err)
	}
	at, err := ResidentBytes()
	if err != nil {
		t.Fatal(err)
	}
	buf, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
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
	if err := unix.Munmap(buf); err != nil {
		t.Fatal(err)
	}
	if err := ResetPeakRSS(); err != nil {
		t.Fatalf("ResetPeakRSS again: %v", err)
	}
	after, err := PeakRSS()
	if err != nil {
		t.Fatal(err)
	}
	if after > peak-n/2 {
		t.Errorf("peak RSS %d after unmapping %d bytes and resetting, want at most %d (the reset is not taken)", after, n, peak-n/2)
	}
}
