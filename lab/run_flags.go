package lab

import "github.com/cleanerlab/cleanerlab/settings"

// DefaultRunCommandOptions are run's defaults: records under runs/,
// progress bars when stderr is a terminal, sweep: keys of experiment files
// that name a flag resolved by RunFlagSetter.
func DefaultRunCommandOptions() RunCommandOptions {
	return RunCommandOptions{ProgressMode: "auto", Param: RunFlagSetter, Options: Options{Out: "runs"}}
}

// keepValue is --keep: ParseKeep's names.
func keepValue(k *Keep) settings.Value {
	return settings.Func("keep", settings.UnitEnum, func() string { return k.String() }, func(s string) error {
		v, err := ParseKeep(s)
		if err == nil {
			*k = v
		}
		return err
	})
}

// RunFlags are run's flags that say where and how a run is carried out
// (RunPlaceFlags) and where its experiment comes from: the flags of
// Settings, --profile and Kafka's cleaner's (kafkajvm.RunFlags) are bound
// beside them.
var RunFlags = settings.MustRegistry(DefaultRunCommandOptions, []settings.Setting[RunCommandOptions]{
	settings.Flag("from", "rerun exactly the experiment of this run record (runs/<id>/run.json, or its directory); only the flags that say where and how (--dir, --keep, --out, --progress, --drop-caches, --cpuprofile, --trace, --baseline) may be given with it",
		func(o *RunCommandOptions) settings.Value { return settings.String(&o.From) }),
	settings.Flag("experiment", "take the run's parameters from this YAML experiment file (see scripts/experiments/); flags given too win over it",
		func(o *RunCommandOptions) settings.Value { return settings.String(&o.File) }),
	settings.Flag("server-config", "a broker's server.properties: its values of the experiment's settings (by Kafka name) over run's defaults, under --experiment's and the flags given (cleanerlab settings --experiment shows the result)",
		func(o *RunCommandOptions) settings.Value { return settings.String(&o.ServerConfig) }),
	settings.Flag("dir", "data directory on the disk under test (default: a fresh temp dir, removed afterwards)",
		func(o *RunCommandOptions) settings.Value { return settings.String(&o.Dir) }),
	{Name: "keep", Flag: "keep", Bare: string(KeepCleaned),
		Doc: "keep the data directory: --keep (or --keep=cleaned) keeps the cleaned logs; --keep=uncleaned also keeps a copy of the generated logs made before the clean, in <data>-uncleaned",
		Var: func(o *RunCommandOptions) settings.Value { return keepValue(&o.Keep) }},
	settings.Flag("out", "directory of run records", func(o *RunCommandOptions) settings.Value { return settings.String(&o.Out) }),
	settings.Flag("progress", "progress bars: auto (when stderr is a terminal), always, never",
		func(o *RunCommandOptions) settings.Value { return settings.String(&o.ProgressMode) }),
	settings.Flag("drop-caches", "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise)",
		func(o *RunCommandOptions) settings.Value { return settings.Bool(&o.DropCaches) }),
	settings.Flag("baseline", "measure the data directory's device (O_DIRECT sequential read/write) and memory copy bandwidth before the run and cache them in --out; without it the cached baseline is used",
		func(o *RunCommandOptions) settings.Value { return settings.Bool(&o.Baseline) }),
	settings.Flag("cpuprofile", "write a CPU profile of the clean phase to this file (go tool pprof)",
		func(o *RunCommandOptions) settings.Value { return settings.String(&o.CPUProfile) }),
	settings.Flag("trace", "write a Go execution trace of the clean phase to this file: each goroutine's running, waiting and system-call time (go tool trace)",
		func(o *RunCommandOptions) settings.Value { return settings.String(&o.Trace) }),
})
