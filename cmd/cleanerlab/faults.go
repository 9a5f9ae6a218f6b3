package main

import (
	"fmt"
	"github.com/cleanerlab/cleanerlab/settings"
	"os"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/faults"
)

func newFaultsCmd() *cobra.Command {
	o := faults.Options{Seed: 1, Schedules: 1000, Steps: 60, Keys: 24, FaultRate: 1, Shrink: true}
	var jsonOut string
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
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.Schedules < 1:
				return fmt.Errorf("--schedules %d: want 1 or more", o.Schedules)
			case o.Steps < 1:
				return fmt.Errorf("--steps %d: want 1 or more", o.Steps)
			case o.Keys < 1:
				return fmt.Errorf("--keys %d: want 1 or more", o.Keys)
			case !(o.FaultRate >= 0 && o.FaultRate <= 1):
				return fmt.Errorf("--fault-rate %v: want a share in [0, 1]", o.FaultRate)
			}
			if o.Dir != "" {
				if st, err := os.Stat(o.Dir); err != nil || !st.IsDir() {
					return fmt.Errorf("--dir %s: not a directory", o.Dir)
				}
			}
			o.Shrink = !noShrink
			ew := cmd.ErrOrStderr()
			o.Log = func(format string, args ...any) { fmt.Fprintf(ew, format, args...) }
			res, err := faults.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			fmt.Fprintln(out, res.Summary())
			for _, f := range res.Findings {
				fmt.Fprintf(out, "\n%v\n", &f)
				for _, s := range f.Steps {
					fmt.Fprintf(out, "  %s\n", s)
				}
			}
			if err := writeJSONOut(jsonOut, res); err != nil {
				return err
			}
			if len(res.Findings) > 0 {
				return exitError{code: 1, err: fmt.Errorf("faults: %d finding(s)", len(res.Findings))}
			}
			return nil
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
	f.StringVar(&jsonOut, "json-out", "", "write the campaign's record (counts, findings with their steps) to this file as JSON")
	return cmd
}
