package shard

import (
	"fmt"

	"github.com/cleanerlab/cleanerlab/results"
)

// HostClass is what makes figures of two hosts comparable: the same CPU
// model, the same model of disk under the data directory, the same file
// system and the same kernel. Figures of different classes are never
// averaged together.
type HostClass struct {
	// CPUModel is results.Environment.CPUModel.
	CPUModel string `json:"cpu_model"`
	// DeviceModel is the data directory's disk model
	// (Environment.DataDir.Model); where the disk reports none (a virtual
	// disk) it is "disk <name>", and where there is no disk (tmpfs,
	// overlay) it is "".
	DeviceModel string `json:"device_model"`
	// FSType is the data directory's file system (Environment.DataDir.FSType).
	FSType string `json:"fs_type"`
	// Kernel is the kernel release (uname -r).
	Kernel string `json:"kernel"`
}

// ClassOf is the host class of an environment.
func ClassOf(env results.Environment) HostClass {
	dd := env.DataDir
	dev := dd.Model
	if dev == "" && dd.Disk != "" {
		dev = "disk " + dd.Disk
	}
	return HostClass{CPUModel: env.CPUModel, DeviceModel: dev, FSType: dd.FSType, Kernel: env.KernelRelease}
}

// String is "cpu X, disk Y, fs Z, kernel K", "?" for what is not known.
func (h HostClass) String() string {
	q := func(s string) string {
		if s == "" {
			return "?"
		}
		return s
	}
	return fmt.Sprintf("cpu %s, disk %s, fs %s, kernel %s", q(h.CPUModel), q(h.DeviceModel), q(h.FSType), q(h.Kernel))
}

// Class is one host class's share of a merged sweep.
type Class struct {
	HostClass HostClass
	// Hosts are the host names of its shards, in order of appearance.
	Hosts []string
	// Shards are its shards' records.
	Shards []*Input
	// Sweep is its merged sweep record: the sweep's points, each with the
	// runs of this class's shards, summarized.
	Sweep *results.Sweep
}

// Label is the class's column label: "class N (host, host)".
func (c *Class) Label(n int) string {
	s := fmt.Sprintf("class %d", n)
	if len(c.Hosts) > 0 {
		s += " ("
		for i, h := range c.Hosts {
			if i > 0 {
				s += ", "
			}
			s += h
		}
		s += ")"
	}
	return s
}

// CompareClasses sets the host classes side by side with benchstat's
// statistics (results.Compare: per class, the median and its 95%
// confidence interval; against the first class, the Mann-Whitney U test
// and the change of the median when p < 0.05). Nil with fewer than two
// classes.
func (m *Merged) CompareClasses() []results.CompareTable {
	if len(m.Classes) < 2 {
		return nil
	}
	sets := make([]results.BenchSet, len(m.Classes))
	for i, c := range m.Classes {
		sets[i] = results.BenchSet{Label: c.Label(i + 1), Benchmarks: c.Sweep.Benchmarks()}
	}
	return results.Compare(sets)
}
