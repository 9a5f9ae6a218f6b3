package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// bindMachineFlags adds the process-wide settings every command takes:
// --cpus (pin to N CPUs) and --interference-thresholds.
func bindMachineFlags(root *cobra.Command) {
	var cpus int
	var th string
	root.PersistentFlags().IntVar(&cpus, "cpus", 0,
		"pin this process to N CPUs (sched_setaffinity on every thread, and GOMAXPROCS N), so that two profiles compare on the same cores; 0 = no pinning")
	root.PersistentFlags().StringVar(&th, "interference-thresholds", "",
		"key=value,... limits of the quiet|busy|unusable verdict, over the defaults "+interference.DefaultThresholds().String()+
			" (keys: "+strings.Join(interference.ThresholdKeys(), ", ")+")")
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		t, err := interference.ParseThresholds(th)
		if err != nil {
			return err
		}
		if err := lab.SetThresholds(t); err != nil {
			return err
		}
		if cpus < 0 {
			return fmt.Errorf("--cpus %d: want 0 (no pinning) or 1..%d", cpus, interference.Allowed())
		}
		if cpus > 0 {
			if _, err := interference.Pin(cpus); err != nil {
				return err
			}
		}
		return nil
	}
}
