package iosched

import (
	"os"
	"testing"
)

// TestMeasureBaseline measures a small file: every figure is positive and
// is the median of its samples, and the test file is gone afterwards.
func TestMeasureBaseline(t *testing.T) {
	dir := t.TempDir()
	b, err := MeasureBaseline(BaselineOptions{Dir: dir, FileBytes: 4 << 20, BlockBytes: 1 << 20, Runs: 3, MemBytes: 4 << 20})
	if err != nil {
		t.Skipf("O_DIRECT not available in %s: %v", dir, err)
	}
	for name, v := range map[string]struct {
		median  float64
		samples []float64
	}{"read": {b.DeviceReadBps, b.DeviceReadSamples}, "write": {b.DeviceWriteBps, b.DeviceWriteSamples}, "memcopy": {b.MemCopyBps, b.MemCopySamples}} {
		if len(v.samples) != 3 || v.median <= 0 || v.median != median(v.samples) {
			t.Fatalf("%s: median %v of %v", name, v.median, v.samples)
		}
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("left in %s: %v (%v)", dir, ents, err)
	}
	if median([]float64{3, 1, 2}) != 2 || median([]float64{4, 1, 3, 2}) != 2.5 || median(nil) != 0 {
		t.Fatal("median")
	}
	if _, err := MeasureBaseline(BaselineOptions{Dir: dir, BlockBytes: 1000}); err == nil {
		t.Fatal("unaligned block size accepted")
	}
}
