package steady

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
)

// checkAccounting checks the run's byte accounting at every sample: each
// byte the producers appended is in the logs, or was removed by a clean
// (the replaced segments' bytes less the cleaned segment's) or by
// retention, exactly.
func checkAccounting(t *testing.T, samples []*Sample) {
	t.Helper()
	for i, s := range samples {
		if got := s.LogBytes + s.CleanRemovedBytes + s.RetentionRemovedBytes; got != s.ProducerBytes {
			t.Errorf("sample %d (%.3f s, final %v): log %d + cleaned away %d + retention %d = %d, producers wrote %d (%+d)",
				i, s.ElapsedSeconds, s.Final, s.LogBytes, s.CleanRemovedBytes, s.RetentionRemovedBytes, got, s.ProducerBytes, got-s.ProducerBytes)
		}
	}
}

// TestSampleBetweenSwapAndStats holds the cleaner thread after its first
// clean has swapped its cleaned segments in and before the run counts the
// clean's stats, until two samples have been taken: the samples taken
// meanwhile must account for the bytes the swap removed. (Counted from the
// clean's stats, they were missing from every sample taken in that gap.)
func TestSampleBetweenSwapAndStats(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := tinyConfig(t)
		cfg.Workload.Partitions = 1
		cfg.Readers = 0
		var mu sync.Mutex
		var holding, held bool
		var removed int64    // by the held clean, as its stats say
		var during []*Sample // samples taken while the cleaner was held
		release := make(chan struct{})
		cfg.OnSample = func(s *Sample) {
			mu.Lock()
			defer mu.Unlock()
			if holding {
				during = append(during, s)
				if len(during) == 2 {
					holding = false
					close(release)
				}
			}
		}
		cfg.beforeCleanerEvent = func(ev engine.CleanerEvent) {
			mu.Lock()
			if ev.Stats == nil || held {
				mu.Unlock()
				return
			}
			holding, held = true, true
			removed = ev.Stats.BytesRead - ev.Stats.BytesWritten
			mu.Unlock()
			<-release
		}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		n := len(during)
		mu.Unlock()
		if n != 2 {
			t.Fatalf("%d samples taken while the cleaner was held, want 2", n)
		}
		if removed <= 0 {
			t.Fatalf("the held clean removed %d bytes: the test needs a clean that removes some", removed)
		}
		checkAccounting(t, res.Samples)
	})
}

// abortFS aborts the first clean that reaches its second group: when the
// cleaner creates that group's .cleaned segment (the first group already
// swapped in), it marks the clean aborted (CleanerManager.AbortCleaning,
// as a broker does when a partition is deleted or moved) and lets the
// cleaner go on, to see the abort at its next read.
type abortFS struct {
	engine.FS
	mu       sync.Mutex
	mgr      *engine.CleanerManager
	creates  int  // .log.cleaned files created by the clean running now
	swapped  bool // the clean running now swapped a group in
	aborted  bool // the abort was made
	abortErr chan error
}

func (f *abortFS) Create(path string) (engine.File, error) {
	f.mu.Lock()
	abort := false
	if strings.HasSuffix(path, engine.LogFileSuffix+engine.CleanedFileSuffix) {
		f.creates++
		abort = f.creates == 2 && f.swapped && !f.aborted
		f.aborted = f.aborted || abort
	}
	mgr := f.mgr
	f.mu.Unlock()
	if abort {
		tp := mgr.Logs()[0].TopicPartition()
		go func() { f.abortErr <- mgr.AbortCleaning(tp) }()
		for {
			if st, _ := mgr.CleaningState(tp); st == engine.CleaningAborted {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	return f.FS.Create(path)
}

func (f *abortFS) Rename(from, to string) error {
	err := f.FS.Rename(from, to)
	if err == nil && strings.HasSuffix(from, engine.LogFileSuffix+engine.SwapFileSuffix) {
		f.mu.Lock()
		f.swapped = true
		f.mu.Unlock()
	}
	return err
}

// cleanEnded starts a new clean's count.
func (f *abortFS) cleanEnded() {
	f.mu.Lock()
	f.creates, f.swapped = 0, false
	f.mu.Unlock()
}

// TestAbortAfterSwap aborts a clean after its first group was swapped in:
// the bytes that swap removed left the logs though the clean has no stats,
// and the accounting must still hold at every sample and exactly at the
// final one. (Counted from finished cleans' stats, they were lost for
// good: the final sample was short by the group's reduction, as in the
// failures of TestRunConsistency on a loaded machine, where the run's
// stop aborted a clean between two groups.)
func TestAbortAfterSwap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := tinyConfig(t)
		cfg.Workload.Partitions = 1
		cfg.Readers = 0
		fs := &abortFS{FS: engine.DefaultFS, abortErr: make(chan error, 1)}
		cfg.FS = fs
		cfg.onManager = func(m *engine.CleanerManager) { fs.mgr = m }
		var mu sync.Mutex
		var abortedEvents, cleansAfter int
		cfg.onCleanerEvent = func(ev engine.CleanerEvent) {
			if ev.Stats == nil && !ev.Aborted {
				return
			}
			mu.Lock()
			if ev.Aborted {
				abortedEvents++
			} else if abortedEvents > 0 {
				cleansAfter++
			}
			mu.Unlock()
			fs.cleanEnded()
		}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		fs.mu.Lock()
		aborted := fs.aborted
		fs.mu.Unlock()
		if !aborted {
			t.Fatal("no clean reached a second group: the test needs cleans of two groups or more")
		}
		if err := <-fs.abortErr; err != nil {
			t.Fatalf("AbortCleaning: %v", err)
		}
		mu.Lock()
		defer mu.Unlock()
		if abortedEvents == 0 || cleansAfter == 0 {
			t.Fatalf("%d aborted cleans, %d cleans after the first: want the abort, and cleans after it", abortedEvents, cleansAfter)
		}
		checkAccounting(t, res.Samples)
	})
}

// TestRetentionAccounting runs retention by size (retention.bytes 16 KiB
// of 8 KiB segments): by the broker's retention task for a delete-only
// topic, by the cleaner threads after each clean for compact,delete. The
// bytes retention removed are the sizes of the segments the event log
// says were deleted, and the accounting holds at every sample.
func TestRetentionAccounting(t *testing.T) {
	for _, compact := range []bool{false, true} {
		name := "delete"
		if compact {
			name = "compact,delete"
		}
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := tinyConfig(t)
				cfg.Log.Compact, cfg.Log.Delete = compact, true
				cfg.Log.RetentionBytes = 16 << 10
				cfg.RetentionCheckIntervalMs = 100
				var mu sync.Mutex
				var logged int64
				size := regexp.MustCompile(`LogSegment\(baseOffset=\d+, size=(\d+),`)
				cfg.OnEvent = func(line string) {
					if !strings.Contains(line, "Deleting segments:") {
						return
					}
					for _, m := range size.FindAllStringSubmatch(line, -1) {
						n, err := strconv.ParseInt(m[1], 10, 64)
						if err != nil {
							t.Error(err)
						}
						mu.Lock()
						logged += n
						mu.Unlock()
					}
				}
				res, err := Run(context.Background(), cfg, nil)
				if err != nil {
					t.Fatal(err)
				}
				fin := res.Final()
				mu.Lock()
				defer mu.Unlock()
				if fin.RetentionRemovedBytes <= 0 || fin.RetentionRemovedBytes != logged {
					t.Errorf("retention removed %d bytes; the event log's deleted segments hold %d", fin.RetentionRemovedBytes, logged)
				}
				if compact != (fin.CleanRemovedBytes > 0) {
					t.Errorf("compact %v: the cleans removed %d bytes", compact, fin.CleanRemovedBytes)
				}
				checkAccounting(t, res.Samples)
			})
		})
	}
}

// TestReaderBelowLogStart moves a reader's log start offset past it
// between the reader's look at the log start and its fetch, as retention
// may at any time: the reader must start again at the log start offset,
// as Kafka's consumer does on OffsetOutOfRange with
// auto.offset.reset=earliest, not fail the run (it failed
// TestRetentionAccounting on a loaded machine, once in ten runs).
func TestReaderBelowLogStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cfg := tinyConfig(t)
		cfg.Workload.Partitions = 1
		cfg.Readers = 1
		var mu sync.Mutex
		var moved int64 = -1 // the reader's position when the log start passed it
		cfg.beforePoll = func(l *engine.Log, position int64) {
			mu.Lock()
			defer mu.Unlock()
			if moved >= 0 || position >= int64(l.LogEndOffset()) || l.LogEndOffset() < 100 {
				return
			}
			if _, err := l.DeleteRecords(l.LogEndOffset()); err != nil {
				t.Error(err)
				return
			}
			moved = position
		}
		var after int64 = -1 // ReaderRecords at the first sample after the move
		cfg.OnSample = func(s *Sample) {
			mu.Lock()
			if moved >= 0 && after < 0 {
				after = s.ReaderRecords
			}
			mu.Unlock()
		}
		res, err := Run(context.Background(), cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		defer mu.Unlock()
		if moved < 0 {
			t.Fatal("the log start offset was never moved past the reader")
		}
		if fin := res.Final(); after < 0 || fin.ReaderRecords <= after {
			t.Errorf("the reader had read %d records at the first sample after the log start moved past it, %d in all: want it reading on", after, fin.ReaderRecords)
		}
		checkAccounting(t, res.Samples)
	})
}
