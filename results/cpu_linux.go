package results

import (
	"strings"

	"github.com/prometheus/procfs"
)

// cpuModel returns the first processor's model name and the number of processors
// listed in cpuinfo.
func cpuModel(fs procfs.FS, note func(string, ...any)) (model string, logical int) {
	cpus, err := fs.CPUInfo()
	if err != nil {
		note("cpuinfo: %v", err)
		return "", 0
	}
	if len(cpus) == 0 {
		note("cpuinfo lists no processor")
		return "", 0
	}
	model = cpus[0].ModelName
	if model == "" {
		model = strings.TrimSpace(cpus[0].VendorID + " " + cpus[0].Model)
		note("cpuinfo has no model name; cpu_model is vendor_id and model")
	}
	return model, len(cpus)
}
