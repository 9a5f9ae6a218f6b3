package matrix

import (
	"context"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/lab/steady"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Roles of a steady run.
const (
	// RoleAdvised runs the thread count advise recommends.
	RoleAdvised = "advised"
	// RoleOneFewer runs one thread fewer, where the model says that does
	// not keep up.
	RoleOneFewer = "one fewer"
	// RoleOneMore runs one thread more where advise bounded the threads
	// below the load (cores, partitions, disks) and predicts falling
	// behind, or where the advised count did not keep up: whether the bound
	// holds (e.g. a second thread on one disk), and what count does.
	RoleOneMore = "one more"
)

// SteadyRun is one short steady-state run of a row's scaled workload.
type SteadyRun struct {
	Role    string `json:"role"`
	Threads int    `json:"threads"`
	// The run's configuration (scaled from the row: see RowResult.SteadyNote).
	DedupeBufferBytes   int64   `json:"dedupe_buffer_bytes"`
	IOBufferBytes       int64   `json:"io_buffer_bytes"`
	Keys                int64   `json:"keys"`
	WriteBytesPerSecond float64 `json:"write_bytes_per_second"`
	SegmentBytes        int64   `json:"segment_bytes"`
	BackoffMs           int64   `json:"log_cleaner_backoff_ms"`
	MaxCompactionLagMs  int64   `json:"max_compaction_lag_ms"`
	MaxIOBytesPerSecond float64 `json:"log_cleaner_io_max_bytes_per_second,omitempty"`
	WarmupS             float64 `json:"warmup_s"`
	DurationS           float64 `json:"duration_s"`
	// ThreadsNeeded is the model's load (thread-seconds of cleaning per
	// second) of the scaled workload; PredictedKeepsUp whether Threads
	// cover it within the model's bound (a prediction).
	ThreadsNeeded    float64 `json:"threads_needed"`
	PredictedKeepsUp bool    `json:"predicted_keeps_up"`
	// Decided, KeepsUp and Verdict are steady's verdict (measured).
	Decided bool   `json:"decided"`
	KeepsUp bool   `json:"keeps_up"`
	Verdict string `json:"verdict"`
	// Dirty ratio (time-average cleanable ratio) and compaction delay (the
	// window's largest oldest-dirty age, seconds): predicted for the
	// advised run of a modelled row only (nil for the others: the model has
	// no steady state for a cleaner that falls behind, nor a clean time for
	// a row it does not cover), measured for every run; errors =
	// (measured - predicted) / predicted (steady's sign).
	DirtyRatioPredicted      *float64 `json:"dirty_ratio_predicted,omitempty"`
	DirtyRatioMeasured       float64  `json:"dirty_ratio_measured"`
	DirtyRatioError          *float64 `json:"dirty_ratio_error,omitempty"`
	CompactionDelayPredicted *float64 `json:"compaction_delay_s_predicted,omitempty"`
	CompactionDelayMeasured  float64  `json:"compaction_delay_s_measured"`
	CompactionDelayError     *float64 `json:"compaction_delay_error,omitempty"`
	// Cleans counts the cleans that ended in the window.
	Cleans int `json:"cleans"`
	// CleanSecondsPredicted is the model's clean time of one partition of
	// the scaled workload at its trigger (alone, unthrottled by other
	// threads: a prediction); CleanSecondsMeasured the median of the
	// window's cleans' times, measured while the producers write: their
	// ratio shows how much the producers' CPU and the page cache they fill
	// slow a clean, which the model (a clean measured alone) leaves out.
	CleanSecondsPredicted float64 `json:"clean_seconds_predicted,omitempty"`
	CleanSecondsMeasured  float64 `json:"clean_seconds_measured,omitempty"`
	// Error is why the run failed ("" when it ran).
	Error string `json:"error,omitempty"`
}

// steadyScale is a row's steady workload and how it was scaled.
type steadyScale struct {
	w        sizing.Workload
	ao       sizing.AdviseOptions
	advice   *sizing.Advice
	warmup   time.Duration
	note     string
	throttle float64
	row      Row
}

// minSteadyPartitionBytes is the least steady log per partition (clean
// part plus dirty section at the trigger): 1 MiB, so that a clean's fixed
// costs (files created, fsynced, swapped) do not outweigh its bytes far
// more than at the row's size.
const minSteadyPartitionBytes = 1 << 20

// planSteady scales row r's workload for a run of seconds, keeping its
// thread load: each partition's keys by s = SteadyLogBytes (at least
// minSteadyPartitionBytes per partition) / the workload's log (at least 64
// keys); segment.bytes kept, but at most a quarter of the scaled dirty
// section (so that cleans come, the active segment being uncleanable) and
// at least 64 KiB or two batches (scaling it down with the log would
// multiply the segment groups per byte, and their fsyncs); the write rate w_s = L x D_s / t_s, L the full workload's
// threads needed, D_s and t_s the scaled dirty section and predicted clean
// time (so the scaled load is L), raised when a cleaning cycle D_s / w_s
// would be longer than a third of the run; the time configs
// (log.cleaner.backoff.ms, at least 10 ms, and max.compaction.lag.ms) by
// the ratio of the cycles, the throttle by the ratio of the write rates.
// The advice for the scaled workload gives the predictions, its clean time
// from calFor's calibration imitating the scaled workload's advised clean
// (calFor nil: ao's calibration).
func planSteady(r Row, full *sizing.Advice, ao sizing.AdviseOptions, o Options, calFor func(sizing.Shape) (*sizing.Calibration, error)) (*steadyScale, error) {
	w := r.Workload
	load := full.ThreadsNeeded
	if !(load > 0) {
		return nil, fmt.Errorf("matrix: row %s: no thread load predicted (needs write-rate and a calibration)", r.Name)
	}
	c, k := full.Inputs["clean_bytes_per_partition"], full.Inputs["keys_per_partition"]
	p := float64(w.Partitions)
	dRatio := c * w.MinCleanableDirtyRatio / (1 - w.MinCleanableDirtyRatio)
	s := math.Min(1, float64(max(o.SteadyLogBytes, int64(w.Partitions)*minSteadyPartitionBytes))/((c+dRatio)*p))
	ks := int64(math.Max(64, math.Round(k*s)))
	s = float64(ks) / k
	sw := w
	sw.Keys = ks * int64(w.Partitions)
	sw.WriteBytesPerSecond, sw.MaxCompactionLagMs = 0, math.MaxInt64
	maxBatch := int64(math.Ceil(sizing.RecordBytes(w.KeyBytes, w.ValueBytes, w.RecordsPerBatch, false) * float64(w.RecordsPerBatch)))
	seg := min(w.SegmentBytes, int64(dRatio*s/4))
	seg = max(seg, 64<<10, 2*maxBatch)
	sw.SegmentBytes = seg
	a0, err := sizing.AdviseWorkload(sw, ao)
	if err != nil {
		return nil, fmt.Errorf("matrix: row %s: steady workload: %w", r.Name, err)
	}
	if sh, ok := sizing.CalibrationShape(a0); ok && calFor != nil {
		c, err := calFor(sh)
		if err != nil {
			return nil, fmt.Errorf("matrix: row %s: steady workload: %w", r.Name, err)
		}
		ao.Calibration = c
		if a0, err = sizing.AdviseWorkload(sw, ao); err != nil {
			return nil, fmt.Errorf("matrix: row %s: steady workload: %w", r.Name, err)
		}
	}
	ds, ts := a0.Inputs["dirty_bytes_at_trigger"], a0.CleanSeconds
	if !(ts > 0) || !(ds > 0) {
		return nil, fmt.Errorf("matrix: row %s: steady workload: no clean time predicted", r.Name)
	}
	rate := load * ds / ts
	note := fmt.Sprintf("keys x %.3g, segment.bytes %d, write rate %.0f B/s for the row's load %.2f threads", s, seg, rate, load)
	cycleMax := o.SteadyDuration.Seconds() / 3
	if cycle := ds * p / rate; cycle > cycleMax {
		rate = ds * p / cycleMax
		note = fmt.Sprintf("keys x %.3g, segment.bytes %d, write rate %.0f B/s (raised from the row's load %.2f threads, so that a cleaning cycle fits a third of the run)", s, seg, rate, load)
	}
	tau := (ds * p / rate) / (dRatio * p / w.WriteBytesPerSecond)
	sao := ao
	sao.BackoffMs = max(10, int64(math.Round(float64(ao.BackoffMs)*tau)))
	note += fmt.Sprintf("; times x %.3g: log.cleaner.backoff.ms %d", tau, sao.BackoffMs)
	sw.WriteBytesPerSecond = rate
	if w.MaxCompactionLagMs < math.MaxInt64 {
		sw.MaxCompactionLagMs = max(1, int64(math.Round(float64(w.MaxCompactionLagMs)*tau)))
		note += fmt.Sprintf(", max.compaction.lag.ms %d", sw.MaxCompactionLagMs)
	}
	var throttle float64
	if r.MaxIOBytesPerSecond > 0 {
		throttle = r.MaxIOBytesPerSecond * rate / w.WriteBytesPerSecond
		sao.Cleaner.MaxIOBytesPerSecond = throttle
		note += fmt.Sprintf("; throttle %.0f B/s", throttle)
	}
	a, err := sizing.AdviseWorkload(sw, sao)
	if err != nil {
		return nil, fmt.Errorf("matrix: row %s: steady workload: %w", r.Name, err)
	}
	warm := o.SteadyWarmup
	if warm <= 0 {
		fill := (a.Inputs["clean_bytes_per_partition"] + a.Inputs["dirty_bytes_at_trigger"]) * p / rate
		warm = min(10*time.Second, max(time.Second, time.Duration(3*fill*float64(time.Second))))
	}
	return &steadyScale{row: r, w: sw, ao: sao, advice: a, warmup: warm, note: note, throttle: throttle}, nil
}

// runSteady plans the row's steady workload and runs it with the advised
// threads; then with one fewer where the model says that does not keep
// up, and with one more where advise bounded the threads below the load
// or the advised count did not keep up (measured), so the table shows the
// count that does.
func (rr *RowResult) runSteady(ctx context.Context, o Options, ao sizing.AdviseOptions, calFor func(sizing.Shape) (*sizing.Calibration, error)) error {
	sc, err := planSteady(rr.Row, rr.Advice, ao, o, calFor)
	if err != nil {
		return err
	}
	rr.SteadyNote = sc.note
	a := sc.advice
	t := a.Threads
	run := func(role string, threads int, predicted bool) (SteadyRun, error) {
		r := SteadyRun{Role: role, Threads: threads, ThreadsNeeded: a.ThreadsNeeded, PredictedKeepsUp: predicted}
		if err := runSteadyOne(ctx, &r, sc, o); err != nil {
			if ctx.Err() != nil {
				return r, err
			}
			r.Error = err.Error()
		}
		rr.Steady = append(rr.Steady, r)
		return r, nil
	}
	adv, err := run(RoleAdvised, t, !a.FallsBehind)
	if err != nil {
		return err
	}
	if t > 1 && a.ThreadsNeeded > float64(t-1) {
		if _, err := run(RoleOneFewer, t-1, false); err != nil {
			return err
		}
	}
	if t < sc.w.Partitions && (a.FallsBehind || (adv.Decided && !adv.KeepsUp)) {
		// The model's answer for t+1 threads: the load fits them and the
		// bound (cores, partitions, disks) lets them help.
		pred := a.ThreadsNeeded <= float64(t+1) && t+1 <= a.ThreadsBound
		if _, err := run(RoleOneMore, t+1, pred); err != nil {
			return err
		}
	}
	return nil
}

// runSteadyOne runs one steady configuration and fills run's measurements.
func runSteadyOne(ctx context.Context, run *SteadyRun, sc *steadyScale, o Options) error {
	a, w := sc.advice, sc.w
	// Each thread keeps the advice's per-thread map and I/O buffers
	// (Kafka's split), whatever the thread count of this run.
	perBuf := a.PerThreadMapBytes()
	perIO := 2 * a.PerThreadIOBufferBytes()
	cc := sc.ao.Cleaner
	cc.Threads = run.Threads
	cc.DedupeBufferBytes = perBuf * int64(run.Threads)
	if a.MapSortBufferBytes > 0 {
		// The map sort buffer inside each share stays one thread's too.
		cc.MapSortBufferBytes = a.MapSortBufferBytes / int64(max(a.Threads, 1)) * int64(run.Threads)
	}
	cc.IOBufferBytes = perIO * int64(run.Threads)
	cc.MaxIOBytesPerSecond = sc.throttle
	spec := workloads.DefaultSpec()
	spec.Keys, spec.KeyBytes, spec.ValueBytes, spec.RecordsPerBatch = w.Keys, w.KeyBytes, w.ValueBytes, w.RecordsPerBatch
	spec.Partitions, spec.Distribution, spec.TombstoneRatio = w.Partitions, w.Distribution, w.TombstoneRatio
	spec.SegmentBytes = w.SegmentBytes
	spec.Codec = sc.row.Codec
	if sc.row.TxnRatio > 0 {
		spec.Txn.Ratio, spec.Txn.AbortRatio = sc.row.TxnRatio, sc.row.TxnAbortRatio
	}
	lc := engine.DefaultLogConfig()
	lc.SegmentBytes = w.SegmentBytes
	lc.MinCleanableDirtyRatio = w.MinCleanableDirtyRatio
	lc.MaxCompactionLagMs = w.MaxCompactionLagMs
	lc.FileDeleteDelayMs = 0
	run.DedupeBufferBytes, run.IOBufferBytes = cc.DedupeBufferBytes, cc.IOBufferBytes
	run.Keys, run.WriteBytesPerSecond, run.SegmentBytes = w.Keys, w.WriteBytesPerSecond, w.SegmentBytes
	run.BackoffMs, run.MaxCompactionLagMs, run.MaxIOBytesPerSecond = sc.ao.BackoffMs, w.MaxCompactionLagMs, sc.throttle
	run.WarmupS, run.DurationS = sc.warmup.Seconds(), o.SteadyDuration.Seconds()
	return runSteadySpec(ctx, run, spec, lc, cc, sc, o)
}

func runSteadySpec(ctx context.Context, run *SteadyRun, spec workloads.Spec, lc engine.LogConfig, cc engine.CleanerConfig, sc *steadyScale, o Options) error {
	root, err := steady.NewRoot(o.Dir)
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	cfg := steady.Config{Dir: root, Workload: spec, Log: lc, Cleaner: cc, BackoffMs: sc.ao.BackoffMs, WriteRateBytes: sc.w.WriteBytesPerSecond,
		Warmup: sc.warmup, Duration: o.SteadyDuration, SampleInterval: o.SteadySampleInterval}
	o.Log("steady %s: %d threads, %d keys, %.0f B/s, %v warm-up + %v\n", run.Role, run.Threads, spec.Keys, cfg.WriteRateBytes, cfg.Warmup, cfg.Duration)
	res, err := steady.Run(ctx, cfg, nil)
	if err != nil {
		return err
	}
	run.Decided, run.KeepsUp, run.Verdict = res.Verdict.Decided, res.Verdict.KeepsUp, res.Verdict.Line
	a := sc.advice
	adv := &steady.Advice{DedupeBufferBytes: cc.DedupeBufferBytes, Threads: cc.Threads, IOBufferBytes: cc.IOBufferBytes}
	// A row the model does not cover gets no steady prediction either:
	// its clean time and record bytes are not the model's.
	if run.Role == RoleAdvised && !a.FallsBehind && sc.row.NotModelled() == "" {
		mean, peak, delay := a.MeanDirtyRatio, a.PeakDirtyRatio, a.MaxCompactionDelaySeconds
		adv.SteadyDirtyRatio, adv.PeakDirtyRatio, adv.CompactionDelaySeconds = &mean, &peak, &delay
		run.DirtyRatioPredicted, run.CompactionDelayPredicted = &mean, &delay
	}
	chk := steady.CheckAdvice(adv, res.Samples, res.Cleans)
	run.DirtyRatioMeasured, run.CompactionDelayMeasured = chk.MeasuredDirtyRatio, chk.MeasuredMaxCompactionDelaySeconds
	run.DirtyRatioError, run.CompactionDelayError = chk.DirtyRatioError, chk.CompactionDelayError
	run.Cleans = chk.ChosenCleans
	if w := steady.Window(res.Samples); len(w) > 0 {
		var secs []float64
		for _, cl := range res.Cleans {
			if cl.EndSeconds >= w[0].ElapsedSeconds && cl.EndSeconds <= w[len(w)-1].ElapsedSeconds {
				secs = append(secs, cl.Seconds)
			}
		}
		run.CleanSecondsMeasured = results.Median(secs)
	}
	run.CleanSecondsPredicted = a.CleanSeconds
	return nil
}
