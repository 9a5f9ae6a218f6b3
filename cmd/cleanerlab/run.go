package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/results"
)

// runFlags are run's flags: the experiment's fields, and how the run is
// carried out.
type runFlags struct {
	exp        lab.Experiment
	from       string
	experiment string
	dir        string
	keep       keepValue
	out        string
	progress   string
	dropCaches bool
	cpuProfile string
	trace      string
	baseline   bool
	kafka      kafkaJVMFlags
}

// runLabFlags are run's flags that say where and how a run is carried out,
// not what it measures: they are not part of lab.Experiment, so --from
// accepts them and sweep does not sweep them.
var runLabFlags = map[string]bool{
	"from": true, "experiment": true, "dir": true, "keep": true, "out": true, "progress": true,
	"drop-caches": true, "cpuprofile": true, "trace": true, "baseline": true,
	"kafka-libs": true, "kafka-java-opts": true, "kafka-warmup": true,
}

// bindRunFlags binds run's flags to a fresh lab.DefaultExperiment in f.
func bindRunFlags(f *pflag.FlagSet) *runFlags {
	rf := &runFlags{exp: lab.DefaultExperiment(), out: "runs", progress: "auto"}
	bindExperimentFlags(f, &rf.exp)
	f.BoolVar(&rf.dropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise)")
	f.BoolVar(&rf.baseline, "baseline", false, "measure the data directory's device (O_DIRECT sequential read/write) and memory copy bandwidth before the run and cache them in --out; without it the cached baseline is used")
	f.StringVar(&rf.from, "from", "", "rerun exactly the experiment of this run record (runs/<id>/run.json, or its directory); only the flags that say where and how (--dir, --keep, --out, --progress, --drop-caches, --cpuprofile, --trace, --baseline) may be given with it")
	f.StringVar(&rf.experiment, "experiment", "", "take the run's parameters from this YAML experiment file (see scripts/experiments/); flags given too win over it")
	f.StringVar(&rf.dir, "dir", "", "data directory on the disk under test (default: a fresh temp dir, removed afterwards)")
	f.Var(&rf.keep, "keep", "keep the data directory: --keep (or --keep=cleaned) keeps the cleaned logs; --keep=uncleaned also keeps a copy of the generated logs made before the clean, in <data>-uncleaned")
	f.Lookup("keep").NoOptDefVal = "cleaned"
	f.StringVar(&rf.out, "out", rf.out, "directory of run records")
	f.StringVar(&rf.progress, "progress", rf.progress, "progress bars: auto (when stderr is a terminal), always, never")
	f.StringVar(&rf.cpuProfile, "cpuprofile", "", "write a CPU profile of the clean phase to this file (go tool pprof)")
	f.StringVar(&rf.trace, "trace", "", "write a Go execution trace of the clean phase to this file: each goroutine's running, waiting and system-call time (go tool trace)")
	rf.kafka.bindRun(f)
	return rf
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
	var rf *runFlags
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
		RunE: func(cmd *cobra.Command, _ []string) error { return runMain(cmd, rf) },
	}
	rf = bindRunFlags(cmd.Flags())
	return cmd
}

// resolveRun turns run's flags into the experiment of one run: the record
// named by --from, or the flags over the experiment file's values,
// validated.
func resolveRun(f *pflag.FlagSet, rf *runFlags) (lab.Experiment, error) {
	if rf.from != "" {
		if rf.experiment != "" {
			return lab.Experiment{}, fmt.Errorf("run: --from and --experiment each give the whole experiment; give one")
		}
		var given []string
		f.Visit(func(fl *pflag.Flag) {
			if !runLabFlags[fl.Name] {
				given = append(given, "--"+fl.Name)
			}
		})
		if len(given) > 0 {
			return lab.Experiment{}, fmt.Errorf("run: --from reruns a recorded experiment; %s would change it (give them without --from)", strings.Join(given, ", "))
		}
		return lab.ReadRunExperiment(rf.from)
	}
	e := rf.exp
	var file *lab.File
	if rf.experiment != "" {
		var err error
		if e, file, err = lab.LoadRunFile(rf.experiment, lab.LoadOptions{Param: flagSetter}); err != nil {
			return lab.Experiment{}, err
		}
		// The flags given on the command line win over the file: --profile
		// first, then each setting's flag (lab.Settings.Resolve).
		if p := f.Lookup("profile"); p.Changed {
			name := p.Value.String()
			if name == kafkajvm.ProfileName { // Kafka's own cleaner; our settings are the kafka profile's
				name = engine.ProfileKafka
			}
			if err := e.Cleaner.ApplyProfile(name); err != nil {
				return lab.Experiment{}, err
			}
		}
		if e, _, err = lab.Settings.Resolve(e, flagsGiven(lab.Settings, f)...); err != nil {
			return lab.Experiment{}, err
		}
	}
	if err := e.Validate(); err != nil {
		if file != nil {
			return lab.Experiment{}, file.Blame(err) // the file's line:col of the bad value
		}
		return lab.Experiment{}, err
	}
	return e, nil
}

func runMain(cmd *cobra.Command, rf *runFlags) error {
	out := cmd.OutOrStdout()
	e, err := resolveRun(cmd.Flags(), rf)
	if err != nil {
		return err
	}
	for _, w := range e.Cleaner.IgnoredSettings() {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
	}
	showProgress, err := lab.ProgressWanted(rf.progress)
	if err != nil {
		return err
	}
	opt := lab.Options{
		Dir: rf.dir, Keep: lab.Keep(rf.keep), Out: rf.out, Progress: lab.NewBars(showProgress),
		DropCaches: rf.dropCaches, CPUProfile: rf.cpuProfile, Trace: rf.trace, Log: out, Baseline: rf.baseline,
	}
	ext, err := rf.kafka.external(cmd, e)
	if err != nil {
		return err
	}
	if ext != nil {
		defer ext.Close()
		opt.External, opt.NameParts = ext, []results.KV{{Key: "cleaner", Value: ext.Name()}}
	}
	run, err := lab.Run(cmd.Context(), e, opt)
	if run == nil {
		return err
	}
	lab.WriteRunTable(out, run)
	lab.WriteKafkaLines(out, run)
	if err != nil {
		return err
	}
	lab.WriteRunPaths(out, run)
	lab.WriteVerdictNote(out, run.Interference["clean"])
	if v := run.Verification; v != nil && !v.Passed {
		return exitError{code: 2, err: fmt.Errorf("verification failed:\n%s", v.Detail)}
	}
	return nil
}
