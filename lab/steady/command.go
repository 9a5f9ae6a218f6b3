package steady

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/settings"
)

// Command is the steady command: it makes a fresh log directory root under
// o.Parent, runs o.Config there until ctx is done or the run's time is up
// (Run), and writes the record under o.Out (WriteRecord), printing the
// summary, the interference line and the record's path to out. A
// cancelled ctx (a signal) ends the run cleanly: producers stop, the
// logs are closed, the record is written, and the error says it stopped.
// Bad options are errors naming the flag, before anything is printed or
// any directory is made; a start that fails later (--out cannot be made,
// the metrics address is taken, the run cannot open its logs) removes the
// directories it made.
func Command(ctx context.Context, o Options, out io.Writer) error {
	logw := o.Progress
	if logw == nil {
		logw = io.Discard
	}
	cfg := o.Config
	var advice *Advice
	var adviceOrigins map[string]settings.Origin
	if o.FromAdvice != "" {
		var err error
		if advice, err = ReadAdvice(o.FromAdvice); err != nil {
			return err
		}
		// The advice's sizes over the defaults, the settings given over
		// the advice (settings.CleanerRegistry.Resolve).
		fromAdvice := func(name string, v int64) settings.Given {
			return settings.Given{Key: name, Value: strconv.FormatInt(v, 10), From: settings.FromFile, Where: o.FromAdvice}
		}
		given := append([]settings.Given{fromAdvice("log.cleaner.dedupe.buffer.size", advice.DedupeBufferBytes),
			fromAdvice("log.cleaner.threads", int64(advice.Threads)), fromAdvice("log.cleaner.io.buffer.size", advice.IOBufferBytes)},
			o.Given...)
		if cfg.Cleaner, adviceOrigins, err = settings.CleanerRegistry.Resolve(cfg.Cleaner, given...); err != nil {
			return err
		}
	}
	var addr string
	if o.MetricsAddr != "" {
		var err error
		if addr, err = ResolveMetricsAddr(o.MetricsAddr); err != nil {
			return err
		}
	}
	cfg.Dir = "(checked)"
	if err := cfg.Validate(); err != nil {
		if aerr := RefusedAdvice(advice, err, adviceOrigins); aerr != nil {
			return aerr // a value of the advice file, not a flag's
		}
		return Settings.FlagError("steady", err, o.Given...)
	}
	// Nothing is made before here; a start that fails from here on removes
	// every directory it made (the log root and --out, and the parents of
	// --dir and --out it had to make), so that it leaves nothing behind.
	var made []string
	started := false
	defer func() {
		if !started {
			for i := len(made) - 1; i >= 0; i-- {
				os.RemoveAll(made[i])
			}
		}
	}()
	parentMade, err := makeDirs(o.Parent, "--dir")
	if err != nil {
		return err
	}
	root, err := NewRoot(o.Parent)
	if err != nil {
		return err
	}
	made = append(made, root)
	if parentMade != "" {
		made = append(made, parentMade)
	}
	if !o.Keep {
		defer os.RemoveAll(root)
	}
	cfg.Dir = root
	env, _ := results.CaptureEnvironment(root)
	cfg.DiskDevice = env.DataDir.Device
	outMade, err := makeDirs(o.Out, "--out")
	if err != nil {
		return err
	}
	if outMade != "" {
		made = append(made, outMade)
	}
	evf, err := os.CreateTemp(o.Out, ".steady-events-*.log")
	if err != nil {
		return fmt.Errorf("steady: event log: %w", err)
	}
	evf.Chmod(0o644)
	evPath := evf.Name()
	defer os.Remove(evPath) // moved into the record when it is written

	if addr != "" {
		cfg.Exporter = NewExporter(cfg.Workload.Topic, root)
		srv, err := ServeMetrics(addr, cfg.Exporter)
		if err != nil {
			evf.Close()
			return err
		}
		defer srv.Close()
		fmt.Fprintf(logw, "serving Prometheus metrics at http://%s/metrics\n", srv.Addr())
	}
	if !o.Quiet {
		cfg.OnSample = func(s *Sample) { WriteSampleLine(logw, s) }
	}

	fmt.Fprintf(logw, "steady: %d partition(s) under %s, %s/s %s, %v warm-up + %v\n", cfg.Workload.Partitions, root,
		results.FormatBytes(int64(cfg.WriteRateBytes)), map[bool]string{true: "per partition", false: "in all"}[cfg.PerPartitionRate], cfg.Warmup, cfg.Duration)
	watch := lab.WatchPhase(cfg.DiskDevice)
	res, runErr := Run(ctx, cfg, evf)
	iv := watch.Stop()
	evf.Close()
	if res == nil {
		return runErr
	}
	started = true
	var check *AdviceCheck
	if advice != nil {
		c := CheckAdvice(advice, res.Samples, res.Cleans)
		check = &c
	}
	rec := NewConfigRecord(cfg, advice)
	fmt.Fprint(out, FormatSummary(res, check))
	lab.WriteInterferenceLine(out, iv)
	path, werr := WriteRecord(o.Out, res, RecordInfo{Config: rec, Environment: env, EventLogPath: evPath, Advice: check, Interference: iv})
	if werr == nil {
		fmt.Fprintf(out, "record: %s (event log %s)\n", path, filepath.Join(path, EventLogFile))
	}
	if o.Keep {
		fmt.Fprintf(out, "logs kept in %s\n", root)
	}
	if err := errors.Join(runErr, werr); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return fmt.Errorf("steady: stopped (%v) after %.1f s; the logs were closed cleanly", context.Cause(ctx), res.Final().ElapsedSeconds)
	}
	return nil
}

// WriteSampleLine writes the progress line of sample s: its phase, dirty
// bytes, log size, oldest dirty age, Kafka's max-dirty-percent, cleans and
// the producers' p99 append latency.
func WriteSampleLine(w io.Writer, s *Sample) {
	phase := "window"
	switch {
	case s.Final:
		phase = "final"
	case s.Warmup:
		phase = "warm-up"
	}
	fmt.Fprintf(w, "%7.1fs %-7s dirty %9s (max cleanable %.2f)  log %9s  oldest dirty %6.1fs  max-dirty-percent %3d  cleans %d  append p99 %.2f ms\n",
		s.ElapsedSeconds, phase, results.FormatBytes(s.DirtyBytes), s.MaxCleanableRatio, results.FormatBytes(s.LogBytes),
		float64(s.OldestDirtyAgeMs)/1000, s.MaxDirtyPercent, s.Cleans, s.AppendLatency.P99)
}

// makeDirs makes dir and its missing parents ("": the OS temp dir, which
// exists) and returns the topmost directory it made ("" when dir
// existed), for a failed start to remove. flag names dir in the error.
func makeDirs(dir, flag string) (string, error) {
	if dir == "" {
		return "", nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("steady: %s: %w", flag, err)
	}
	top := ""
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		top = d
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("steady: %s: %w", flag, err)
	}
	return top, nil
}
