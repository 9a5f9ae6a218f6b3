package main

import (
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// workloadFlags binds the workload spec's settings (lab.WorkloadSettings)
// as flags.
func workloadFlags(f *pflag.FlagSet, w *workloads.Spec) {
	bindSettings(f, lab.WorkloadSettings, w)
}
