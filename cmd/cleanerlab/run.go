package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// runConfig is the resolved experiment of one run; its JSON is hashed into
// the run's ID, so it holds no path that changes from run to run.
type runConfig struct {
	Workload workloads.Spec       `json:"workload"`
	Log      engine.LogConfig     `json:"log"`
	Cleaner  engine.CleanerConfig `json:"cleaner"`
	Cache    string               `json:"cache"`
	Fsync    string               `json:"fsync"`
	Verify   bool                 `json:"verify"`
	// HotBytes is the size of a hot file kept in the page cache beside the
	// logs (with the active segments, the hot set whose residency after the
	// clean measures cache pollution); 0: none. HotRereadMs re-reads it
	// every that many ms during the clean, as a workload would (0: never).
	HotBytes    int64 `json:"hot_bytes,omitempty"`
	HotRereadMs int64 `json:"hot_reread_ms,omitempty"`
}

type runFlags struct {
	cfg         runConfig
	compression string
	from        string
	experiment  string
	dir         string
	keep        bool
	out         string
	progress    string
	dropCaches  bool
	cpuProfile  string
	baseline    bool
}

// runLabFlags are run's flags that say where and how a run is carried out,
// not what it measures: they are not part of runConfig, so --from accepts
// them and sweep does not sweep them.
var runLabFlags = map[string]bool{
	"from": true, "experiment": true, "dir": true, "keep": true, "out": true, "progress": true,
	"drop-caches": true, "cpuprofile": true, "baseline": true,
}

// defaultRunFlags returns run's defaults: the default workload
// (workloads.DefaultSpec: about 256 MiB of 100-byte values, half of it
// dirty, 2M keys), Kafka's topic and cleaner configs, a cold cache.
func defaultRunFlags() *runFlags {
	rf := &runFlags{cfg: runConfig{
		Workload: workloads.DefaultSpec(),
		Log:      engine.DefaultLogConfig(),
		Cleaner:  engine.DefaultCleanerConfig(),
		Cache:    "cold",
		Fsync:    string(iosched.FsyncSegment),
		Verify:   true,
	}, out: "runs", progress: "auto", compression: "none"}
	rf.cfg.Log.SegmentBytes = rf.cfg.Workload.SegmentBytes
	rf.cfg.Log.FileDeleteDelayMs = 0
	return rf
}

// bindRunFlags binds run's flags to a fresh set of defaults in f. sweep
// binds them too, once per point, so that every flag of run can be swept.
func bindRunFlags(f *pflag.FlagSet) *runFlags {
	rf := defaultRunFlags()
	workloadFlags(f, &rf.cfg.Workload, &rf.compression)
	logConfigFlags(f, &rf.cfg.Log)
	cleanerConfigFlags(f, &rf.cfg.Cleaner)
	f.StringVar(&rf.cfg.Cache, "cache", rf.cfg.Cache, "page cache before the clean: cold (fdatasync + fadvise DONTNEED every segment) or warm (read every segment once)")
	f.BoolVar(&rf.dropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise)")
	f.StringVar(&rf.cfg.Fsync, "fsync", rf.cfg.Fsync, "fsync policy of cleaned segments: segment (fsync each before the swap, as Kafka), fdatasync, bytes=N (start write-back every N bytes, fdatasync at the end) or none (no sync at all, not even of the directory: a crash can lose cleaned data that the swap already replaced)")
	f.Var((*byteSize)(&rf.cfg.HotBytes), "hot-bytes", "hot file kept in the page cache beside the logs, to measure the cache pollution of the clean (bytes; 0: only the active segments)")
	f.Int64Var(&rf.cfg.HotRereadMs, "hot-reread-ms", 0, "re-read the hot file every this many ms during the clean, as a workload would (0: never)")
	f.BoolVar(&rf.baseline, "baseline", false, "measure the data directory's device (O_DIRECT sequential read/write) and memory copy bandwidth before the run and cache them in --out; without it the cached baseline is used")
	f.BoolVar(&rf.cfg.Verify, "verify", rf.cfg.Verify, "verify the cleaned log against the workload's ground truth")
	f.StringVar(&rf.from, "from", "", "rerun exactly the configuration of this run record (runs/<id>/run.json, or its directory); only the flags that say where and how (--dir, --keep, --out, --progress, --drop-caches, --cpuprofile, --baseline) may be given with it")
	f.StringVar(&rf.experiment, "experiment", "", "take the run's parameters from this YAML experiment file (see scripts/experiments/); flags given too win over it")
	f.StringVar(&rf.dir, "dir", "", "data directory on the disk under test (default: a fresh temp dir, removed afterwards)")
	f.BoolVar(&rf.keep, "keep", false, "keep the data directory")
	f.StringVar(&rf.out, "out", rf.out, "directory of run records")
	f.StringVar(&rf.progress, "progress", rf.progress, "progress bars: auto (when stderr is a terminal), always, never")
	f.StringVar(&rf.cpuProfile, "cpuprofile", "", "write a CPU profile of the clean phase to this file (go tool pprof)")
	return rf
}

func newRunCmd() *cobra.Command {
	var rf *runFlags
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Generate a log, clean it, verify it and report (the main job)",
		Long: `run is one experiment: generate Kafka-format logs with a known ground truth
(a compacted base plus a dirty head, with the cleaner checkpoint at the
boundary so the cleanable ratio is --dirty-ratio), put the page cache in the
requested state, snapshot the kernel's counters, clean every partition once
with Kafka's rules, snapshot again, verify the result against the ground truth
and write runs/<time>-<config hash>/run.json, report.md and bench.txt (Go
benchmark format, for benchstat).

The data goes to a fresh directory under the OS temp dir, removed afterwards,
unless --dir puts it on the disk under test (and --keep keeps it).

--from runs/<id>/run.json reruns exactly the configuration recorded there
(the same seed writes the same bytes); its record gets the same config hash.
--experiment FILE takes the parameters from a YAML experiment file.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMain(cmd, rf) },
	}
	rf = bindRunFlags(cmd.Flags())
	return cmd
}

// runOptions are the settings of one run that are not part of its
// configuration: where its data and record go and what it prints.
type runOptions struct {
	// Dir is the parent of the data directory ("" = the OS temp dir); Keep
	// keeps the data directory.
	Dir  string
	Keep bool
	// Out is the directory of run records.
	Out string
	// Progress shows progress bars on stderr.
	Progress bool
	// DropCaches writes to /proc/sys/vm/drop_caches for a cold cache.
	DropCaches bool
	// CPUProfile is a file for a CPU profile of the clean phase ("" = none).
	CPUProfile string
	// Baseline measures the device and memory limits before the clean
	// (and caches them under Out); otherwise the cached ones are used.
	Baseline bool
	// Log receives the lines a run prints while it goes (nil = none).
	Log io.Writer
	// NameParts are key=value parts the run's benchmark name carries after
	// the standard ones (sweep passes the swept parameters that are not
	// among them).
	NameParts []results.KV
	// IDSuffix, when not empty, is appended to the run's ID
	// (<time>-<config hash><suffix>), so that repetitions of one
	// configuration started within a second get distinct records.
	IDSuffix string
}

// runResult is what one run produced.
type runResult struct {
	Run   *results.Run
	Stats []*engine.CleanStats
	// Path is the run's record directory; "" when it could not be written.
	Path string
	// Data is the data directory, when kept.
	Data string
}

// resolveRun turns run's flags into the configuration of one run: the
// record named by --from, or the flags over the experiment file's values
// (the codec parsed, segment.bytes shared by the workload and the log
// config), validated.
func resolveRun(f *pflag.FlagSet, rf *runFlags) (runConfig, error) {
	if rf.experiment != "" {
		if rf.from != "" {
			return runConfig{}, fmt.Errorf("run: --from and --experiment each give the whole configuration; give one")
		}
		e, err := loadExperiment(rf.experiment)
		if err != nil {
			return runConfig{}, err
		}
		if err := applyExperiment(f, e); err != nil {
			return runConfig{}, err
		}
	}
	if rf.from != "" {
		var given []string
		f.Visit(func(fl *pflag.Flag) {
			if !runLabFlags[fl.Name] {
				given = append(given, "--"+fl.Name)
			}
		})
		if len(given) > 0 {
			return runConfig{}, fmt.Errorf("run: --from reruns a recorded configuration; %s would change it (give them without --from)", strings.Join(given, ", "))
		}
		cfg, err := readRunConfig(rf.from)
		if err != nil {
			return runConfig{}, err
		}
		return cfg, validateRunConfig(&cfg)
	}
	cfg := rf.cfg
	codec, err := record.ParseCodec(rf.compression)
	if err != nil {
		return runConfig{}, err
	}
	cfg.Workload.Codec = codec
	if f.Changed("segment.bytes") {
		cfg.Workload.SegmentBytes = cfg.Log.SegmentBytes
	} else {
		cfg.Log.SegmentBytes = cfg.Workload.SegmentBytes
	}
	return cfg, validateRunConfig(&cfg)
}

// readRunConfig reads the configuration of a run record: path is its
// run.json or its directory. Fields the record lacks keep run's defaults
// (a record written before they existed); a field this version does not
// know is an error, since the rerun would not be the same experiment.
func readRunConfig(path string) (runConfig, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		path = filepath.Join(path, results.RunJSONFile)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return runConfig{}, fmt.Errorf("run: --from: %w", err)
	}
	var rec struct {
		Config json.RawMessage `json:"config"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return runConfig{}, fmt.Errorf("run: --from %s: %w", path, err)
	}
	if len(rec.Config) == 0 || string(rec.Config) == "null" {
		return runConfig{}, fmt.Errorf("run: --from %s: the record holds no config", path)
	}
	cfg := defaultRunFlags().cfg
	dec := json.NewDecoder(bytes.NewReader(rec.Config))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cfg); err != nil {
		return runConfig{}, fmt.Errorf("run: --from %s: config: %w (was it written by another version of cleanerlab?)", path, err)
	}
	return cfg, nil
}

// validateRunConfig checks every part of cfg.
func validateRunConfig(cfg *runConfig) error {
	if err := cfg.Workload.Validate(); err != nil {
		return err
	}
	if err := cfg.Log.Validate(); err != nil {
		return err
	}
	if err := cfg.Cleaner.Validate(); err != nil {
		return err
	}
	if cfg.Cache != "cold" && cfg.Cache != "warm" {
		return fmt.Errorf("run: --cache %q: want cold or warm", cfg.Cache)
	}
	if _, err := iosched.ParseFsyncPolicy(cfg.Fsync); err != nil {
		return err
	}
	return nil
}

func runMain(cmd *cobra.Command, rf *runFlags) error {
	out := cmd.OutOrStdout()
	cfg, err := resolveRun(cmd.Flags(), rf)
	if err != nil {
		return err
	}
	showProgress, err := progressWanted(rf.progress)
	if err != nil {
		return err
	}
	res, err := executeRun(cfg, runOptions{
		Dir: rf.dir, Keep: rf.keep, Out: rf.out, Progress: showProgress,
		DropCaches: rf.dropCaches, CPUProfile: rf.cpuProfile, Log: out, Baseline: rf.baseline,
	})
	if res == nil {
		return err
	}
	printRunTable(out, res.Run, res.Stats)
	for _, st := range res.Stats {
		fmt.Fprint(out, st.KafkaMessage(st.Thread))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "record: %s\n", res.Path)
	if res.Data != "" {
		fmt.Fprintf(out, "data: %s\n", res.Data)
	}
	if v := res.Run.Verification; v != nil && !v.Passed {
		return exitError{code: 2, err: fmt.Errorf("verification failed:\n%s", v.Detail)}
	}
	return nil
}

// executeRun carries out one run of a resolved, valid configuration:
// generate, set the cache, clean between two counter snapshots, verify, and
// write the record under opt.Out. It returns nil and the error when the run
// could not be measured; the result and the error when only writing the
// record failed; a failed verification is no error here (it is in the
// record: res.Run.Verification).
func executeRun(cfg runConfig, opt runOptions) (*runResult, error) {
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	policy, err := iosched.ParseFsyncPolicy(cfg.Fsync)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, fmt.Errorf("run: --out %s: %w", opt.Out, err)
	}
	root, cleanup, err := dataRoot(opt.Dir, opt.Keep)
	if err != nil {
		return nil, err
	}
	defer cleanup()

	run := &results.Run{StartedAt: time.Now().UTC(), Config: cfg, Phases: map[string]time.Duration{}}
	if opt.IDSuffix != "" {
		id, err := results.NewID(run.StartedAt, cfg)
		if err != nil {
			return nil, err
		}
		run.ID = id + opt.IDSuffix
	}
	env, _ := results.CaptureEnvironment(root)
	run.Environment = env

	// 1. Generate.
	fmt.Fprintf(logw, "generating ~%s in %d partition(s) under %s\n", results.FormatBytes(cfg.Workload.LogBytes), cfg.Workload.Partitions, root)
	t0 := time.Now()
	bar := newBar(opt.Progress, cfg.Workload.LogBytes, "generate")
	gen, err := workloads.Generate(root, cfg.Workload, cfg.Log, func(done, total int64) { bar.set(done) })
	bar.finish()
	if err != nil {
		return nil, err
	}
	run.Phases["generate"] = time.Since(t0)

	logs := make([]*engine.Log, 0, len(gen.Dirs))
	defer func() {
		for _, l := range logs {
			l.Close()
		}
	}()
	for _, d := range gen.Dirs {
		l, err := engine.Open(d, engine.Options{Config: &cfg.Log})
		if err != nil {
			return nil, err
		}
		// A broker holds its producer state in memory; build it before the
		// timed clean.
		if err := l.LoadProducerState(); err != nil {
			l.Close()
			return nil, err
		}
		logs = append(logs, l)
	}

	// 2. Page cache.
	t0 = time.Now()
	cacheNote, err := setCache(logs, cfg.Cache, opt.DropCaches)
	if err != nil {
		return nil, err
	}
	if cacheNote != "" {
		run.Notes = append(run.Notes, cacheNote)
	}
	run.Phases["cache"] = time.Since(t0)
	iorun, err := prepareIO(&cfg, opt, env, root, logs, logw)
	if err != nil {
		return nil, err
	}
	defer iorun.close()

	// 3. Clean, between two counter snapshots. The cleaner threads (their
	// offset maps and buffers) are made first, outside the timed phase, as a
	// broker makes them at startup.
	var progress atomic.Int64
	manager, err := newCleanManager(logs, cfg.Cleaner, iorun.cleanerOptions(engine.CleanerOptions{Progress: &progress, FsyncPolicy: policy}))
	if err != nil {
		return nil, err
	}
	before, _ := results.Snapshot(env.DataDir.Device)
	t0 = time.Now()
	var total int64
	for _, l := range logs {
		total += l.SizeBytes()
	}
	bar = newBar(opt.Progress, total, "clean")
	stopProfile, err := startCPUProfile(opt.CPUProfile)
	if err != nil {
		return nil, err
	}
	stop := bar.poll(&progress)
	stats, err := manager.CleanEach()
	stop()
	stopProfile()
	bar.finish()
	cleanWall := time.Since(t0)
	after, _ := results.Snapshot(env.DataDir.Device)
	iorun.afterClean(logs)
	if err != nil {
		return nil, err
	}
	for _, st := range stats {
		if !st.Cleaned() {
			return nil, fmt.Errorf("run: %s was not cleaned: %s", st.TopicPartition, st.Skipped)
		}
	}
	run.Phases["clean"] = cleanWall
	run.SetCounters(before, after)
	run.Stats = stats

	// 4. Verify against the ground truth.
	if cfg.Verify {
		t0 = time.Now()
		v := &results.Verification{Passed: true}
		var details []string
		for i, l := range logs {
			if err := gen.Truth[i].Verify(l, int64(stats[i].CheckpointOffset)); err != nil {
				v.Passed = false
				details = append(details, fmt.Sprintf("%s: %v", l.TopicPartition(), err))
			} else {
				details = append(details, fmt.Sprintf("%s: every key's latest record present, offsets unchanged, no key twice below checkpoint %d", l.TopicPartition(), stats[i].CheckpointOffset))
			}
		}
		v.Detail = strings.Join(details, "\n")
		run.Verification = v
		run.Phases["verify"] = time.Since(t0)
	}

	run.Rows = runRows(stats, cfg.Cleaner, cleanWall, run.Delta)
	iorun.finish(run, stats, cleanWall)
	run.Benchmarks = runBenchmarks(&cfg, stats, cleanWall, run.Delta, opt.NameParts)
	res := &runResult{Run: run, Stats: stats}
	if opt.Keep {
		res.Data = root
	}
	path, err := writeRecord(run, opt.Out)
	if err != nil {
		return res, fmt.Errorf("run: write record: %w", err)
	}
	res.Path = path
	return res, nil
}

// writeRecord writes the run's record under out. Two runs of one
// configuration started within the same second (a --from rerun, a script's
// loop) would get the same ID: the later gets "-2", "-3", ... appended.
func writeRecord(run *results.Run, out string) (string, error) {
	if run.ID == "" {
		id, err := results.NewID(run.StartedAt, run.Config)
		if err != nil {
			return "", err
		}
		run.ID = id
	}
	base := run.ID
	for n := 2; ; n++ {
		path, err := run.Write(out)
		if !errors.Is(err, fs.ErrExist) || n > 100 {
			return path, err
		}
		run.ID = fmt.Sprintf("%s-%d", base, n)
	}
}

// startCPUProfile starts a CPU profile into path ("" = none); the returned
// func stops it and closes the file.
func startCPUProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("run: --cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("run: --cpuprofile: %w", err)
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// dataRoot returns the log directory root of this run and a cleanup func
// that removes it unless keep (or the user gave dir and it existed before).
func dataRoot(dir string, keep bool) (string, func(), error) {
	if dir == "" {
		root, err := os.MkdirTemp("", "cleanerlab-")
		if err != nil {
			return "", nil, err
		}
		if keep {
			return root, func() {}, nil
		}
		return root, func() { os.RemoveAll(root) }, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", nil, fmt.Errorf("run: --dir: %w", err)
	}
	root, err := os.MkdirTemp(dir, "cleanerlab-")
	if err != nil {
		return "", nil, fmt.Errorf("run: --dir: %w", err)
	}
	if keep {
		return root, func() {}, nil
	}
	return root, func() { os.RemoveAll(root) }, nil
}

// setCache puts every segment file in the requested page-cache state.
func setCache(logs []*engine.Log, mode string, dropCaches bool) (string, error) {
	note := ""
	if mode == "cold" && dropCaches {
		if err := iosched.DropCachesGlobal(); err != nil {
			note = fmt.Sprintf("drop_caches not permitted (%v); fell back to fadvise DONTNEED per file", err)
		} else {
			return "cache: drop_caches", nil
		}
	}
	buf := make([]byte, 1<<20)
	for _, l := range logs {
		if err := l.Flush(); err != nil {
			return note, err
		}
		for _, s := range l.Segments() {
			var err error
			if mode == "cold" {
				err = iosched.DropFileCache(s.File())
			} else {
				err = iosched.WarmFile(s.File(), buf)
			}
			if err != nil {
				return note, fmt.Errorf("run: cache %s %s: %w", mode, s.LogPath(), err)
			}
		}
	}
	return note, nil
}

// newCleanManager puts the logs under a cleaner manager with cfg.Threads
// threads, each owning its share of the dedupe and I/O buffers, as Kafka's
// cleaner threads. Its CleanEach cleans every log once, filthiest first:
// run measures one clean of each log whatever its ratio, as a direct call
// of Kafka's Cleaner.clean (the generator set the ratio).
func newCleanManager(logs []*engine.Log, cfg engine.CleanerConfig, opts engine.CleanerOptions) (*engine.CleanerManager, error) {
	m, err := engine.NewCleanerManager(engine.CleanerManagerOptions{Cleaner: cfg, CleanerOptions: opts})
	if err != nil {
		return nil, err
	}
	for _, l := range logs {
		if err := m.AddLog(l); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func runRows(stats []*engine.CleanStats, cfg engine.CleanerConfig, wall time.Duration, d results.CounterDelta) []results.Row {
	var read, written, mapRead, recRead, recKept, mapKeys int64
	var mapTime, copyTime, syncTime time.Duration
	util := 0.0
	for _, st := range stats {
		read += st.BytesRead
		written += st.BytesWritten
		mapRead += st.MapBytesRead
		recRead += st.MessagesRead
		recKept += st.MessagesWritten
		mapTime += st.MapTime()
		copyTime += st.CopyTime()
		syncTime += st.SyncTime
		util = max(util, st.BufferUtilization)
		mapKeys = max(mapKeys, int64(st.MapEntries))
	}
	f1 := func(v float64) string { return fmt.Sprintf("%.1f", v) }
	mib := func(n int64) string { return f1(float64(n) / (1 << 20)) }
	secs := func(t time.Duration) string { return fmt.Sprintf("%.3f", t.Seconds()) }
	rows := []results.Row{
		{Name: "log read", Value: mib(read), Unit: "MiB", Meaning: "bytes of segments recopied by the cleaner"},
		{Name: "log written", Value: mib(written), Unit: "MiB", Meaning: "bytes of cleaned segments written"},
		{Name: "map read", Value: mib(mapRead), Unit: "MiB", Meaning: "bytes of dirty segments read to build the offset map"},
		{Name: "records read", Value: fmt.Sprint(recRead), Unit: "records", Meaning: "records read while recopying"},
		{Name: "records kept", Value: fmt.Sprint(recKept), Unit: "records", Meaning: "records written to cleaned segments"},
		{Name: "throughput", Value: f1(results.MBps(read, wall)), Unit: "MiB/s", Meaning: "log read / wall time of the clean phase"},
		{Name: "clean wall time", Value: secs(wall), Unit: "s", Meaning: "wall time of the clean phase (all partitions)"},
		{Name: "map build time", Value: secs(mapTime), Unit: "s", Meaning: "building offset maps (summed over partitions)"},
		{Name: "copy time", Value: secs(copyTime), Unit: "s", Meaning: "recopying, fsync and swap (summed over partitions)"},
		{Name: "fsync time", Value: secs(syncTime), Unit: "s", Meaning: "inside fsync, fdatasync and sync_file_range of cleaned segments (--fsync)"},
		{Name: "map utilisation", Value: f1(100 * util), Unit: "%", Meaning: "max over cleans of keys in the map / slots"},
	}
	rows = append(rows, mapRows(cfg, mapKeys)...)
	if d.DiskNote == "" {
		rows = append(rows,
			results.Row{Name: "disk read", Value: mib(d.DiskReadBytes), Unit: "MiB", Meaning: "device " + d.Device + " sectors read during the clean (all processes)"},
			results.Row{Name: "disk written", Value: mib(d.DiskWrittenBytes), Unit: "MiB", Meaning: "device sectors written during the clean (all processes)"})
	} else {
		rows = append(rows, results.Row{Name: "disk counters", Value: "n/a", Meaning: d.DiskNote})
	}
	rows = append(rows,
		results.Row{Name: "process read from storage", Value: mib(d.ProcReadBytes), Unit: "MiB", Meaning: "/proc/self/io read_bytes: what page-cache misses fetched"},
		results.Row{Name: "process written to storage", Value: mib(d.ProcWriteBytes), Unit: "MiB", Meaning: "/proc/self/io write_bytes"},
		results.Row{Name: "page cache change", Value: mib(d.CachedBytes), Unit: "MiB", Meaning: "meminfo Cached after - before (system-wide)"},
		results.Row{Name: "major faults", Value: fmt.Sprint(d.MajorFaultsCount), Unit: "faults", Meaning: "vmstat pgmajfault delta (system-wide)"},
	)
	return rows
}

func printRunTable(w io.Writer, run *results.Run, stats []*engine.CleanStats) {
	fmt.Fprintln(w)
	for _, k := range []string{"generate", "cache", "clean", "verify"} {
		if d, ok := run.Phases[k]; ok {
			fmt.Fprintf(w, "phase %-10s %8.3f s\n", k, d.Seconds())
		}
	}
	fmt.Fprintln(w)
	for _, r := range run.Rows {
		fmt.Fprintf(w, "  %-28s %12s %-8s %s\n", r.Name, r.Value, r.Unit, r.Meaning)
	}
	if v := run.Verification; v != nil {
		status := "PASSED"
		if !v.Passed {
			status = "FAILED"
		}
		fmt.Fprintf(w, "\nverification %s\n%s\n", status, v.Detail)
	}
	for _, n := range run.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	fmt.Fprintln(w)
}

// mapRows describes the offset map of the run: its layout and hasher, its
// density and the collision risk of the largest pass, computed by
// offsetmap.LayoutInfo from the layout's fingerprint width (a model
// prediction, not a measurement: the birthday bound).
func mapRows(cfg engine.CleanerConfig, keys int64) []results.Row {
	h, err := offsetmap.NewHasher(cfg.Hasher)
	if err != nil {
		return nil // the cleaner would have refused it
	}
	info, err := offsetmap.Describe(cfg.OffsetMap, h)
	if err != nil {
		return nil
	}
	return []results.Row{
		{Name: "offset map", Value: info.Layout, Meaning: fmt.Sprintf("--offset-map: %d bytes per entry, %d-bit fingerprints", info.EntryBytes, info.FingerprintBits)},
		{Name: "hasher", Value: info.Hasher, Meaning: "--hasher: the key digest the map stores"},
		{Name: "map keys per MiB", Value: fmt.Sprintf("%.0f", info.KeysPerMiB()), Unit: "keys/MiB", Meaning: "slots per MiB of dedupe buffer (2^20 / bytes per entry); a pass fills up to the load factor of them"},
		{Name: "collision probability", Value: fmt.Sprintf("%.3g", info.CollisionProbability(keys)), Meaning: fmt.Sprintf("model: chance that the largest pass's %d keys held two with equal fingerprints (1-exp(-n(n-1)/2^(b+1)), b = %d); such a pair makes the cleaner drop a live record", keys, info.FingerprintBits)},
	}
}
