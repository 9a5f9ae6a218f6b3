package engine

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// retentionLog writes seg@0, seg@10, seg@20 and the active seg@30, each one
// 70-byte batch of one record (k=v) whose timestamp is 1000 x (segment
// number + 1), and returns it open with cfg.
func retentionLog(t *testing.T, cfg LogConfig) (*Log, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ret-0")
	var segs [][][]byte
	for i := 0; i < 4; i++ {
		segs = append(segs, [][]byte{testBatch(t, record.Offset(10*i), 1000*int64(i+1), "k=v")})
	}
	// Each batch covers ten offsets so that segments start at 0, 10, 20, 30.
	for i := range segs {
		b := segs[i][0]
		record.PutHeader(b, func() *record.BatchHeader {
			h, _ := record.ParseHeader(b)
			h.LastOffsetDelta = 9
			return &h
		}())
		record.UpdateCRC(b)
	}
	writeTestLog(t, dir, &cfg, segs...)
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	return l, dir
}

func TestDeleteOldSegments(t *testing.T) {
	for _, c := range []struct {
		name        string
		delete      bool
		retentionMs int64
		retBytes    int64
		hw          record.Offset
		nowMs       int64
		lso         record.Offset // DeleteRecords first when > 0
		deleted     []record.Offset
		reason      string
		rolled      bool
		wantLSO     record.Offset
	}{
		// now - largest timestamp > retention.ms: 3500-1000, 3500-2000 go;
		// 3500-3000 = 500 does not, and the walk stops there.
		{name: "retention.ms", delete: true, retentionMs: 1000, retBytes: -1, hw: -1, nowMs: 3500, deleted: []record.Offset{0, 10}, reason: RetentionByTime, wantLSO: 20},
		// Exactly retention.ms old stays (strictly greater goes).
		{name: "retention.ms boundary", delete: true, retentionMs: 1500, retBytes: -1, hw: -1, nowMs: 3500, deleted: []record.Offset{0}, reason: RetentionByTime, wantLSO: 10},
		// 4 x 70 = 280 bytes, retention.bytes 150: 280-70 = 210 >= 150 and
		// 210-70 = 140 < 150, so one segment goes.
		{name: "retention.bytes", delete: true, retentionMs: -1, retBytes: 150, hw: -1, nowMs: 0, deleted: []record.Offset{0}, reason: RetentionBySize, wantLSO: 10},
		// Only segments wholly below the high watermark go.
		{name: "high watermark", delete: true, retentionMs: 1000, retBytes: -1, hw: 15, nowMs: 3500, deleted: []record.Offset{0}, reason: RetentionByTime, wantLSO: 10},
		// Every segment expired: an empty active segment is rolled first.
		{name: "fully expired active segment", delete: true, retentionMs: 100, retBytes: -1, hw: -1, nowMs: 100_000, deleted: []record.Offset{0, 10, 20, 30}, reason: RetentionByTime, rolled: true, wantLSO: 40},
		// cleanup.policy=compact: time and size do not apply...
		{name: "compact only", delete: false, retentionMs: 100, retBytes: 0, hw: -1, nowMs: 100_000, wantLSO: 0},
		// ... but the log start offset does (C20).
		{name: "compact only, log start offset", delete: false, retentionMs: 100, retBytes: 0, hw: -1, nowMs: 100_000, lso: 25, deleted: []record.Offset{0, 10}, reason: RetentionByLogStartOffset, wantLSO: 25},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultLogConfig()
			cfg.Delete, cfg.Compact = c.delete, !c.delete
			cfg.RetentionMs, cfg.RetentionBytes = c.retentionMs, c.retBytes
			cfg.FileDeleteDelayMs = 0
			l, dir := retentionLog(t, cfg)
			defer l.Close()
			l.SetHighWatermark(c.hw)
			if c.lso > 0 {
				if _, err := l.DeleteRecords(c.lso); err != nil {
					t.Fatal(err)
				}
			}
			res, err := l.DeleteOldSegments(time.UnixMilli(c.nowMs))
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Deleted) != len(c.deleted) || res.Rolled != c.rolled || res.LogStartOffset != c.wantLSO {
				t.Fatalf("deleted %+v rolled %v log start offset %d; want %v rolled %v log start offset %d", res.Deleted, res.Rolled, res.LogStartOffset, c.deleted, c.rolled, c.wantLSO)
			}
			for i, d := range res.Deleted {
				if d.BaseOffset != c.deleted[i] || d.Reason != c.reason {
					t.Errorf("deleted %+v, want seg@%d by %s", d, c.deleted[i], c.reason)
				}
				if _, err := os.Stat(seg(dir, d.BaseOffset, LogFileSuffix)); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("seg@%d still on disk: %v", d.BaseOffset, err)
				}
			}
			if l.LogStartOffset() != c.wantLSO {
				t.Errorf("log start offset %d, want %d", l.LogStartOffset(), c.wantLSO)
			}
			if c.rolled && (len(l.Segments()) != 1 || l.ActiveSegment().BaseOffset() != 40 || l.LogEndOffset() != 40) {
				t.Errorf("after the roll: %d segments, active @%d", len(l.Segments()), l.ActiveSegment().BaseOffset())
			}
		})
	}
}

// TestRetentionDeleteDelay: deleted segments' files are renamed .deleted and
// removed once file.delete.delay.ms has passed (DeleteOldSegments or
// DeleteExpired), or at close; leftovers are removed by the next open.
func TestRetentionDeleteDelay(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.Delete, cfg.RetentionMs, cfg.FileDeleteDelayMs = true, 1000, 60_000
	l, dir := retentionLog(t, cfg)
	if _, err := l.DeleteOldSegments(time.UnixMilli(2500)); err != nil {
		t.Fatal(err)
	}
	deleted := seg(dir, 0, LogFileSuffix) + DeletedFileSuffix
	if _, err := os.Stat(deleted); err != nil {
		t.Fatalf("no %s: %v", deleted, err)
	}
	if _, err := l.DeleteOldSegments(time.UnixMilli(2500 + 59_999)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deleted); err != nil {
		t.Errorf("%s removed before file.delete.delay.ms: %v", deleted, err)
	}
	if _, err := l.DeleteOldSegments(time.UnixMilli(2500 + 60_000)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deleted); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there after file.delete.delay.ms: %v", deleted, err)
	}
	// A crash with .deleted files pending: the next open removes them.
	if _, err := l.DeleteOldSegments(time.UnixMilli(100_000)); err != nil {
		t.Fatal(err)
	}
	l.abandon()
	if _, err := os.Stat(seg(dir, 10, LogFileSuffix) + DeletedFileSuffix); err != nil {
		t.Fatalf("no pending .deleted file before the reopen: %v", err)
	}
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	checkNoTempFiles(t, "reopen", filepath.Dir(dir))
}

// TestDeleteRecordsBounds: -1 means the high watermark; above it is
// ErrOffsetOutOfRange; lower than the log start offset changes nothing; the
// log start offset is checkpointed and read back at open.
func TestDeleteRecordsBounds(t *testing.T) {
	l, dir := retentionLog(t, DefaultLogConfig())
	l.SetHighWatermark(25)
	if _, err := l.DeleteRecords(26); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("above the high watermark: %v", err)
	}
	if _, err := l.DeleteRecords(-2); !errors.Is(err, ErrOffsetOutOfRange) {
		t.Errorf("-2: %v", err)
	}
	if lso, err := l.DeleteRecords(12); err != nil || lso != 12 {
		t.Errorf("12: %d %v", lso, err)
	}
	if lso, err := l.DeleteRecords(5); err != nil || lso != 12 {
		t.Errorf("5 (below): %d %v", lso, err)
	}
	if lso, err := l.DeleteRecords(-1); err != nil || lso != 25 {
		t.Errorf("-1 (the high watermark 25): %d %v", lso, err)
	}
	entries, err := ReadCheckpoint(nil, filepath.Join(filepath.Dir(dir), LogStartOffsetCheckpointFile))
	if err != nil || entries[l.TopicPartition()] != 25 {
		t.Errorf("log-start-offset-checkpoint %v %v, want 25", entries, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if l, err = Open(dir, Options{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.LogStartOffset() != 25 {
		t.Errorf("log start offset %d after reopen, want 25", l.LogStartOffset())
	}
}
