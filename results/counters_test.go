package results

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// writeTree writes files (path -> content) under root and returns root. A content
// starting with "->" makes a symlink to the rest.
func writeTree(t *testing.T, root string, files map[string]string) string {
	t.Helper()
	for path, content := range files {
		full := filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(content, "->"); ok {
			if err := os.Symlink(target, full); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// fakeProc is a hand-written /proc: meminfo, diskstats (kernel 5.5+ layout with 20
// fields, and an old 14-field line), vmstat, and self -> 4242 with io and mountinfo.
func fakeProc(t *testing.T) string {
	return writeTree(t, t.TempDir(), map[string]string{
		"meminfo": `MemTotal:       16384000 kB
MemFree:         1000000 kB
Buffers:           12345 kB
Cached:          2097152 kB
SwapCached:            0 kB
Dirty:              1536 kB
Writeback:            64 kB
`,
		"diskstats": `   7       0 loop0 10 0 20 3 0 0 0 0 0 4 3 0 0 0 0 0 0
 254       0 vda 123456 789 9876543 4567 234567 890 8765432 7654 0 12345 23456 0 0 0 0 3210 98
 254       1 vda1 1000 2 3000 40 5000 6 70000 80 0 900 1000
 259       0 nvme0n1 11 22 33 44 55 66 77 88 1 99 111 0 0 0 0 12 34
`,
		"vmstat": `nr_free_pages 250000
pgpgin 4194304
pgpgout 2097152
pswpin 0
pgfault 987654321
pgmajfault 4321
`,
		"self":           "->4242",
		"4242/io":        "rchar: 1073741824\nwchar: 536870912\nsyscr: 4096\nsyscw: 2048\nread_bytes: 268435456\nwrite_bytes: 134217728\ncancelled_write_bytes: 0\n",
		"4242/mountinfo": "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n",
	})
}

func TestSnapshotReadsFakeProc(t *testing.T) {
	src := Source{ProcPath: fakeProc(t), SysPath: t.TempDir()}
	c, err := src.Snapshot("vda")
	if err != nil {
		t.Fatal(err)
	}
	want := Counters{
		TakenAt:                c.TakenAt,
		CachedBytes:            2097152 * 1024,
		DirtyBytes:             1536 * 1024,
		WritebackBytes:         64 * 1024,
		Device:                 "vda",
		DiskReadsCount:         123456,
		DiskReadBytes:          9876543 * 512,
		DiskWritesCount:        234567,
		DiskWrittenBytes:       8765432 * 512,
		DiskIOTicksMs:          12345,
		DiskReadTimeMs:         4567,
		DiskWriteTimeMs:        7654,
		DiskFlushesCount:       3210,
		DiskFlushTimeMs:        98,
		ProcReadCharBytes:      1073741824,
		ProcWriteCharBytes:     536870912,
		ProcReadBytes:          268435456,
		ProcWriteBytes:         134217728,
		ProcReadSyscallsCount:  4096,
		ProcWriteSyscallsCount: 2048,
		PagedInBytes:           4194304 * 1024,
		PagedOutBytes:          2097152 * 1024,
		MajorFaultsCount:       4321,
		PageFaultsCount:        987654321,
	}
	if !reflect.DeepEqual(c, want) {
		t.Fatalf("snapshot\n got %+v\nwant %+v", c, want)
	}

	// A partition line of the old 14-field layout (no flush fields).
	p, err := src.Snapshot("vda1")
	if err != nil {
		t.Fatal(err)
	}
	if p.DiskReadsCount != 1000 || p.DiskReadBytes != 3000*512 || p.DiskWrittenBytes != 70000*512 ||
		p.DiskIOTicksMs != 900 || p.DiskWriteTimeMs != 80 || p.DiskFlushesCount != 0 || p.DiskNote != "" {
		t.Fatalf("vda1: %+v", p)
	}

	// A device diskstats lacks, and none at all: a note, not a failure.
	for _, dev := range []string{"overlay", ""} {
		n, err := src.Snapshot(dev)
		if err != nil {
			t.Fatalf("Snapshot(%q): %v", dev, err)
		}
		if n.DiskNote == "" || n.DiskReadBytes != 0 || n.CachedBytes != want.CachedBytes {
			t.Fatalf("Snapshot(%q): %+v", dev, n)
		}
	}
}

func TestSnapshotMissingSource(t *testing.T) {
	root := fakeProc(t)
	if err := os.Remove(filepath.Join(root, "vmstat")); err != nil {
		t.Fatal(err)
	}
	c, err := Source{ProcPath: root, SysPath: t.TempDir()}.Snapshot("vda")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Missing) != 1 || !strings.HasPrefix(c.Missing[0], SourceVmstat+":") {
		t.Fatalf("missing = %q", c.Missing)
	}
	if c.DiskReadsCount != 123456 || c.PagedInBytes != 0 {
		t.Fatalf("counters %+v", c)
	}
	d := c.Delta(c)
	if !d.missing(SourceVmstat) || d.missing(SourceMeminfo) {
		t.Fatalf("delta missing = %q", d.Missing)
	}
}

func TestSnapshotRealMachine(t *testing.T) {
	c, err := Snapshot("")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Missing) > 0 {
		t.Fatalf("missing on this machine: %q", c.Missing)
	}
	if c.CachedBytes <= 0 || c.ProcReadCharBytes <= 0 || c.PageFaultsCount <= 0 {
		t.Fatalf("implausible counters: %+v", c)
	}
}

func TestDelta(t *testing.T) {
	t0 := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	before := Counters{
		TakenAt: t0, CachedBytes: 1000, DirtyBytes: 500, WritebackBytes: 10, Device: "vda",
		DiskReadsCount: 10, DiskReadBytes: 4096, DiskWritesCount: 20, DiskWrittenBytes: 8192,
		DiskIOTicksMs: 100, DiskReadTimeMs: 30, DiskWriteTimeMs: 40, DiskFlushesCount: 1, DiskFlushTimeMs: 2,
		ProcReadCharBytes: 1, ProcWriteCharBytes: 2, ProcReadBytes: 3, ProcWriteBytes: 4,
		ProcReadSyscallsCount: 5, ProcWriteSyscallsCount: 6,
		PagedInBytes: 1024, PagedOutBytes: 2048, MajorFaultsCount: 7, PageFaultsCount: 8,
		Missing: []string{"vmstat: gone"},
	}
	after := Counters{
		TakenAt: t0.Add(1500 * time.Millisecond), CachedBytes: 600, DirtyBytes: 700, WritebackBytes: 10, Device: "vda",
		DiskReadsCount: 15, DiskReadBytes: 4096 + 1<<20, DiskWritesCount: 26, DiskWrittenBytes: 8192 + 3<<20,
		DiskIOTicksMs: 1100, DiskReadTimeMs: 330, DiskWriteTimeMs: 440, DiskFlushesCount: 4, DiskFlushTimeMs: 12,
		ProcReadCharBytes: 11, ProcWriteCharBytes: 22, ProcReadBytes: 33, ProcWriteBytes: 44,
		ProcReadSyscallsCount: 55, ProcWriteSyscallsCount: 66,
		PagedInBytes: 1024 + 4096, PagedOutBytes: 2048, MajorFaultsCount: 17, PageFaultsCount: 108,
		Missing: []string{"vmstat: gone", "self/io: denied"},
	}
	want := CounterDelta{
		ElapsedNs: 1_500_000_000, CachedBytes: -400, DirtyBytes: 200, WritebackBytes: 0, Device: "vda",
		DiskReadsCount: 5, DiskReadBytes: 1 << 20, DiskWritesCount: 6, DiskWrittenBytes: 3 << 20,
		DiskIOTicksMs: 1000, DiskReadTimeMs: 300, DiskWriteTimeMs: 400, DiskFlushesCount: 3, DiskFlushTimeMs: 10,
		ProcReadCharBytes: 10, ProcWriteCharBytes: 20, ProcReadBytes: 30, ProcWriteBytes: 40,
		ProcReadSyscallsCount: 50, ProcWriteSyscallsCount: 60,
		PagedInBytes: 4096, PagedOutBytes: 0, MajorFaultsCount: 10, PageFaultsCount: 100,
		Missing: []string{"vmstat: gone", "self/io: denied"},
	}
	got := after.Delta(before)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("delta\n got %+v\nwant %+v", got, want)
	}
	if got.Elapsed() != 1500*time.Millisecond {
		t.Fatalf("Elapsed %v", got.Elapsed())
	}

	// Different devices, or a device without diskstats: no disk figures, a note.
	other := after
	other.Device = "sda"
	if d := other.Delta(before); d.DiskNote == "" || d.DiskReadBytes != 0 || d.ProcReadBytes != 30 {
		t.Fatalf("different devices: %+v", d)
	}
	noDisk := after
	noDisk.DiskNote = "device \"vda\" is not in /proc/diskstats"
	if d := noDisk.Delta(before); d.DiskNote != noDisk.DiskNote || d.DiskWritesCount != 0 {
		t.Fatalf("no disk: %+v", d)
	}
}

// TestSnapshotNoProc: with no proc tree at all, Snapshot fails and names
// every source as missing, so that a snapshot kept anyway reads as n/a,
// not as zeros (lab.CounterRows prints n/a for each).
func TestSnapshotNoProc(t *testing.T) {
	c, err := Source{ProcPath: filepath.Join(t.TempDir(), "absent"), SysPath: t.TempDir()}.Snapshot("vda")
	if err == nil {
		t.Fatal("no error without a proc tree")
	}
	d := c.Delta(c)
	for _, src := range []string{SourceMeminfo, SourceDiskstats, SourceSelfIO, SourceVmstat} {
		if !d.missing(src) || d.Measured(src) {
			t.Errorf("%s not marked missing: %q", src, d.Missing)
		}
	}
}
