package kafkajvm

import (
	"math"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// TestDoCleanInterval: a kafka-jvm run's clean interval covers doClean
// alone, as its wall time does: the JVM's CPU time over doClean (2.5 s)
// over doClean's wall (2 s) is 1.25 cores, and the cleaning thread's 1.9 s
// the busiest thread's 0.95; the request's other figures (2.9 s of wall,
// 2.0 s of CPU: the log's opening included) are replaced, so the record's
// ns/op, cpu-ns/op and cores agree (cores = cpu / wall).
func TestDoCleanInterval(t *testing.T) {
	req := interference.Interval{WallNs: 2900e6, UserNs: 1500e6, SystemNs: 500e6, CPUSeconds: 2.0, CoresUsed: 2.0 / 2.9, BusiestThreadCores: -1,
		CPUs: 2, OtherCores: 0.1, Verdict: interference.Quiet}
	r := Result{Cleaned: true, Wall: 2 * time.Second, ProcessCPU: 2500 * time.Millisecond, ThreadCPU: 1900 * time.Millisecond}
	iv := DoCleanInterval(req, r)
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if iv.WallNs != 2e9 || !near(iv.CPUSeconds, 2.5) || !near(iv.CoresUsed, 1.25) || !near(iv.BusiestThreadCores, 0.95) {
		t.Errorf("interval wall %d ns, CPU %v s, cores %v, busiest %v; want 2e9, 2.5, 1.25, 0.95", iv.WallNs, iv.CPUSeconds, iv.CoresUsed, iv.BusiestThreadCores)
	}
	if iv.Verdict != interference.Quiet || iv.OtherCores != 0.1 || iv.CPUs != 2 {
		t.Errorf("the request's machine figures changed: %+v", iv)
	}
	var cpuNs, cores float64
	for _, m := range lab.CPUMetrics(iv) {
		switch m.Unit {
		case results.UnitCPUNsPerOp:
			cpuNs = m.Value
		case results.UnitCores:
			cores = m.Value
		}
	}
	if !near(cpuNs, 2.5e9) || !near(cores, cpuNs/float64(r.Wall.Nanoseconds())) {
		t.Errorf("metrics cpu-ns/op %v, cores %v; want 2.5e9 and cpu/wall 1.25", cpuNs, cores)
	}
}
