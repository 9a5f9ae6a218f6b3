package interference

import (
	"fmt"
	"strings"
)

// CPUText is the process's CPU use over iv: "1.84 s CPU (1.62 cores of 2;
// busiest thread 0.98)".
func (iv Interval) CPUText() string {
	if !has(iv.Missing, SourceRusage) {
		return "CPU time unknown"
	}
	s := fmt.Sprintf("%.3f s CPU (%.2f cores", iv.CPUSeconds, iv.CoresUsed)
	switch {
	case iv.AllowedCPUs > 0 && iv.CPUs > 0 && iv.AllowedCPUs < iv.CPUs:
		s += fmt.Sprintf(" of %d usable, %d online", iv.AllowedCPUs, iv.CPUs)
	case iv.CPUs > 0:
		s += fmt.Sprintf(" of %d", iv.CPUs)
	}
	if iv.BusiestThreadCores >= 0 {
		s += fmt.Sprintf("; busiest thread %.2f", iv.BusiestThreadCores)
	}
	return s + ")"
}

// MachineText is the interference over iv in one line: "others 0.03
// cores, steal 0.0%, iowait 1.2%, PSI some cpu 3.1% io 0.4% memory 0.0%,
// other disk 0 B, load 1.31".
func (iv Interval) MachineText() string {
	var parts []string
	f := func(name string, x float64, format string, scale float64) {
		if x < 0 {
			parts = append(parts, name+" n/a")
			return
		}
		parts = append(parts, fmt.Sprintf("%s "+format, name, x*scale))
	}
	if iv.OthersScope != "" && iv.OthersScope != "all CPUs" {
		f("others on "+iv.OthersScope, iv.OtherCores, "%.2f cores", 1)
	} else {
		f("others", iv.OtherCores, "%.2f cores", 1)
	}
	f("steal", iv.StealShare, "%.1f%%", 100)
	f("iowait", iv.IOWaitShare, "%.1f%%", 100)
	psi := "PSI some cpu/io/memory "
	for i, x := range []float64{iv.CPUSomeShare, iv.IOSomeShare, iv.MemorySomeShare} {
		if i > 0 {
			psi += "/"
		}
		if x < 0 {
			psi += "n/a"
		} else {
			psi += fmt.Sprintf("%.1f%%", x*100)
		}
	}
	parts = append(parts, psi)
	if iv.OtherDiskReadBytes >= 0 {
		parts = append(parts, fmt.Sprintf("other disk %.1f MiB read %.1f MiB written",
			float64(iv.OtherDiskReadBytes)/(1<<20), float64(iv.OtherDiskWrittenBytes)/(1<<20)))
	}
	parts = append(parts, fmt.Sprintf("load %.2f", iv.Load1))
	return strings.Join(parts, ", ")
}

// VerdictText is the verdict with its reasons: "busy (other processes'
// CPU 0.61 cores >= 0.25 cores (busy))".
func (iv Interval) VerdictText() string {
	s := string(iv.Verdict)
	if len(iv.Reasons) > 0 {
		s += " (" + strings.Join(iv.Reasons, "; ") + ")"
	}
	if iv.Note != "" && iv.Verdict != Unknown { // an unknown verdict's reason says it already
		s += " [" + iv.Note + "]"
	}
	return s
}

// String is the interval in one line: verdict with reasons, this process's
// CPU use, then the machine's.
func (iv Interval) String() string {
	return iv.VerdictText() + "; " + iv.CPUText() + "; " + iv.MachineText()
}
