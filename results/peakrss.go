package results

import (
	"fmt"
	"os"

	"github.com/prometheus/procfs"
)

// PeakRSS returns this process's peak resident set size in bytes (VmHWM
// of /proc/self/status): the most memory it held at once since it started,
// or since the last ResetPeakRSS that succeeded. Scope: this process.
// Errors: no /proc (not Linux), or an unreadable status file.
func PeakRSS() (int64, error) {
	st, err := selfStatus()
	if err != nil {
		return 0, err
	}
	return int64(st.VmHWM), nil
}

// ResetPeakRSS sets this process's peak resident set size back to its
// resident set now (it writes 5 to /proc/self/clear_refs; Linux 4.0 on),
// so that a later PeakRSS covers only what follows: one phase's peak,
// such as a clean's. Errors: no /proc, or the write refused (a kernel
// without it, or a read-only /proc); PeakRSS then still covers the
// process's whole life, and the caller says so.
func ResetPeakRSS() error {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("results: reset the peak RSS: %w", err)
	}
	return nil
}

// ResidentBytes is this process's resident set size now (VmRSS of
// /proc/self/status), in bytes. Scope: this process. Errors: as PeakRSS.
func ResidentBytes() (int64, error) {
	st, err := selfStatus()
	if err != nil {
		return 0, err
	}
	return int64(st.VmRSS), nil
}

// selfStatus reads /proc/self/status.
func selfStatus() (procfs.ProcStatus, error) {
	p, err := procfs.Self()
	if err != nil {
		return procfs.ProcStatus{}, fmt.Errorf("results: read /proc/self: %w", err)
	}
	st, err := p.NewStatus()
	if err != nil {
		return procfs.ProcStatus{}, fmt.Errorf("results: read /proc/self/status: %w", err)
	}
	return st, nil
}
