package interference

import (
	"fmt"
	"math"

	"github.com/prometheus/procfs"
	"strings"
	"time"
)

// userHZ is the unit of /proc/<pid>/task/<tid>/stat's utime and stime:
// clock ticks of 1/100 s (USER_HZ is 100 on every Linux architecture Go
// supports; procfs assumes the same).
const userHZ = 100

// Interval is what happened between two Samples: this process's CPU use and
// the machine's interference, each over the interval's wall time. Shares
// are fractions (0.05 = 5%); a figure whose source was missing in either
// sample is -1 and its source is named in Missing.
type Interval struct {
	WallNs int64 `json:"wall_ns"`

	// This process: user and system CPU time, their sum in seconds, and
	// the cores it used (CPU seconds / wall seconds).
	UserNs     int64   `json:"user_ns"`
	SystemNs   int64   `json:"system_ns"`
	CPUSeconds float64 `json:"cpu_seconds"`
	CoresUsed  float64 `json:"cores_used"`
	// BusiestThreadCores is the CPU of this process's busiest thread over
	// the interval, in cores (at most 1): the serial path's share.
	BusiestThreadCores float64 `json:"busiest_thread_cores"`
	// CPUs is the machine's online CPUs; AllowedCPUs those this process
	// may run on (fewer under --cpus).
	CPUs        int `json:"cpus"`
	AllowedCPUs int `json:"allowed_cpus"`

	// OtherCores is the CPU other processes used, in cores: the machine's
	// busy time (user, nice, system, irq, softirq; guest time is inside
	// user) less this process's CPU time, over the wall time.
	OtherCores float64 `json:"other_cores"`
	// OthersScope says which CPUs OtherCores, steal and iowait are over:
	// "all CPUs", or the CPUs this process may use under --cpus.
	OthersScope string `json:"others_scope,omitempty"`
	// OtherCoresError is OtherCores' error from /proc/stat's 10 ms ticks,
	// in cores: three standard deviations of the rounding (tickError).
	OtherCoresError float64 `json:"other_cores_error"`
	// StealShare and IOWaitShare are steal and iowait over all CPUs' time.
	StealShare  float64 `json:"steal_share"`
	IOWaitShare float64 `json:"iowait_share"`
	// PSI shares: stall time over wall time, per resource, "some" and "full".
	CPUSomeShare    float64 `json:"psi_cpu_some_share"`
	CPUFullShare    float64 `json:"psi_cpu_full_share"`
	IOSomeShare     float64 `json:"psi_io_some_share"`
	IOFullShare     float64 `json:"psi_io_full_share"`
	MemorySomeShare float64 `json:"psi_memory_some_share"`
	MemoryFullShare float64 `json:"psi_memory_full_share"`
	// OtherDiskReadBytes and OtherDiskWrittenBytes are the device's bytes
	// less this process's (never below 0); -1 without a device. Written
	// bytes are approximate (write-back: see the package doc).
	Device                string `json:"device,omitempty"`
	OtherDiskReadBytes    int64  `json:"other_disk_read_bytes"`
	OtherDiskWrittenBytes int64  `json:"other_disk_written_bytes"`
	// Load1 is the one-minute load average at the end (this process's
	// runnable threads included); ProcsRunning the runnable tasks then.
	Load1        float64 `json:"load1"`
	ProcsRunning int64   `json:"procs_running"`

	// Verdict and Reasons are Judge's; Thresholds the ones it used.
	Verdict    Verdict     `json:"verdict"`
	Reasons    []string    `json:"reasons,omitempty"`
	Thresholds *Thresholds `json:"thresholds,omitempty"`
	// Note says how far the tick-based figures can be trusted over a
	// short interval ("" when a second or longer).
	Note string `json:"note,omitempty"`
	// Missing is the union of both samples' Missing.
	Missing []string `json:"missing,omitempty"`
}

// tickError is the error, in CPU-seconds, of a difference of two
// /proc/stat busy times over cpus CPUs: each CPU's counter is truncated to
// a 10 ms tick at each end, an error uniform over one tick (standard
// deviation 1/sqrt(12) tick); 2 x cpus independent truncations give a
// standard deviation of sqrt(2 cpus / 12) ticks, and three of those,
// sqrt(1.5 cpus) ticks, is the bound used. (The worst case, 2 x cpus
// ticks, would leave nothing short of seconds to judge on a 16-CPU machine.)
func tickError(cpus int) float64 {
	return math.Sqrt(1.5*float64(cpus)) / userHZ
}

// sumStat returns the /proc/stat times of a and b over the CPUs judged,
// and their count: the allowed CPUs when both samples hold every one of
// them and they are fewer than the machine's, else the machine's cpu line.
func sumStat(a, b Sample) (sa, sb procfs.CPUStat, n int) {
	if a.AllowedStat == nil || b.AllowedStat == nil || len(b.AllowedSet) == 0 || len(b.AllowedSet) >= b.CPUs {
		return a.CPU, b.CPU, b.CPUs
	}
	for _, c := range b.AllowedSet {
		x, okA := a.AllowedStat[c]
		y, okB := b.AllowedStat[c]
		if !okA || !okB {
			return a.CPU, b.CPU, b.CPUs
		}
		sa = addStat(sa, x)
		sb = addStat(sb, y)
	}
	return sa, sb, len(b.AllowedSet)
}

func addStat(s, c procfs.CPUStat) procfs.CPUStat {
	s.User += c.User
	s.Nice += c.Nice
	s.System += c.System
	s.Idle += c.Idle
	s.Iowait += c.Iowait
	s.IRQ += c.IRQ
	s.SoftIRQ += c.SoftIRQ
	s.Steal += c.Steal
	return s
}

// Wall is WallNs as a time.Duration.
func (iv Interval) Wall() time.Duration { return time.Duration(iv.WallNs) }

// has reports whether neither sample missed src.
func has(missing []string, src string) bool {
	for _, m := range missing {
		if strings.HasPrefix(m, src+":") {
			return false
		}
	}
	return true
}

// Between returns the interval from a to b (b taken later), judged by t.
func Between(a, b Sample, t Thresholds) Interval {
	iv := Interval{WallNs: b.At.Sub(a.At).Nanoseconds(), CPUs: b.CPUs, AllowedCPUs: b.AllowedCPUs, Device: b.Device}
	seen := map[string]bool{}
	for _, m := range append(append([]string{}, a.Missing...), b.Missing...) {
		src, _, _ := strings.Cut(m, ":") // one line per source, the first sample's why
		if !seen[src] {
			seen[src] = true
			iv.Missing = append(iv.Missing, m)
		}
	}
	wall := float64(iv.WallNs) / 1e9
	ok := func(src string) bool { return has(iv.Missing, src) && wall > 0 }

	iv.OtherCores, iv.StealShare, iv.IOWaitShare = -1, -1, -1
	iv.CPUSomeShare, iv.CPUFullShare, iv.IOSomeShare, iv.IOFullShare, iv.MemorySomeShare, iv.MemoryFullShare = -1, -1, -1, -1, -1, -1
	iv.OtherDiskReadBytes, iv.OtherDiskWrittenBytes = -1, -1
	iv.BusiestThreadCores = -1

	if ok(SourceRusage) {
		iv.UserNs, iv.SystemNs = b.UserNs-a.UserNs, b.SystemNs-a.SystemNs
		iv.CPUSeconds = float64(iv.UserNs+iv.SystemNs) / 1e9
		iv.CoresUsed = iv.CPUSeconds / wall
	}
	if ok(SourceThreads) {
		var top int64
		for tid, t := range b.ThreadTicks {
			if t0, in := a.ThreadTicks[tid]; in && t-t0 > top {
				top = t - t0
			}
		}
		iv.BusiestThreadCores = min(1, float64(top)/userHZ/wall)
	}
	if ok(SourceStat) {
		// The CPUs whose time is judged: this process's allowed CPUs when
		// it may use fewer than all (--cpus), else the whole machine.
		sa, sb, n := sumStat(a, b)
		iv.OthersScope = "all CPUs"
		if n < iv.CPUs {
			iv.OthersScope = fmt.Sprintf("the %d CPU(s) this process may use", n)
		}
		busy := func(c procfs.CPUStat) float64 { return c.User + c.Nice + c.System + c.IRQ + c.SoftIRQ }
		total := func(c procfs.CPUStat) float64 { return busy(c) + c.Idle + c.Iowait + c.Steal }
		if ok(SourceRusage) {
			iv.OtherCores = min(float64(max(n, 1)), max(0, (busy(sb)-busy(sa)-iv.CPUSeconds)/wall))
			iv.OtherCoresError = tickError(max(n, 1)) / wall
		}
		if all := total(sb) - total(sa); all > 0 {
			iv.StealShare = (sb.Steal - sa.Steal) / all
			iv.IOWaitShare = (sb.Iowait - sa.Iowait) / all
		}
		iv.ProcsRunning = b.ProcsRunning
	}
	share := func(src string, x, y int64) float64 {
		if !ok(src) {
			return -1
		}
		return float64(y-x) / 1e6 / wall
	}
	iv.CPUSomeShare = share(SourcePSICPU, a.PSICPU.SomeUs, b.PSICPU.SomeUs)
	iv.CPUFullShare = share(SourcePSICPU, a.PSICPU.FullUs, b.PSICPU.FullUs)
	iv.IOSomeShare = share(SourcePSIIO, a.PSIIO.SomeUs, b.PSIIO.SomeUs)
	iv.IOFullShare = share(SourcePSIIO, a.PSIIO.FullUs, b.PSIIO.FullUs)
	iv.MemorySomeShare = share(SourcePSIMemory, a.PSIMemory.SomeUs, b.PSIMemory.SomeUs)
	iv.MemoryFullShare = share(SourcePSIMemory, a.PSIMemory.FullUs, b.PSIMemory.FullUs)
	if ok(SourceLoadavg) {
		iv.Load1 = b.Load1
	}
	if a.Device != "" && a.Device == b.Device && ok(SourceDiskstats) && ok(SourceSelfIO) {
		iv.OtherDiskReadBytes = max(0, b.DiskReadBytes-a.DiskReadBytes-(b.ReadBytes-a.ReadBytes))
		iv.OtherDiskWrittenBytes = max(0, b.DiskWrittenBytes-a.DiskWrittenBytes-(b.WriteBytes-a.WriteBytes))
	}
	if wall < 1 && iv.OtherCoresError > 0 {
		iv.Note = fmt.Sprintf("interval of %.3f s: others' CPU within ±%.2f cores (/proc/stat counts 10 ms ticks)", wall, iv.OtherCoresError)
	}
	tt := t
	iv.Thresholds = &tt
	iv.Verdict, iv.Reasons = t.Judge(iv)
	return iv
}
