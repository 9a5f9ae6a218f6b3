package engine

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestMarkersGoBelowMXROWhileTombstonesWaitForMTRO pins the split of the
// coordinated removal bounds (Redpanda's MTRO and MXRO,
// docs/replication-model.md §7): a transaction marker whose last
// offset is below RemovalBounds.TxnMarkers (MXRO) goes once its horizon has
// passed, while a tombstone at or above RemovalBounds.Tombstones (MTRO)
// stays, though its horizon passed too; each bound governs its own kind.
// Log: 0 aborted data of producer 7, 1 its ABORT, 2 T=null, 3 Z=1, active
// 4 Y=1; delete.retention.ms 100, producer 7 expired. Hand-worked passes
// (docs/kafka-rules.md §3): at 1000 the aborted data goes, the ABORT stays (its
// transaction's batch was seen), the tombstone gets horizon 1100; at 2000
// the ABORT, its data gone, gets horizon 2100; at 3000 both horizons have
// passed: with bounds tombstones<1 markers<4 the ABORT (1 < 4) goes and the
// tombstone (2 >= 1) stays.
func TestMarkersGoBelowMXROWhileTombstonesWaitForMTRO(t *testing.T) {
	// Both ways of deciding a dirty record: a lookup in the copy phase, and
	// the map build's verdict (SkipDirtyLookups).
	for _, skip := range []bool{false, true} {
		t.Run(fmt.Sprintf("SkipDirtyLookups=%v", skip), func(t *testing.T) { markersAndTombstones(t, skip) })
	}
}

func markersAndTombstones(t *testing.T, skipDirtyLookups bool) {
	cfg := DefaultLogConfig()
	cfg.Compact = true
	cfg.DeleteRetentionMs = 100
	cfg.ProducerIDExpirationMs = 10
	dir := filepath.Join(t.TempDir(), "t-0")
	writeTestLog(t, dir, &cfg,
		[][]byte{
			txnTestBatch(t, 0, 0, 7, true, "", "K=a"),
			txnTestBatch(t, 1, 0, 7, true, "abort"),
			testBatch(t, 2, 0, "T=null"),
			testBatch(t, 3, 0, "Z=1"),
		},
		[][]byte{testBatch(t, 4, 0, "Y=1")})
	l, err := Open(dir, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	bounds := &RemovalBounds{Tombstones: 1, TxnMarkers: 4}
	for _, now := range []int64{1000, 2000, 3000} {
		cc := DefaultCleanerConfig()
		cc.DedupeBufferBytes = 4 << 20
		cc.SkipDirtyLookups = skipDirtyLookups
		c, err := NewCleaner(cc, CleanerOptions{Now: fixedClock(now)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0, Bounds: bounds}); err != nil {
			t.Fatalf("clean at %d: %v", now, err)
		}
	}
	l.Close()
	batches, recs, _ := readPartition(t, dir)
	for _, b := range batches {
		if b.BaseOffset <= 1 && 1 <= b.LastOffset() {
			t.Errorf("a batch holding offset 1 (the ABORT, below MXRO 4, horizon passed) is left: %+v", b.BatchHeader)
		}
	}
	have := map[record.Offset]logRecord{}
	for _, r := range recs {
		have[r.Offset] = r
	}
	if r, ok := have[2]; !ok || r.Value != nil {
		t.Errorf("the tombstone at 2 (not below MTRO 1) is gone: %v", recs)
	}
	if _, ok := have[0]; ok {
		t.Errorf("the aborted data at 0 is still there")
	}
	if _, ok := have[3]; !ok {
		t.Errorf("Z=1 at 3 is gone")
	}
}
