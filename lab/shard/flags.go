package shard

import (
	"fmt"
	"io"
	"time"

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

// ReportCommandOptions are the report command's options, as its flags
// give them.
type ReportCommandOptions struct {
	// Out is the report's directory ("": lab.NewReportDir of now).
	Out string
	// Col compares the values of this benchmark name key instead of the
	// paths; not with Merge.
	Col string
	// Merge merges shard records (Report); Format is its output, text or
	// json (text only without Merge).
	Merge  bool
	Format string
}

// ReportFlags are the report command's flags.
var ReportFlags = settings.MustRegistry(func() ReportCommandOptions { return ReportCommandOptions{Format: "text"} }, []settings.Setting[ReportCommandOptions]{
	settings.Flag("out", "directory of the report (default report-<UTC time>)", func(o *ReportCommandOptions) settings.Value { return settings.String(&o.Out) }),
	settings.Flag("col", "compare the values of this benchmark name key (hasher, map, keys, ...) instead of the PATHs",
		func(o *ReportCommandOptions) settings.Value { return settings.String(&o.Col) }),
	settings.Flag("merge", "the PATHs hold shard records (sweep --shard i/N): merge them into one sweep record per host class",
		func(o *ReportCommandOptions) settings.Value { return settings.Bool(&o.Merge) }),
	settings.Flag("format", "with --merge: text, or json (points, expected, missing, duplicated, failed, missing_shards, shards, classes)",
		func(o *ReportCommandOptions) settings.Value { return settings.String(&o.Format) }),
})

// ReportCommand is the report command over paths: the merge of shard
// records (Report) with o.Merge, else lab.Report's report of sweeps and
// runs, into o.Out (default a fresh report-<UTC time>).
func ReportCommand(w io.Writer, paths []string, o ReportCommandOptions) error {
	if o.Out == "" {
		o.Out = lab.NewReportDir(time.Now())
	}
	if o.Merge {
		if o.Col != "" {
			return fmt.Errorf("report: --merge compares the host classes; --col is for other reports")
		}
		return Report(w, paths, o.Out, o.Format)
	}
	if o.Format != "text" {
		return fmt.Errorf("report: --format %s is for --merge", o.Format)
	}
	return lab.Report(w, paths, o.Out, o.Col)
}
