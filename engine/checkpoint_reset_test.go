package engine

import (
	"path/filepath"
	"sync"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestCheckpointOutsideLogIsReset is the checkpoint part of item 10 of
// issue 11, as Kafka's LogCleanerManager.cleanableOffsets: a checkpoint
// below the log start offset or above the log end offset is reset to the
// log start offset (ForceUpdateCheckpoint), with Kafka's warning (none
// below the log start offset for cleanup.policy compact,delete); a
// checkpoint at either end of the range is used as it is. The manager
// rewrites the checkpoint and reports the warning in an event; a direct
// Clean rewrites it too and keeps the warning in its stats.
func TestCheckpointOutsideLogIsReset(t *testing.T) {
	// One record per batch, offsets 0..9 in segments [0, 4), [4, 8), [8, 10)
	// and an empty active segment at 10; DeleteRecords(2): log start 2, log
	// end 10.
	build := func(t *testing.T, cfg *LogConfig) *Log {
		dir := filepath.Join(t.TempDir(), "t-0")
		var segs [][][]byte
		for _, span := range [][2]int{{0, 4}, {4, 8}, {8, 10}, {10, 10}} {
			var seg [][]byte
			for o := span[0]; o < span[1]; o++ {
				seg = append(seg, testBatch(t, record.Offset(o), 1, "k=v"))
			}
			segs = append(segs, seg)
		}
		writeTestLog(t, dir, cfg, segs...)
		l, err := Open(dir, Options{Config: cfg, Now: fixedClock(1000)})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		if _, err := l.DeleteRecords(2); err != nil {
			t.Fatal(err)
		}
		return l
	}
	cfg := DefaultLogConfig()
	both := cfg
	both.Delete = true
	for _, c := range []struct {
		name       string
		cfg        *LogConfig
		checkpoint record.Offset
		firstDirty record.Offset
		reset      bool
		warning    string
	}{
		{"below log start", &cfg, 1, 2, true, "Resetting first dirty offset of t-0 to log start offset 2 since the checkpointed offset 1 is invalid."},
		{"at log start", &cfg, 2, 2, false, ""},
		{"at log end", &cfg, 10, 10, false, ""},
		{"above log end", &cfg, 11, 2, true, "The last checkpoint dirty offset for partition t-0 is 11, which is larger than the log end offset 10. Resetting to the log start offset 2."},
		{"below log start, compact,delete", &both, 1, 2, true, ""},
		{"above log end, compact,delete", &both, 11, 2, true, "The last checkpoint dirty offset for partition t-0 is 11, which is larger than the log end offset 10. Resetting to the log start offset 2."},
		{"none", &cfg, NoCheckpoint, 2, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := build(t, c.cfg)
			lt, err := l.CleanableOffsets(c.checkpoint, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if lt.FirstDirtyOffset != c.firstDirty || lt.ForceUpdateCheckpoint != c.reset || lt.CheckpointWarning != c.warning {
				t.Fatalf("checkpoint %d: first dirty %d, reset %v, warning %q; want %d, %v, %q",
					c.checkpoint, lt.FirstDirtyOffset, lt.ForceUpdateCheckpoint, lt.CheckpointWarning, c.firstDirty, c.reset, c.warning)
			}
			if c.checkpoint == NoCheckpoint {
				return
			}
			ckptPath := CheckpointPath(l.Dir())
			if err := UpdateCheckpoint(nil, ckptPath, l.TopicPartition(), c.checkpoint); err != nil {
				t.Fatal(err)
			}
			// The manager: the warning as an event, the checkpoint rewritten
			// before the clean (a log at its checkpoint's end has nothing to
			// clean; one reset to 2 is cleaned from 2 to 10).
			var mu sync.Mutex
			var warnings []string
			m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: testCleanerConfig(), Now: fixedClock(1000), Force: true,
				OnEvent: func(ev CleanerEvent) {
					mu.Lock()
					defer mu.Unlock()
					if ev.Warning != "" {
						warnings = append(warnings, ev.Warning)
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
			wantWarnings := 0
			if c.warning != "" {
				wantWarnings = 1
			}
			if len(warnings) != wantWarnings || (wantWarnings == 1 && warnings[0] != c.warning) {
				t.Errorf("manager warnings %q, want %q once", warnings, c.warning)
			}
			if got := m.AllCleanerCheckpoints()[l.TopicPartition()]; got != 10 {
				t.Errorf("checkpoint after the manager's run %d, want 10", got)
			}
		})
	}
	// A direct Clean reads the bad checkpoint, rewrites it with the log
	// start offset when it has nothing to clean, and keeps the warning.
	t.Run("direct clean", func(t *testing.T) {
		l := build(t, &cfg)
		ckptPath := CheckpointPath(l.Dir())
		if err := UpdateCheckpoint(nil, ckptPath, l.TopicPartition(), 11); err != nil {
			t.Fatal(err)
		}
		l.SetHighWatermark(2) // nothing cleanable: the clean is skipped
		st, err := testCleaner(t, 1000).Clean(l, CleanOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if st.Cleaned() || st.LogToClean.CheckpointWarning == "" {
			t.Fatalf("clean: cleaned %v, warning %q; want skipped with a warning", st.Cleaned(), st.LogToClean.CheckpointWarning)
		}
		if off, _, _ := checkpointEntry(nil, ckptPath, l.TopicPartition()); off != 2 {
			t.Errorf("checkpoint after the skipped clean %d, want 2 (the log start offset)", off)
		}
	})
}

// testCleanerConfig is a one-thread cleaner with a 1 MiB dedupe buffer.
func testCleanerConfig() CleanerConfig {
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	return cfg
}
