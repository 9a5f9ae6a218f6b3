package results

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
	"golang.org/x/sys/unix"
)

// DataDir describes the file system and block device holding a data directory.
type DataDir struct {
	Path string `json:"path"` // absolute, symlinks resolved
	// From statfs(2) of Path.
	FSMagic string `json:"fs_magic"` // f_type in hex without 0x, as `stat -f -c %t` prints it
	// From the mount in /proc/self/mountinfo with the longest mount point that is a
	// prefix of Path.
	MountPoint   string `json:"mount_point"`
	FSType       string `json:"fs_type"`       // "ext4", "xfs", "tmpfs", "overlay", ...
	MountSource  string `json:"mount_source"`  // "/dev/nvme0n1p2", "tmpfs", ...
	MountOptions string `json:"mount_options"` // per-mount options, sorted: "noatime,rw"
	SuperOptions string `json:"super_options"` // file system (superblock) options, sorted
	// From st_dev of Path and /sys/dev/block/<major>:<minor>.
	DevNumber string `json:"dev_number"` // "major:minor" of the file system's device
	// Device is the block device the file system sits on ("nvme0n1p2", "vda", "dm-0");
	// empty for a file system without one (tmpfs, overlay, nfs). It is the name to
	// give Snapshot: its line of /proc/diskstats counts this file system's I/O.
	Device string `json:"device"`
	Disk   string `json:"disk"` // the whole disk: Device itself, or a partition's parent ("nvme0n1")
	// Of Disk, from /sys/block/<disk>/...
	Model      string `json:"model"`                // device/model, trimmed; empty when absent
	Rotational *bool  `json:"rotational,omitempty"` // queue/rotational; nil when absent
	Scheduler  string `json:"scheduler"`            // the active one of queue/scheduler ("none", "mq-deadline")
	// Slaves lists the devices under a device-mapper or md device (/sys/block/<disk>/slaves).
	Slaves []string `json:"slaves,omitempty"`
}

// describeDataDir fills a DataDir, noting what it could not read.
func (s Source) describeDataDir(dir string, note func(string, ...any)) DataDir {
	var d DataDir
	abs, err := filepath.Abs(dir)
	if err != nil {
		note("data dir %s: %v", dir, err)
		return d
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	} else {
		note("data dir %s: resolving symlinks: %v", abs, err)
	}
	d.Path = abs

	var sfs unix.Statfs_t
	if err := unix.Statfs(abs, &sfs); err != nil {
		note("statfs %s: %v", abs, err)
	} else {
		d.FSMagic = strconv.FormatUint(uint64(sfs.Type), 16)
	}

	var major, minor uint32
	var st unix.Stat_t
	if err := unix.Stat(abs, &st); err != nil {
		note("stat %s: %v", abs, err)
	} else {
		major, minor = unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)) // st_dev is int32 on darwin
		d.DevNumber = fmt.Sprintf("%d:%d", major, minor)
	}

	fs, err := s.procFS()
	if err == nil {
		var mounts []*procfs.MountInfo
		mounts, err = fs.GetMounts()
		if err == nil {
			if m := MountFor(mounts, abs, d.DevNumber); m != nil {
				d.MountPoint = m.MountPoint
				d.FSType = m.FSType
				d.MountSource = m.Source
				d.MountOptions = formatOptions(m.Options)
				d.SuperOptions = formatOptions(m.SuperOptions)
			} else {
				note("mountinfo: no mount holds %s", abs)
			}
		}
	}
	if err != nil {
		note("mountinfo: %v", err)
	}

	if d.DevNumber == "" {
		return d
	}
	// btrfs and some others report an anonymous 0:N st_dev; the mount source names
	// the real device then.
	if major == 0 {
		if !strings.HasPrefix(d.MountSource, "/dev/") {
			note("data dir is on %s (%s), which has no block device: disk figures are not available", d.FSType, d.MountSource)
			return d
		}
		var sst unix.Stat_t
		if err := unix.Stat(d.MountSource, &sst); err != nil || uint32(sst.Mode)&unix.S_IFMT != unix.S_IFBLK {
			note("data dir has anonymous device %s and mount source %s is not a readable block device", d.DevNumber, d.MountSource)
			return d
		}
		major, minor = unix.Major(uint64(sst.Rdev)), unix.Minor(uint64(sst.Rdev))
		note("st_dev %s is anonymous; block device taken from mount source %s", d.DevNumber, d.MountSource)
	}
	bd, err := s.BlockDevice(major, minor)
	if err != nil {
		note("block device %d:%d: %v", major, minor, err)
	}
	d.Device, d.Disk, d.Model, d.Rotational, d.Scheduler, d.Slaves =
		bd.Name, bd.Disk, bd.Model, bd.Rotational, bd.Scheduler, bd.Slaves
	for _, n := range bd.Notes {
		note("%s", n)
	}
	return d
}

// MountFor returns the mount holding path: the one whose mount point is the longest
// path-prefix of path (clean and absolute). Where several mounts share that mount
// point, the one whose major:minor equals dev wins ("" matches none), else the last
// listed (the top of the stack). nil when none holds it.
func MountFor(mounts []*procfs.MountInfo, path, dev string) *procfs.MountInfo {
	path = filepath.Clean(path)
	var best *procfs.MountInfo
	bestLen := -1
	for _, m := range mounts {
		mp := unescapeMount(m.MountPoint)
		if !underMount(path, mp) {
			continue
		}
		switch {
		case len(mp) > bestLen:
			best, bestLen = m, len(mp)
		case len(mp) == bestLen:
			if dev == "" || best.MajorMinorVer != dev || m.MajorMinorVer == dev {
				best = m
			}
		}
	}
	return best
}

// underMount says whether path is mp or below it.
func underMount(path, mp string) bool {
	if mp == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == mp || strings.HasPrefix(path, mp+"/")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for space, \011, \012, \134).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// formatOptions writes a mount option map as "a,b=c", sorted by key (procfs keeps
// them in a map, so the kernel's order is lost).
func formatOptions(opts map[string]string) string {
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if v := opts[k]; v != "" {
			keys[i] = k + "=" + v
		}
	}
	return strings.Join(keys, ",")
}

// BlockDevice is a block device as sysfs shows it.
type BlockDevice struct {
	Name       string   // kernel name: "nvme0n1p2"
	Disk       string   // the whole disk: Name, or a partition's parent
	Partition  bool     // Name is a partition of Disk
	Model      string   // /sys/block/<disk>/device/model, trimmed
	Rotational *bool    // /sys/block/<disk>/queue/rotational
	Scheduler  string   // active entry of /sys/block/<disk>/queue/scheduler
	Slaves     []string // /sys/block/<disk>/slaves (device mapper, md)
	Notes      []string // what could not be read
}

// BlockDevice resolves major:minor through <sys>/dev/block/M:m to a device name, its
// disk (the parent, for a partition) and the disk's model, rotational flag and
// scheduler. Only an unresolvable M:m is an error; unreadable attributes are left
// empty with a note.
func (s Source) BlockDevice(major, minor uint32) (BlockDevice, error) {
	var bd BlockDevice
	link := filepath.Join(s.sys(), "dev", "block", fmt.Sprintf("%d:%d", major, minor))
	target, err := filepath.EvalSymlinks(link)
	if err != nil {
		return bd, err
	}
	bd.Name = filepath.Base(target)
	bd.Disk = bd.Name
	if _, err := os.Stat(filepath.Join(target, "partition")); err == nil {
		bd.Partition = true
		bd.Disk = filepath.Base(filepath.Dir(target))
	}
	disk := filepath.Join(s.sys(), "block", bd.Disk)
	if _, err := os.Stat(disk); err != nil {
		bd.Notes = append(bd.Notes, fmt.Sprintf("disk %s: %v", bd.Disk, err))
		return bd, nil
	}
	if b, err := os.ReadFile(filepath.Join(disk, "device", "model")); err == nil {
		bd.Model = strings.TrimSpace(string(b))
	} else if errors.Is(err, os.ErrNotExist) {
		bd.Notes = append(bd.Notes, fmt.Sprintf("disk %s has no device/model (virtual or device-mapper disk)", bd.Disk))
	} else {
		bd.Notes = append(bd.Notes, fmt.Sprintf("disk %s model: %v", bd.Disk, err))
	}
	if b, err := os.ReadFile(filepath.Join(disk, "queue", "rotational")); err == nil {
		r := strings.TrimSpace(string(b)) == "1"
		bd.Rotational = &r
	} else {
		bd.Notes = append(bd.Notes, fmt.Sprintf("disk %s rotational: %v", bd.Disk, err))
	}
	if b, err := os.ReadFile(filepath.Join(disk, "queue", "scheduler")); err == nil {
		bd.Scheduler = activeScheduler(string(b))
	} else {
		bd.Notes = append(bd.Notes, fmt.Sprintf("disk %s scheduler: %v", bd.Disk, err))
	}
	if ents, err := os.ReadDir(filepath.Join(disk, "slaves")); err == nil {
		for _, e := range ents {
			bd.Slaves = append(bd.Slaves, e.Name())
		}
	}
	return bd, nil
}

// activeScheduler picks the bracketed entry of queue/scheduler ("mq-deadline kyber
// [none]" -> "none"); a single unbracketed entry is returned as is.
func activeScheduler(s string) string {
	fields := strings.Fields(s)
	for _, f := range fields {
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") {
			return strings.Trim(f, "[]")
		}
	}
	if len(fields) == 1 {
		return fields[0]
	}
	return strings.TrimSpace(s)
}
