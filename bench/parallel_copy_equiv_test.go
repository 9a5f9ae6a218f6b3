package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// equivSpec is a small log of many segments (each its own group: the
// segments are about segment.bytes each), 20% tombstones, with spec's
// changes applied by set.
func equivSpec(set func(*workloads.Spec)) workloads.Spec {
	s := smallSpec()
	s.TombstoneRatio = 0.2
	s.SegmentBytes = 32 << 10
	s.Seed = 7
	set(&s)
	return s
}

// equivLogs are the logs a fast path of the copy phase must clean as the
// Kafka profile does: plain; transactional with aborts and markers in
// every group; transactions in a few groups only (so that some pairs of
// groups hold none and others do); and compressed batches (lz4, zstd)
// with transactions.
var equivLogs = []struct {
	name string
	set  func(*workloads.Spec)
}{
	{"plain", func(*workloads.Spec) {}},
	{"transactions", func(s *workloads.Spec) {
		s.Txn = workloads.TxnSpec{Ratio: 0.4, AbortRatio: 0.5, Producers: 3, BatchesPerTxn: 2}
	}},
	{"few-transactions", func(s *workloads.Spec) {
		s.Txn = workloads.TxnSpec{Ratio: 0.01, AbortRatio: 0.5, Producers: 2, BatchesPerTxn: 2}
	}},
	{"lz4-transactions", func(s *workloads.Spec) {
		s.Codec = record.CodecLZ4
		s.Txn = workloads.TxnSpec{Ratio: 0.3, AbortRatio: 0.5, Producers: 3, BatchesPerTxn: 2}
	}},
	{"zstd", func(s *workloads.Spec) { s.Codec = record.CodecZstd }},
}

// cleanTwiceLikeKafka generates spec's log twice (the same seed writes the
// same bytes), cleans one copy with the Kafka profile and the other with
// cfg, twice each: the first clean stamps delete horizons, the second,
// two days later, drops the tombstones and markers whose horizon passed.
// After each clean every segment file (.log, .index, .timeindex,
// .txnindex) must be the Kafka profile's, byte for byte. It returns the
// stats of cfg's cleans.
func cleanTwiceLikeKafka(t *testing.T, spec workloads.Spec, cfg engine.CleanerConfig) []*engine.CleanStats {
	t.Helper()
	kafka := engine.DefaultCleanerConfig()
	kafka.DedupeBufferBytes, cfg.DedupeBufferBytes = 8<<20, 8<<20
	var logs [2]*engine.Log
	for i := range logs {
		lc := engine.DefaultLogConfig()
		lc.FileDeleteDelayMs = 0
		res, err := workloads.Generate(t.TempDir(), spec, lc, nil)
		if err != nil {
			t.Fatal(err)
		}
		l, err := engine.Open(res.Dirs[0], engine.Options{Config: &res.LogConfig})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		logs[i] = l
	}
	var out []*engine.CleanStats
	start := workloads.DefaultStartTimeMs + 1e9
	for pass, nowMs := range []int64{start, start + 2*86_400_000} {
		var stats [2]*engine.CleanStats
		for i, c := range []engine.CleanerConfig{kafka, cfg} {
			cl, err := engine.NewCleaner(c, engine.CleanerOptions{
				FsyncPolicy: iosched.FsyncNone, Now: func() time.Time { return time.UnixMilli(nowMs) },
			})
			if err != nil {
				t.Fatal(err)
			}
			if stats[i], err = cl.Clean(logs[i], engine.CleanOptions{Force: true}); err != nil {
				t.Fatalf("clean %d, %s: %v", pass+1, []string{"kafka", "fast path"}[i], err)
			}
		}
		if stats[0].MapFull || stats[0].EndOffset != stats[1].EndOffset {
			t.Fatalf("clean %d: map full %v, end offsets %d and %d: the dirty head must fit both maps", pass+1, stats[0].MapFull, stats[0].EndOffset, stats[1].EndOffset)
		}
		if stats[0].MessagesWritten != stats[1].MessagesWritten || stats[0].Groups != stats[1].Groups {
			t.Errorf("clean %d: kept %d records in %d groups; Kafka's profile %d in %d", pass+1,
				stats[1].MessagesWritten, stats[1].Groups, stats[0].MessagesWritten, stats[0].Groups)
		}
		sameSegmentFiles(t, "clean "+string(rune('1'+pass)), logs[0].Dir(), logs[1].Dir())
		out = append(out, stats[1])
	}
	return out
}

// sameSegmentFiles fails t unless dirs a and b hold the same segment
// files (.log, .index, .timeindex, .txnindex), byte for byte.
func sameSegmentFiles(t *testing.T, what, a, b string) {
	t.Helper()
	names := func(dir string) []string {
		var out []string
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			for _, ext := range []string{".log", ".index", ".timeindex", ".txnindex"} {
				if strings.HasSuffix(e.Name(), ext) {
					out = append(out, e.Name())
				}
			}
		}
		return out
	}
	want, got := names(a), names(b)
	if len(want) < 2 || strings.Join(want, " ") != strings.Join(got, " ") {
		t.Fatalf("%s: files %v; Kafka's profile %v", what, got, want)
	}
	for _, n := range want {
		x, errA := os.ReadFile(filepath.Join(a, n))
		y, errB := os.ReadFile(filepath.Join(b, n))
		if errA != nil || errB != nil || !bytes.Equal(x, y) {
			t.Errorf("%s: %s differs from Kafka's profile (%v, %v)", what, n, errA, errB)
		}
	}
}

// TestParallelCopyCleansLikeKafka: the best profile with the copy phase's
// groups copied two at a time (CleanerConfig.ParallelCopy) keeps exactly
// the records the Kafka profile keeps and writes the same files, on logs
// with tombstones, transactions (aborts, markers), compressed batches and
// many groups. The plain log has its second groups copied by the worker
// and kept; the transactional one has them copied again by the cleaner
// (the group before changed the transaction state); the one with few
// transactions has both.
func TestParallelCopyCleansLikeKafka(t *testing.T) {
	cfg := engine.DefaultCleanerConfig()
	if err := cfg.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	cfg.ParallelCopy = true
	for _, tc := range equivLogs {
		t.Run(tc.name, func(t *testing.T) {
			var aside, recopied int
			for _, st := range cleanTwiceLikeKafka(t, equivSpec(tc.set), cfg) {
				aside += st.GroupsCopiedAside
				recopied += st.GroupsRecopied
			}
			t.Logf("groups copied aside and kept %d, copied again %d", aside, recopied)
			switch tc.name {
			case "plain", "zstd":
				if aside == 0 || recopied != 0 {
					t.Errorf("groups copied aside %d, again %d: want some and none (no transaction state to change)", aside, recopied)
				}
			case "transactions":
				if recopied == 0 {
					t.Error("no group copied again: the path is not exercised")
				}
			case "few-transactions":
				if aside == 0 || recopied == 0 {
					t.Errorf("groups copied aside %d, again %d: want both paths exercised", aside, recopied)
				}
			}
		})
	}
}
