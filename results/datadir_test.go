package results

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/prometheus/procfs"
)

const mountinfo = `22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
40 27 259:2 / /data rw,noatime shared:5 - xfs /dev/nvme0n1p2 rw,attr2,inode64,logbufs=8,noquota
41 40 259:3 / /data/kafka rw,noatime,nodiratime - ext4 /dev/nvme1n1 rw,data=ordered
42 27 0:40 / /datax rw - tmpfs tmpfs rw,size=1024k
43 27 0:41 / /mnt/my\040disk rw - ext4 /dev/sdb1 rw
50 27 0:50 / /stacked rw - tmpfs tmpfs rw
51 27 8:17 / /stacked rw,noatime - ext4 /dev/sdb1 rw
52 27 0:52 / /stacked rw - tmpfs tmpfs rw
`

func TestMountFor(t *testing.T) {
	root := writeTree(t, t.TempDir(), map[string]string{"self/mountinfo": mountinfo})
	fs, err := procfs.NewFS(root)
	if err != nil {
		t.Fatal(err)
	}
	mounts, err := fs.GetMounts()
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path, dev  string
		mountPoint string
		fsType     string
		source     string
	}{
		{"/", "", "/", "ext4", "/dev/vda"},
		{"/tmp/x", "", "/", "ext4", "/dev/vda"},
		{"/data", "", "/data", "xfs", "/dev/nvme0n1p2"},
		{"/data/kafka-logs", "", "/data", "xfs", "/dev/nvme0n1p2"}, // not /data/kafka
		{"/data/kafka/topic-0", "", "/data/kafka", "ext4", "/dev/nvme1n1"},
		{"/data/kafka/../x", "", "/data", "xfs", "/dev/nvme0n1p2"},
		{"/datax/y", "", "/datax", "tmpfs", "tmpfs"},
		{"/mnt/my disk/logs", "", "/mnt/my\\040disk", "ext4", "/dev/sdb1"},
		{"/stacked/a", "", "/stacked", "tmpfs", "tmpfs"},        // top of the stack
		{"/stacked/a", "8:17", "/stacked", "ext4", "/dev/sdb1"}, // the one st_dev names
	}
	for _, c := range cases {
		m := MountFor(mounts, c.path, c.dev)
		if m == nil {
			t.Fatalf("%s: no mount", c.path)
		}
		if m.MountPoint != c.mountPoint || m.FSType != c.fsType || m.Source != c.source {
			t.Errorf("%s (dev %q): mount %s %s %s, want %s %s %s", c.path, c.dev,
				m.MountPoint, m.FSType, m.Source, c.mountPoint, c.fsType, c.source)
		}
	}
	if m := MountFor(mounts, "/data/kafka", ""); formatOptions(m.Options) != "noatime,nodiratime,rw" ||
		formatOptions(m.SuperOptions) != "data=ordered,rw" {
		t.Errorf("options %q / %q", formatOptions(m.Options), formatOptions(m.SuperOptions))
	}
	if m := MountFor(mounts[:1], "/data", ""); m != nil {
		t.Errorf("only /proc mounted, got %s", m.MountPoint)
	}
}

// fakeSys is a hand-written /sys with an NVMe disk and its partition, a virtio disk
// without a model, and a device-mapper disk over the partition.
func fakeSys(t *testing.T) string {
	return writeTree(t, t.TempDir(), map[string]string{
		"devices/pci0000:00/nvme/nvme0/nvme0n1/dev":                 "259:0\n",
		"devices/pci0000:00/nvme/nvme0/nvme0n1/device/model":        "Samsung SSD 990 PRO 2TB                 \n",
		"devices/pci0000:00/nvme/nvme0/nvme0n1/queue/rotational":    "0\n",
		"devices/pci0000:00/nvme/nvme0/nvme0n1/queue/scheduler":     "[none] mq-deadline kyber\n",
		"devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p2/partition": "2\n",
		"devices/virtual/block/dm-0/queue/rotational":               "0\n",
		"devices/virtual/block/dm-0/queue/scheduler":                "none\n",
		"devices/virtual/block/dm-0/slaves/nvme0n1p2":               "",
		"devices/pci0000:00/virtio1/block/vda/queue/rotational":     "1\n",
		"devices/pci0000:00/virtio1/block/vda/queue/scheduler":      "none [mq-deadline]\n",
		"block/nvme0n1":   "->../devices/pci0000:00/nvme/nvme0/nvme0n1",
		"block/dm-0":      "->../devices/virtual/block/dm-0",
		"block/vda":       "->../devices/pci0000:00/virtio1/block/vda",
		"dev/block/259:0": "->../../devices/pci0000:00/nvme/nvme0/nvme0n1",
		"dev/block/259:2": "->../../devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p2",
		"dev/block/253:0": "->../../devices/virtual/block/dm-0",
		"dev/block/254:0": "->../../devices/pci0000:00/virtio1/block/vda",
	})
}

func TestBlockDevice(t *testing.T) {
	src := Source{ProcPath: t.TempDir(), SysPath: fakeSys(t)}
	yes, no := true, false
	cases := []struct {
		major, minor uint32
		want         BlockDevice
	}{
		{259, 2, BlockDevice{Name: "nvme0n1p2", Disk: "nvme0n1", Partition: true, Model: "Samsung SSD 990 PRO 2TB", Rotational: &no, Scheduler: "none"}},
		{259, 0, BlockDevice{Name: "nvme0n1", Disk: "nvme0n1", Model: "Samsung SSD 990 PRO 2TB", Rotational: &no, Scheduler: "none"}},
		{254, 0, BlockDevice{Name: "vda", Disk: "vda", Rotational: &yes, Scheduler: "mq-deadline"}},
		{253, 0, BlockDevice{Name: "dm-0", Disk: "dm-0", Rotational: &no, Scheduler: "none", Slaves: []string{"nvme0n1p2"}}},
	}
	for _, c := range cases {
		got, err := src.BlockDevice(c.major, c.minor)
		if err != nil {
			t.Fatalf("%d:%d: %v", c.major, c.minor, err)
		}
		w := c.want
		if got.Name != w.Name || got.Disk != w.Disk || got.Partition != w.Partition || got.Model != w.Model ||
			*got.Rotational != *w.Rotational || got.Scheduler != w.Scheduler || strings.Join(got.Slaves, ",") != strings.Join(w.Slaves, ",") {
			t.Errorf("%d:%d: got %+v, want %+v", c.major, c.minor, got, w)
		}
		if (w.Model == "") != (len(got.Notes) == 1) {
			t.Errorf("%d:%d: notes %q", c.major, c.minor, got.Notes)
		}
	}
	if _, err := src.BlockDevice(8, 99); err == nil {
		t.Error("unknown 8:99 resolved")
	}
}

// fsNames are the mountinfo types that share one statfs magic (hex, as stat -f %t).
var fsNames = map[string][]string{
	"ef53":     {"ext2", "ext3", "ext4"},
	"58465342": {"xfs"},
	"9123683e": {"btrfs"},
	"1021994":  {"tmpfs"},
	"794c7630": {"overlay"},
	"2fc12fc1": {"zfs"},
	"f2f52010": {"f2fs"},
}

func TestCaptureEnvironmentRealMachine(t *testing.T) {
	env, err := CaptureEnvironment(os.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range env.Notes {
		t.Logf("note: %s", n)
	}
	if env.KernelRelease == "" || env.GoVersion != runtime.Version() || env.GOOS != runtime.GOOS {
		t.Fatalf("kernel %q, go %q, goos %q", env.KernelRelease, env.GoVersion, env.GOOS)
	}
	if env.LogicalCores < 1 || env.MemTotalBytes <= 0 || env.Commit == "" || env.Hostname == "" {
		t.Fatalf("cores %d, memory %d, commit %q, host %q", env.LogicalCores, env.MemTotalBytes, env.Commit, env.Hostname)
	}
	if uname, err := exec.Command("uname", "-r").Output(); err == nil && strings.TrimSpace(string(uname)) != env.KernelRelease {
		t.Errorf("kernel %q, uname -r says %q", env.KernelRelease, uname)
	}
	if out, err := exec.Command("git", "rev-parse", "HEAD").Output(); err == nil && env.CommitSource == "git" &&
		strings.TrimSpace(string(out)) != env.Commit {
		t.Errorf("commit %q, git says %q", env.Commit, out)
	}

	dd := env.DataDir
	t.Logf("commit %s (%s, modified %v); data dir %+v", env.Commit, env.CommitSource, env.CommitModified != nil && *env.CommitModified, dd)
	magic, err := exec.Command("stat", "-f", "-c", "%t", os.TempDir()).Output()
	if err != nil {
		t.Skipf("stat -f: %v", err)
	}
	if got := strings.TrimSpace(string(magic)); got != dd.FSMagic {
		t.Fatalf("fs magic %q, stat -f says %q", dd.FSMagic, got)
	}
	if names, ok := fsNames[dd.FSMagic]; ok {
		found := false
		for _, n := range names {
			found = found || n == dd.FSType
		}
		if !found {
			t.Fatalf("fs type %q, but stat -f's magic %s is %v", dd.FSType, dd.FSMagic, names)
		}
	} else {
		name, _ := exec.Command("stat", "-f", "-c", "%T", os.TempDir()).Output()
		if strings.TrimSpace(string(name)) != dd.FSType {
			t.Fatalf("fs type %q, stat -f says %q", dd.FSType, name)
		}
	}
	if dd.MountPoint == "" || dd.DevNumber == "" {
		t.Fatalf("mount %q, dev %q", dd.MountPoint, dd.DevNumber)
	}
	// When the file system has a block device, diskstats must know it by that name.
	if dd.Device != "" {
		c, err := Snapshot(dd.Device)
		if err != nil || c.DiskNote != "" {
			t.Fatalf("Snapshot(%q): %v %q", dd.Device, err, c.DiskNote)
		}
		if _, err := os.Stat(filepath.Join("/sys/block", dd.Disk)); err != nil {
			t.Fatalf("disk %q: %v", dd.Disk, err)
		}
	}
}
