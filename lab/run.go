package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Keep says what a run keeps of its data directory.
type Keep string

const (
	// KeepNone removes the data directory when the run ends. The default.
	KeepNone Keep = ""
	// KeepCleaned keeps the data directory: the cleaned logs.
	KeepCleaned Keep = "cleaned"
	// KeepUncleaned keeps the data directory and, beside it
	// (<data>-uncleaned), a copy of the generated logs made before the
	// clean: the input of the clean, to clean again with cleanerlab clean.
	KeepUncleaned Keep = "uncleaned"
)

// ParseKeep parses --keep's value: "", "false" or "none" (KeepNone),
// "true" or "cleaned" (KeepCleaned), "uncleaned" (KeepUncleaned).
func ParseKeep(s string) (Keep, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "false", "none":
		return KeepNone, nil
	case "true", "cleaned":
		return KeepCleaned, nil
	case "uncleaned":
		return KeepUncleaned, nil
	}
	return "", fmt.Errorf("lab: --keep %q: want cleaned (or true), uncleaned, or none", s)
}

func (k Keep) String() string {
	if k == KeepNone {
		return "none"
	}
	return string(k)
}

// Progress shows a phase's progress; nil shows nothing. Run calls Start
// once per phase ("generate", "clean") with its total bytes, Set with the
// bytes done (from one goroutine at a time), and Finish.
type Progress interface {
	Start(phase string, totalBytes int64)
	Set(doneBytes int64)
	Finish()
}

// Options are the settings of one run that are not part of its
// Experiment: where its data and record go and what it prints.
type Options struct {
	// Dir is the parent of the data directory ("" = the OS temp dir).
	Dir string
	// Keep says what to keep of the data directory (default: nothing).
	Keep Keep
	// Out is the directory of run records ("" = "runs").
	Out string
	// Progress shows progress (nil = none).
	Progress Progress
	// DropCaches writes to /proc/sys/vm/drop_caches for a cold cache.
	DropCaches bool
	// CPUProfile is a file for a CPU profile of the clean phase ("" = none).
	CPUProfile string
	// Trace is a file for a Go execution trace of the clean phase ("" =
	// none): per goroutine, when it ran, waited and sat in system calls
	// (go tool trace).
	Trace string
	// Baseline measures the device and memory limits before the clean
	// (and caches them under Out); otherwise the cached ones are used.
	Baseline bool
	// Log receives the lines a run prints while it goes (nil = none).
	Log io.Writer
	// NameParts are key=value parts the run's benchmark name carries after
	// the standard ones (Sweep passes the swept parameters that are not
	// among them).
	NameParts []results.KV
	// IDSuffix, when not empty, is appended to the run's ID
	// (<time>-<config hash><suffix>), so that repetitions of one
	// experiment started within a second get distinct records.
	IDSuffix string
	// External, when set, cleans in place of the lab's cleaner (Kafka's own
	// cleaner: `run --profile kafka-jvm`); one partition only.
	External ExternalCleaner
}

// Run carries out one run of e: generate the workload under a fresh data
// directory, put the page cache in e.Cache's state, build the cleaner
// threads (offset maps allocated and pre-faulted, buffers) outside the
// timed phase, clean every partition once between two counter snapshots,
// verify against the ground truth, and write the record under opt.Out
// (run.json of SchemaVersion, report.md, bench.txt). e is validated first.
//
// The returned Run holds the record (its Stats are the
// []*engine.CleanStats of the cleans, Path its record directory, DataDir
// the kept data directory). It returns nil and the error when the run could
// not be measured; the Run and the error when only writing the record
// failed. A failed verification is no error here: it is in
// Run.Verification.
//
// Cancelling ctx stops the run at a safe point: the clean in progress is
// aborted at its next read (the engine's CheckDone; every log stays as it
// was or fully cleaned, never half swapped), no record is written, the data
// directory is removed unless opt.Keep, and the error wraps ctx.Err().
// Generation is not interrupted: a cancel during it is seen when it ends.
func Run(ctx context.Context, e Experiment, opt Options) (*results.Run, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	switch {
	case opt.External == nil && e.CleanedBy != "":
		return nil, fmt.Errorf("lab: the experiment is cleaned by %s (cleaned_by), not by cleanerlab's cleaner: run it with `run --profile %s` or `run --from` its record", e.CleanedBy, e.CleanedBy)
	case opt.External != nil && e.CleanedBy != opt.External.Name():
		return nil, fmt.Errorf("lab: the experiment's cleaned_by is %q, but profile %s would clean it", e.CleanedBy, opt.External.Name())
	}
	if opt.External != nil && e.Workload.Partitions != 1 {
		return nil, fmt.Errorf("lab: profile %s cleans one partition: --partitions 1, not %d", opt.External.Name(), e.Workload.Partitions)
	}
	// Before the workload is generated: a bad path would fail only after it.
	if err := checkProfilePaths(opt.CPUProfile, opt.Trace); err != nil {
		return nil, err
	}
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	if opt.Out == "" {
		opt.Out = "runs"
	}
	if err := ctx.Err(); err != nil {
		return nil, stopped(err)
	}
	if err := os.MkdirAll(opt.Out, 0o755); err != nil {
		return nil, fmt.Errorf("lab: out %s: %w", opt.Out, err)
	}
	root, cleanup, err := dataRoot(opt.Dir, opt.Keep)
	if err != nil {
		return nil, err
	}
	defer cleanup()

	run := &results.Run{SchemaVersion: SchemaVersion, StartedAt: time.Now().UTC(), Config: e, Phases: map[string]time.Duration{},
		Interference: map[string]interference.Interval{}}
	if opt.IDSuffix != "" {
		id, err := results.NewID(run.StartedAt, e)
		if err != nil {
			return nil, err
		}
		run.ID = id + opt.IDSuffix
	}
	env, err := results.CaptureEnvironment(root)
	if err != nil {
		run.Notes = append(run.Notes, fmt.Sprintf("environment not fully captured: %v", err))
	}
	run.Environment = env

	// 1. Generate.
	fmt.Fprintf(logw, "generating ~%s in %d partition(s) under %s\n", results.FormatBytes(e.Workload.LogBytes), e.Workload.Partitions, root)
	t0 := time.Now()
	genWatch := WatchPhase(env.DataDir.Device)
	startProgress(opt.Progress, "generate", e.Workload.LogBytes)
	gen, err := workloads.GenerateContext(ctx, root, e.Workload, e.Log, func(done, total int64) {
		if opt.Progress != nil {
			opt.Progress.Set(done)
		}
	})
	finishProgress(opt.Progress)
	if err != nil {
		return nil, err
	}
	run.Phases["generate"] = time.Since(t0)
	run.Interference["generate"] = genWatch.Stop()
	if err := ctx.Err(); err != nil {
		return nil, stopped(err)
	}
	if opt.Keep == KeepUncleaned {
		dst := root + "-uncleaned"
		if err := CopyTree(root, dst); err != nil {
			return nil, fmt.Errorf("lab: keep uncleaned: %w", err)
		}
		run.UncleanedDir = dst
		fmt.Fprintf(logw, "kept the generated logs before cleaning in %s\n", dst)
	}

	if opt.External != nil {
		if len(gen.Dirs) != 1 {
			return nil, fmt.Errorf("lab: profile %s cleans one partition: --partitions 1", opt.External.Name())
		}
		if err := opt.External.Prepare(ctx, logw, gen.Dirs[0], e.Log); err != nil {
			return nil, err
		}
	}

	logs := make([]*engine.Log, 0, len(gen.Dirs))
	defer func() {
		for _, l := range logs {
			if l != nil {
				l.Close()
			}
		}
	}()
	// 2. Open, outside the clean's time, as a broker opens its logs at
	// start-up (phase "open": recovery and the producer state).
	t0 = time.Now()
	for _, d := range gen.Dirs {
		l, err := engine.Open(d, engine.Options{Config: &e.Log})
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
	run.Phases["open"] = time.Since(t0)

	// 3. Page cache.
	t0 = time.Now()
	cacheNote, err := SetCache(logs, e.Cache, opt.DropCaches)
	if err != nil {
		return nil, err
	}
	if cacheNote != "" {
		run.Notes = append(run.Notes, cacheNote)
	}
	run.Phases["cache"] = time.Since(t0)
	iorun, err := prepareIO(ctx, &e, opt, env, root, logs, logw)
	if err != nil {
		return nil, err
	}
	defer iorun.close()

	// 4. Clean, between two counter snapshots.
	var c cleaned
	if opt.External != nil {
		c, err = cleanExternal(ctx, opt.External, e, env, gen.Dirs, logs)
	} else {
		c, err = cleanOurs(ctx, e, opt, env, logs, iorun)
	}
	if err != nil {
		return nil, err
	}
	iorun.afterClean(logs)
	if cerr := ctx.Err(); cerr != nil {
		return nil, stopped(cerr)
	}
	stats, cleanWall, cleanIv := c.stats, c.wall, c.iv
	for _, st := range stats {
		if !st.Cleaned() {
			return nil, fmt.Errorf("lab: %s was not cleaned: %s", st.TopicPartition, st.Skipped)
		}
	}
	for _, serr := range []error{c.berr, c.aerr} {
		if serr != nil {
			run.Notes = append(run.Notes, fmt.Sprintf("kernel counters not read (shown as n/a): %v", serr))
		}
	}
	run.Notes = append(run.Notes, c.notes...)
	run.Phases["clean"] = cleanWall
	run.Interference["clean"] = cleanIv
	run.Verdict = cleanIv.Verdict
	run.SetCounters(c.before, c.after)
	run.Stats = stats

	// 5. Verify against the ground truth.
	if e.Verify {
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

	tp := ThroughputOf(stats, cleanWall)
	run.Rows = RunRows(stats, e.Cleaner, tp, run.Delta)
	if opt.External != nil {
		run.Rows = notMeasuredByExternal(run.Rows, opt.External.Name())
	}
	run.Rows = append(run.Rows, c.rows...)
	run.Rows = append(run.Rows, InterferenceRows(cleanIv)...)
	ours := len(run.Rows)
	iorun.finish(run, stats, tp, e.Cache)
	if opt.External != nil {
		run.Rows = append(run.Rows[:ours], notMeasuredByExternal(run.Rows[ours:], opt.External.Name())...)
	}
	run.Benchmarks = RunBenchmarks(&e, stats, tp, run.Delta, opt.NameParts)
	run.Benchmarks[0].Metrics = append(run.Benchmarks[0].Metrics, c.metrics...)
	run.Benchmarks[0].Metrics = append(run.Benchmarks[0].Metrics, CPUMetrics(cleanIv)...)
	if opt.Keep != KeepNone {
		run.DataDir = root
	}
	if err := ctx.Err(); err != nil {
		return nil, stopped(err)
	}
	path, err := WriteRecord(run, opt.Out)
	if err != nil {
		return run, fmt.Errorf("lab: write record: %w", err)
	}
	run.Path = path
	return run, nil
}

// cleaned is step 4 of Run, by our cleaner or an external one: the
// clean's stats, wall time and interval, the kernel counters around it,
// and the rows, metrics and notes of the cleaner's own.
type cleaned struct {
	stats         []*engine.CleanStats
	wall          time.Duration
	iv            interference.Interval
	before, after results.Counters
	berr, aerr    error
	rows          []results.Row
	metrics       []results.Metric
	notes         []string
}

// cleanOurs cleans logs with the lab's cleaner: the cleaner threads (their
// offset maps, pre-faulted, and buffers) are made first, outside the timed
// phase, as a broker makes them at startup; then every log is cleaned once
// between two counter snapshots.
func cleanOurs(ctx context.Context, e Experiment, opt Options, env results.Environment, logs []*engine.Log, iorun *ioRun) (cleaned, error) {
	var c cleaned
	var progress atomic.Int64
	t0 := time.Now()
	manager, err := NewCleanManager(logs, e.Cleaner, iorun.cleanerOptions(engine.CleanerOptions{Progress: &progress, FsyncPolicy: e.Fsync}))
	if err != nil {
		return c, err
	}
	allocTime := time.Since(t0)
	fault := PrefaultMaps(manager, e.Cleaner)
	fault.AllocTime, fault.AllocMeasured = allocTime, true
	if err := ctx.Err(); err != nil {
		return c, stopped(err)
	}
	endMemory := startMemory(e.Cleaner)
	c.before, c.berr = results.Snapshot(env.DataDir.Device)
	cleanWatch := WatchPhase(env.DataDir.Device)
	t0 = time.Now()
	// The clean reads the dirty part twice (map and copy) and the rest once:
	// the bar's total, an estimate from the workload's dirty ratio.
	var total int64
	for _, l := range logs {
		total += l.SizeBytes()
	}
	total += int64(float64(total) * e.Workload.DirtyRatio)
	stopProfile, err := startProfiles(opt.CPUProfile, opt.Trace)
	if err != nil {
		return c, err
	}
	startProgress(opt.Progress, "clean", total)
	stopPoll := pollProgress(opt.Progress, &progress)
	c.stats, err = CleanEach(ctx, manager)
	stopPoll()
	stopProfile()
	finishProgress(opt.Progress)
	c.wall = time.Since(t0)
	c.iv = cleanWatch.Stop()
	memory := endMemory()
	// The replaced segments' files are closed behind the clean (as Kafka's
	// asynchronous delete): their page cache is freed then, so the
	// counters below wait for it, outside the clean's time.
	for _, l := range logs {
		l.WaitClosing()
	}
	c.after, c.aerr = results.Snapshot(env.DataDir.Device)
	if cerr := ctx.Err(); cerr != nil {
		return c, stopped(cerr)
	}
	if err != nil {
		return c, err
	}
	c.rows = append(fault.rows(), memory.rows()...)
	if m, ok := memory.metric(); ok {
		c.metrics = append(c.metrics, m)
	}
	return c, nil
}

// ErrStopped is wrapped by the error of a run, sweep or clean stopped by
// its context (a signal): nothing was recorded.
var ErrStopped = errors.New("lab: stopped")

func stopped(cause error) error { return fmt.Errorf("%w (%w): nothing recorded", ErrStopped, cause) }

// Stats returns the clean stats a Run recorded (nil for a run read back
// from disk, whose Stats are JSON).
func Stats(r *results.Run) []*engine.CleanStats {
	st, _ := r.Stats.([]*engine.CleanStats)
	return st
}

func startProgress(p Progress, phase string, total int64) {
	if p != nil {
		p.Start(phase, total)
	}
}

func finishProgress(p Progress) {
	if p != nil {
		p.Finish()
	}
}

// pollProgress copies counter into p every 100 ms until the returned stop
// is called.
func pollProgress(p Progress, counter *atomic.Int64) (stop func()) {
	if p == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				p.Set(counter.Load())
				return
			case <-t.C:
				p.Set(counter.Load())
			}
		}
	}()
	return func() { close(done); <-finished }
}

// WriteRecord writes the run's record under out and returns its
// directory. Two runs of one experiment started within the same second (a
// --from rerun, a script's loop) would get the same ID: the later gets
// "-2", "-3", ... appended.
func WriteRecord(run *results.Run, out string) (string, error) {
	if run.SchemaVersion == 0 {
		run.SchemaVersion = SchemaVersion
	}
	return run.WriteNew(out)
}

// checkProfilePaths checks the files --cpuprofile and --trace name ("" =
// none) before anything is done: each one's directory must exist, and the
// two must not be the same file (both would write it, and neither could
// be read).
func checkProfilePaths(cpuPath, tracePath string) error {
	for _, f := range []struct{ flag, path string }{{"cpuprofile", cpuPath}, {"trace", tracePath}} {
		if f.path == "" {
			continue
		}
		dir := filepath.Dir(f.path)
		if st, err := os.Stat(dir); err != nil {
			return fmt.Errorf("lab: --%s %s: %w", f.flag, f.path, err)
		} else if !st.IsDir() {
			return fmt.Errorf("lab: --%s %s: %s is not a directory", f.flag, f.path, dir)
		}
	}
	if cpuPath != "" && tracePath != "" && sameFile(cpuPath, tracePath) {
		return fmt.Errorf("lab: --cpuprofile %s and --trace %s name the same file: give each its own", cpuPath, tracePath)
	}
	return nil
}

// sameFile reports whether paths a and b name one file: both exist and are
// the same file (links included), or neither need exist and they have one
// name in the same directory (however each directory is reached).
func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(ia, ib)
	}
	if filepath.Base(a) != filepath.Base(b) {
		return false
	}
	da, errA := os.Stat(filepath.Dir(a))
	db, errB := os.Stat(filepath.Dir(b))
	return errA == nil && errB == nil && os.SameFile(da, db)
}

// startProfiles starts a CPU profile into cpuPath and an execution trace
// into tracePath ("" = none of that kind); the returned func stops both and
// closes their files. An error names the flag (--cpuprofile, --trace).
func startProfiles(cpuPath, tracePath string) (func(), error) {
	var stops []func()
	stopAll := func() {
		for _, stop := range stops {
			stop()
		}
	}
	start := func(flag, path string, begin func(io.Writer) error, end func()) error {
		if path == "" {
			return nil
		}
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("lab: --%s: %w", flag, err)
		}
		if err := begin(f); err != nil {
			f.Close()
			return fmt.Errorf("lab: --%s %s: %w", flag, path, err)
		}
		stops = append(stops, func() { end(); f.Close() })
		return nil
	}
	if err := start("cpuprofile", cpuPath, pprof.StartCPUProfile, pprof.StopCPUProfile); err != nil {
		return nil, err
	}
	if err := start("trace", tracePath, trace.Start, trace.Stop); err != nil {
		stopAll()
		return nil, err
	}
	return stopAll, nil
}

// dataRoot returns a fresh data directory under dir (the OS temp dir when
// dir is "") and a cleanup func that removes it unless keep says otherwise.
func dataRoot(dir string, keep Keep) (string, func(), error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", nil, fmt.Errorf("lab: dir: %w", err)
		}
	}
	root, err := os.MkdirTemp(dir, "cleanerlab-")
	if err != nil {
		return "", nil, fmt.Errorf("lab: dir: %w", err)
	}
	if keep != KeepNone {
		return root, func() {}, nil
	}
	return root, func() { os.RemoveAll(root) }, nil
}

// NewCleanManager puts the logs under a cleaner manager with cfg.Threads
// threads, each owning its share of the dedupe and I/O buffers, as Kafka's
// cleaner threads. CleanEach then cleans every log once.
func NewCleanManager(logs []*engine.Log, cfg engine.CleanerConfig, opts engine.CleanerOptions) (*engine.CleanerManager, error) {
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

// CleanEach cleans every log of m once, filthiest first, whatever its
// cleanable ratio (engine.CleanerManager.CleanEach: run measures one clean
// of each log as a direct call of Kafka's Cleaner.clean; the generator set
// the ratio). Cancelling ctx shuts the manager down: the clean in progress
// aborts at its next read, leaving its log as it was, and CleanEach
// returns with ctx's error.
func CleanEach(ctx context.Context, m *engine.CleanerManager) ([]*engine.CleanStats, error) {
	stop := AfterCancel(ctx, m.Shutdown)
	stats, err := m.CleanEach()
	stop()
	if cerr := ctx.Err(); cerr != nil {
		return stats, stopped(cerr)
	}
	return stats, err
}

// AfterCancel calls shutdown once ctx is cancelled, again every 10 ms
// until the returned stop is called (a manager that had not started its
// threads yet when the first call came is then stopped too); stop waits
// for the watcher to end.
func AfterCancel(ctx context.Context, shutdown func()) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			shutdown()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// CopyTree copies the regular files under src into dst (created), keeping
// the layout and syncing nothing: a copy of generated logs.
func CopyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.Create(target)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
}
