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
		Use:   "faults",
		Short: "A random fault campaign on the engine: seeded schedules with failed writes and power failures, each checked against its ground truth",
		Long: `Runs seeded schedules of log operations (append, roll, flush, clean,
DeleteRecords, truncation, reopen, crash) on a file system that fails a
chosen operation (EIO, ENOSPC, a short write) and loses at a crash what a
power failure may lose (a file's bytes since its last fsync, a name since
its directory's last fsync). After every crash or reopen the log must open
again, keep every record below its last flush, hold only records that were
appended at their offsets, and give every key its latest value; at the end
a clean close, a verify and an open. A failing schedule is shrunk to a
1-minimal one and printed; schedule i runs seed --seed + i, so
"--seed S --schedules 1" replays one. Exit status 1 when anything was
found; a signal stops it between schedules (the record says interrupted).`,
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
