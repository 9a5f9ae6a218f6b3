package steady

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/time/rate"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Result is what a steady-state run measured.
type Result struct {
	// StartedAt is when the producers started; EndedAt when the last
	// sample was taken.
	StartedAt, EndedAt time.Time
	// Samples in time order: warm-up ones first (Warmup set), the final
	// one (Final set) taken after producers and cleaner threads stopped.
	Samples []*Sample
	// Stopped says why the run ended before its duration ("" when it ran
	// to the end): the context's cause, e.g. a signal.
	Stopped string
	// Dirs are the partition directories.
	Dirs []string
	// Events counts the lines written to the event log.
	Events int
	// Cleans are the finished cleans, in the order they ended.
	Cleans []CleanRecord
	// Summary and Verdict of the samples after the warm-up.
	Summary Summary
	Verdict Verdict
	// CountersBefore and CountersAfter bracket the whole run.
	CountersBefore, CountersAfter results.Counters
}

// Final is the last sample (nil before any).
func (r *Result) Final() *Sample {
	if len(r.Samples) == 0 {
		return nil
	}
	return r.Samples[len(r.Samples)-1]
}

// CleanRecord is one finished clean of a steady run.
type CleanRecord struct {
	// EndSeconds is when it ended, in seconds since the producers started.
	EndSeconds float64 `json:"end_s"`
	Thread     int     `json:"thread"`
	Partition  int32   `json:"partition"`
	// CleanableRatio is the log's cleanable ratio when the thread chose
	// it (engine.LogToClean): how dirty the log got before its clean.
	CleanableRatio float64 `json:"cleanable_ratio"`
	// FirstDirtyOffset and EndOffset bound the dirty section cleaned.
	FirstDirtyOffset int64   `json:"first_dirty_offset"`
	EndOffset        int64   `json:"end_offset"`
	BytesRead        int64   `json:"bytes_read"`
	BytesWritten     int64   `json:"bytes_written"`
	Seconds          float64 `json:"seconds"`
}

// partition is one partition's producer and its bookkeeping.
type partition struct {
	n      int
	log    *engine.Log
	stream *workloads.Stream
	// removed counts the bytes swaps and retention took out of the log.
	removed *removalCount

	// mu is held around each Append and the counters it moves, so that a
	// sample sees the log and its producer's counters at one instant.
	mu      sync.Mutex
	bytes   int64
	records int64
	appends int64
	// appended are the next offsets and append times of the batches not
	// yet known to be cleaned, oldest first (OldestDirtyAgeMs).
	appended []appendTime
}

type appendTime struct {
	next int64 // offset after the batch
	ms   int64 // when it was appended
}

// runner is one steady-state run in progress.
type runner struct {
	cfg   Config
	fs    *removalFS // the logs' FS
	mgr   *engine.CleanerManager
	parts []*partition
	start time.Time

	appendLat latencies
	fetchLat  latencies

	mu        sync.Mutex // guards the cleaner totals and the event log
	cleans    int64
	read      int64
	mapRead   int64
	written   int64
	busy      time.Duration
	events    int
	cleanList []CleanRecord
	eventLog  io.Writer
	firstErr  error

	readerRecords int64 // atomic by readerMu
	readerMu      sync.Mutex

	prevCounters results.Counters
	havePrev     bool
}

// Run runs the steady state cfg describes until cfg.Warmup + cfg.Duration
// of real time have passed or ctx is done (a signal: Result.Stopped says
// which), then stops the producers (ending their open transactions, so the
// logs hold none), the readers and the cleaner threads (a clean in
// progress is aborted at its next read, as at a broker's shutdown), takes
// the final sample, and closes the logs cleanly. eventLog, when not nil,
// receives the run's Kafka-shaped log-cleaner.log. Errors: a bad config;
// a partition directory that exists; a failed append (the run stops) or
// open. A clean that fails is not an error of the run: it is in the event
// log and the uncleanable metrics, as on a broker.
func Run(ctx context.Context, cfg Config, eventLog io.Writer) (*Result, error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spec := cfg.Workload
	if err := os.MkdirAll(cfg.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("steady: create %s: %w", cfg.Dir, err)
	}
	r := &runner{cfg: cfg, fs: newRemovalFS(cfg.FS), eventLog: eventLog}
	var dirs []string
	for p := range spec.Partitions {
		dir := filepath.Join(cfg.Dir, fmt.Sprintf("%s-%d", spec.Topic, p))
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("steady: partition directory %s exists; give a fresh --dir", dir)
		}
		dirs = append(dirs, dir)
	}
	logCfg := cfg.Log
	for p, dir := range dirs {
		l, err := engine.Open(dir, engine.Options{Config: &logCfg, Create: true, Now: cfg.Now, FS: r.fs})
		if err != nil {
			r.closeLogs()
			return nil, fmt.Errorf("steady: %w", err)
		}
		st, err := workloads.NewStream(spec, p, int64(l.LogEndOffset()))
		if err != nil {
			l.Close()
			r.closeLogs()
			return nil, fmt.Errorf("steady: %w", err)
		}
		if mb := st.MaxBatchBytes(); mb > int64(logCfg.MaxMessageBytes) || mb > logCfg.SegmentBytes {
			l.Close()
			r.closeLogs()
			return nil, fmt.Errorf("steady: a batch of %d records takes up to %d bytes, more than max.message.bytes %d or segment.bytes %d: lower --records-per-batch or the record size",
				spec.RecordsPerBatch, mb, logCfg.MaxMessageBytes, logCfg.SegmentBytes)
		}
		r.parts = append(r.parts, &partition{n: p, log: l, stream: st, removed: r.fs.count(l.Dir())})
	}
	// The throttle, one for all threads as Kafka's, sleeps as Kafka's does
	// but wakes when the run stops, so that a clean in a long throttle
	// sleep sees its abort at once instead of after the sleep.
	stopping := make(chan struct{})
	copts := cfg.CleanerOptions
	if copts.Throttler == nil && cfg.Cleaner.MaxIOBytesPerSecond > 0 {
		t, err := iosched.NewThrottler(string(cfg.Cleaner.Throttler), cfg.Cleaner.MaxIOBytesPerSecond, iosched.Clock{Sleep: func(d time.Duration) {
			timer := time.NewTimer(d)
			defer timer.Stop()
			select {
			case <-timer.C:
			case <-stopping:
			}
		}})
		if err != nil {
			r.closeLogs()
			return nil, fmt.Errorf("steady: %w", err)
		}
		copts.Throttler = t
	}
	mgr, err := engine.NewCleanerManager(engine.CleanerManagerOptions{
		Cleaner: cfg.Cleaner, CleanerOptions: copts, BackoffMs: cfg.BackoffMs, Now: cfg.Now, OnEvent: r.onCleanerEvent,
	})
	if err != nil {
		r.closeLogs()
		return nil, fmt.Errorf("steady: %w", err)
	}
	r.mgr = mgr
	// A broker's cleaner threads hold their dedupe buffers from start-up:
	// fault them in now, so that no clean's time includes it.
	for _, om := range mgr.OffsetMaps() {
		if p, ok := om.(offsetmap.Prefaulter); ok {
			prefault := p.Prefault
			if cfg.Cleaner.MapHugePages {
				prefault = p.PrefaultHugePages
			}
			if err := prefault(); err != nil {
				r.closeLogs()
				return nil, fmt.Errorf("steady: %w", err)
			}
		}
	}
	// Once the buffers are held, the heap's growth is bounded (rss_bytes
	// flat, not a slow climb to twice the buffers).
	defer holdHeapHeadroom()()
	if cfg.onManager != nil {
		cfg.onManager(mgr)
	}
	for _, p := range r.parts {
		if err := mgr.AddLog(p.log); err != nil {
			r.closeLogs()
			return nil, fmt.Errorf("steady: %w", err)
		}
	}
	res := &Result{Dirs: dirs}
	res.CountersBefore, _ = results.Snapshot(cfg.DiskDevice)
	r.prevCounters, r.havePrev = res.CountersBefore, true

	if err := mgr.Start(); err != nil {
		r.closeLogs()
		return nil, fmt.Errorf("steady: %w", err)
	}
	r.start = cfg.Now()
	res.StartedAt = r.start

	stop := make(chan struct{})
	failed := make(chan struct{})
	var failOnce sync.Once
	fail := func(err error) {
		failOnce.Do(func() {
			r.mu.Lock()
			r.firstErr = err
			r.mu.Unlock()
			close(failed)
		})
	}
	var producers, others sync.WaitGroup
	for _, p := range r.parts {
		producers.Add(1)
		go func() {
			defer producers.Done()
			if err := r.produce(p, stop); err != nil {
				fail(err)
			}
		}()
	}
	readerStop := make(chan struct{})
	for i := range cfg.Readers {
		others.Add(1)
		go func() {
			defer others.Done()
			if err := r.consume(r.parts[i%len(r.parts)], readerStop); err != nil {
				fail(err)
			}
		}()
	}
	others.Add(1)
	go func() {
		defer others.Done()
		r.retentionTask(readerStop)
	}()

	// The sampler runs on its own locked OS thread, so that its CPU time
	// (CLOCK_THREAD_CPUTIME_ID) is its own.
	samplerDone := make(chan struct{})
	var all []*Sample
	go func() {
		defer close(samplerDone)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		tick := time.NewTicker(cfg.SampleInterval)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
				s := r.sample(false)
				all = append(all, s)
				r.publish(s)
			case <-stop:
				return
			}
		}
	}()

	timer := time.NewTimer(cfg.Warmup + cfg.Duration)
	select {
	case <-timer.C:
	case <-ctx.Done():
		res.Stopped = context.Cause(ctx).Error()
	case <-failed:
	}
	timer.Stop()
	close(stop)
	<-samplerDone
	producers.Wait()
	close(readerStop)
	others.Wait()
	close(stopping)
	mgr.Shutdown()
	final := r.sample(true)
	all = append(all, final)
	r.publish(final)
	res.Samples = all
	res.EndedAt = cfg.Now()
	res.CountersAfter, _ = results.Snapshot(cfg.DiskDevice)
	res.Events = r.events
	r.mu.Lock()
	res.Cleans = r.cleanList
	r.mu.Unlock()
	closeErr := r.closeLogs()
	r.mu.Lock()
	runErr := r.firstErr
	r.mu.Unlock()
	res.Summary = Summarize(res.Samples)
	res.Verdict = Judge(res.Samples, cfg.Log.MaxCompactionLagMs)
	if runErr != nil {
		return res, runErr
	}
	return res, closeErr
}

func (r *runner) publish(s *Sample) {
	if r.cfg.Exporter != nil {
		r.cfg.Exporter.Update(s)
	}
	if r.cfg.OnSample != nil {
		r.cfg.OnSample(s)
	}
}

// closeLogs closes every partition's log (a clean shutdown: indexes,
// checkpoints and the root's clean-shutdown marker written).
func (r *runner) closeLogs() error {
	var errs []error
	for _, p := range r.parts {
		if err := p.log.Close(); err != nil {
			errs = append(errs, fmt.Errorf("steady: close %s: %w", p.log.Dir(), err))
		}
	}
	r.parts = nil
	return errors.Join(errs...)
}

// produce appends partition p's stream at the partition's rate until stop,
// then ends its open transactions.
func (r *runner) produce(p *partition, stop <-chan struct{}) error {
	perSec := r.cfg.partitionRate()
	burst := int(max(p.stream.MaxBatchBytes(), int64(perSec/20)))
	lim := rate.NewLimiter(rate.Limit(perSec), burst)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-stop
		cancel()
	}()
	var buf []byte
	for {
		select {
		case <-stop:
			return r.endTxns(p, buf)
		default:
		}
		nowMs := r.cfg.Now().UnixMilli()
		var info workloads.StreamBatch
		var err error
		buf, info, err = p.stream.Next(buf[:0], nowMs)
		if err != nil {
			return err
		}
		if err := r.append(p, buf, info.Records, nowMs, info.NextOffset); err != nil {
			return err
		}
		// Pay for the batch after it is written: the limiter spaces the
		// appends at the rate, the batch's timestamp is its append time.
		if err := lim.WaitN(ctx, info.Bytes); err != nil {
			return r.endTxns(p, buf)
		}
	}
}

func (r *runner) append(p *partition, buf []byte, records int, nowMs, next int64) error {
	p.mu.Lock()
	t0 := time.Now()
	err := p.log.Append(buf)
	lat := time.Since(t0)
	if err == nil {
		p.bytes += int64(len(buf))
		p.records += int64(records)
		p.appends++
		p.appended = append(p.appended, appendTime{next: next, ms: nowMs})
	}
	p.mu.Unlock()
	if err != nil {
		return fmt.Errorf("steady: %w", err)
	}
	r.appendLat.add(lat)
	return nil
}

// endTxns writes the markers of p's open transactions.
func (r *runner) endTxns(p *partition, buf []byte) error {
	if p.stream.OpenTransactions() == 0 {
		return nil
	}
	nowMs := r.cfg.Now().UnixMilli()
	buf, infos, err := p.stream.EndOpenTransactions(buf[:0], nowMs)
	if err != nil {
		return err
	}
	return r.append(p, buf, 0, nowMs, infos[len(infos)-1].NextOffset)
}

// consume tails p's log with a read_committed consumer until stop, timing
// each fetch that returned data. A fetch below the log start offset
// (retention or a log start raise moved it past the consumer: Kafka's
// OffsetOutOfRange) starts the consumer again at the log start offset, as
// auto.offset.reset=earliest does.
func (r *runner) consume(p *partition, stop <-chan struct{}) error {
	c := p.log.NewConsumer(-1, engine.ReadCommitted, 1<<20)
	idle := time.Duration(r.cfg.ReaderPollMs) * time.Millisecond
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if r.cfg.beforePoll != nil {
			r.cfg.beforePoll(p.log, int64(c.Position()))
		}
		var n int64
		t0 := time.Now()
		batches, err := c.Poll(func(*engine.ConsumerRecord) error { n++; return nil })
		lat := time.Since(t0)
		if err != nil {
			if errors.Is(err, engine.ErrClosed) {
				return nil
			}
			// The log start offset is read after the failed fetch: a
			// position below it is what the fetch refused.
			if lso := p.log.LogStartOffset(); errors.Is(err, engine.ErrOffsetOutOfRange) && c.Position() < lso {
				c = p.log.NewConsumer(lso, engine.ReadCommitted, 1<<20)
				continue
			}
			return fmt.Errorf("steady: reader of %s: %w", p.log.TopicPartition(), err)
		}
		if batches > 0 {
			r.fetchLat.add(lat)
			r.readerMu.Lock()
			r.readerRecords += n
			r.readerMu.Unlock()
			continue
		}
		select {
		case <-stop:
			return nil
		case <-time.After(idle):
		}
	}
}

// retentionTask is the broker's retention task (LogManager.cleanupLogs):
// every log.retention.check.interval.ms it runs Log.DeleteOldSegments on
// the logs the cleaner threads do not run retention for, those whose
// cleanup.policy lacks compact.
func (r *runner) retentionTask(stop <-chan struct{}) {
	t := time.NewTicker(time.Duration(r.cfg.RetentionCheckIntervalMs) * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		for _, p := range r.parts {
			if p.log.Config().Compact {
				continue
			}
			res, err := p.log.DeleteOldSegments(r.cfg.Now())
			if err != nil {
				r.logEvent(fmt.Sprintf("ERROR [LogManager] Error deleting old segments of %s: %v", p.log.TopicPartition(), err))
				continue
			}
			r.retention(p.log.TopicPartition(), "LogManager", res)
		}
	}
}

// onCleanerEvent is the manager's OnEvent: it adds a clean's or a
// retention's bytes to the totals and writes the event log.
func (r *runner) onCleanerEvent(ev engine.CleanerEvent) {
	if r.cfg.beforeCleanerEvent != nil {
		r.cfg.beforeCleanerEvent(ev)
	}
	if r.cfg.onCleanerEvent != nil {
		defer r.cfg.onCleanerEvent(ev)
	}
	switch {
	case ev.Stats != nil:
		st := ev.Stats
		r.mu.Lock()
		r.cleans++
		r.cleanList = append(r.cleanList, CleanRecord{EndSeconds: st.EndTime.Sub(r.start).Seconds(), Thread: ev.Thread, Partition: ev.TopicPartition.Partition,
			CleanableRatio: st.LogToClean.CleanableRatio, FirstDirtyOffset: int64(st.LogToClean.FirstDirtyOffset), EndOffset: int64(st.EndOffset),
			BytesRead: st.BytesRead, BytesWritten: st.BytesWritten, Seconds: st.ElapsedTime().Seconds()})
		r.read += st.BytesRead
		r.mapRead += st.MapBytesRead
		r.written += st.BytesWritten
		r.busy += st.ElapsedTime()
		r.mu.Unlock()
		msg := strings.TrimRight(st.KafkaMessage(ev.Thread), "\n")
		r.logEventAt(st.EndTime, fmt.Sprintf("INFO [kafka-log-cleaner-thread-%d]: \n%s (kafka.log.LogCleaner)", ev.Thread, msg))
	case ev.Retention != nil:
		r.retention(ev.TopicPartition, "kafka-log-cleaner-thread-"+strconv.Itoa(ev.Thread), ev.Retention)
	case ev.Aborted:
		r.logEvent(fmt.Sprintf("INFO [kafka-log-cleaner-thread-%d]: The cleaning for partition %s is aborted (kafka.log.LogCleaner)", ev.Thread, ev.TopicPartition))
	case ev.Err != nil:
		what := "Marking its partition (" + ev.TopicPartition.String() + ") as uncleanable"
		if ev.RootOffline != "" {
			what = "Taking its log directory " + ev.RootOffline + " offline"
		}
		r.logEvent(fmt.Sprintf("WARN [kafka-log-cleaner-thread-%d]: Unexpected exception thrown when cleaning log %s. %s (kafka.log.LogCleaner)\n%v", ev.Thread, ev.TopicPartition, what, ev.Err))
	}
}

// retention logs each segment a retention deleted.
func (r *runner) retention(tp engine.TopicPartition, who string, res *engine.RetentionResult) {
	if res == nil || len(res.Deleted) == 0 {
		return
	}
	var b strings.Builder
	for _, d := range res.Deleted {
		fmt.Fprintf(&b, " LogSegment(baseOffset=%d, size=%d, largestTime=%d) (%s);", d.BaseOffset, d.SizeBytes, d.MaxTimestamp, d.Reason)
	}
	r.logEvent(fmt.Sprintf("INFO [UnifiedLog partition=%s, dir=%s] [%s] Deleting segments:%s log start offset %d (kafka.log.UnifiedLog)",
		tp, r.cfg.Dir, who, strings.TrimSuffix(b.String(), ";"), res.LogStartOffset))
}

func (r *runner) logEvent(msg string) { r.logEventAt(r.cfg.Now(), msg) }

// logEventAt writes one event as Kafka's log4j layout writes
// log-cleaner.log: "[yyyy-MM-dd HH:mm:ss,SSS] LEVEL message".
func (r *runner) logEventAt(t time.Time, msg string) {
	line := "[" + t.Format("2006-01-02 15:04:05,000") + "] " + msg + "\n"
	r.mu.Lock()
	r.events++
	if r.eventLog != nil {
		io.WriteString(r.eventLog, line)
	}
	r.mu.Unlock()
	if r.cfg.OnEvent != nil {
		r.cfg.OnEvent(line)
	}
}

// sample takes one Sample.
func (r *runner) sample(final bool) *Sample {
	now := r.cfg.Now()
	nowMs := now.UnixMilli()
	elapsed := now.Sub(r.start)
	s := &Sample{TimeMs: nowMs, ElapsedSeconds: elapsed.Seconds(), Warmup: elapsed < r.cfg.Warmup && !final, Final: final}

	mt := r.mgr.Metrics()
	s.MaxDirtyPercent = mt.MaxDirtyPercent
	s.MaxCompactionDelaySecs = mt.MaxCompactionDelaySecs
	s.CleanerRecopyPercent = mt.CleanerRecopyPercent
	s.MaxBufferUtilizationPercent = mt.MaxBufferUtilizationPercent
	s.MaxCleanTimeSecs = mt.MaxCleanTimeSecs
	s.TimeSinceLastRunMs = mt.TimeSinceLastRunMs
	for _, v := range mt.UncleanablePartitionsCount {
		s.UncleanablePartitionsCount += v
	}
	for _, v := range mt.UncleanableBytes {
		s.UncleanableBytes += v
	}
	s.DeadThreadCount = mt.DeadThreadCount

	ckpts := r.mgr.AllCleanerCheckpoints()
	for _, p := range r.parts {
		ps, cleaned, retained := r.samplePartition(p, ckpts, nowMs)
		s.Partitions = append(s.Partitions, ps)
		s.LogBytes += ps.SizeBytes
		s.DirtyBytes += ps.DirtyBytes
		s.Segments += ps.Segments
		s.MaxCleanableRatio = max(s.MaxCleanableRatio, ps.CleanableRatio)
		s.MaxCompactionDelayMs = max(s.MaxCompactionDelayMs, ps.CompactionDelayMs)
		s.OldestDirtyAgeMs = max(s.OldestDirtyAgeMs, ps.OldestDirtyAgeMs)
		s.ProducerBytes += ps.ProducerBytes
		s.CleanRemovedBytes += cleaned
		s.RetentionRemovedBytes += retained
		p.mu.Lock()
		s.ProducerRecords += p.records
		s.ProducerAppends += p.appends
		p.mu.Unlock()
	}
	s.AppendLatency = r.appendLat.take()
	s.FetchLatency = r.fetchLat.take()
	r.readerMu.Lock()
	s.ReaderRecords = r.readerRecords
	r.readerMu.Unlock()

	r.mu.Lock()
	s.Cleans, s.CleanerBytesRead, s.CleanerMapBytesRead, s.CleanerBytesWritten = r.cleans, r.read, r.mapRead, r.written
	s.CleanerBusySeconds = r.busy.Seconds()
	r.mu.Unlock()

	if c, err := results.Snapshot(r.cfg.DiskDevice); err == nil {
		s.PageCacheBytes, s.PageCacheDirtyBytes = c.CachedBytes, c.DirtyBytes
		if r.havePrev {
			d := c.Delta(r.prevCounters)
			s.DiskReadBytes, s.DiskWrittenBytes = d.DiskReadBytes, d.DiskWrittenBytes
			s.ProcReadBytes, s.ProcWriteBytes = d.ProcReadBytes, d.ProcWriteBytes
			s.IntervalSeconds = d.Elapsed().Seconds()
			s.DiskNote = d.DiskNote
		}
		r.prevCounters, r.havePrev = c, true
	}
	s.RSSBytes, _ = results.ResidentBytes() // 0 when unreadable
	if !final {
		var ts unix.Timespec
		if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) == nil {
			s.SamplerCPUSeconds = float64(ts.Nano()) / 1e9
		}
	}
	return s
}

// samplePartition reads one partition's state at one instant: its
// producer held between appends, and no swap or retention deletion between
// the reads of the log and of the bytes those removed (cleaned and
// retained, returned beside the sample).
func (r *runner) samplePartition(p *partition, ckpts map[engine.TopicPartition]record.Offset, nowMs int64) (ps PartitionSample, cleaned, retained int64) {
	ckpt := engine.NoCheckpoint
	if off, ok := ckpts[p.log.TopicPartition()]; ok {
		ckpt = off
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	l := p.log
	cleaned, retained = p.removed.snapshot(func() {
		lt := engine.CleanableOffsets(l, ckpt, nowMs)
		ps = PartitionSample{
			Partition:         p.n,
			SizeBytes:         l.SizeBytes(),
			Segments:          len(l.Segments()),
			LogStartOffset:    int64(l.LogStartOffset()),
			LogEndOffset:      int64(l.LogEndOffset()),
			FirstDirtyOffset:  int64(lt.FirstDirtyOffset),
			CleanableBytes:    lt.CleanableBytes,
			CleanableRatio:    lt.CleanableRatio,
			CompactionDelayMs: lt.MaxCompactionDelayMs,
			ProducerBytes:     p.bytes,
		}
		ps.DirtyBytes = ps.SizeBytes - lt.CleanBytes
	})
	// Drop the batches wholly below the first dirty offset: cleaned.
	i := 0
	for i < len(p.appended) && p.appended[i].next <= ps.FirstDirtyOffset {
		i++
	}
	p.appended = p.appended[i:]
	if len(p.appended) > 0 {
		ps.OldestDirtyAgeMs = max(nowMs-p.appended[0].ms, 0)
	}
	return ps, cleaned, retained
}
