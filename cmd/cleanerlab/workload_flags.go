package main

import (
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/settings"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// workloadFlags binds the workload spec's settings (settings.Workload)
// as flags.
func workloadFlags(f *pflag.FlagSet, w *workloads.Spec) {
	bindSettings(f, settings.Workload, w)
}
