package cli

import (
	"fmt"
	"strings"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results/interference"
	"github.com/cleanerlab/cleanerlab/settings"
)

// Machine are the process-wide settings every command takes.
type Machine struct {
	// CPUs pins the process to this many CPUs (0: no pinning).
	CPUs int
	// Thresholds are key=value limits of the interference verdict, over
	// interference.DefaultThresholds ("": the defaults).
	Thresholds string
}

// MachineFlags are Machine's flags (cmd binds them on the root, for every
// command).
var MachineFlags = settings.MustRegistry(func() Machine { return Machine{} }, []settings.Setting[Machine]{
	settings.Flag("cpus", "pin this process to N CPUs (sched_setaffinity on every thread, and GOMAXPROCS N), so that two profiles compare on the same cores; 0 = no pinning",
		func(m *Machine) settings.Value { return settings.Count(&m.CPUs) }),
	settings.Flag("interference-thresholds", "key=value,... limits of the quiet|busy|unusable verdict, over the defaults "+interference.DefaultThresholds().String()+
		" (keys: "+strings.Join(interference.ThresholdKeys(), ", ")+")",
		func(m *Machine) settings.Value { return settings.String(&m.Thresholds) }),
})

// Apply sets the interference thresholds (lab.SetThresholds) and pins the
// process to m.CPUs CPUs. Errors name the flag.
func (m Machine) Apply() error {
	t, err := interference.ParseThresholds(m.Thresholds)
	if err != nil {
		return err
	}
	if err := lab.SetThresholds(t); err != nil {
		return err
	}
	if m.CPUs < 0 {
		return fmt.Errorf("--cpus %d: want 0 (no pinning) or 1..%d", m.CPUs, interference.Allowed())
	}
	if m.CPUs > 0 {
		if _, err := interference.Pin(m.CPUs); err != nil {
			return err
		}
	}
	return nil
}
