package lab

import (
	"context"
	"errors"
	"fmt"
	"github.com/cleanerlab/cleanerlab/settings"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/results/interference"
)

// CleanOptions are the settings of CleanPartition and CleanLogDir, as
// cleanerlab clean's flags give them.
type CleanOptions struct {
	// Log and Cleaner are the topic and cleaner configs.
	Log     engine.LogConfig
	Cleaner engine.CleanerConfig
	// Force cleans a log whose cleanable ratio is not above
	// min.cleanable.dirty.ratio; Roll rolls the active segment first.
	Force, Roll bool
	// KafkaRecovery is engine.Options.KafkaRecoveryTruncation.
	KafkaRecovery bool
	// AcceptTruncated is engine.Options.AcceptTruncatedSegments: go on
	// with a segment whose indexes prove that its .log lost data.
	AcceptTruncated bool
	// Now is the cleaner's "now" (delete horizons, lags); nil: the clock.
	// The timings always read the real clock.
	Now func() time.Time
	// FirstDirty, when set, replaces the checkpoint of the first pass;
	// HighWatermark, when set, bounds the clean (one partition only).
	FirstDirty, HighWatermark *record.Offset
	// Passes is how many times to clean again while the offset map filled
	// before the dirty range ended (one partition; 0 means 1).
	Passes int
	// Recovery, when set, is shown what opening each log recovered.
	Recovery func(io.Writer, *engine.RecoveryReport)
	// Serve, when set, is handed CleanLogDir's manager once its logs are
	// added, before the clean starts (the CLI serves its metrics to
	// Prometheus); the func it returns is called when the clean ends.
	Serve func(*engine.CleanerManager) (func(), error)
	// LogFor, when set, gives each partition its own topic config (from
	// lab/topicconfig) in place of Log; a delete-only topic is then opened
	// but never compacted.
	LogFor func(engine.TopicPartition) (engine.LogConfig, error)
	// Map, when set, is the cleaner's offset map in place of one made from
	// Cleaner (engine.CleanerOptions.Map; a log directory needs
	// Cleaner.Threads 1): tests hand in a map that records its calls.
	Map offsetmap.Map
	// PolicySource, when set, says where a partition's cleanup.policy came
	// from (a lab/topicconfig Source such as "cluster-metadata"); CleanLogDir
	// names it beside a partition it does not compact.
	PolicySource func(engine.TopicPartition) string
	// OnClean, when set, is handed each pass CleanPartition cleans: its
	// stats and the interval of the clean (CPU time, interference), as the
	// rows print them (lab/kafkajvm compares them with Kafka's).
	OnClean func(*engine.CleanStats, interference.Interval)
}

// writeNotCompacted prints that the partition tp, whose cleanup.policy
// (cfg) lacks compact, is not cleaned, and where its policy came from
// (source, when set and it names one).
func writeNotCompacted(w io.Writer, tp engine.TopicPartition, cfg engine.LogConfig, source func(engine.TopicPartition) string) {
	src := ""
	if source != nil {
		if s := source(tp); s != "" {
			src = " (" + s + ")"
		}
	}
	fmt.Fprintf(w, "%s: not cleaned: cleanup.policy=%s%s: never compacted (Kafka's cleaner takes only logs whose cleanup.policy contains compact)\n", tp, CleanupPolicyName(cfg), src)
}

// CleanPartition cleans the partition directory dir in place, as a
// broker's cleaner thread cleans one log (the checkpoint of the parent
// directory read first, so that a bad one changes nothing), printing each
// pass to w. Cancelling ctx aborts the clean in progress at its next read
// (the group being cleaned left as it was, groups already swapped in
// complete) and returns an error wrapping ErrStopped.
//
// The clean is timed as a broker runs one: the log is opened (recovery)
// and its producer state loaded, and the cleaner made with its offset map
// allocated and pre-faulted (NewPrefaultedCleaner), before it starts, each
// printed on its own row ahead of the clean's ("before the clean"), so
// that the clean's rows and Kafka's log line (its elapsed time and MB/sec,
// over CleanStats.StartTime to EndTime as Kafka's CleanerStats) cover the
// clean alone.
func CleanPartition(ctx context.Context, w io.Writer, dir string, o CleanOptions) error {
	ckpt, err := engine.ReadCheckpoint(nil, engine.CheckpointPath(dir))
	if err != nil {
		return err
	}
	t0 := time.Now()
	l, err := engine.Open(dir, engine.Options{Config: &o.Log, KafkaRecoveryTruncation: o.KafkaRecovery, AcceptTruncatedSegments: o.AcceptTruncated})
	if err != nil {
		return err
	}
	defer l.Close()
	open := OpenReport{Logs: 1}
	// A broker holds the producer state in memory; a log whose state cannot
	// be loaded fails in the clean as before (nothing changed yet).
	if l.LoadProducerState() != nil {
		open.ProducerStateFailed++
	}
	open.Time = time.Since(t0)
	if o.Recovery != nil {
		o.Recovery(w, l.Recovery())
	}
	// A broker's cleaner never takes it; nothing is wrong with it (as in
	// CleanLogDir).
	if cfg := l.Config(); !cfg.Compact {
		writeNotCompacted(w, l.TopicPartition(), cfg, o.PolicySource)
		return nil
	}
	if o.Roll {
		if err := l.Roll(); err != nil {
			return err
		}
	}
	if o.HighWatermark != nil {
		l.SetHighWatermark(*o.HighWatermark)
	}
	c, fault, err := NewPrefaultedCleaner(o.Cleaner, engine.CleanerOptions{Now: o.Now, Map: o.Map})
	if err != nil {
		return err
	}
	// A partition directory copied without its parent's checkpoint is
	// cleaned from its log start, as Kafka cleans a log never cleaned
	// (LogCleanerManager.cleanableOffsets): say so, the copy's likely fault.
	if _, ok := ckpt[l.TopicPartition()]; !ok && o.FirstDirty == nil {
		fmt.Fprintf(w, "note: no %s entry for %s in %s: the whole log is dirty, as for a log never cleaned (copy the log directory's %s with the partition, or give --first-dirty-offset)\n",
			engine.CleanerCheckpointFile, l.TopicPartition(), filepath.Dir(engine.CheckpointPath(dir)), engine.CleanerCheckpointFile)
	}
	fmt.Fprintf(w, "%s: before the clean (not in its time):\n", l.TopicPartition())
	WriteRows(w, append(append(open.Rows(), fault.rows()...), MapSortBufferRow(o.Cleaner, c.OffsetMap().Slots())))
	first := o.FirstDirty
	for p := 0; p < max(1, o.Passes); p++ {
		opts := engine.CleanOptions{Force: o.Force, CheckDone: ctx.Err}
		if first != nil {
			opts.FirstDirtyOffset, opts.OverrideFirstDirty = *first, true
		}
		watch := WatchPhase("")
		st, err := c.Clean(l, opts)
		iv := watch.Stop()
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("%w (%w): %s left as it was or cleaned up to the last group swapped in", ErrStopped, cerr, l.Dir())
		}
		if err != nil {
			return err
		}
		// A checkpoint outside the log, reset as Kafka does, with its warning.
		if warn := st.LogToClean.CheckpointWarning; warn != "" {
			fmt.Fprintf(w, "WARN %s\n", warn)
		}
		if !st.Cleaned() {
			fmt.Fprintf(w, "%s: not cleaned: %s\n", l.TopicPartition(), st.Skipped)
			break
		}
		WriteCleanTable(w, st)
		fmt.Fprint(w, KafkaLine(st))
		WriteInterferenceLine(w, iv)
		if o.OnClean != nil {
			o.OnClean(st, iv)
		}
		first = nil // later passes continue from the checkpoint
		if !st.MapFull {
			break
		}
	}
	return l.Close()
}

// openLogDirPerTopic is engine.OpenLogDir with each partition's config from o.LogFor.
func openLogDirPerTopic(dir string, o CleanOptions, now func() time.Time) ([]*engine.Log, map[string]error, error) {
	dirs, err := engine.PartitionDirs(nil, dir)
	if err != nil {
		return nil, nil, err
	}
	var logs []*engine.Log
	failed := map[string]error{}
	for _, d := range dirs {
		tp, err := engine.ParseTopicPartition(filepath.Base(d))
		if err != nil {
			failed[d] = err
			continue
		}
		cfg, err := o.LogFor(tp)
		if err != nil {
			failed[d] = err
			continue
		}
		l, err := engine.Open(d, engine.Options{Config: &cfg, Now: now, KafkaRecoveryTruncation: o.KafkaRecovery, AcceptTruncatedSegments: o.AcceptTruncated})
		if err != nil {
			failed[d] = err
			continue
		}
		logs = append(logs, l)
	}
	return logs, failed, nil
}

// OpenReport times the opening of the logs a clean works on, which a
// broker does once at start-up (LogManager.loadLogs: recovery, then the
// producer state held in memory), never inside a clean.
type OpenReport struct {
	// Logs is the number of logs opened; Time the wall time of opening them
	// (engine.Open's recovery: segment files and indexes checked, an
	// unclean shutdown's tail recovered) and loading their producer state
	// (engine.Log.LoadProducerState: every batch header read).
	Logs int
	Time time.Duration
	// ProducerStateFailed counts the logs whose producer state could not be
	// loaded: their clean loads it (and fails on it) inside its own time.
	ProducerStateFailed int
}

// Rows is the "log open" row (seconds), none when no log was opened.
func (r OpenReport) Rows() []results.Row {
	if r.Logs == 0 {
		return nil
	}
	meaning := fmt.Sprintf("opening %d log(s) (recovery) and loading their producer state, before the timed clean (not in its time), as a broker has its logs open", r.Logs)
	if r.ProducerStateFailed > 0 {
		meaning += fmt.Sprintf("; the producer state of %d could not be loaded: their cleans load it, inside their time", r.ProducerStateFailed)
	}
	return []results.Row{{Name: "log open", Value: fmt.Sprintf("%.3f", r.Time.Seconds()), Unit: "s", Meaning: meaning}}
}

// WriteCleanTable prints the figures of one clean (CleanRows).
func WriteCleanTable(w io.Writer, st *engine.CleanStats) {
	fmt.Fprintf(w, "%s: cleaned [%d, %d), checkpoint %d\n", st.TopicPartition, st.LogToClean.FirstDirtyOffset, st.EndOffset, st.CheckpointOffset)
	WriteRows(w, CleanRows(st))
}

// CleanLogDir cleans every compacted partition of the log directory root
// dir with a CleanerManager of o.Cleaner.Threads threads until none needs
// cleaning, as a broker's cleaner does, printing each clean to out and, at
// the end, Kafka's cleaner metrics; every partition no clean reached is
// named with the reason; a partition directory without segment files (an
// empty log to Kafka, such as the KRaft __cluster_metadata-0) is skipped
// and said to be; a partition that cannot be opened or cleaned is reported
// in the error, the others go on. Cancelling ctx shuts
// the manager down: cleans in progress abort at their next read.
func CleanLogDir(ctx context.Context, out io.Writer, dir string, o CleanOptions) error {
	logCfg, cleanerCfg := o.Log, o.Cleaner
	// Read the checkpoint before changing anything, so that a bad one
	// leaves the directory as it was.
	if _, err := engine.ReadCheckpoint(nil, filepath.Join(dir, engine.CleanerCheckpointFile)); err != nil {
		return err
	}
	if o.Map != nil && cleanerCfg.Threads != 1 {
		return fmt.Errorf("lab: clean: CleanOptions.Map serves one cleaner thread, not %d", cleanerCfg.Threads)
	}
	now := o.Now
	var logs []*engine.Log
	var failed map[string]error
	var err error
	t0 := time.Now()
	if o.LogFor == nil {
		logs, failed, err = engine.OpenLogDir(dir, engine.Options{Config: &logCfg, Now: now, KafkaRecoveryTruncation: o.KafkaRecovery, AcceptTruncatedSegments: o.AcceptTruncated})
	} else {
		logs, failed, err = openLogDirPerTopic(dir, o, now)
	}
	if err != nil {
		return err
	}
	// A broker holds every log's producer state in memory; a log whose state
	// cannot be loaded is marked uncleanable by its clean, as before.
	open := OpenReport{Logs: len(logs)}
	for _, l := range logs {
		if l.LoadProducerState() != nil {
			open.ProducerStateFailed++
		}
	}
	open.Time = time.Since(t0)
	closeAll := func() error {
		var errs []error
		for _, l := range logs {
			errs = append(errs, l.Close())
		}
		return errors.Join(errs...)
	}
	defer closeAll()
	var problems []string
	if skipped, err := engine.SkippedDirs(nil, dir); err == nil {
		for _, s := range skipped {
			fmt.Fprintln(out, s.String())
		}
	}
	for _, d := range sortedKeys(failed) {
		// A partition directory without segment files is an empty log to
		// Kafka's LogLoader (and the KRaft metadata log, which holds only
		// snapshots, is never cleaned): nothing to clean, not a failure.
		// Open refused it before changing anything.
		if has, herr := engine.HasSegmentFile(nil, d); herr == nil && !has && errors.Is(failed[d], engine.ErrNotLogDir) {
			fmt.Fprintf(out, "%s: skipped: no segment file (*.log): an empty partition, as Kafka loads it; nothing to clean\n", filepath.Base(d))
			continue
		}
		fmt.Fprintf(out, "%s: not opened: %v\n", d, failed[d])
		problems = append(problems, fmt.Sprintf("%s: not opened: %v", d, failed[d]))
	}
	for _, l := range logs {
		if o.Recovery != nil {
			o.Recovery(out, l.Recovery())
		}
		if o.Roll {
			if err := l.Roll(); err != nil {
				return err
			}
		}
	}
	var mu sync.Mutex // one event printed at a time
	cleaned := map[engine.TopicPartition]bool{}
	t0 = time.Now()
	m, err := engine.NewCleanerManager(engine.CleanerManagerOptions{
		Cleaner:        cleanerCfg,
		CleanerOptions: engine.CleanerOptions{Map: o.Map},
		Now:            now,
		Force:          o.Force,
		OnEvent: func(ev engine.CleanerEvent) {
			mu.Lock()
			defer mu.Unlock()
			if ev.Stats != nil {
				cleaned[ev.TopicPartition] = true
			}
			WriteCleanerEvent(out, ev)
		},
	})
	if err != nil {
		return err
	}
	allocTime := time.Since(t0)
	// The threads' dedupe buffers are faulted in before the first clean, as
	// a broker's are from start-up.
	fault := PrefaultMaps(m, cleanerCfg)
	fault.AllocTime, fault.AllocMeasured = allocTime, true
	for _, l := range logs {
		if err := m.AddLog(l); err != nil {
			return err
		}
	}
	if o.Serve != nil {
		done, err := o.Serve(m)
		if err != nil {
			return err
		}
		defer done()
	}
	fmt.Fprintf(out, "log directory %s: %s, %s\n", dir, countOf(len(logs), "partition"), countOf(cleanerCfg.Threads, "cleaner thread"))
	fmt.Fprintln(out, "before the cleans (not in their times):")
	slots := 0
	if maps := m.OffsetMaps(); len(maps) > 0 {
		slots = maps[0].Slots()
	}
	WriteRows(out, append(append(open.Rows(), fault.rows()...), MapSortBufferRow(cleanerCfg, slots)))
	stop := AfterCancel(ctx, m.Shutdown)
	watch := WatchPhase("")
	err = m.RunUntilIdle()
	iv := watch.Stop()
	stop()
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w (%w): the cleans in progress were aborted, their logs left as they were", ErrStopped, cerr)
	}
	if err != nil {
		return err
	}
	var cleans int64
	for _, ts := range m.ThreadStats() {
		cleans += ts.Cleans
	}
	writeNotCleaned(out, m, cleaned, o)
	if cleans == 0 {
		fmt.Fprintln(out, "no log needed cleaning: no cleanable ratio above min.cleanable.dirty.ratio nor past max.compaction.lag.ms (--force cleans every log with cleanable bytes, --roll makes the active segments cleanable)")
	}
	WriteCleanerMetrics(out, m)
	fmt.Fprint(out, "the cleans, all threads: ")
	WriteInterferenceLine(out, iv)
	for root, tps := range m.Uncleanable() {
		for tp, cause := range tps {
			problems = append(problems, fmt.Sprintf("%s/%s: uncleanable: %v", root, tp, cause))
		}
	}
	for root, cause := range m.OfflineRoots() {
		problems = append(problems, fmt.Sprintf("%s: offline: %v", root, cause))
	}
	if err := closeAll(); err != nil {
		return err
	}
	logs = nil
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("clean: %d problem(s):\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return nil
}

// writeNotCleaned names every log of m that no clean of this run reached,
// with the reason: its cleanup.policy has no compact (Kafka's cleaner
// takes only compacted logs, LogCleanerManager.grabFilthiestCompactedLog),
// it was marked uncleanable or its root taken offline, or its cleanable
// offsets (with the checkpoint now on disk) leave nothing eligible.
func writeNotCleaned(w io.Writer, m *engine.CleanerManager, cleaned map[engine.TopicPartition]bool, o CleanOptions) {
	ckpts := m.AllCleanerCheckpoints()
	uncleanable := map[engine.TopicPartition]error{}
	for _, tps := range m.Uncleanable() {
		for tp, cause := range tps {
			uncleanable[tp] = cause
		}
	}
	nowMs := time.Now().UnixMilli()
	if o.Now != nil {
		nowMs = o.Now().UnixMilli()
	}
	for _, l := range m.Logs() {
		tp := l.TopicPartition()
		if cleaned[tp] {
			continue
		}
		cfg := l.Config()
		if !cfg.Compact {
			writeNotCompacted(w, tp, cfg, o.PolicySource)
			continue
		}
		if cause, ok := uncleanable[tp]; ok {
			fmt.Fprintf(w, "%s: not cleaned: uncleanable: %v\n", tp, cause)
			continue
		}
		ckpt, present := ckpts[tp]
		lt, err := l.CleanableOffsetsEntry(ckpt, present, nowMs)
		switch {
		case err != nil:
			fmt.Fprintf(w, "%s: not cleaned: %v\n", tp, err)
		case lt.CleanableBytes == 0:
			fmt.Fprintf(w, "%s: not cleaned: no cleanable bytes (dirty range [%d, %d))\n", tp, lt.FirstDirtyOffset, lt.FirstUncleanableOffset)
		default:
			fmt.Fprintf(w, "%s: not cleaned: cleanable ratio %.4f not above min.cleanable.dirty.ratio %v (%d cleanable bytes)\n", tp, lt.CleanableRatio, cfg.MinCleanableDirtyRatio, lt.CleanableBytes)
		}
	}
}

// WriteCleanerEvent prints one event of a cleaner manager: a clean (its
// rows and Kafka's log line), a retention, a warning (a checkpoint reset:
// "WARN " and Kafka's message), an abort, a log marked uncleanable, a root
// taken offline, or another failure.
func WriteCleanerEvent(w io.Writer, ev engine.CleanerEvent) {
	switch {
	case ev.Stats != nil:
		WriteCleanTable(w, ev.Stats)
		fmt.Fprint(w, KafkaLine(ev.Stats))
		// As Kafka's recordStats adds when partitions are past max.compaction.lag.ms.
		if p := ev.PreClean; p.DelayedPartitions > 0 {
			fmt.Fprintf(w, "\tCleanable partitions: %d, Delayed partitions: %d, max delay: %d\n", p.CleanablePartitions, p.DelayedPartitions, p.MaxCompactionDelayMs)
		}
		if n := ev.Stats.InvalidMessagesRead; n > 0 {
			fmt.Fprintf(w, "\tFound %d invalid messages during compaction.\n", n)
		}
	case ev.Retention != nil:
		for _, s := range ev.Retention.Deleted {
			fmt.Fprintf(w, "%s: retention (thread %d) deleted segment %d [%d, %d), %d bytes (%s)\n", ev.TopicPartition, ev.Thread, s.BaseOffset, s.BaseOffset, s.NextOffset, s.SizeBytes, s.Reason)
		}
	case ev.Warning != "":
		fmt.Fprintf(w, "WARN %s (thread %d)\n", ev.Warning, ev.Thread)
	case ev.Aborted:
		fmt.Fprintf(w, "%s: clean aborted (thread %d): %v\n", ev.TopicPartition, ev.Thread, ev.Err)
	case ev.Uncleanable:
		fmt.Fprintf(w, "%s: marked uncleanable (thread %d): %v\n", ev.TopicPartition, ev.Thread, ev.Err)
	case ev.RootOffline != "":
		fmt.Fprintf(w, "%s: log directory %s taken offline (thread %d): %v\n", ev.TopicPartition, ev.RootOffline, ev.Thread, ev.Err)
	case ev.Err != nil:
		fmt.Fprintf(w, "%s: %v\n", ev.TopicPartition, ev.Err)
	}
}

// WriteCleanerMetrics prints Kafka's cleaner metrics (kafka.log:LogCleaner
// and LogCleanerManager) and each thread's count of cleans.
func WriteCleanerMetrics(w io.Writer, m *engine.CleanerManager) {
	mt := m.Metrics()
	fmt.Fprintf(w, "cleaner metrics (Kafka's kafka.log:type=LogCleaner / LogCleanerManager):\n")
	fmt.Fprintf(w, "  max-buffer-utilization-percent %d\n", mt.MaxBufferUtilizationPercent)
	fmt.Fprintf(w, "  cleaner-recopy-percent         %d\n", mt.CleanerRecopyPercent)
	fmt.Fprintf(w, "  max-clean-time-secs            %d\n", mt.MaxCleanTimeSecs)
	fmt.Fprintf(w, "  max-compaction-delay-secs      %d\n", mt.MaxCompactionDelaySecs)
	fmt.Fprintf(w, "  DeadThreadCount                %d\n", mt.DeadThreadCount)
	fmt.Fprintf(w, "  max-dirty-percent              %d\n", mt.MaxDirtyPercent)
	fmt.Fprintf(w, "  time-since-last-run-ms         %d\n", mt.TimeSinceLastRunMs)
	for _, root := range sortedKeys(mt.UncleanablePartitionsCount) {
		fmt.Fprintf(w, "  uncleanable-partitions-count   %d (logDirectory=%s)\n", mt.UncleanablePartitionsCount[root], root)
		fmt.Fprintf(w, "  uncleanable-bytes              %d (logDirectory=%s)\n", mt.UncleanableBytes[root], root)
	}
	for _, ts := range m.ThreadStats() {
		fmt.Fprintf(w, "  thread %d: %d cleans, %d failures\n", ts.ID, ts.Cleans, ts.Failures)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RetentionOptions are the settings of Retention.
type RetentionOptions struct {
	// Log is the topic config (cleanup.policy, retention.ms, ...).
	Log engine.LogConfig
	// Now is the clock of the retention (nil: time.Now).
	Now func() time.Time
	// HighWatermark, when set, bounds what may be deleted.
	HighWatermark *record.Offset
	// DeleteRecords, when set, raises the log start offset to it first, as
	// a DeleteRecords request (-1: to the high watermark).
	DeleteRecords *record.Offset
	// Recovery, when set, is shown what opening the log recovered.
	Recovery func(io.Writer, *engine.RecoveryReport)
	// AcceptTruncated is engine.Options.AcceptTruncatedSegments.
	AcceptTruncated bool
}

// Retention applies Kafka's retention (UnifiedLog.deleteOldSegments) to
// the partition directory dir in place, printing each deleted segment and
// the log start offset after.
func Retention(w io.Writer, dir string, o RetentionOptions) error {
	now := time.Now()
	if o.Now != nil {
		now = o.Now()
	}
	l, err := engine.Open(dir, engine.Options{Config: &o.Log, Now: func() time.Time { return now }, AcceptTruncatedSegments: o.AcceptTruncated})
	if err != nil {
		return err
	}
	defer l.Close()
	if o.Recovery != nil {
		o.Recovery(w, l.Recovery())
	}
	tp := l.TopicPartition()
	if o.HighWatermark != nil {
		l.SetHighWatermark(*o.HighWatermark)
	}
	if o.DeleteRecords != nil {
		before := l.LogStartOffset()
		lso, err := l.DeleteRecords(*o.DeleteRecords)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%s: log start offset %d -> %d (delete records below %d)\n", tp, before, lso, *o.DeleteRecords)
	}
	if !o.Log.Delete {
		fmt.Fprintf(w, "%s: cleanup.policy %s: only segments below the log start offset are deleted\n", tp, CleanupPolicyName(o.Log))
	}
	res, err := l.DeleteOldSegments(now)
	if err != nil {
		return err
	}
	if res.Rolled {
		fmt.Fprintf(w, "%s: every segment was deletable: rolled a new active segment first\n", tp)
	}
	for _, d := range res.Deleted {
		fmt.Fprintf(w, "%s: deleted segment %d (offsets [%d, %d), %d bytes, largest timestamp %d) by %s\n",
			tp, d.BaseOffset, d.BaseOffset, d.NextOffset, d.SizeBytes, d.MaxTimestamp, d.Reason)
	}
	fmt.Fprintf(w, "%s: %d segments deleted; log start offset %d, log end offset %d, %d segments left\n",
		tp, len(res.Deleted), res.LogStartOffset, l.LogEndOffset(), len(l.Segments()))
	return l.Close()
}

// CleanupPolicyName is cleanup.policy as Kafka writes it: "compact",
// "delete" or "compact,delete".
func CleanupPolicyName(c engine.LogConfig) string { return settings.CleanupPolicyName(c) }

// RetentionLogDir applies Retention to every partition directory of the
// log directory root (engine.PartitionDirs), each with logFor's config for
// its topic (nil: o.Log for all), printing each partition's lines; a
// partition directory without a segment file is skipped and said to be;
// a partition that fails is reported and the others go on, the error then
// naming every failed partition. DeleteRecords and HighWatermark apply to
// one partition: with a root they are an error and nothing is changed.
func RetentionLogDir(w io.Writer, root string, o RetentionOptions, logFor func(engine.TopicPartition) (engine.LogConfig, error)) error {
	if o.DeleteRecords != nil || o.HighWatermark != nil {
		return fmt.Errorf("lab: retention: --delete-records and --high-watermark apply to one partition directory, not to the log directory %s", root)
	}
	dirs, err := engine.PartitionDirs(nil, root)
	if err != nil {
		return err
	}
	if len(dirs) == 0 {
		return fmt.Errorf("%w: %s holds no partition directory (topic-partition)", engine.ErrNotLogDir, root)
	}
	var failed []string
	for _, d := range dirs {
		if has, err := engine.HasSegmentFile(nil, d); err == nil && !has {
			fmt.Fprintf(w, "%s: skipped: no segment file (*.log): an empty partition, as Kafka loads it; nothing to delete\n", d)
			continue
		}
		po := o
		if logFor != nil {
			tp, err := engine.ParseTopicPartition(filepath.Base(d))
			if err == nil {
				po.Log, err = logFor(tp)
			}
			if err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", d, err))
				continue
			}
		}
		if err := Retention(w, d, po); err != nil {
			fmt.Fprintf(w, "%s: retention failed: %v\n", d, err)
			failed = append(failed, fmt.Sprintf("%s: %v", d, err))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("lab: retention of %s: %d partition(s) failed: %s", root, len(failed), strings.Join(failed, "; "))
	}
	return nil
}

// countOf is n and noun, the noun with an "s" unless n is 1: "1 partition",
// "2 partitions", "0 partitions".
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
