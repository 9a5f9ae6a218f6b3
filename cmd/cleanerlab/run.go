package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/settings"
)

// bindRunFlags binds run's flags to o, over a fresh lab.DefaultExperiment.
func bindRunFlags(f *pflag.FlagSet, o *lab.RunCommandOptions) {
	*o = lab.RunCommandOptions{Experiment: lab.DefaultExperiment(), ProgressMode: "auto", Param: flagSetter}
	o.Out = "runs"
	bindExperimentFlags(f, &o.Experiment)
	f.BoolVar(&o.DropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise)")
	f.BoolVar(&o.Baseline, "baseline", false, "measure the data directory's device (O_DIRECT sequential read/write) and memory copy bandwidth before the run and cache them in --out; without it the cached baseline is used")
	f.StringVar(&o.From, "from", "", "rerun exactly the experiment of this run record (runs/<id>/run.json, or its directory); only the flags that say where and how (--dir, --keep, --out, --progress, --drop-caches, --cpuprofile, --trace, --baseline) may be given with it")
	f.StringVar(&o.File, "experiment", "", "take the run's parameters from this YAML experiment file (see scripts/experiments/); flags given too win over it")
	f.StringVar(&o.Dir, "dir", "", "data directory on the disk under test (default: a fresh temp dir, removed afterwards)")
	f.Var((*keepValue)(&o.Keep), "keep", "keep the data directory: --keep (or --keep=cleaned) keeps the cleaned logs; --keep=uncleaned also keeps a copy of the generated logs made before the clean, in <data>-uncleaned")
	f.Lookup("keep").NoOptDefVal = "cleaned"
	f.StringVar(&o.Out, "out", o.Out, "directory of run records")
	f.StringVar(&o.ProgressMode, "progress", o.ProgressMode, "progress bars: auto (when stderr is a terminal), always, never")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the clean phase to this file (go tool pprof)")
	f.StringVar(&o.Trace, "trace", "", "write a Go execution trace of the clean phase to this file: each goroutine's running, waiting and system-call time (go tool trace)")
}

// keepValue is --keep as a flag.
type keepValue lab.Keep

func (k *keepValue) String() string { return lab.Keep(*k).String() }
func (k *keepValue) Type() string   { return "keep" }
func (k *keepValue) Set(s string) error {
	v, err := lab.ParseKeep(s)
	if err != nil {
		return err
	}
	*k = keepValue(v)
	return nil
}

func newRunCmd() *cobra.Command {
	var o lab.RunCommandOptions
	kj := kafkajvm.CommandOptions{Libs: os.Getenv("CLEANERLAB_KAFKA_LIBS"), Warmup: 1}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Generate a log, clean it, verify it and report (the main job)",
		Long: `run is one experiment: generate Kafka-format logs with a known ground truth
(a compacted base plus a dirty head, with the cleaner checkpoint at the
boundary so the cleanable ratio is --dirty-ratio), put the page cache in the
requested state, build the cleaner threads (offset maps pre-faulted), snapshot
the kernel's counters, clean every partition once with Kafka's rules, snapshot
again, verify the result against the ground truth and write
runs/<time>-<config hash>/run.json, report.md and bench.txt (Go benchmark
format, for benchstat).

The data goes to a fresh directory under the OS temp dir, removed afterwards,
unless --dir puts it on the disk under test (and --keep keeps it).

--from runs/<id>/run.json reruns exactly the experiment recorded there
(the same seed writes the same bytes); its record gets the same config hash.
--experiment FILE takes the parameters from a YAML experiment file.

SIGINT or SIGTERM stops the run at a safe point (the clean in progress is
aborted at its next read, every log left consistent), removes the data
unless --keep, writes no record and exits 130 or 143.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			o.FlagsGiven, o.Given, o.Profile, o.Warnings = nil, flagsGiven(lab.Settings, f), "", cmd.ErrOrStderr()
			f.Visit(func(fl *pflag.Flag) { o.FlagsGiven = append(o.FlagsGiven, fl.Name) })
			if p := f.Lookup("profile"); p.Changed {
				o.Profile = p.Value.String()
			}
			kj.Profile, kj.Changed, kj.Stderr = f.Lookup("profile").Value.String(), f.Changed, cmd.ErrOrStderr()
			o.External, o.CleanedBy = kj.RunCleaner(), ""
			if kj.Profile == kafkajvm.ProfileName {
				// Kafka's own cleaner; our settings are the kafka profile's.
				o.Profile, o.CleanedBy = engine.ProfileKafka, kafkajvm.ProfileName
			}
			return lab.RunCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	bindRunFlags(cmd.Flags(), &o)
	f := cmd.Flags()
	f.Lookup("profile").Value.(*cleanerProfile).jvmOK = true
	f.StringVar(&kj.Libs, "kafka-libs", kj.Libs, "Kafka's classes for --profile kafka-jvm: the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output (default $CLEANERLAB_KAFKA_LIBS)")
	f.StringVar(&kj.JavaOpts, "kafka-java-opts", "", "the JVM options of Kafka's cleaner, blank-separated (default: a broker's G1 options and a pre-touched heap of max(1 GiB, dedupe buffer + 512 MiB))")
	f.Var(settings.Count(&kj.Warmup), "kafka-warmup", "cleans of a throwaway copy Kafka's JVM does before the measured one (its JIT warm)")
	return cmd
}
