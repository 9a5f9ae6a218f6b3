package main

import (
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/settings"
)

// bindRunFlags binds run's flags to o, over a fresh lab.DefaultExperiment.
func bindRunFlags(f *pflag.FlagSet, o *lab.RunCommandOptions) {
	*o = lab.RunCommandOptions{ProgressMode: "auto", Param: lab.RunFlagSetter}
	o.Out = "runs"
	e := lab.DefaultExperiment() // the flags' parse; lab.ResolveExperiment applies them as given
	bindExperimentFlags(f, &e)
	f.BoolVar(&o.DropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise)")
	f.BoolVar(&o.Baseline, "baseline", false, "measure the data directory's device (O_DIRECT sequential read/write) and memory copy bandwidth before the run and cache them in --out; without it the cached baseline is used")
	f.StringVar(&o.From, "from", "", "rerun exactly the experiment of this run record (runs/<id>/run.json, or its directory); only the flags that say where and how (--dir, --keep, --out, --progress, --drop-caches, --cpuprofile, --trace, --baseline) may be given with it")
	f.StringVar(&o.File, "experiment", "", "take the run's parameters from this YAML experiment file (see scripts/experiments/); flags given too win over it")
	f.StringVar(&o.ServerConfig, "server-config", "", "a broker's server.properties: its values of the experiment's settings (by Kafka name) over run's defaults, under --experiment's and the flags given (cleanerlab settings --experiment shows the result)")
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
		Use:  "run",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			o.FlagsGiven, o.Given, o.Warnings = nil, experimentGiven(f), cmd.ErrOrStderr()
			f.Visit(func(fl *pflag.Flag) { o.FlagsGiven = append(o.FlagsGiven, fl.Name) })
			kj.Profile, kj.Stderr = f.Lookup("profile").Value.String(), cmd.ErrOrStderr()
			o.External = kj.RunCleaner()
			return lab.RunCommand(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	bindRunFlags(cmd.Flags(), &o)
	f := cmd.Flags()
	f.StringVar(&kj.Libs, "kafka-libs", kj.Libs, "Kafka's classes for --profile kafka-jvm: the libs/ of a Kafka 4.1+ installation, or scripts/build-kafka-classes.sh's output (default $CLEANERLAB_KAFKA_LIBS)")
	f.StringVar(&kj.JavaOpts, "kafka-java-opts", "", "the JVM options of Kafka's cleaner, blank-separated (default: a broker's G1 options and a pre-touched heap of max(1 GiB, dedupe buffer + 512 MiB))")
	f.Var(settings.Count(&kj.Warmup), "kafka-warmup", "cleans of a throwaway copy Kafka's JVM does before the measured one (its JIT warm)")
	return cmd
}
