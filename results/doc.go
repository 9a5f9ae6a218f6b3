// Package results is the run record of cleanerlab: the environment a run ran in
// (CPU, memory, kernel, Go, commit, the data directory's file system, mount options
// and block device), counter snapshots from procfs and their deltas (meminfo,
// diskstats, /proc/self/io, vmstat), page-cache residency, and the record itself:
// run.json and a readable report.md under runs/<ID>/.
//
// Every figure written here is read from the machine during the run or given by the
// caller; nothing is estimated. Missing pieces are left empty with a note, never
// invented as zeros without one.
package results

import (
	"github.com/prometheus/procfs"
)

// Source says where the proc and sys file systems are. Tests point it at hand-written
// trees; DefaultSource is the machine's own.
type Source struct {
	ProcPath string // mount point of procfs; "" means /proc
	SysPath  string // mount point of sysfs; "" means /sys
}

// DefaultSource reads the machine's /proc and /sys.
var DefaultSource = Source{ProcPath: "/proc", SysPath: "/sys"}

func (s Source) proc() string {
	if s.ProcPath == "" {
		return "/proc"
	}
	return s.ProcPath
}

func (s Source) sys() string {
	if s.SysPath == "" {
		return "/sys"
	}
	return s.SysPath
}

func (s Source) procFS() (procfs.FS, error) { return procfs.NewFS(s.proc()) }
