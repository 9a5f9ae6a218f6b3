package engine

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Start starts the cleaner threads, as a broker's LogCleaner.startup: each
// loops until Shutdown, cleaning the filthiest log and then running the
// retention of the compacted logs, and sleeping log.cleaner.backoff.ms
// when no log needed cleaning. Errors: already running.
func (m *CleanerManager) Start() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.running {
		return errors.New("engine: cleaner manager already running")
	}
	m.running = true
	m.stop = make(chan struct{})
	for _, t := range m.threads {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.threadLoop(t, false, grabFilter{force: m.opts.Force})
		}()
	}
	return nil
}

// Shutdown stops the threads started by Start after their current clean
// (a clean in progress is aborted at its next read) and waits for them.
func (m *CleanerManager) Shutdown() {
	m.mu.Lock()
	if !m.running {
		m.mu.Unlock()
		return
	}
	close(m.stop)
	m.cond.Broadcast()
	m.mu.Unlock()
	m.wg.Wait()
	m.mu.Lock()
	m.running = false
	m.mu.Unlock()
}

func (m *CleanerManager) stopping() bool {
	select {
	case <-m.stop:
		return true
	default:
		return false
	}
}

// RunUntilIdle runs the cleaner threads as Start does, without backoff,
// until no log needs cleaning and no clean is running: every compacted log
// is cleaned, as many times as it stays eligible (a clean whose offset map
// filled before the dirty range ended leaves the log eligible), and the
// retention of the compacted logs is run. Logs marked uncleanable and
// roots taken offline are reported by Uncleanable and OfflineRoots.
func (m *CleanerManager) RunUntilIdle() error {
	return m.runIdle(grabFilter{force: m.opts.Force})
}

// CleanEach cleans every managed compacted log with cleanable bytes once,
// filthiest first, with the manager's threads, whatever its cleanable
// ratio (as a direct call of Kafka's Cleaner.clean for each), and returns
// the stats of each clean in the order the logs were added (for a log not
// cleaned, stats whose Skipped says why). The failures are returned joined
// with the stats (the other logs are still cleaned).
func (m *CleanerManager) CleanEach() ([]*CleanStats, error) {
	done := map[TopicPartition]*CleanStats{}
	var errs []error
	var mu sync.Mutex
	saved := m.opts.OnEvent
	m.opts.OnEvent = func(ev CleanerEvent) {
		mu.Lock()
		if ev.Stats != nil {
			done[ev.TopicPartition] = ev.Stats
		}
		if ev.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ev.TopicPartition, ev.Err))
		}
		mu.Unlock()
		if saved != nil {
			saved(ev)
		}
	}
	defer func() { m.opts.OnEvent = saved }()
	err := m.runIdle(grabFilter{force: true, skip: map[TopicPartition]bool{}})
	var out []*CleanStats
	for _, l := range m.Logs() {
		st := done[l.tp]
		if st == nil {
			// Not cleaned: say why, as a skipped Cleaner.Clean does.
			now := m.now()
			lt, lerr := l.CleanableOffsets(NoCheckpoint, now.UnixMilli())
			st = &CleanStats{TopicPartition: l.tp, LogToClean: lt, StartTime: now, EndTime: now, MapCompleteTime: now, NowMs: now.UnixMilli(),
				Skipped: "nothing to clean", StartSizeBytes: l.SizeBytes(), EndSizeBytes: l.SizeBytes()}
			switch {
			case lerr != nil:
				st.Skipped = lerr.Error()
			case !l.cfg.Compact:
				st.Skipped = "cleanup.policy has no compact"
			}
			if cause := m.uncleanableCause(l); cause != nil {
				st.Skipped = "uncleanable: " + cause.Error()
			}
		}
		out = append(out, st)
	}
	if err == nil {
		err = errors.Join(errs...)
	}
	return out, err
}

func (m *CleanerManager) runIdle(f grabFilter) error {
	m.mu.Lock()
	if m.running {
		m.mu.Unlock()
		return errors.New("engine: cleaner manager already running")
	}
	m.running = true
	m.idle = false
	m.stop = make(chan struct{})
	m.mu.Unlock()
	for _, t := range m.threads {
		m.wg.Add(1)
		go func() {
			defer m.wg.Done()
			m.threadLoop(t, true, f)
		}()
	}
	m.wg.Wait()
	m.mu.Lock()
	m.running = false
	m.mu.Unlock()
	return nil
}

// threadLoop is one cleaner thread (Kafka's CleanerThread.doWork in a
// loop). untilIdle: instead of backing off, return once no log is eligible
// and no other thread is cleaning. A panic kills the thread (Kafka's dead
// thread); the others go on.
func (m *CleanerManager) threadLoop(t *cleanerThread, untilIdle bool, f grabFilter) {
	// Each thread its own filter (its failed list); the skip set is shared.
	defer func() {
		if r := recover(); r != nil {
			t.mu.Lock()
			t.stats.Dead = true
			t.mu.Unlock()
			m.mu.Lock()
			m.cond.Broadcast()
			m.mu.Unlock()
		}
	}()
	for !m.stopping() {
		cleaned, failed := m.tryCleanFilthiestLog(t, &f)
		// A failed clean marked its log uncleanable (or took its root
		// offline): until idle, look for the next log at once, as the
		// others must still be cleaned. Started threads back off after a
		// failure, as Kafka's CleanerThread.doWork does when
		// tryCleanFilthiestLog returns false.
		if cleaned || (failed && untilIdle) {
			continue
		}
		if !untilIdle {
			m.sleep(time.Duration(m.opts.BackoffMs)*time.Millisecond, m.stop)
			continue
		}
		m.mu.Lock()
		if m.inFlight == 0 {
			m.idle = true
			m.cond.Broadcast()
		}
		for !m.idle && m.inFlight > 0 && !m.stopping() {
			m.cond.Wait()
		}
		idle := m.idle
		m.mu.Unlock()
		if idle {
			return
		}
	}
}

func (m *CleanerManager) sleep(d time.Duration, stop <-chan struct{}) {
	if m.opts.Sleep != nil {
		m.opts.Sleep(d, stop)
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-stop:
	}
}

// tryCleanFilthiestLog is Kafka's tryCleanFilthiestLog: clean the filthiest
// log, then run the retention of the compacted logs. It reports whether a
// log was cleaned, and whether the clean of the chosen log failed. A
// failure marks the log uncleanable (bad data, or any error but I/O) or
// takes its root offline (I/O); the others go on.
func (m *CleanerManager) tryCleanFilthiestLog(t *cleanerThread, f *grabFilter) (cleaned, failed bool) {
	f.failed = f.failed[:0]
	lt, l, pre, ok := m.grab(f)
	for _, ev := range f.failed {
		ev.Thread = t.id
		if ev.Err != nil {
			t.mu.Lock()
			t.stats.Failures++
			t.mu.Unlock()
		}
		m.event(ev)
	}
	if ok {
		if f.skip != nil {
			m.mu.Lock()
			f.skip[l.tp] = true
			m.mu.Unlock()
		}
		t.mu.Lock()
		t.stats.LastPreClean = pre
		t.mu.Unlock()
		var err error
		cleaned, err = m.cleanLog(t, l, lt)
		if err != nil {
			return false, !errors.Is(err, ErrCleaningAborted)
		}
	}
	for _, l := range m.deletableLogs() {
		res, err := l.DeleteOldSegments(m.now())
		m.doneDeleting([]*Log{l})
		if err != nil {
			m.fail(t, l, err)
			continue
		}
		if len(res.Deleted) > 0 {
			m.event(CleanerEvent{Thread: t.id, TopicPartition: l.tp, Retention: res})
		}
	}
	return cleaned, false
}

// cleanLog is Kafka's CleanerThread.cleanLog: one clean of the range the
// choice gave, the checkpoint moved by doneCleaning.
// The choice counted the clean in m.inFlight.
func (m *CleanerManager) cleanLog(t *cleanerThread, l *Log, lt LogToClean) (cleaned bool, err error) {
	end := lt.FirstDirtyOffset
	defer func() {
		write := l.truncationCount() == lt.truncGen
		m.mu.Lock()
		m.inFlight--
		if derr := m.doneCleaning(l.tp, end, write); derr != nil && err == nil {
			err = derr
		}
		m.mu.Unlock()
		if err != nil && !errors.Is(err, ErrCleaningAborted) {
			m.fail(t, l, err)
		}
	}()
	st, err := t.cleaner.Clean(l, CleanOptions{Range: &lt, NoCheckpointUpdate: true, CheckDone: func() error {
		if m.stopping() {
			return fmt.Errorf("%w: %s: the cleaner is shutting down", ErrCleaningAborted, l.tp)
		}
		return m.checkCleaningAborted(l.tp)
	}})
	if err != nil {
		if errors.Is(err, ErrCleaningAborted) {
			m.event(CleanerEvent{Thread: t.id, TopicPartition: l.tp, Err: err, Aborted: true})
			return false, err
		}
		return false, err
	}
	st.Thread = t.id
	if !st.Cleaned() {
		return false, nil
	}
	end = st.EndOffset
	t.mu.Lock()
	t.stats.Last = st
	t.stats.Cleans++
	t.mu.Unlock()
	t.mu.Lock()
	pre := t.stats.LastPreClean
	t.mu.Unlock()
	m.event(CleanerEvent{Thread: t.id, TopicPartition: l.tp, Stats: st, PreClean: pre})
	return true, nil
}

// fail records a failed clean or retention of l: an I/O error takes its
// root offline (Kafka's LogDirFailureChannel), any other marks it
// uncleanable (Kafka's LogCleaningException).
func (m *CleanerManager) fail(t *cleanerThread, l *Log, err error) {
	t.mu.Lock()
	t.stats.Failures++
	t.mu.Unlock()
	ev := CleanerEvent{Thread: t.id, TopicPartition: l.tp, Err: err}
	m.mu.Lock()
	if rs := m.roots[l.root]; rs != nil {
		if isIOError(err) {
			if rs.offline == nil {
				rs.offline = err
			}
			ev.RootOffline = l.root
		} else {
			rs.uncleanable[l.tp] = err
			ev.Uncleanable = true
		}
	}
	m.cond.Broadcast()
	m.mu.Unlock()
	m.event(ev)
}

func (m *CleanerManager) event(ev CleanerEvent) {
	if m.opts.OnEvent != nil {
		m.opts.OnEvent(ev)
	}
}
