//go:build !linux

package results

import (
	"runtime"

	"github.com/prometheus/procfs"
)

// cpuModel: procfs parses cpuinfo on Linux only.
func cpuModel(_ procfs.FS, note func(string, ...any)) (string, int) {
	note("cpu model: not read on %s", runtime.GOOS)
	return "", 0
}
