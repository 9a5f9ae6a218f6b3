package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

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
}

type runFlags struct {
	cfg         runConfig
	compression string
	dir         string
	keep        bool
	out         string
	progress    string
	dropCaches  bool
	cpuProfile  string
}

func newRunCmd() *cobra.Command {
	rf := &runFlags{cfg: runConfig{
		Workload: workloads.DefaultSpec(),
		Log:      engine.DefaultLogConfig(),
		Cleaner:  engine.DefaultCleanerConfig(),
		Cache:    "cold",
		Fsync:    string(iosched.FsyncSegment),
		Verify:   true,
	}, out: "runs", progress: "auto", compression: "none"}
	// The default workload (workloads.DefaultSpec): about 256 MiB of 100-byte
	// values, half of it dirty, 2M keys.
	rf.cfg.Log.SegmentBytes = rf.cfg.Workload.SegmentBytes
	rf.cfg.Log.FileDeleteDelayMs = 0

	cmd := &cobra.Command{
		Use:   "run",
		Short: "Generate a log, clean it, verify it and report (the main job)",
		Long: `run is one experiment: generate Kafka-format logs with a known ground truth
(a compacted base plus a dirty head, with the cleaner checkpoint at the
boundary so the cleanable ratio is --dirty-ratio), put the page cache in the
requested state, snapshot the kernel's counters, clean every partition once
with Kafka's rules, snapshot again, verify the result against the ground truth
and write runs/<time>-<config hash>/run.json and report.md.

The data goes to a fresh directory under the OS temp dir, removed afterwards,
unless --dir puts it on the disk under test (and --keep keeps it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runMain(cmd, rf) },
	}
	f := cmd.Flags()
	w := &rf.cfg.Workload
	f.Int64Var(&w.Keys, "keys", w.Keys, "key cardinality: distinct keys the workload writes")
	f.IntVar(&w.KeyBytes, "key-bytes", w.KeyBytes, "bytes per key")
	f.IntVar(&w.ValueBytes, "value-bytes", w.ValueBytes, "bytes per value")
	f.Float64Var(&w.TombstoneRatio, "tombstone-ratio", w.TombstoneRatio, "share of dirty writes that are tombstones (null values)")
	f.Float64Var(&w.DirtyRatio, "dirty-ratio", w.DirtyRatio, "target cleanable ratio: dirty bytes / log bytes")
	f.Var((*byteSize)(&w.LogBytes), "log-bytes", "approximate .log bytes of all partitions together (suffixes KiB, MiB, GiB)")
	f.IntVar(&w.RecordsPerBatch, "records-per-batch", w.RecordsPerBatch, "records per batch written by the generator")
	f.StringVar(&rf.compression, "compression", rf.compression, "codec of generated batches: none, gzip, snappy, lz4, zstd")
	f.Uint64Var(&w.Seed, "seed", w.Seed, "seed of the workload: same seed, same bytes")
	f.IntVar(&w.Partitions, "partitions", w.Partitions, "partitions (logs) to generate and clean")
	f.StringVar(&w.Distribution, "distribution", w.Distribution, "key choice of the dirty head: uniform")
	logConfigFlags(f, &rf.cfg.Log)
	cleanerConfigFlags(f, &rf.cfg.Cleaner)
	f.StringVar(&rf.cfg.Cache, "cache", rf.cfg.Cache, "page cache before the clean: cold (fdatasync + fadvise DONTNEED every segment) or warm (read every segment once)")
	f.BoolVar(&rf.dropCaches, "drop-caches", false, "with --cache cold, also write 3 to /proc/sys/vm/drop_caches (root only; falls back to fadvise)")
	f.StringVar(&rf.cfg.Fsync, "fsync", rf.cfg.Fsync, "fsync policy of cleaned segments: segment (fsync each before the swap, as Kafka) or none (risk: a crash can lose cleaned data that the swap already replaced)")
	f.BoolVar(&rf.cfg.Verify, "verify", rf.cfg.Verify, "verify the cleaned log against the workload's ground truth")
	f.StringVar(&rf.dir, "dir", "", "data directory on the disk under test (default: a fresh temp dir, removed afterwards)")
	f.BoolVar(&rf.keep, "keep", false, "keep the data directory")
	f.StringVar(&rf.out, "out", rf.out, "directory of run records")
	f.StringVar(&rf.progress, "progress", rf.progress, "progress bars: auto (when stderr is a terminal), always, never")
	f.StringVar(&rf.cpuProfile, "cpuprofile", "", "write a CPU profile of the clean phase to this file (go tool pprof)")
	return cmd
}

func runMain(cmd *cobra.Command, rf *runFlags) error {
	out := cmd.OutOrStdout()
	cfg := &rf.cfg
	codec, err := record.ParseCodec(rf.compression)
	if err != nil {
		return err
	}
	cfg.Workload.Codec = codec
	if cmd.Flags().Changed("segment.bytes") {
		cfg.Workload.SegmentBytes = cfg.Log.SegmentBytes
	} else {
		cfg.Log.SegmentBytes = cfg.Workload.SegmentBytes
	}
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
	policy, err := iosched.ParseFsyncPolicy(cfg.Fsync)
	if err != nil {
		return err
	}
	showProgress, err := progressWanted(rf.progress)
	if err != nil {
		return err
	}

	if err := os.MkdirAll(rf.out, 0o755); err != nil {
		return fmt.Errorf("run: --out %s: %w", rf.out, err)
	}
	root, cleanup, err := dataRoot(rf.dir, rf.keep)
	if err != nil {
		return err
	}
	defer cleanup()

	run := &results.Run{StartedAt: time.Now().UTC(), Config: cfg, Phases: map[string]time.Duration{}}
	env, _ := results.CaptureEnvironment(root)
	run.Environment = env

	// 1. Generate.
	fmt.Fprintf(out, "generating ~%s in %d partition(s) under %s\n", results.FormatBytes(cfg.Workload.LogBytes), cfg.Workload.Partitions, root)
	t0 := time.Now()
	bar := newBar(showProgress, cfg.Workload.LogBytes, "generate")
	gen, err := workloads.Generate(root, cfg.Workload, cfg.Log, func(done, total int64) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
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
			return err
		}
		// A broker holds its producer state in memory; build it before the
		// timed clean.
		if err := l.LoadProducerState(); err != nil {
			l.Close()
			return err
		}
		logs = append(logs, l)
	}

	// 2. Page cache.
	t0 = time.Now()
	cacheNote, err := setCache(logs, cfg.Cache, rf.dropCaches)
	if err != nil {
		return err
	}
	if cacheNote != "" {
		run.Notes = append(run.Notes, cacheNote)
	}
	run.Phases["cache"] = time.Since(t0)

	// 3. Clean, between two counter snapshots.
	before, _ := results.Snapshot(env.DataDir.Device)
	t0 = time.Now()
	var progress atomic.Int64
	var total int64
	for _, l := range logs {
		total += l.SizeBytes()
	}
	bar = newBar(showProgress, total, "clean")
	stopProfile, err := startCPUProfile(rf.cpuProfile)
	if err != nil {
		return err
	}
	stop := bar.poll(&progress)
	stats, err := cleanAll(logs, cfg.Cleaner, engine.CleanerOptions{Progress: &progress, FsyncPolicy: policy})
	stop()
	stopProfile()
	bar.finish()
	cleanWall := time.Since(t0)
	after, _ := results.Snapshot(env.DataDir.Device)
	if err != nil {
		return err
	}
	for _, st := range stats {
		if !st.Cleaned() {
			return fmt.Errorf("run: %s was not cleaned: %s", st.TopicPartition, st.Skipped)
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
	path, werr := run.Write(rf.out)

	printRunTable(out, run, stats)
	for _, st := range stats {
		fmt.Fprint(out, st.KafkaMessage(st.Thread))
	}
	if werr != nil {
		return fmt.Errorf("run: write record: %w", werr)
	}
	fmt.Fprintf(out, "record: %s\n", path)
	if rf.keep {
		fmt.Fprintf(out, "data: %s\n", root)
	}
	if run.Verification != nil && !run.Verification.Passed {
		return exitError{code: 2, err: fmt.Errorf("verification failed:\n%s", run.Verification.Detail)}
	}
	return nil
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

// cleanAll cleans every log once with cfg.Threads cleaners, each owning its
// share of the dedupe and I/O buffers, as Kafka's cleaner threads.
func cleanAll(logs []*engine.Log, cfg engine.CleanerConfig, opts engine.CleanerOptions) ([]*engine.CleanStats, error) {
	stats := make([]*engine.CleanStats, len(logs))
	next := make(chan int, len(logs))
	for i := range logs {
		next <- i
	}
	close(next)
	threads := min(cfg.Threads, len(logs))
	cleaners := make([]*engine.Cleaner, threads)
	for t := range cleaners {
		c, err := engine.NewCleaner(cfg, opts)
		if err != nil {
			return nil, err
		}
		cleaners[t] = c
	}
	var wg sync.WaitGroup
	errs := make([]error, threads)
	for t := range threads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// run measures one clean of each log whatever its ratio, as a
				// direct call of Kafka's Cleaner.clean (the generator set the ratio).
				st, err := cleaners[t].Clean(logs[i], engine.CleanOptions{Force: true})
				if err != nil {
					errs[t] = fmt.Errorf("%s: %w", logs[i].TopicPartition(), err)
					return
				}
				st.Thread = t
				stats[i] = st
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return stats, nil
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
		{Name: "fsync time", Value: secs(syncTime), Unit: "s", Meaning: "inside fsync of cleaned segments"},
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
