package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/cleanerlab/cleanerlab/settings"
)

// CommandOptions are the faults command's: the campaign's Options as its
// flags give them, and where its record goes.
type CommandOptions struct {
	Options
	// JSONOut, when set, is the file the campaign's record (counts,
	// findings with their steps) is written to as JSON.
	JSONOut string
}

// DefaultCommandOptions are the faults command's defaults: 1000 schedules
// of 60 steps over 24 keys from seed 1, every fault step kept, failing
// schedules shrunk.
func DefaultCommandOptions() CommandOptions {
	return CommandOptions{Options: Options{Seed: 1, Schedules: 1000, Steps: 60, Keys: 24, FaultRate: 1, Shrink: true}}
}

// Command is the faults command: it checks o (errors name the flag), runs
// the campaign (Run) until done or ctx ends, and writes its summary and
// each finding with its steps to out and the record to o.JSONOut. Any
// finding is an error.
func Command(ctx context.Context, o CommandOptions, out io.Writer) error {
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
	res, err := Run(ctx, o.Options)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, res.Summary())
	for _, f := range res.Findings {
		fmt.Fprintf(out, "\n%v\n", &f)
		for _, s := range f.Steps {
			fmt.Fprintf(out, "  %s\n", s)
		}
	}
	if o.JSONOut != "" {
		js, err := json.MarshalIndent(res, "", "  ")
		if err == nil {
			err = os.WriteFile(o.JSONOut, append(js, '\n'), 0o644)
		}
		if err != nil {
			return fmt.Errorf("--json-out %s: %w", o.JSONOut, err)
		}
	}
	if len(res.Findings) > 0 {
		return fmt.Errorf("faults: %d finding(s)", len(res.Findings))
	}
	return nil
}

// Flags are the faults command's flags.
var Flags = settings.MustRegistry(DefaultCommandOptions, []settings.Setting[CommandOptions]{
	settings.Flag("seed", "the first schedule's seed (schedule i runs seed + i)", func(o *CommandOptions) settings.Value { return settings.Unsigned(&o.Seed) }),
	settings.Flag("schedules", "schedules to run", func(o *CommandOptions) settings.Value { return settings.Count(&o.Schedules) }),
	settings.Flag("steps", "steps per schedule", func(o *CommandOptions) settings.Value { return settings.Count(&o.Steps) }),
	settings.Flag("keys", "key space of the appends", func(o *CommandOptions) settings.Value { return settings.Count(&o.Keys) }),
	settings.Flag("fault-rate", "share of the drawn fault steps kept (about 4% of the steps at 1; 0: crashes only)",
		func(o *CommandOptions) settings.Value { return settings.Ratio(&o.FaultRate) }),
	settings.Flag("dir", "parent of the schedules' directories (default the OS temp dir; a tmpfs such as /dev/shm makes the fsyncs free: the crash model, not the disk, decides what survives)",
		func(o *CommandOptions) settings.Value { return settings.String(&o.Dir) }),
	settings.Flag("no-shrink", "print failing schedules whole instead of shrinking them", func(o *CommandOptions) settings.Value {
		noShrink := !o.Shrink
		return settings.Func("bool", settings.UnitBool, func() string { return strconv.FormatBool(!o.Shrink) }, func(s string) error {
			if err := settings.Bool(&noShrink).Set(s); err != nil {
				return err
			}
			o.Shrink = !noShrink
			return nil
		})
	}),
	settings.Flag("json-out", "write the campaign's record (counts, findings with their steps) to this file as JSON",
		func(o *CommandOptions) settings.Value { return settings.String(&o.JSONOut) }),
})
