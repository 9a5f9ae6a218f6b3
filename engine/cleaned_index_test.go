package engine

import (
	"fmt"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestCleanedAppendsBuffers works Kafka's buffer rules of Cleaner.cleanInto
// by hand on cleanedAppends (index.interval.bytes 0: every append after
// the first gets an entry, so the entries show the appends): read and
// write buffers of 100 bytes, max.message.bytes 1000.
//   - A 250-byte batch at 0 fits no buffer: they double to 200, then 400
//     (growBuffersOrFail), and stay so for the segment: the 100-byte batch
//     at 250 shares the chunk [0, 400); the batch at 350 does not.
//   - The chunk at 350 writes 450 bytes (a rebuilt batch larger than its
//     source): the write buffer overflowed, filterTo returns after that
//     batch, and the 50-byte batch at 450 starts a new chunk.
//   - The next segment starts with 100-byte buffers again (restoreBuffers):
//     batches at 0 (100 bytes) and 100 (1 byte) are two appends.
//
// Appends (largest offset -> position): (19, 0) first, no entry; (27, 350),
// its largest offset the rebuilt batch's last kept record; (39, 800);
// (49, 850); (50, 950). Time entries: the max timestamp so far and its
// batch's last offset: 20@19 (the rebuilt batch's 15 is lower), 30@39,
// 40@49, 41@50.
func TestCleanedAppendsBuffers(t *testing.T) {
	dest := &Segment{ix: newIndexer(0, 0)}
	cfg := DefaultCleanerConfig()
	a := newCleanedAppends(cfg, 100)
	out := func(last record.Offset, ts, n int64, maxOff record.Offset) {
		h := record.BatchHeader{BaseOffset: last, MaxTimestamp: ts}
		a.output(dest, &h, n, maxOff)
		dest.size += n
	}
	a.startSegment(1000)
	a.sourceBatch(dest, 0, 250)
	out(9, 10, 250, 9)
	a.sourceBatch(dest, 250, 100)
	out(19, 20, 100, 19)
	a.sourceBatch(dest, 350, 100)
	out(29, 15, 450, 27)
	a.sourceBatch(dest, 450, 50)
	out(39, 30, 50, 39)
	a.flush(dest)
	a.startSegment(1000)
	a.sourceBatch(dest, 0, 100)
	out(49, 40, 100, 49)
	a.sourceBatch(dest, 100, 1)
	out(50, 41, 1, 50)
	a.flush(dest)
	if got, want := fmt.Sprint(dest.ix.offsets), "[{27 350} {39 800} {49 850} {50 950}]"; got != want {
		t.Errorf("offset index %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(dest.ix.times), "[{20 19} {30 39} {40 49} {41 50}]"; got != want {
		t.Errorf("time index %s, want %s", got, want)
	}
}
