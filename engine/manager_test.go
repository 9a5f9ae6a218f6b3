package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// fixedBatches returns n one-record batches at offsets from, from+1, ...
// holding key k<o mod keys> and an 8-byte value, all with timestamp ts, so
// that every batch has the same size (78 bytes).
func fixedBatches(t testing.TB, from record.Offset, n, keys int, ts int64) [][]byte {
	t.Helper()
	var out [][]byte
	for i := range n {
		o := from + record.Offset(i)
		out = append(out, testBatch(t, o, ts, fmt.Sprintf("k%d=v%07d", int(o)%keys, o)))
	}
	return out
}

// managerLog writes a partition directory root/name whose segments hold
// n[i] fixed-size batches each (the last active), all with timestamp 1,
// and opens it.
func managerLog(t *testing.T, root, name string, cfg *LogConfig, nowMs int64, n ...int) *Log {
	t.Helper()
	dir := filepath.Join(root, name)
	var segs [][][]byte
	off := record.Offset(0)
	for _, k := range n {
		segs = append(segs, fixedBatches(t, off, k, 4, 1))
		off += record.Offset(k)
	}
	writeTestLog(t, dir, cfg, segs...)
	l, err := Open(dir, Options{Config: cfg, Now: fixedClock(nowMs)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func newTestManager(t *testing.T, nowMs int64, threads int, logs ...*Log) *CleanerManager {
	t.Helper()
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = int64(threads) * (1 << 20)
	cfg.Threads = threads
	m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: cfg, Now: fixedClock(nowMs)})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range logs {
		if err := m.AddLog(l); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// TestManagerFilthiestChoice: the manager picks the log with the largest
// cleanable ratio among those strictly above min.cleanable.dirty.ratio
// (0.5), and a log exactly at the ratio is never picked; max.compaction.lag.ms
// makes a log with a low ratio eligible (docs/kafka-rules.md §3).
func TestManagerFilthiestChoice(t *testing.T) {
	root := t.TempDir()
	cfg := DefaultLogConfig()
	const nowMs = 100_000
	// Segments of 10 equal batches; the checkpoint at the base of the
	// second segment makes the ratio 1/2, 2/3 or, without checkpoint, 1.
	half := managerLog(t, root, "half-0", &cfg, nowMs, 10, 10, 1)
	twoThirds := managerLog(t, root, "twothirds-0", &cfg, nowMs, 10, 10, 10, 1)
	full := managerLog(t, root, "full-0", &cfg, nowMs, 10, 1)
	ckpt := filepath.Join(root, CleanerCheckpointFile)
	for _, l := range []*Log{half, twoThirds} {
		if err := UpdateCheckpoint(nil, ckpt, l.TopicPartition(), 10); err != nil {
			t.Fatal(err)
		}
	}
	m := newTestManager(t, nowMs, 1, half, twoThirds, full)
	var got []string
	for {
		lt, l, _, ok := m.GrabFilthiestCompactedLog()
		if !ok {
			break
		}
		got = append(got, fmt.Sprintf("%s %.4f", l.TopicPartition(), lt.CleanableRatio))
	}
	want := []string{"full-0 1.0000", "twothirds-0 0.6667"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("choices %v, want %v (half-0 at exactly 0.5 is not eligible)", got, want)
	}
	if st, _ := m.CleaningState(full.TopicPartition()); st != CleaningInProgress {
		t.Errorf("full-0 state %s, want in-progress", st)
	}
	if mt := m.Metrics(); mt.MaxDirtyPercent != 50 {
		// The last choice saw only half-0 (the others were in progress).
		t.Errorf("max-dirty-percent %d, want 50", mt.MaxDirtyPercent)
	}

	// max.compaction.lag.ms: the dirty segment's first batch is at ts 1;
	// with a lag of 1000 ms at now 100000 the delay is 100000 - 1000 - 1.
	root2 := t.TempDir()
	lagCfg := DefaultLogConfig()
	lagCfg.MaxCompactionLagMs = 1000
	lagged := managerLog(t, root2, "lagged-0", &lagCfg, nowMs, 10, 10, 10, 1)
	if err := UpdateCheckpoint(nil, filepath.Join(root2, CleanerCheckpointFile), lagged.TopicPartition(), 20); err != nil {
		t.Fatal(err)
	}
	m2 := newTestManager(t, nowMs, 1, lagged)
	lt, l, pre, ok := m2.GrabFilthiestCompactedLog()
	if !ok || l != lagged {
		t.Fatalf("lagged log (ratio 1/3) not chosen: %v %v", ok, l)
	}
	if lt.CleanableRatio >= 0.5 || !lt.NeedCompactionNow || lt.MaxCompactionDelayMs != 98_999 {
		t.Errorf("lagged: ratio %v need-now %v delay %d, want < 0.5, true, 98999", lt.CleanableRatio, lt.NeedCompactionNow, lt.MaxCompactionDelayMs)
	}
	if pre.MaxCompactionDelayMs != 98_999 || pre.DelayedPartitions != 1 || pre.CleanablePartitions != 1 {
		t.Errorf("pre-clean stats %+v, want delay 98999, 1 delayed, 1 cleanable", pre)
	}
}

// TestManagerStates walks Kafka's LogCleaningState machine: pause counts,
// resume, abort of a clean in progress (which stops at its next read and
// leaves the log paused, its checkpoint unmoved), and errors for illegal
// transitions.
func TestManagerStates(t *testing.T) {
	root := t.TempDir()
	cfg := DefaultLogConfig()
	l := managerLog(t, root, "s-0", &cfg, 1000, 10, 1)
	m := newTestManager(t, 1000, 1, l)
	tp := l.TopicPartition()
	state := func() string {
		s, n := m.CleaningState(tp)
		if s == CleaningPaused {
			return fmt.Sprintf("%s(%d)", s, n)
		}
		return s.String()
	}
	if err := m.ResumeCleaning(tp); !errors.Is(err, ErrCleaningState) {
		t.Errorf("resume of a log not paused: %v, want ErrCleaningState", err)
	}
	if err := m.AbortAndPauseCleaning(tp); err != nil || state() != "paused(1)" {
		t.Fatalf("pause: %v, state %s", err, state())
	}
	if err := m.AbortAndPauseCleaning(tp); err != nil || state() != "paused(2)" {
		t.Fatalf("second pause: %v, state %s", err, state())
	}
	if _, _, _, ok := m.GrabFilthiestCompactedLog(); ok {
		t.Error("a paused log was chosen")
	}
	if err := m.ResumeCleaning(tp); err != nil || state() != "paused(1)" {
		t.Fatalf("resume: %v, state %s", err, state())
	}
	if err := m.ResumeCleaning(tp); err != nil || state() != "none" {
		t.Fatalf("second resume: %v, state %s", err, state())
	}
	if err := m.AbortAndPauseCleaning(TopicPartition{"nope", 0}); !errors.Is(err, ErrUnknownLog) {
		t.Errorf("pause of an unknown log: %v", err)
	}

	// Abort a clean in progress: the thread's clean stops at its first read.
	lt, gl, _, ok := m.grab(&grabFilter{})
	if !ok || gl != l || state() != "in-progress" {
		t.Fatalf("grab: %v %s", ok, state())
	}
	paused := make(chan error)
	go func() { paused <- m.AbortAndPauseCleaning(tp) }()
	for state() != "aborted" {
		time.Sleep(time.Millisecond)
	}
	if err := m.AbortAndPauseCleaning(tp); !errors.Is(err, ErrCleaningState) {
		t.Errorf("second abort while one is pending: %v, want ErrCleaningState", err)
	}
	cleaned, err := m.cleanLog(m.threads[0], l, lt)
	if cleaned || !errors.Is(err, ErrCleaningAborted) {
		t.Errorf("aborted clean: cleaned %v err %v, want ErrCleaningAborted", cleaned, err)
	}
	if err := <-paused; err != nil {
		t.Fatal(err)
	}
	if state() != "paused(1)" {
		t.Errorf("after the abort: %s, want paused(1)", state())
	}
	if ckpt := m.AllCleanerCheckpoints(); len(ckpt) != 0 {
		t.Errorf("an aborted clean wrote the checkpoint: %v", ckpt)
	}
	if _, err := os.Stat(seg(l.Dir(), 0, LogFileSuffix+CleanedFileSuffix)); !os.IsNotExist(err) {
		t.Errorf("the aborted clean left its .cleaned file: %v", err)
	}
	// AbortCleaning = abort and pause, then resume: back to paused(1) here.
	if err := m.AbortCleaning(tp); err != nil || state() != "paused(1)" {
		t.Errorf("abort of a paused log: %v, state %s", err, state())
	}
	if err := m.ResumeCleaning(tp); err != nil {
		t.Fatal(err)
	}
	if err := m.RunUntilIdle(); err != nil {
		t.Fatal(err)
	}
	if ckpt := m.AllCleanerCheckpoints(); ckpt[tp] != 10 {
		t.Errorf("checkpoint after the resumed clean %v, want 10", ckpt)
	}
}

// corruptBatchAt damages the batch at byte pos of path: magic 0xff, a
// length field larger than the bytes left, or ("crc") one byte of its
// records flipped, which only a CRC check sees (the header still parses).
func corruptBatchAt(t *testing.T, path string, pos int64, how string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	switch how {
	case "magic":
		_, err = f.WriteAt([]byte{0xff}, pos+record.MagicPos)
	case "crc":
		b := []byte{0}
		if _, err = f.ReadAt(b, pos+record.BatchHeaderSize+2); err == nil {
			_, err = f.WriteAt([]byte{b[0] ^ 0x5a}, pos+record.BatchHeaderSize+2)
		}
	case "length":
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], 1<<20)
		_, err = f.WriteAt(b[:], pos+record.LengthPos)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestManagerUncleanable is the manager part of C17: a log whose clean meets
// a magic byte 0xff or a size field larger than the bytes left fails with a
// corruption error naming the file and byte position, is marked
// uncleanable (and counted by the uncleanable metrics) and is never chosen
// again; the other logs are cleaned. An I/O error takes the log's root
// offline instead, and the logs of other roots go on.
func TestManagerUncleanable(t *testing.T) {
	root := t.TempDir()
	cfg := DefaultLogConfig()
	cfg.IndexIntervalBytes = 1 // every batch indexed: the open reads only the last one
	good := managerLog(t, root, "good-0", &cfg, 1000, 10, 1)
	badMagic := managerLog(t, root, "badmagic-0", &cfg, 1000, 10, 1)
	badSize := managerLog(t, root, "badsize-0", &cfg, 1000, 10, 1)
	batchSize := int64(len(fixedBatches(t, 0, 1, 4, 1)[0]))
	corruptBatchAt(t, seg(badMagic.Dir(), 0, LogFileSuffix), 3*batchSize, "magic")
	corruptBatchAt(t, seg(badSize.Dir(), 0, LogFileSuffix), 5*batchSize, "length")

	var mu sync.Mutex
	var events []CleanerEvent
	ccfg := DefaultCleanerConfig()
	ccfg.DedupeBufferBytes = 1 << 20
	m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: ccfg, Now: fixedClock(1000), OnEvent: func(ev CleanerEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []*Log{good, badMagic, badSize} {
		if err := m.AddLog(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.RunUntilIdle(); err != nil {
		t.Fatal(err)
	}
	un := m.Uncleanable()[root]
	if len(un) != 2 {
		t.Fatalf("uncleanable %v, want badmagic-0 and badsize-0", un)
	}
	for _, c := range []struct {
		l   *Log
		pos int64
	}{{badMagic, 3 * batchSize}, {badSize, 5 * batchSize}} {
		err := un[c.l.TopicPartition()]
		var ce *record.CorruptionError
		if !errors.As(err, &ce) || ce.Path != seg(c.l.Dir(), 0, LogFileSuffix) || ce.Pos != c.pos {
			t.Errorf("%s: %v, want a corruption error at %s byte %d", c.l.TopicPartition(), err, seg(c.l.Dir(), 0, LogFileSuffix), c.pos)
		}
	}
	ckpt := m.AllCleanerCheckpoints()
	if ckpt[good.TopicPartition()] != 10 {
		t.Errorf("good-0 checkpoint %v, want 10", ckpt)
	}
	mt := m.Metrics()
	// Each bad log has one cleanable segment of 10 batches.
	if mt.UncleanablePartitionsCount[root] != 2 || mt.UncleanableBytes[root] != 2*10*batchSize {
		t.Errorf("uncleanable metrics %d partitions, %d bytes; want 2, %d", mt.UncleanablePartitionsCount[root], mt.UncleanableBytes[root], 2*10*batchSize)
	}
	nUncleanable := 0
	for _, ev := range events {
		if ev.Uncleanable {
			nUncleanable++
		}
	}
	if nUncleanable != 2 {
		t.Errorf("%d uncleanable events, want 2: %+v", nUncleanable, events)
	}
	// Never chosen again.
	if _, l, _, ok := m.GrabFilthiestCompactedLog(); ok {
		t.Errorf("%s chosen after the run", l.TopicPartition())
	}

	// An I/O error (every rename fails with EIO) takes the root offline;
	// another root is cleaned.
	sick, healthy := t.TempDir(), t.TempDir()
	writeTestLog(t, filepath.Join(sick, "sick-0"), &cfg, fixedBatches(t, 0, 10, 4, 0), fixedBatches(t, 10, 1, 4, 0))
	ffs := vfstest.NewFaultFS(nil, vfstest.Fault{At: 0, Sticky: true, Count: func(op vfstest.Op) bool { return op.Kind == vfstest.OpRename }})
	sickLog, err := Open(filepath.Join(sick, "sick-0"), Options{Config: &cfg, FS: ffs, Now: fixedClock(1000)})
	if err != nil {
		t.Fatal(err)
	}
	defer sickLog.abandon()
	okLog := managerLog(t, healthy, "ok-0", &cfg, 1000, 10, 1)
	m2 := newTestManager(t, 1000, 2, sickLog, okLog)
	if err := m2.RunUntilIdle(); err != nil {
		t.Fatal(err)
	}
	off := m2.OfflineRoots()
	if len(off) != 1 || off[sick] == nil || !errors.Is(off[sick], vfstest.ErrInjected) {
		t.Errorf("offline roots %v, want %s", off, sick)
	}
	if ckpt := m2.AllCleanerCheckpoints(); ckpt[okLog.TopicPartition()] != 10 {
		t.Errorf("healthy root checkpoints %v, want ok-0 at 10", ckpt)
	}
}

// TestManagerThreadsAndRoots: log.cleaner.threads threads divide the dedupe
// and I/O buffers as Kafka does; logs in two roots are all cleaned; each
// root's cleaner-offset-checkpoint holds exactly its own partitions; the
// threads' stats and Kafka's metrics agree with the cleans.
func TestManagerThreadsAndRoots(t *testing.T) {
	roots := []string{t.TempDir(), t.TempDir()}
	cfg := DefaultLogConfig()
	var logs []*Log
	for i := range 8 {
		logs = append(logs, managerLog(t, roots[i%2], fmt.Sprintf("t%d-%d", i/2, i%2), &cfg, 1000, 20, 1))
	}
	ccfg := DefaultCleanerConfig()
	ccfg.Threads = 4
	ccfg.DedupeBufferBytes = 4 << 20
	ccfg.IOBufferBytes = 1 << 20
	m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: ccfg, Now: fixedClock(1000)})
	if err != nil {
		t.Fatal(err)
	}
	for _, th := range m.threads {
		// (4 MiB / 4) / 24 bytes per md5 entry; 1 MiB / 4 / 2 per buffer.
		if got := th.cleaner.OffsetMap().Slots(); got != (1<<20)/24 {
			t.Errorf("thread %d map slots %d, want %d", th.id, got, (1<<20)/24)
		}
		if th.cleaner.ioBufBytes != 128<<10 {
			t.Errorf("thread %d I/O buffer %d, want %d", th.id, th.cleaner.ioBufBytes, 128<<10)
		}
	}
	for _, l := range logs {
		if err := m.AddLog(l); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.AddLog(logs[0]); err == nil {
		t.Error("a log added twice")
	}
	if err := m.RunUntilIdle(); err != nil {
		t.Fatal(err)
	}
	for i, root := range roots {
		entries, err := ReadCheckpoint(nil, filepath.Join(root, CleanerCheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for tp, off := range entries {
			names = append(names, fmt.Sprintf("%s=%d", tp, off))
		}
		sort.Strings(names)
		want := []string{fmt.Sprintf("t0-%d=20", i), fmt.Sprintf("t1-%d=20", i), fmt.Sprintf("t2-%d=20", i), fmt.Sprintf("t3-%d=20", i)}
		if strings.Join(names, " ") != strings.Join(want, " ") {
			t.Errorf("root %d checkpoint %v, want %v", i, names, want)
		}
	}
	var cleans int64
	var read, written int64
	util, maxSecs := 0.0, 0.0
	for _, s := range m.ThreadStats() {
		cleans += s.Cleans
		if s.Last != nil {
			read += s.Last.BytesRead
			written += s.Last.BytesWritten
			util = max(util, s.Last.BufferUtilization)
			maxSecs = max(maxSecs, s.Last.ElapsedTime().Seconds())
		}
	}
	if cleans != 8 {
		t.Errorf("%d cleans, want 8", cleans)
	}
	mt := m.Metrics()
	// Each clean reads 20 batches of 78 bytes and keeps the 4 latest keys.
	if read == 0 || mt.CleanerRecopyPercent != int(100*float64(written)/float64(read)) || mt.CleanerRecopyPercent != 20 {
		t.Errorf("recopy percent %d (read %d written %d), want 20", mt.CleanerRecopyPercent, read, written)
	}
	if mt.MaxBufferUtilizationPercent != int(util*100) || mt.MaxCleanTimeSecs != int(maxSecs) || mt.DeadThreadCount != 0 {
		t.Errorf("metrics %+v disagree with the threads' stats (util %v, secs %v)", mt, util, maxSecs)
	}
	for _, l := range logs {
		mustVerify(t, l.Dir(), VerifyOptions{})
	}
}

// TestManagerRetention: the cleaner threads run the retention of compacted
// logs (C20: a compact-only log whose log start offset was raised loses the
// segments wholly below it), and the backoff: with nothing to clean a
// thread sleeps log.cleaner.backoff.ms (on the injected clock), then finds
// a log that became eligible meanwhile.
func TestManagerRetention(t *testing.T) {
	root := t.TempDir()
	cfg := DefaultLogConfig()
	cfg.FileDeleteDelayMs = 0
	l := managerLog(t, root, "r-0", &cfg, 1000, 10, 10, 1)
	if err := UpdateCheckpoint(nil, filepath.Join(root, CleanerCheckpointFile), l.TopicPartition(), 20); err != nil {
		t.Fatal(err)
	}
	if _, err := l.DeleteRecords(15); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var clock int64 = 1000
	now := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return time.UnixMilli(clock)
	}
	slept := make(chan time.Duration, 10)
	resume := make(chan struct{})
	var events []CleanerEvent
	ccfg := DefaultCleanerConfig()
	ccfg.DedupeBufferBytes = 1 << 20
	m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: ccfg, Now: now, BackoffMs: 2500,
		Sleep: func(d time.Duration, stop <-chan struct{}) {
			slept <- d
			select {
			case <-resume:
			case <-stop:
			}
			mu.Lock()
			clock += d.Milliseconds()
			mu.Unlock()
		},
		OnEvent: func(ev CleanerEvent) {
			mu.Lock()
			events = append(events, ev)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddLog(l); err != nil {
		t.Fatal(err)
	}
	if err := m.Start(); err != nil {
		t.Fatal(err)
	}
	if d := <-slept; d != 2500*time.Millisecond {
		t.Errorf("backoff %v, want 2.5s", d)
	}
	mu.Lock()
	if len(events) != 1 || events[0].Retention == nil || len(events[0].Retention.Deleted) != 1 ||
		events[0].Retention.Deleted[0].BaseOffset != 0 || events[0].Retention.Deleted[0].Reason != RetentionByLogStartOffset {
		t.Errorf("events %+v, want the retention of seg@0 below the log start offset 15", events)
	}
	mu.Unlock()
	// Make the log eligible (roll the active segment: [20, 21) becomes
	// cleanable, ratio > 0.5 over the remaining bytes), then end the sleep.
	for _, b := range fixedBatches(t, 21, 30, 4, 0) {
		if err := l.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	resume <- struct{}{}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(events)
		mu.Unlock()
		if n >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	m.Shutdown()
	mu.Lock()
	if len(events) < 2 || events[1].Stats == nil || events[1].Stats.EndOffset != 51 {
		t.Fatalf("events after the backoff %+v, want a clean to 51", events)
	}
	mu.Unlock()
	m.mu.Lock()
	lastRun := m.lastRunMs
	m.mu.Unlock()
	if mt := m.Metrics(); mt.TimeSinceLastRunMs != now().UnixMilli()-lastRun || mt.TimeSinceLastRunMs < 0 {
		t.Errorf("time since last run %d, want %d", mt.TimeSinceLastRunMs, now().UnixMilli()-lastRun)
	}
}

// TestManagerCleanEach is what run does with several partitions: every
// compacted log with cleanable bytes is cleaned exactly once by the
// threads, whatever its ratio (here 1/3, below min.cleanable.dirty.ratio);
// a log with nothing to clean and a log without cleanup.policy compact
// come back as skipped stats saying why.
func TestManagerCleanEach(t *testing.T) {
	root := t.TempDir()
	cfg := DefaultLogConfig()
	low := managerLog(t, root, "low-0", &cfg, 1000, 10, 10, 10, 1)
	if err := UpdateCheckpoint(nil, filepath.Join(root, CleanerCheckpointFile), low.TopicPartition(), 20); err != nil {
		t.Fatal(err)
	}
	empty := managerLog(t, root, "empty-0", &cfg, 1000, 5)
	delCfg := DefaultLogConfig()
	delCfg.Compact, delCfg.Delete = false, true
	deleteOnly := managerLog(t, root, "del-0", &delCfg, 1000, 10, 1)
	m := newTestManager(t, 1000, 2, low, empty, deleteOnly)
	stats, err := m.CleanEach()
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(stats))
	for i, st := range stats {
		if st.Cleaned() {
			got[i] = fmt.Sprintf("%s cleaned [%d, %d)", st.TopicPartition, st.LogToClean.FirstDirtyOffset, st.EndOffset)
		} else {
			got[i] = fmt.Sprintf("%s skipped: %s", st.TopicPartition, st.Skipped)
		}
	}
	want := []string{"low-0 cleaned [20, 30)", "empty-0 skipped: nothing to clean", "del-0 skipped: cleanup.policy has no compact"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("CleanEach:\n got  %v\n want %v", got, want)
	}
}

// TestManagerDeadThread: a thread that panics dies, as a Kafka cleaner
// thread on an unexpected error, and is counted by DeadThreadCount; the
// clean it ran is still finished (its checkpoint written, its state
// cleared), and RemoveLog takes the log out.
func TestManagerDeadThread(t *testing.T) {
	root := t.TempDir()
	cfg := DefaultLogConfig()
	l := managerLog(t, root, "d-0", &cfg, 1000, 10, 1)
	ccfg := DefaultCleanerConfig()
	ccfg.DedupeBufferBytes = 1 << 20
	m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: ccfg, Now: fixedClock(1000), OnEvent: func(ev CleanerEvent) {
		if ev.Stats != nil {
			panic("boom")
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddLog(l); err != nil {
		t.Fatal(err)
	}
	if err := m.RunUntilIdle(); err != nil {
		t.Fatal(err)
	}
	if mt := m.Metrics(); mt.DeadThreadCount != 1 {
		t.Errorf("dead threads %d, want 1", mt.DeadThreadCount)
	}
	if st, _ := m.CleaningState(l.TopicPartition()); st != CleaningNone {
		t.Errorf("state %s after the dead thread's clean, want none", st)
	}
	if ckpt := m.AllCleanerCheckpoints(); ckpt[l.TopicPartition()] != 10 {
		t.Errorf("checkpoint %v, want 10", ckpt)
	}
	if err := m.RemoveLog(l.TopicPartition()); err != nil || len(m.Logs()) != 0 {
		t.Errorf("remove: %v, %d logs left", err, len(m.Logs()))
	}
}

// TestManagerCorruptPartitionDoesNotStopOthers is item 4 of issue 11: with
// one or two threads and a corrupt partition first, in the middle or last
// of three equally dirty ones (a tie is won by the first added, so the
// order is the order of the cleans), the corrupt one is marked uncleanable
// and the two others are still cleaned (their checkpoints at 10, the end
// of their one cleanable segment), by RunUntilIdle and by CleanEach.
func TestManagerCorruptPartitionDoesNotStopOthers(t *testing.T) {
	batchSize := int64(len(fixedBatches(t, 0, 1, 4, 1)[0]))
	for _, threads := range []int{1, 2} {
		for bad, where := range []string{"first", "middle", "last"} {
			for _, run := range []string{"RunUntilIdle", "CleanEach"} {
				t.Run(fmt.Sprintf("threads=%d/bad=%s/%s", threads, where, run), func(t *testing.T) {
					root := t.TempDir()
					cfg := DefaultLogConfig()
					cfg.IndexIntervalBytes = 1
					var logs []*Log
					for i := range 3 {
						logs = append(logs, managerLog(t, root, fmt.Sprintf("p-%d", i), &cfg, 1000, 10, 1))
					}
					// A CRC error: the choice (which reads batch headers for
					// the producer state) does not see it, the clean does.
					corruptBatchAt(t, seg(logs[bad].Dir(), 0, LogFileSuffix), 3*batchSize, "crc")
					m := newTestManager(t, 1000, threads, logs...)
					var err error
					if run == "RunUntilIdle" {
						err = m.RunUntilIdle()
					} else {
						_, err = m.CleanEach()
					}
					badTp := logs[bad].TopicPartition()
					if run == "CleanEach" && (err == nil || !strings.Contains(err.Error(), badTp.String())) {
						t.Errorf("CleanEach error %v, want the failure of %s", err, badTp)
					}
					if run == "RunUntilIdle" && err != nil {
						t.Fatal(err)
					}
					un := m.Uncleanable()[root]
					if _, ok := un[badTp]; !ok || len(un) != 1 {
						t.Errorf("uncleanable %v, want only %s", un, badTp)
					}
					ckpt := m.AllCleanerCheckpoints()
					for i, l := range logs {
						if i == bad {
							continue
						}
						if got := ckpt[l.TopicPartition()]; got != 10 {
							t.Errorf("%s: checkpoint %d, want 10: a healthy partition was not cleaned", l.TopicPartition(), got)
						}
					}
				})
			}
		}
	}
}

// TestNewCleanerManagerRefusesNoThreads: a cleaner config of 0 or fewer
// threads is an error naming the field, a *ConfigError of
// log.cleaner.threads (so that a command names its flag), whatever else
// the config says: NewCleanerManager took Threads 0 for "the zero value"
// and cleaned with DefaultCleanerConfig(), every other setting given
// dropped (clean --threads 0 on a log directory cleaned so, with a 128 MiB
// map). DefaultCleanerConfig() is how a caller asks for Kafka's defaults.
func TestNewCleanerManagerRefusesNoThreads(t *testing.T) {
	small := DefaultCleanerConfig()
	small.DedupeBufferBytes, small.Threads = 1<<20, 0
	negative := small
	negative.Threads = -2
	for _, c := range []struct {
		name string
		cfg  CleanerConfig
	}{
		{"the zero config", CleanerConfig{}},
		{"a 1 MiB map with Threads 0", small},
		{"Threads -2", negative},
	} {
		m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: c.cfg, Now: fixedClock(1000)})
		var ce *ConfigError
		if err == nil || !errors.As(err, &ce) || ce.Config != "log.cleaner.threads" ||
			!strings.Contains(err.Error(), "Threads") || !strings.Contains(err.Error(), fmt.Sprint(c.cfg.Threads)) {
			n := -1
			if m != nil {
				n = len(m.threads)
			}
			t.Errorf("%s: %d threads, error %v; want a *ConfigError of log.cleaner.threads naming Threads and %d", c.name, n, err, c.cfg.Threads)
		}
	}
	m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: DefaultCleanerConfig(), Now: fixedClock(1000)})
	if err != nil || len(m.threads) != 1 {
		t.Fatalf("DefaultCleanerConfig(): %v; want a manager of Kafka's 1 thread", err)
	}
}
