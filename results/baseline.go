package results

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

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
	// sequential read bandwidth: the cold-cache target (DESIGN.md: 90%).
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
