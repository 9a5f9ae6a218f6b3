package results

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/iosched"
)

func TestBaselineCache(t *testing.T) {
	out := t.TempDir()
	p := BaselinePath(out, DataDir{Device: "vda"})
	if filepath.Base(p) != "baseline-vda.json" {
		t.Fatalf("path %s", p)
	}
	if q := BaselinePath(out, DataDir{FSType: "tmpfs", MountPoint: "/tmp"}); filepath.Base(q) != "baseline-tmpfs_tmp.json" {
		t.Fatalf("path %s", q)
	}
	if b, err := ReadBaseline(p); b != nil || err != nil {
		t.Fatalf("missing baseline: %v, %v", b, err)
	}
	want := &iosched.Baseline{Dir: "/data", MeasuredAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), DeviceReadBps: 2e9, DeviceWriteBps: 1e9,
		MemCopyBps: 1e10, DeviceReadSamples: []float64{2e9}, Device: "vda"}
	if err := WriteBaseline(p, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadBaseline(p)
	if err != nil || got.DeviceReadBps != 2e9 || got.MemCopyBps != 1e10 || !got.MeasuredAt.Equal(want.MeasuredAt) || got.Device != "vda" {
		t.Fatalf("read back %+v, %v", got, err)
	}
	// 1.5e9 B/s against 2e9 B/s of device reads and 1e10 of memory copy.
	if e := EfficiencyOf(1.5e9, got); e.OfDeviceRead != 0.75 || e.OfMemCopy != 0.15 {
		t.Fatalf("efficiency %+v", e)
	}
	if e := EfficiencyOf(1e9, nil); e != (Efficiency{}) {
		t.Fatalf("efficiency without a baseline %+v", e)
	}
}
