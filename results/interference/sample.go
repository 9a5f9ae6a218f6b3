package interference

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"
)

// Pressure is one /proc/pressure file's cumulative stall totals, in
// microseconds since boot: Some, the time at least one task waited for the
// resource; Full, the time every non-idle task did (the kernel reports
// full for cpu as 0 outside cgroups before 5.13; it is kept as read).
type Pressure struct {
	SomeUs int64 `json:"some_us"`
	FullUs int64 `json:"full_us"`
}

// Sample is the machine's and this process's counters at one instant. A
// source that could not be read is named in Missing and its fields are
// zero; Between then reports the figures that depend on it as unknown.
type Sample struct {
	At time.Time `json:"at"`

	// This process: CPU time from getrusage(RUSAGE_SELF), every thread.
	UserNs   int64 `json:"user_ns"`
	SystemNs int64 `json:"system_ns"`
	// ThreadTicks is each of this process's threads' utime+stime, in clock
	// ticks (/proc/self/task/<tid>/stat), keyed by thread ID.
	ThreadTicks map[int]int64 `json:"-"`
	// ReadBytes and WriteBytes are /proc/self/io's read_bytes and
	// write_bytes: bytes this process caused to be read from storage, and
	// bytes it dirtied for storage.
	ReadBytes  int64 `json:"read_bytes"`
	WriteBytes int64 `json:"write_bytes"`

	// The machine: /proc/stat's cpu line, in seconds summed over all CPUs.
	CPU procfs.CPUStat `json:"cpu"`
	// CPUs is the number of per-CPU lines of /proc/stat (online CPUs).
	CPUs int `json:"cpus"`
	// AllowedCPUs is the CPUs this process may run on (its affinity mask:
	// fewer than CPUs under --cpus or a cgroup's cpuset), AllowedSet their
	// numbers and AllowedStat their /proc/stat lines (only when fewer than
	// CPUs: what competes with a pinned run is what runs on its CPUs).
	AllowedCPUs int                    `json:"allowed_cpus"`
	AllowedSet  []int                  `json:"-"`
	AllowedStat map[int]procfs.CPUStat `json:"-"`
	// ProcsRunning is /proc/stat's procs_running: runnable tasks now,
	// this process's included.
	ProcsRunning int64 `json:"procs_running"`
	// PSI of cpu, io and memory (/proc/pressure/*).
	PSICPU    Pressure `json:"psi_cpu"`
	PSIIO     Pressure `json:"psi_io"`
	PSIMemory Pressure `json:"psi_memory"`
	// Load1, Load5 and Load15 are /proc/loadavg's averages.
	Load1  float64 `json:"load1"`
	Load5  float64 `json:"load5"`
	Load15 float64 `json:"load15"`

	// Device is the /proc/diskstats name read ("" = none), with its
	// cumulative sectors read and written, in bytes.
	Device           string `json:"device,omitempty"`
	DiskReadBytes    int64  `json:"disk_read_bytes"`
	DiskWrittenBytes int64  `json:"disk_written_bytes"`

	// Missing names the sources that could not be read, with why.
	Missing []string `json:"missing,omitempty"`
}

// Sources a Sample reads, as named in Missing.
const (
	SourceRusage    = "getrusage"
	SourceThreads   = "self/task"
	SourceSelfIO    = "self/io"
	SourceStat      = "stat"
	SourcePSICPU    = "pressure/cpu"
	SourcePSIIO     = "pressure/io"
	SourcePSIMemory = "pressure/memory"
	SourceLoadavg   = "loadavg"
	SourceDiskstats = "diskstats"
)

// Sampler takes Samples. The zero value reads /proc and no disk.
type Sampler struct {
	// ProcPath is the mount point of procfs ("" = /proc).
	ProcPath string
	// Device is the /proc/diskstats name of the data directory's block
	// device (such as "sda1"); "" reads no disk figures.
	Device string
	// SelfCPU, when set, replaces getrusage for this process's user and
	// system time (tests drive it).
	SelfCPU func() (user, system time.Duration, err error)
	// Now, when set, replaces time.Now (tests drive it).
	Now func() time.Time
	// AllowedSet, when set, replaces AllowedSet (tests drive it).
	AllowedSet func() []int
}

func (s Sampler) proc() string {
	if s.ProcPath == "" {
		return "/proc"
	}
	return s.ProcPath
}

// rusageSelf is this process's CPU time from getrusage(RUSAGE_SELF):
// microsecond resolution, every thread, exited ones included.
func rusageSelf() (user, system time.Duration, err error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, err
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano()), nil
}

// Take reads every source once. It never fails: what it cannot read is
// named in Sample.Missing.
func (s Sampler) Take() Sample {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	allowed := AllowedSet
	if s.AllowedSet != nil {
		allowed = s.AllowedSet
	}
	set := allowed()
	smp := Sample{At: now(), Device: s.Device, AllowedCPUs: len(set), AllowedSet: set}
	missing := func(src string, err error) { smp.Missing = append(smp.Missing, src+": "+err.Error()) }

	self := s.SelfCPU
	if self == nil {
		self = rusageSelf
	}
	if u, sy, err := self(); err != nil {
		missing(SourceRusage, err)
	} else {
		smp.UserNs, smp.SystemNs = u.Nanoseconds(), sy.Nanoseconds()
	}

	fs, err := procfs.NewFS(s.proc())
	if err != nil {
		for _, src := range []string{SourceThreads, SourceSelfIO, SourceStat, SourcePSICPU, SourcePSIIO, SourcePSIMemory, SourceLoadavg} {
			missing(src, err)
		}
		return smp
	}
	if ticks, err := threadTicks(s.proc()); err != nil {
		missing(SourceThreads, err)
	} else {
		smp.ThreadTicks = ticks
	}
	if r, w, err := selfIO(filepath.Join(s.proc(), "self", "io")); err != nil {
		missing(SourceSelfIO, err)
	} else {
		smp.ReadBytes, smp.WriteBytes = r, w
	}
	if st, err := fs.Stat(); err != nil {
		missing(SourceStat, err)
	} else {
		smp.CPU = st.CPUTotal
		smp.CPUs = len(st.CPU)
		smp.ProcsRunning = int64(st.ProcessesRunning)
		if len(set) > 0 && len(set) < len(st.CPU) {
			smp.AllowedStat = map[int]procfs.CPUStat{}
			for _, c := range set {
				if cs, ok := st.CPU[int64(c)]; ok {
					smp.AllowedStat[c] = cs
				}
			}
		}
	}
	for _, p := range []struct {
		src, res string
		dst      *Pressure
	}{{SourcePSICPU, "cpu", &smp.PSICPU}, {SourcePSIIO, "io", &smp.PSIIO}, {SourcePSIMemory, "memory", &smp.PSIMemory}} {
		ps, err := fs.PSIStatsForResource(p.res)
		if err != nil {
			missing(p.src, err)
			continue
		}
		if ps.Some != nil {
			p.dst.SomeUs = int64(ps.Some.Total)
		}
		if ps.Full != nil {
			p.dst.FullUs = int64(ps.Full.Total)
		}
	}
	if la, err := fs.LoadAvg(); err != nil {
		missing(SourceLoadavg, err)
	} else {
		smp.Load1, smp.Load5, smp.Load15 = la.Load1, la.Load5, la.Load15
	}
	if s.Device != "" {
		if r, w, err := diskBytes(s.proc(), s.Device); err != nil {
			missing(SourceDiskstats, err)
		} else {
			smp.DiskReadBytes, smp.DiskWrittenBytes = r, w
		}
	}
	return smp
}

// diskBytes is device's cumulative sectors read and written in bytes
// (/proc/diskstats counts 512-byte sectors whatever the block size).
func diskBytes(proc, device string) (read, written int64, err error) {
	bfs, err := blockdevice.NewFS(proc, "/sys")
	if err != nil {
		return 0, 0, err
	}
	stats, err := bfs.ProcDiskstats()
	if err != nil {
		return 0, 0, err
	}
	for _, d := range stats {
		if d.DeviceName == device {
			return int64(d.ReadSectors) * 512, int64(d.WriteSectors) * 512, nil
		}
	}
	return 0, 0, fmt.Errorf("device %q is not in %s/diskstats", device, proc)
}

// selfIO reads read_bytes and write_bytes of a /proc/<pid>/io file.
func selfIO(path string) (read, write int64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	var gotR, gotW bool
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		var dst *int64
		switch name {
		case "read_bytes":
			dst, gotR = &read, true
		case "write_bytes":
			dst, gotW = &write, true
		default:
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(val), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		*dst = v
	}
	if !gotR || !gotW {
		return 0, 0, fmt.Errorf("%s: no read_bytes or write_bytes line", path)
	}
	return read, write, sc.Err()
}

// threadTicks reads utime+stime (fields 14 and 15 of stat) of every thread
// under <proc>/self/task.
func threadTicks(proc string) (map[int]int64, error) {
	dir := filepath.Join(proc, "self", "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	m := make(map[int]int64, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "stat"))
		if err != nil {
			continue // the thread exited between the listing and the read
		}
		// The command name (field 2) is in parentheses and may hold
		// spaces: the fields after it start past the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			return nil, fmt.Errorf("%s/%s/stat: no ')' after the command name", dir, e.Name())
		}
		f := strings.Fields(string(b[i+1:]))
		// f[0] is field 3 (state); utime is field 14, stime 15.
		if len(f) < 13 {
			return nil, fmt.Errorf("%s/%s/stat: %d fields after the command name, want at least 13", dir, e.Name(), len(f))
		}
		ut, err1 := strconv.ParseInt(f[11], 10, 64)
		st, err2 := strconv.ParseInt(f[12], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("%s/%s/stat: utime %q stime %q are not numbers", dir, e.Name(), f[11], f[12])
		}
		m[tid] = ut + st
	}
	return m, nil
}
