package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/faults"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newFaultsCmd() *cobra.Command {
	o := faults.DefaultCommandOptions()
	var noShrink bool
	cmd := &cobra.Command{
		Use:  "faults",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ew := cmd.ErrOrStderr()
			o.Shrink, o.Log = !noShrink, func(format string, args ...any) { fmt.Fprintf(ew, format, args...) }
			return faults.Command(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	f := cmd.Flags()
	f.Var(settings.Unsigned(&o.Seed), "seed", "the first schedule's seed (schedule i runs seed + i)")
	f.IntVar(&o.Schedules, "schedules", o.Schedules, "schedules to run")
	f.IntVar(&o.Steps, "steps", o.Steps, "steps per schedule")
	f.Var(settings.Count(&o.Keys), "keys", "key space of the appends")
	f.Float64Var(&o.FaultRate, "fault-rate", o.FaultRate, "share of the drawn fault steps kept (about 4% of the steps at 1; 0: crashes only)")
	f.StringVar(&o.Dir, "dir", "", "parent of the schedules' directories (default the OS temp dir; a tmpfs such as /dev/shm makes the fsyncs free: the crash model, not the disk, decides what survives)")
	f.BoolVar(&noShrink, "no-shrink", false, "print failing schedules whole instead of shrinking them")
	f.StringVar(&o.JSONOut, "json-out", "", "write the campaign's record (counts, findings with their steps) to this file as JSON")
	return cmd
}
