package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// The process's interference thresholds: like GOMAXPROCS and the CPU
// affinity (--cpus), a setting of the whole process, which cleanerlab's
// --interference-thresholds sets once before any command runs.
var (
	thresholdsMu sync.Mutex
	thresholds   = interference.DefaultThresholds()
)

// SetThresholds sets the thresholds every run, sweep point, calibration,
// validation and steady run of this process judges its interference by.
// It fails, changing nothing, when t is not valid.
func SetThresholds(t interference.Thresholds) error {
	if err := t.Validate(); err != nil {
		return err
	}
	thresholdsMu.Lock()
	defer thresholdsMu.Unlock()
	thresholds = t
	return nil
}

// Thresholds returns the thresholds SetThresholds set (default:
// interference.DefaultThresholds).
func Thresholds() interference.Thresholds {
	thresholdsMu.Lock()
	defer thresholdsMu.Unlock()
	return thresholds
}

// WatchPhase starts measuring a phase's CPU use and interference on the
// block device named device ("" for none), judged by Thresholds.
func WatchPhase(device string) *interference.Watch {
	return interference.Sampler{Device: device}.Start(Thresholds())
}

// InterferenceRows are the run table's rows of a timed phase's CPU use and
// interference: CPU time, cores used (of the CPUs), the machine, verdict.
func InterferenceRows(iv interference.Interval) []results.Row {
	rows := []results.Row{
		{Name: "CPU time", Value: fmt.Sprintf("%.3f", iv.CPUSeconds), Unit: "s", Meaning: "this process's user+system time during the clean (every thread)"},
		{Name: "cores used", Value: fmt.Sprintf("%.2f", iv.CoresUsed), Unit: coresOf(iv), Meaning: "CPU time / wall time of the clean"},
	}
	if iv.BusiestThreadCores >= 0 {
		rows = append(rows, results.Row{Name: "busiest thread", Value: fmt.Sprintf("%.2f", iv.BusiestThreadCores), Unit: "cores", Meaning: "the busiest OS thread's CPU / wall: the serial path"})
	}
	rows = append(rows,
		results.Row{Name: "machine", Value: iv.MachineText(), Meaning: "what else the machine did during the clean"},
		results.Row{Name: "interference", Value: iv.VerdictText(), Meaning: "quiet, busy or unusable by the thresholds (--interference-thresholds); a busy verdict labels the figures, never changes them"})
	return rows
}

// CPUMetrics are the benchmark metrics of a timed phase's CPU use:
// cpu-ns/op and cores (unknown CPU time: none).
func CPUMetrics(iv interference.Interval) []results.Metric {
	if iv.WallNs <= 0 || iv.CPUSeconds <= 0 {
		return nil
	}
	return []results.Metric{
		{Value: iv.CPUSeconds * 1e9, Unit: results.UnitCPUNsPerOp},
		{Value: iv.CoresUsed, Unit: results.UnitCores},
	}
}

// InterferenceHook returns a hook of the shape lab/sizing's
// CalibrateOptions.Busy and ValidateOptions.Busy take: called as a
// measured run starts, the func it returns ends the watch and gives the
// verdict ("quiet", "busy", "unusable"; "" when unknown, as for an
// interval too short to judge) and the interval as JSON. device is the
// block device to read other processes' disk I/O on ("" for none).
func InterferenceHook(device string) func() func() (string, json.RawMessage) {
	return func() func() (string, json.RawMessage) {
		w := WatchPhase(device)
		return func() (string, json.RawMessage) {
			iv := w.Stop()
			js, _ := json.Marshal(iv) // an Interval always marshals
			if iv.Verdict == interference.Unknown {
				return "", js
			}
			return string(iv.Verdict), js
		}
	}
}

// WriteInterferenceLine prints a timed phase's CPU use and interference in
// one line: "interference: quiet; 0.812 s CPU (0.98 cores of 2; busiest
// thread 0.97); others 0.02 cores, ...".
func WriteInterferenceLine(w io.Writer, iv interference.Interval) {
	fmt.Fprintf(w, "interference: %s; %s; %s\n", iv.VerdictText(), iv.CPUText(), iv.MachineText())
}

// coresOf is the unit of the cores-used row: "of 2", or "of 1 usable"
// when the process may use fewer CPUs than are online (--cpus).
func coresOf(iv interference.Interval) string {
	if iv.AllowedCPUs > 0 && iv.AllowedCPUs < iv.CPUs {
		return fmt.Sprintf("of %d usable", iv.AllowedCPUs)
	}
	return fmt.Sprintf("of %d", iv.CPUs)
}

// WriteVerdictNote prints, when a run's clean was not quiet, a closing
// line that says so, so that a reader who skims the table sees it.
func WriteVerdictNote(w io.Writer, iv interference.Interval) {
	if iv.Verdict == interference.Busy || iv.Verdict == interference.Unusable {
		fmt.Fprintf(w, "WARNING: the clean's interference verdict is %s (%s): its figures measure the other load too; run it again on a quiet machine (sweep --retry-busy N does)\n",
			iv.Verdict, strings.Join(iv.Reasons, "; "))
	}
}
