package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// BaselineFilePrefix starts the names of cached baselines in a run
// directory: baseline-<device>.json.
const BaselineFilePrefix = "baseline-"

// BaselinePath is where a baseline of the device of d is cached under the
// run directory out: out/baseline-<device>.json, the device being d's block
// device, or for a file system without one its type and mount point
// ("tmpfs-_tmp").
func BaselinePath(out string, d DataDir) string {
	name := d.Device
	if name == "" {
		name = d.FSType + strings.ReplaceAll(d.MountPoint, "/", "_")
	}
	if name == "" {
		name = "unknown"
	}
	return filepath.Join(out, BaselineFilePrefix+name+".json")
}

// BaselineMaxAge is how old a cached baseline may be before run measures
// it anew: disks age, firmware and neighbours change.
const BaselineMaxAge = 30 * 24 * time.Hour

// StampBaseline records in b where it was measured: the data directory's
// block device, file system type, mount point and mount options, and the
// kernel release, from env.
func StampBaseline(b *iosched.Baseline, env Environment) {
	d := env.DataDir
	b.Device, b.FileSystem, b.MountPoint, b.MountOptions = d.Device, d.FSType, d.MountPoint, d.MountOptions
	b.Kernel = env.KernelRelease
}

// BaselineStale says why the cached baseline b no longer describes the data
// directory of env at now, or "" when it still does. It is stale when it
// was measured by an older cleanerlab that read a file it had just written
// (schema version below iosched.BaselineSchemaVersion), more than maxAge
// ago, on another kernel, or on another device, file system, mount point or
// mount options.
func BaselineStale(b *iosched.Baseline, env Environment, now time.Time, maxAge time.Duration) string {
	d := env.DataDir
	switch {
	case b.SchemaVersion < iosched.BaselineSchemaVersion:
		return fmt.Sprintf("schema version %d: measured by an older cleanerlab that read a file it had just written", b.SchemaVersion)
	case now.Sub(b.MeasuredAt) > maxAge:
		return fmt.Sprintf("measured %s, more than %.0f days ago", b.MeasuredAt.Format(time.DateTime), maxAge.Hours()/24)
	case b.Kernel != env.KernelRelease:
		return fmt.Sprintf("measured on kernel %q, this is %q", b.Kernel, env.KernelRelease)
	case b.Device != d.Device || b.FileSystem != d.FSType:
		return fmt.Sprintf("measured on device %q (%s), the data directory is on %q (%s)", b.Device, b.FileSystem, d.Device, d.FSType)
	case b.MountPoint != d.MountPoint || b.MountOptions != d.MountOptions:
		return fmt.Sprintf("measured on mount %s (%s), the data directory is on mount %s (%s)", b.MountPoint, b.MountOptions, d.MountPoint, d.MountOptions)
	}
	return ""
}

// UnderHypervisor reports whether this machine's CPUs carry the
// "hypervisor" flag of /proc/cpuinfo (set by the kernel when it runs as a
// guest), and whether that could be read at all.
func UnderHypervisor() (guest, known bool) {
	data, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false, false
	}
	return cpuinfoHasHypervisor(string(data)), true
}

func cpuinfoHasHypervisor(cpuinfo string) bool {
	for _, line := range strings.Split(cpuinfo, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "flags" && slices.Contains(strings.Fields(v), "hypervisor") {
			return true
		}
	}
	return false
}

// WriteBaseline writes b as indented JSON to path (its directory created).
func WriteBaseline(path string, b *iosched.Baseline) error {
	js, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return fmt.Errorf("results: baseline: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("results: baseline: %w", err)
	}
	if err := os.WriteFile(path, append(js, '\n'), 0o644); err != nil {
		return fmt.Errorf("results: baseline: %w", err)
	}
	return nil
}

// ReadBaseline reads a baseline written by WriteBaseline. A missing file is
// (nil, nil).
func ReadBaseline(path string) (*iosched.Baseline, error) {
	js, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("results: baseline: %w", err)
	}
	var b iosched.Baseline
	if err := json.Unmarshal(js, &b); err != nil {
		return nil, fmt.Errorf("results: baseline %s: %w", path, err)
	}
	return &b, nil
}

// Efficiency is a cleaner's throughput set against the measured limits.
type Efficiency struct {
	// OfDeviceRead = log bytes read per second / the device's O_DIRECT
	// sequential read bandwidth: the cold-cache target (0.9 of the device's O_DIRECT read: the goal in docs/results/2026-12-speed.md).
	OfDeviceRead float64 `json:"of_device_read"`
	// OfMemCopy = log bytes read per second / memory copy bandwidth: how far
	// a warm-cache clean is from moving bytes at memory speed.
	OfMemCopy float64 `json:"of_mem_copy"`
}

// EfficiencyOf returns throughput (bytes/s) against b; zeros for a nil
// baseline or a zero bandwidth.
func EfficiencyOf(throughput float64, b *iosched.Baseline) Efficiency {
	var e Efficiency
	if b == nil {
		return e
	}
	if b.DeviceReadBps > 0 {
		e.OfDeviceRead = throughput / b.DeviceReadBps
	}
	if b.MemCopyBps > 0 {
		e.OfMemCopy = throughput / b.MemCopyBps
	}
	return e
}
