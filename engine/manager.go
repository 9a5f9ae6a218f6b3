package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// CleaningState is the cleaning state of one partition in a CleanerManager,
// as Kafka's LogCleaningState.
type CleaningState int8

const (
	// CleaningNone: no clean is running and cleaning is not paused.
	CleaningNone CleaningState = iota
	// CleaningInProgress: a cleaner thread is cleaning the log (or running
	// its retention).
	CleaningInProgress
	// CleaningAborted: an abort was asked while a clean ran; the clean
	// stops at its next read and the state becomes CleaningPaused (count 1).
	CleaningAborted
	// CleaningPaused: cleaning is paused Count times; each ResumeCleaning
	// undoes one pause.
	CleaningPaused
)

func (s CleaningState) String() string {
	switch s {
	case CleaningNone:
		return "none"
	case CleaningInProgress:
		return "in-progress"
	case CleaningAborted:
		return "aborted"
	case CleaningPaused:
		return "paused"
	}
	return fmt.Sprintf("CleaningState(%d)", int8(s))
}

type cleaningState struct {
	state  CleaningState
	paused int // pause count, with CleaningPaused
}

// CleanerManagerOptions configure a CleanerManager.
type CleanerManagerOptions struct {
	// Cleaner is the broker-wide cleaner config: Threads threads, each with
	// DedupeBufferBytes / Threads of offset map and IOBufferBytes / Threads
	// / 2 of read and of write buffer, as Kafka divides them. Required:
	// start from DefaultCleanerConfig() (Kafka's defaults, 1 thread) and
	// change what differs; a Threads of 0 or less is an error, not a
	// request for the defaults.
	Cleaner CleanerConfig
	// CleanerOptions are handed to every thread's NewCleaner (fsync policy,
	// a throttler shared by all threads, progress). Its Now is replaced by
	// the manager's clock.
	CleanerOptions CleanerOptions
	// BackoffMs is how long a thread sleeps when no log needs cleaning, in
	// ms. Default 15000, as Kafka's log.cleaner.backoff.ms. Used by Start.
	BackoffMs int64
	// Now is the clock (ratios, lags, horizons, metrics). Default time.Now.
	Now func() time.Time
	// Sleep waits d or until stop is closed (the backoff). Default a timer;
	// tests pass one that moves a fake clock instead.
	Sleep func(d time.Duration, stop <-chan struct{})
	// Force makes every compacted log with cleanable bytes eligible whatever
	// its cleanable ratio (as a direct call of Kafka's Cleaner.clean).
	Force bool
	// OnEvent, when set, is called after each clean, each retention that
	// deleted segments, and each failure, from the thread concerned.
	OnEvent func(CleanerEvent)
}

// DefaultBackoffMs is Kafka's log.cleaner.backoff.ms.
const DefaultBackoffMs = 15000

// CleanerEvent is something a cleaner thread did.
type CleanerEvent struct {
	Thread         int
	TopicPartition TopicPartition
	// Stats of a finished clean (nil otherwise), and the choice that led
	// to it.
	Stats    *CleanStats
	PreClean PreCleanStats
	// Retention that deleted segments (nil otherwise).
	Retention *RetentionResult
	// Err of a failed clean or retention. Uncleanable says the log was
	// marked uncleanable for it; RootOffline that its log directory root
	// was taken offline (an I/O error, as Kafka's LogDirFailureChannel).
	Err         error
	Uncleanable bool
	RootOffline string
	// Aborted: the clean stopped because it was aborted or paused.
	Aborted bool
	// Warning is a warning of the choice of a log, as Kafka logs it: its
	// checkpoint lay outside [log start offset, log end offset] and was
	// reset to the log start offset (LogToClean.CheckpointWarning).
	Warning string
}

// PreCleanStats are the figures of one choice of a log to clean, as Kafka's
// PreCleanStats.
type PreCleanStats struct {
	// MaxCompactionDelayMs is the largest delay past max.compaction.lag.ms
	// among the candidate logs, in ms.
	MaxCompactionDelayMs int64
	// DelayedPartitions counts the candidates with a positive delay.
	DelayedPartitions int
	// CleanablePartitions counts the logs eligible for cleaning.
	CleanablePartitions int
}

// ThreadStats is what one cleaner thread did.
type ThreadStats struct {
	ID int
	// Last is the stats of the thread's last clean (nil before the first).
	Last *CleanStats
	// LastPreClean is the choice that led to it.
	LastPreClean PreCleanStats
	Cleans       int64 // cleans finished
	Failures     int64 // cleans or retentions failed
	Dead         bool  // the thread stopped on a panic (Kafka's dead thread)
}

// CleanerMetrics are the values of Kafka's cleaner metrics (docs/kafka-rules.md
// §7), computed as Kafka's gauges compute them.
type CleanerMetrics struct {
	// MaxBufferUtilizationPercent: (int)(100 x the largest buffer
	// utilisation of any thread's last clean) (max-buffer-utilization-percent).
	MaxBufferUtilizationPercent int
	// CleanerRecopyPercent: (int)(100 x written / max(read, 1)) over every
	// thread's last clean (cleaner-recopy-percent).
	CleanerRecopyPercent int
	// MaxCleanTimeSecs: (int) the longest last clean of any thread, in s
	// (max-clean-time-secs).
	MaxCleanTimeSecs int
	// MaxCompactionDelaySecs: (int) the largest max compaction delay of the
	// threads' last choices, in s (max-compaction-delay-secs).
	MaxCompactionDelaySecs int
	// DeadThreadCount: threads that stopped on a panic (DeadThreadCount).
	DeadThreadCount int
	// UncleanablePartitionsCount and UncleanableBytes, per log directory
	// root: partitions marked uncleanable, and their cleanable bytes
	// (uncleanable-partitions-count, uncleanable-bytes).
	UncleanablePartitionsCount map[string]int
	UncleanableBytes           map[string]int64
	// MaxDirtyPercent: (int)(100 x the largest cleanable ratio at the last
	// choice) (max-dirty-percent).
	MaxDirtyPercent int
	// TimeSinceLastRunMs: ms since a thread last chose a log (time-since-last-run-ms).
	TimeSinceLastRunMs int64
}

type rootState struct {
	checkpointPath string
	uncleanable    map[TopicPartition]error
	offline        error // set once an I/O error took the root offline
}

// CleanerManager cleans many logs in one or more log directory roots, as
// Kafka's LogCleaner with its LogCleanerManager: Threads cleaner threads
// each pick the filthiest compacted log (cleanable ratio strictly above
// min.cleanable.dirty.ratio, or past max.compaction.lag.ms), clean it, and
// run the retention of the compacted logs; the cleaning state of each
// partition (in progress, aborted, paused with a count) can be changed
// with AbortCleaning, AbortAndPauseCleaning and ResumeCleaning; a log whose
// clean fails on bad data is marked uncleanable and the others go on; an
// I/O error takes its root offline. Each root has one
// cleaner-offset-checkpoint file, updated when a clean ends. Safe for
// concurrent use.
type CleanerManager struct {
	opts    CleanerManagerOptions
	now     func() time.Time
	threads []*cleanerThread

	mu   sync.Mutex
	cond *sync.Cond // signalled when a clean or retention ends
	logs map[TopicPartition]*Log
	// order is the topic-partitions in the order logs were added.
	order         []TopicPartition
	roots         map[string]*rootState
	inProgress    map[TopicPartition]*cleaningState
	dirtiestRatio float64
	lastRunMs     int64
	inFlight      int // cleans running
	idle          bool
	stop          chan struct{}
	wg            sync.WaitGroup
	running       bool
}

type cleanerThread struct {
	id      int
	cleaner *Cleaner
	mu      sync.Mutex // guards stats
	stats   ThreadStats
}

// OffsetMaps returns each cleaner thread's offset map, in thread order, so
// that a caller can pre-fault them before a timed clean (a broker allocates
// them once at startup).
func (m *CleanerManager) OffsetMaps() []offsetmap.Map {
	maps := make([]offsetmap.Map, len(m.threads))
	for i, t := range m.threads {
		maps[i] = t.cleaner.OffsetMap()
	}
	return maps
}

// NewCleanerManager makes a manager and its threads' cleaners (each
// allocates its offset map and buffers once). Errors: opts.Cleaner.Threads
// of 0 or less (a *ConfigError of log.cleaner.threads naming the field:
// the zero CleanerConfig is not taken for DefaultCleanerConfig(), which
// would drop every other setting given with it), another invalid cleaner
// config, or ErrMapTooSmall.
func NewCleanerManager(opts CleanerManagerOptions) (*CleanerManager, error) {
	if n := opts.Cleaner.Threads; n < 1 {
		return nil, configError("log.cleaner.threads", "engine: cleaner manager: CleanerManagerOptions.Cleaner.Threads (log.cleaner.threads) is %d: want 1 or more (DefaultCleanerConfig() gives Kafka's defaults, 1 thread)", n)
	}
	if err := opts.Cleaner.Validate(); err != nil {
		return nil, err
	}
	if opts.BackoffMs <= 0 {
		opts.BackoffMs = DefaultBackoffMs
	}
	m := &CleanerManager{opts: opts, now: opts.Now, logs: map[TopicPartition]*Log{}, roots: map[string]*rootState{},
		inProgress: map[TopicPartition]*cleaningState{}}
	if m.now == nil {
		m.now = time.Now
	}
	m.cond = sync.NewCond(&m.mu)
	m.lastRunMs = m.now().UnixMilli()
	copts := opts.CleanerOptions
	copts.Now = m.now
	if copts.Throttler == nil {
		// One throttler shared by all cleaner threads, as Kafka's LogCleaner.
		t, err := NewThrottler(opts.Cleaner)
		if err != nil {
			return nil, err
		}
		copts.Throttler = t
	}
	for i := range opts.Cleaner.Threads {
		c, err := NewCleaner(opts.Cleaner, copts)
		if err != nil {
			return nil, err
		}
		m.threads = append(m.threads, &cleanerThread{id: i, cleaner: c, stats: ThreadStats{ID: i}})
	}
	return m, nil
}

// AddLog puts a log under the manager. Its root (the directory holding the
// partition directory) gets its cleaner-offset-checkpoint there. The log
// must be open read-write: its hold on the root's .lock is what lets the
// manager write the root's checkpoint file and clean the log. Errors: a
// read-only log; a log of the same topic-partition is already managed.
func (m *CleanerManager) AddLog(l *Log) error {
	if l.readOnly {
		return fmt.Errorf("%w: cleaner manager: %s is open read-only; the manager cleans it and writes %s in %s, which needs a read-write open (and the log directory's %s)",
			ErrReadOnly, l.tp, CleanerCheckpointFile, l.root, LockFile)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.logs[l.tp]; ok {
		return fmt.Errorf("engine: cleaner manager: %s added twice", l.tp)
	}
	m.logs[l.tp] = l
	m.order = append(m.order, l.tp)
	if _, ok := m.roots[l.root]; !ok {
		m.roots[l.root] = &rootState{checkpointPath: filepath.Join(l.root, CleanerCheckpointFile), uncleanable: map[TopicPartition]error{}}
	}
	return nil
}

// RemoveLog takes a log from the manager, after aborting and pausing its
// cleaning (as Kafka does before deleting a partition). Its checkpoint
// entry stays.
func (m *CleanerManager) RemoveLog(tp TopicPartition) error {
	if err := m.AbortAndPauseCleaning(tp); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	l := m.logs[tp]
	delete(m.logs, tp)
	delete(m.inProgress, tp)
	for i, o := range m.order {
		if o == tp {
			m.order = append(m.order[:i:i], m.order[i+1:]...)
			break
		}
	}
	if rs := m.roots[l.root]; rs != nil {
		delete(rs.uncleanable, tp)
	}
	return nil
}

// Logs returns the managed logs in the order they were added.
func (m *CleanerManager) Logs() []*Log {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Log, 0, len(m.order))
	for _, tp := range m.order {
		out = append(out, m.logs[tp])
	}
	return out
}

// AllCleanerCheckpoints reads the checkpoint file of every root (Kafka's
// allCleanerCheckpoints). A root whose file cannot be read is skipped.
func (m *CleanerManager) AllCleanerCheckpoints() map[TopicPartition]record.Offset {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.allCheckpoints()
}

// REQUIRES: m.mu held.
func (m *CleanerManager) allCheckpoints() map[TopicPartition]record.Offset {
	out := map[TopicPartition]record.Offset{}
	for root, rs := range m.roots {
		if rs.offline != nil {
			continue
		}
		entries, err := ReadCheckpoint(m.fsOf(root), rs.checkpointPath)
		if err != nil {
			continue
		}
		for tp, off := range entries {
			out[tp] = off
		}
	}
	return out
}

// fsOf is the FS of the logs of root.
// REQUIRES: m.mu held.
func (m *CleanerManager) fsOf(root string) FS {
	for _, l := range m.logs {
		if l.root == root {
			return l.fs
		}
	}
	return DefaultFS
}

// grabFilter narrows the logs a choice may return.
type grabFilter struct {
	force bool
	skip  map[TopicPartition]bool
	// failed collects the logs the choice found uncleanable, and its
	// warnings, reported by the caller once the manager's lock is released.
	failed []CleanerEvent
}

// GrabFilthiestCompactedLog chooses the log to clean next and marks it in
// progress, as Kafka's LogCleanerManager.grabFilthiestCompactedLog:
// candidates are the compacted logs not in progress, not paused, not
// uncleanable and with bytes; a checkpoint outside [log start offset, log
// end offset] is rewritten with the log start offset, and an event with a
// Warning says so (as Kafka warns); a candidate is
// eligible when its cleanable ratio is strictly above its
// min.cleanable.dirty.ratio, or max.compaction.lag.ms requires a clean and
// it has cleanable bytes; the eligible one with the largest ratio wins (the
// first added, on a tie). ok is false when none is eligible. The caller
// must call DoneCleaning afterwards.
func (m *CleanerManager) GrabFilthiestCompactedLog() (lt LogToClean, l *Log, pre PreCleanStats, ok bool) {
	f := grabFilter{force: m.opts.Force}
	lt, l, pre, ok = m.grab(&f)
	for _, ev := range f.failed {
		m.event(ev)
	}
	if ok {
		m.mu.Lock()
		m.inFlight-- // a clean outside the threads
		m.mu.Unlock()
	}
	return lt, l, pre, ok
}

func (m *CleanerManager) grab(f *grabFilter) (LogToClean, *Log, PreCleanStats, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var pre PreCleanStats
	nowMs := m.now().UnixMilli()
	m.lastRunMs = nowMs
	lastClean := m.allCheckpoints()
	type candidate struct {
		lt LogToClean
		l  *Log
	}
	var dirty []candidate
	for _, tp := range m.order {
		l := m.logs[tp]
		if !l.cfg.Compact || m.inProgress[tp] != nil || m.uncleanable(l) || f.skip[tp] {
			continue
		}
		ckpt, present := lastClean[tp]
		lt, err := l.CleanableOffsetsEntry(ckpt, present, nowMs)
		if err != nil {
			// Kafka's LogCleaningException from the choice: the partition
			// becomes uncleanable.
			m.roots[l.root].uncleanable[tp] = err
			f.failed = append(f.failed, CleanerEvent{TopicPartition: tp, Err: err, Uncleanable: true})
			continue
		}
		if lt.ForceUpdateCheckpoint {
			m.updateCheckpoint(l, lt.FirstDirtyOffset)
			if lt.CheckpointWarning != "" {
				f.failed = append(f.failed, CleanerEvent{TopicPartition: tp, Warning: lt.CheckpointWarning})
			}
		}
		pre.MaxCompactionDelayMs = max(pre.MaxCompactionDelayMs, lt.MaxCompactionDelayMs)
		if lt.MaxCompactionDelayMs > 0 {
			pre.DelayedPartitions++
		}
		if lt.TotalBytes() > 0 {
			dirty = append(dirty, candidate{lt, l})
		}
	}
	m.dirtiestRatio = 0
	for _, c := range dirty {
		m.dirtiestRatio = max(m.dirtiestRatio, c.lt.CleanableRatio)
	}
	var best *candidate
	for i := range dirty {
		c := &dirty[i]
		eligible := (c.lt.NeedCompactionNow && c.lt.CleanableBytes > 0) || c.lt.CleanableRatio > c.l.cfg.MinCleanableDirtyRatio ||
			(f.force && c.lt.CleanableBytes > 0)
		if !eligible {
			continue
		}
		pre.CleanablePartitions++
		if best == nil || c.lt.CleanableRatio > best.lt.CleanableRatio {
			best = c
		}
	}
	if best == nil {
		return LogToClean{}, nil, pre, false
	}
	m.inProgress[best.l.tp] = &cleaningState{state: CleaningInProgress}
	m.inFlight++
	return best.lt, best.l, pre, true
}

// uncleanable reports whether l is marked uncleanable or its root offline.
// REQUIRES: m.mu held.
func (m *CleanerManager) uncleanable(l *Log) bool {
	rs := m.roots[l.root]
	if rs.offline != nil {
		return true
	}
	_, bad := rs.uncleanable[l.tp]
	return bad
}

// uncleanableCause is why l is not cleaned: its root offline or the log
// marked uncleanable; nil otherwise.
func (m *CleanerManager) uncleanableCause(l *Log) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	rs := m.roots[l.root]
	if rs.offline != nil {
		return rs.offline
	}
	return rs.uncleanable[l.tp]
}

// updateCheckpoint sets l's entry of its root's checkpoint file (not for an
// offline root).
// REQUIRES: m.mu held.
func (m *CleanerManager) updateCheckpoint(l *Log, off record.Offset) error {
	rs := m.roots[l.root]
	if rs.offline != nil {
		return nil
	}
	return UpdateCheckpoint(l.fs, rs.checkpointPath, l.tp, off)
}

// DoneCleaning ends a clean the caller was granted: in progress, the
// checkpoint moves to endOffset and the state is cleared; aborted, the
// state becomes paused (count 1), as Kafka's doneCleaning.
func (m *CleanerManager) DoneCleaning(tp TopicPartition, endOffset record.Offset) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.doneCleaning(tp, endOffset, true)
}

// write false leaves the checkpoint alone (the log was truncated while it
// was cleaned: TruncateTo already lowered the checkpoint).
// REQUIRES: m.mu held.
func (m *CleanerManager) doneCleaning(tp TopicPartition, endOffset record.Offset, write bool) error {
	st := m.inProgress[tp]
	defer m.cond.Broadcast()
	switch {
	case st == nil:
		return fmt.Errorf("%w: %s: done cleaning, but no clean is in progress", ErrCleaningState, tp)
	case st.state == CleaningInProgress:
		delete(m.inProgress, tp)
		if l := m.logs[tp]; l != nil && write {
			if err := m.updateCheckpoint(l, endOffset); err != nil {
				return fmt.Errorf("engine: write checkpoint of %s: %w", tp, err)
			}
		}
		return nil
	case st.state == CleaningAborted:
		m.inProgress[tp] = &cleaningState{state: CleaningPaused, paused: 1}
		return nil
	}
	return fmt.Errorf("%w: %s: done cleaning in state %s", ErrCleaningState, tp, st.state)
}

// AbortAndPauseCleaning stops the log's clean if one runs and pauses its
// cleaning, as Kafka's abortAndPauseCleaning: not in progress, it becomes
// paused (count 1); in progress, it is marked aborted and the call waits
// until the clean has stopped (at its next read) and the state is paused;
// already paused, the count grows by one. Errors: ErrUnknownLog;
// ErrCleaningState when an abort is already pending.
func (m *CleanerManager) AbortAndPauseCleaning(tp TopicPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.logs[tp]; !ok {
		return fmt.Errorf("%w: %s", ErrUnknownLog, tp)
	}
	st := m.inProgress[tp]
	switch {
	case st == nil:
		m.inProgress[tp] = &cleaningState{state: CleaningPaused, paused: 1}
	case st.state == CleaningInProgress:
		st.state = CleaningAborted
	case st.state == CleaningPaused:
		st.paused++
	default:
		return fmt.Errorf("%w: %s cannot be aborted and paused in state %s", ErrCleaningState, tp, st.state)
	}
	for {
		if st := m.inProgress[tp]; st != nil && st.state == CleaningPaused {
			return nil
		}
		m.cond.Wait()
	}
}

// ResumeCleaning undoes one pause of each log, as Kafka's resumeCleaning.
// Errors: ErrCleaningState for a log that is not paused (the others are
// still resumed).
func (m *CleanerManager) ResumeCleaning(tps ...TopicPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var errs []error
	for _, tp := range tps {
		st := m.inProgress[tp]
		switch {
		case st == nil:
			errs = append(errs, fmt.Errorf("%w: %s cannot be resumed: it is not paused", ErrCleaningState, tp))
		case st.state != CleaningPaused:
			errs = append(errs, fmt.Errorf("%w: %s cannot be resumed in state %s", ErrCleaningState, tp, st.state))
		case st.paused == 1:
			delete(m.inProgress, tp)
		default:
			st.paused--
		}
	}
	m.cond.Broadcast()
	return errors.Join(errs...)
}

// AbortCleaning stops the log's clean if one runs, without pausing later
// ones (Kafka's abortCleaning: abort and pause, then resume).
func (m *CleanerManager) AbortCleaning(tp TopicPartition) error {
	if err := m.AbortAndPauseCleaning(tp); err != nil {
		return err
	}
	return m.ResumeCleaning(tp)
}

// CleaningState returns the log's cleaning state and, when paused, the
// pause count.
func (m *CleanerManager) CleaningState(tp TopicPartition) (CleaningState, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st := m.inProgress[tp]
	if st == nil {
		return CleaningNone, 0
	}
	return st.state, st.paused
}

// checkCleaningAborted is the cleaner's CheckDone: ErrCleaningAborted once
// the log's state is aborted.
func (m *CleanerManager) checkCleaningAborted(tp TopicPartition) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if st := m.inProgress[tp]; st != nil && st.state == CleaningAborted {
		return fmt.Errorf("%w: %s", ErrCleaningAborted, tp)
	}
	return nil
}

// MarkUncleanable marks a log uncleanable (Kafka's
// markPartitionUncleanable): it is no longer cleaned, nor its retention
// run, until it is removed.
func (m *CleanerManager) MarkUncleanable(tp TopicPartition, cause error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l := m.logs[tp]; l != nil {
		m.roots[l.root].uncleanable[tp] = cause
	}
}

// Uncleanable returns, per root, the uncleanable partitions and why.
func (m *CleanerManager) Uncleanable() map[string]map[TopicPartition]error {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]map[TopicPartition]error{}
	for root, rs := range m.roots {
		if len(rs.uncleanable) == 0 {
			continue
		}
		out[root] = map[TopicPartition]error{}
		for tp, err := range rs.uncleanable {
			out[root][tp] = err
		}
	}
	return out
}

// OfflineRoots returns the roots an I/O error took offline, and the error.
func (m *CleanerManager) OfflineRoots() map[string]error {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]error{}
	for root, rs := range m.roots {
		if rs.offline != nil {
			out[root] = rs.offline
		}
	}
	return out
}

// deletableLogs marks in progress, and returns, the compacted logs whose
// retention the cleaner threads run now (Kafka's deletableLogs): not in
// progress, not paused, not uncleanable.
func (m *CleanerManager) deletableLogs() []*Log {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*Log
	for _, tp := range m.order {
		l := m.logs[tp]
		if !l.cfg.Compact || m.inProgress[tp] != nil || m.uncleanable(l) {
			continue
		}
		m.inProgress[tp] = &cleaningState{state: CleaningInProgress}
		out = append(out, l)
	}
	return out
}

// doneDeleting ends the retention of logs (Kafka's doneDeleting).
func (m *CleanerManager) doneDeleting(logs []*Log) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, l := range logs {
		switch st := m.inProgress[l.tp]; {
		case st == nil:
		case st.state == CleaningInProgress:
			delete(m.inProgress, l.tp)
		case st.state == CleaningAborted:
			m.inProgress[l.tp] = &cleaningState{state: CleaningPaused, paused: 1}
		}
	}
	m.cond.Broadcast()
}

// isIOError reports whether err is an I/O failure of the file system (a
// *fs.PathError or an errno, or an iosched I/O error) rather than bad data.
func isIOError(err error) bool {
	var ce *record.CorruptionError
	if errors.As(err, &ce) {
		return false
	}
	var pe *fs.PathError
	var errno syscall.Errno
	var ioe *iosched.IOError
	return errors.As(err, &pe) || errors.As(err, &errno) || errors.As(err, &ioe)
}

// Metrics returns the values of Kafka's cleaner metrics now.
func (m *CleanerManager) Metrics() CleanerMetrics {
	var mt CleanerMetrics
	var read, written int64
	util, maxSecs := 0.0, 0.0
	var maxDelay int64
	for _, t := range m.threads {
		t.mu.Lock()
		s := t.stats
		t.mu.Unlock()
		if s.Dead {
			mt.DeadThreadCount++
		}
		maxDelay = max(maxDelay, s.LastPreClean.MaxCompactionDelayMs)
		if s.Last == nil {
			continue
		}
		util = max(util, s.Last.BufferUtilization)
		maxSecs = max(maxSecs, s.Last.ElapsedTime().Seconds())
		read += s.Last.BytesRead
		written += s.Last.BytesWritten
	}
	mt.MaxBufferUtilizationPercent = int(util * 100)
	mt.CleanerRecopyPercent = int(100 * float64(written) / float64(max(read, 1)))
	mt.MaxCleanTimeSecs = int(maxSecs)
	mt.MaxCompactionDelaySecs = int(maxDelay / 1000)

	m.mu.Lock()
	defer m.mu.Unlock()
	nowMs := m.now().UnixMilli()
	mt.MaxDirtyPercent = int(100 * m.dirtiestRatio)
	mt.TimeSinceLastRunMs = nowMs - m.lastRunMs
	mt.UncleanablePartitionsCount = map[string]int{}
	mt.UncleanableBytes = map[string]int64{}
	lastClean := m.allCheckpoints()
	for root, rs := range m.roots {
		mt.UncleanablePartitionsCount[root] = len(rs.uncleanable)
		var bytes int64
		for tp := range rs.uncleanable {
			l := m.logs[tp]
			if l == nil {
				continue
			}
			ckpt, present := lastClean[tp]
			lt, _ := l.CleanableOffsetsEntry(ckpt, present, nowMs)
			bytes += lt.CleanableBytes
		}
		mt.UncleanableBytes[root] = bytes
	}
	return mt
}

// ThreadStats returns every thread's stats, by thread id.
func (m *CleanerManager) ThreadStats() []ThreadStats {
	out := make([]ThreadStats, len(m.threads))
	for i, t := range m.threads {
		t.mu.Lock()
		out[i] = t.stats
		t.mu.Unlock()
	}
	return out
}
