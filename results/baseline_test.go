package results

import (
	"os"
	"path/filepath"
	"strings"
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

// TestBaselineStale: a cached baseline is used only while it describes the
// data directory: same kernel, device, file system and mount, measured by
// this schema, within BaselineMaxAge.
func TestBaselineStale(t *testing.T) {
	env := Environment{KernelRelease: "6.18.44", DataDir: DataDir{Device: "vda", FSType: "ext4", MountPoint: "/", MountOptions: "relatime,rw"}}
	measured := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	fresh := func() *iosched.Baseline {
		b := &iosched.Baseline{SchemaVersion: iosched.BaselineSchemaVersion, MeasuredAt: measured}
		StampBaseline(b, env)
		return b
	}
	if b := fresh(); b.Device != "vda" || b.FileSystem != "ext4" || b.MountPoint != "/" || b.MountOptions != "relatime,rw" || b.Kernel != "6.18.44" {
		t.Fatalf("stamped %+v", b)
	}
	day := 24 * time.Hour
	for _, c := range []struct {
		name   string
		change func(b *iosched.Baseline)
		now    time.Time
		want   string // a part of the reason; "" for fresh
	}{
		{"fresh", func(*iosched.Baseline) {}, measured.Add(29 * day), ""},
		{"30 days is still fresh", func(*iosched.Baseline) {}, measured.Add(30 * day), ""},
		{"too old", func(*iosched.Baseline) {}, measured.Add(30*day + time.Second), "more than 30 days ago"},
		{"old schema", func(b *iosched.Baseline) { b.SchemaVersion = 0 }, measured, "schema version 0"},
		{"kernel", func(b *iosched.Baseline) { b.Kernel = "6.1.0" }, measured, `kernel "6.1.0", this is "6.18.44"`},
		{"device", func(b *iosched.Baseline) { b.Device = "nvme0n1" }, measured, `device "nvme0n1"`},
		{"file system", func(b *iosched.Baseline) { b.FileSystem = "xfs" }, measured, "(xfs)"},
		{"mount point", func(b *iosched.Baseline) { b.MountPoint = "/data" }, measured, "mount /data"},
		{"mount options", func(b *iosched.Baseline) { b.MountOptions = "noatime,rw" }, measured, "(noatime,rw)"},
	} {
		b := fresh()
		c.change(b)
		got := BaselineStale(b, env, c.now, BaselineMaxAge)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s: stale reason %q, want one containing %q", c.name, got, c.want)
		}
	}
}

func TestCPUInfoHypervisor(t *testing.T) {
	guest := "processor\t: 0\nflags\t\t: fpu vme de pse hypervisor lahf_lm\n\nprocessor\t: 1\n"
	host := "processor\t: 0\nflags\t\t: fpu vme de pse lahf_lm\nbugs\t\t: hypervisor_like\n"
	if !cpuinfoHasHypervisor(guest) || cpuinfoHasHypervisor(host) || cpuinfoHasHypervisor("") {
		t.Fatal("hypervisor flag misread")
	}
}

// TestBaselineOldRecordIsStale: a baseline-<device>.json written before the
// cold-read check (no schema_version, no kernel or mount) still loads, and
// is stale, so run measures anew.
func TestBaselineOldRecordIsStale(t *testing.T) {
	p := filepath.Join(t.TempDir(), "baseline-vda.json")
	old := `{"dir": "/tmp", "measured_at": "2026-11-30T00:00:00Z", "file_bytes": 268435456, "block_bytes": 1048576, "runs": 3,
  "device_read_bps": 1243611136, "device_write_bps": 1e9, "mem_copy_bps": 1e10, "device": "vda", "file_system": "ext4"}`
	if err := os.WriteFile(p, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := ReadBaseline(p)
	if err != nil || b.DeviceReadBps != 1243611136 || b.SchemaVersion != 0 {
		t.Fatalf("old record: %+v, %v", b, err)
	}
	env := Environment{KernelRelease: "6.18.44", DataDir: DataDir{Device: "vda", FSType: "ext4"}}
	if why := BaselineStale(b, env, b.MeasuredAt, BaselineMaxAge); !strings.Contains(why, "schema version 0") {
		t.Fatalf("old record stale reason %q", why)
	}
}
