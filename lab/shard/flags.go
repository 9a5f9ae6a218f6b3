package shard

import (
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/settings"
)

// DefaultCount is sweep's default --count: enough for a median and a
// spread; benchstat wants 10 for tight confidence intervals.
const DefaultCount = 3

// DefaultSweepCommandOptions are sweep's defaults: DefaultCount
// repetitions in an order shuffled with seed 1, records under runs/,
// progress bars when stderr is a terminal.
func DefaultSweepCommandOptions() SweepCommandOptions {
	return SweepCommandOptions{Count: DefaultCount, ShuffleSeed: 1, Out: "runs", Progress: "auto", Param: lab.RunFlagSetter}
}

// SweepFlags are sweep's own flags; its copies of run's flags (one list
// each) are bound beside them.
var SweepFlags = settings.MustRegistry(DefaultSweepCommandOptions, []settings.Setting[SweepCommandOptions]{
	settings.Flag("experiment", "YAML experiment file (see scripts/experiments/); flags given too win over it",
		func(o *SweepCommandOptions) settings.Value { return settings.String(&o.Experiment) }),
	settings.Flag("server-config", "a broker's server.properties: its values of the experiment's settings (by Kafka name) over run's defaults, under --experiment's and the flags given",
		func(o *SweepCommandOptions) settings.Value { return settings.String(&o.ServerConfig) }),
	settings.Flag("count", "repetitions of each point", func(o *SweepCommandOptions) settings.Value { return settings.Count(&o.Count) }),
	settings.Flag("shuffle-seed", "seed of the order in which the runs are carried out",
		func(o *SweepCommandOptions) settings.Value { return settings.Unsigned(&o.ShuffleSeed) }),
	settings.Flag("out", "directory under which the sweep's directory is made", func(o *SweepCommandOptions) settings.Value { return settings.String(&o.Out) }),
	settings.Flag("dir", "data directory on the disk under test (default: a fresh temp dir per run)",
		func(o *SweepCommandOptions) settings.Value { return settings.String(&o.Dir) }),
	settings.Flag("progress", "progress bar: auto (when stderr is a terminal), always, never",
		func(o *SweepCommandOptions) settings.Value { return settings.String(&o.Progress) }),
	settings.Flag("drop-caches", "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only)",
		func(o *SweepCommandOptions) settings.Value { return settings.Bool(&o.DropCaches) }),
	settings.Flag("dry-run", "print the points and the run order, run nothing", func(o *SweepCommandOptions) settings.Value { return settings.Bool(&o.DryRun) }),
	settings.Flag("retry-busy", "run a point's repetition again, up to N times, when its clean was not quiet (interference verdict busy or unusable; thresholds: --interference-thresholds); the replaced runs stay in the record, marked superseded",
		func(o *SweepCommandOptions) settings.Value { return settings.Count(&o.RetryBusy) }),
	settings.Flag("shard", "run only shard i/N of the runs (i from 0, as JOB_COMPLETION_INDEX), and write shard.json for report --merge",
		func(o *SweepCommandOptions) settings.Value { return settings.String(&o.Shard) }),
})
