package engine

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestIndexPreallocationAndTrim: while a segment is active its .index and
// .timeindex are preallocated to segment.index.bytes rounded down to whole
// entries (1000 bytes: 125 offset entries = 1000 bytes, 83 time entries =
// 996 bytes); a roll trims the old segment's files to their entries, and so
// does a close for the active one.
func TestIndexPreallocationAndTrim(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx-0")
	cfg := DefaultLogConfig()
	cfg.SegmentIndexBytes = 1000
	cfg.IndexIntervalBytes = 1 // an entry for every batch but the first
	l, err := Open(dir, Options{Config: &cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for o := record.Offset(0); o < 3; o++ {
		if err := l.Append(testBatch(t, o, 100+int64(o), "k=v")); err != nil {
			t.Fatal(err)
		}
	}
	if got := fileSize(t, seg(dir, 0, IndexFileSuffix)); got != 1000 {
		t.Errorf("active .index is %d bytes, want 1000", got)
	}
	if got := fileSize(t, seg(dir, 0, TimeIndexFileSuffix)); got != 996 {
		t.Errorf("active .timeindex is %d bytes, want 996", got)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	// Entries for the batches at 1 and 2 (positions 70 and 140; a batch of
	// one record with a 1-byte key and value is 70 bytes); the time index
	// has (101, 1), (102, 2) and no roll-time entry (102 is not greater).
	idx := mustRead(t, seg(dir, 0, IndexFileSuffix))
	want := []byte{0, 0, 0, 1, 0, 0, 0, 70, 0, 0, 0, 2, 0, 0, 0, 140}
	if string(idx) != string(want) {
		t.Errorf("trimmed .index %x, want %x", idx, want)
	}
	if got := fileSize(t, seg(dir, 0, TimeIndexFileSuffix)); got != 24 {
		t.Errorf("trimmed .timeindex is %d bytes, want 24", got)
	}
	if err := l.Append(testBatch(t, 3, 200, "k=w")); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, seg(dir, 3, IndexFileSuffix)); got != 1000 {
		t.Errorf("new active .index is %d bytes, want 1000", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Closed: no entry for the only batch, and the roll-time entry (200, 3).
	if got := fileSize(t, seg(dir, 3, IndexFileSuffix)); got != 0 {
		t.Errorf("closed .index is %d bytes, want 0", got)
	}
	ti := mustRead(t, seg(dir, 3, TimeIndexFileSuffix))
	if len(ti) != 12 || int64(binary.BigEndian.Uint64(ti)) != 200 || binary.BigEndian.Uint32(ti[8:]) != 0 {
		t.Errorf("closed .timeindex %x, want (200, relative 0)", ti)
	}
	mustVerify(t, dir, VerifyOptions{})
}

// TestRollWhenIndexFull: with segment.index.bytes = 48 (the smallest
// allowed) the offset index holds 6 entries and the time index 4, its last
// slot kept for the roll-time entry, so at most 3 are appended: the log
// rolls before the append after the one that fills it (Kafka's
// TimeIndex.isFull).
func TestRollWhenIndexFull(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "full-0")
	cfg := DefaultLogConfig()
	cfg.SegmentIndexBytes = 48
	cfg.IndexIntervalBytes = 1
	l, err := Open(dir, Options{Config: &cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	// Increasing timestamps: every indexed batch adds a time entry too.
	for o := record.Offset(0); o < 10; o++ {
		if err := l.Append(testBatch(t, o, 100+int64(o), "k=v")); err != nil {
			t.Fatal(err)
		}
	}
	var bases []record.Offset
	for _, s := range l.Segments() {
		bases = append(bases, s.BaseOffset())
	}
	// seg@0: batches 0-3 (entries for 1, 2 and 3: the time index is full),
	// seg@4: 4-7, seg@8: 8, 9.
	if len(bases) != 3 || bases[0] != 0 || bases[1] != 4 || bases[2] != 8 {
		t.Errorf("segments at %v, want [0 4 8]", bases)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// The roll-time entry was not added: 103 was the last entry's.
	if got := fileSize(t, seg(dir, 0, TimeIndexFileSuffix)); got != 36 {
		t.Errorf("seg@0 .timeindex is %d bytes, want 36", got)
	}
	mustVerify(t, dir, VerifyOptions{})
}

// TestRollBySegmentMs: segment.ms measures from the first batch's largest
// timestamp to the new batch's (Kafka's LogSegment.timeWaitedForRoll); for
// batches without timestamps, from when the segment was created, by the
// log's clock.
func TestRollBySegmentMs(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.SegmentMs = 1000
	t.Run("timestamps", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "ms-0")
		l, err := Open(dir, Options{Config: &cfg, Create: true, Now: fixedClock(0)})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for _, b := range []struct {
			ts       int64
			wantBase record.Offset
		}{{5000, 0}, {6000, 0}, {6001, 2}, {7001, 2}, {7002, 4}} {
			off := l.LogEndOffset()
			if err := l.Append(testBatch(t, off, b.ts, "k=v")); err != nil {
				t.Fatal(err)
			}
			if got := l.ActiveSegment().BaseOffset(); got != b.wantBase {
				t.Errorf("batch at %d (ts %d) went to seg@%d, want seg@%d", off, b.ts, got, b.wantBase)
			}
		}
	})
	t.Run("no timestamps", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "ms-0")
		now := int64(10_000)
		l, err := Open(dir, Options{Config: &cfg, Create: true, Now: func() time.Time { return time.UnixMilli(now) }})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		for _, b := range []struct {
			now      int64
			wantBase record.Offset
		}{{10_000, 0}, {11_000, 0}, {11_001, 2}, {11_500, 2}} {
			now = b.now
			off := l.LogEndOffset()
			if err := l.Append(testBatch(t, off, record.NoTimestamp, "k=v")); err != nil {
				t.Fatal(err)
			}
			if got := l.ActiveSegment().BaseOffset(); got != b.wantBase {
				t.Errorf("batch at %d (now %d) went to seg@%d, want seg@%d", off, b.now, got, b.wantBase)
			}
		}
	})
}

// TestRollBySegmentJitter: with segment.jitter.ms each segment rolls for
// time once more than segment.ms minus its own jitter has passed (Kafka's
// LogSegment.shouldRoll with rollJitterMs), the jitter drawn in [0,
// min(segment.jitter.ms, segment.ms)) when the segment is created.
func TestRollBySegmentJitter(t *testing.T) {
	cfg := DefaultLogConfig()
	cfg.SegmentMs = 1000
	cfg.SegmentJitterMs = 5000 // above segment.ms: drawn below segment.ms
	dir := filepath.Join(t.TempDir(), "jitter-0")
	l, err := Open(dir, Options{Config: &cfg, Create: true, Now: fixedClock(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	sawJitter := false
	for seg := 0; seg < 40; seg++ {
		// A first batch at ts 0 (relative), then batches 1 ms apart until
		// the log rolls; the roll must come at the first timestamp past
		// segment.ms - jitter.
		first := int64(seg) * 10_000
		if err := l.Append(testBatch(t, l.LogEndOffset(), first, "k=v")); err != nil {
			t.Fatal(err)
		}
		active := l.ActiveSegment()
		j := active.rollJitterMs
		if j < 0 || j >= cfg.SegmentMs {
			t.Fatalf("seg@%d: jitter %d outside [0, %d)", active.BaseOffset(), j, cfg.SegmentMs)
		}
		if j > 0 {
			sawJitter = true
		}
		base := active.BaseOffset()
		wantRollAt := first + cfg.SegmentMs - j + 1 // first ts with waited > segment.ms - jitter
		for ts := wantRollAt - 2; ts <= wantRollAt; ts++ {
			if err := l.Append(testBatch(t, l.LogEndOffset(), ts, "k=v")); err != nil {
				t.Fatal(err)
			}
			rolled := l.ActiveSegment().BaseOffset() != base
			if rolled != (ts == wantRollAt) {
				t.Fatalf("seg@%d (jitter %d): batch at ts %d rolled=%v, want a roll exactly at ts %d", base, j, ts-first, rolled, wantRollAt-first)
			}
		}
	}
	if !sawJitter {
		t.Error("40 segments all drew jitter 0 from [0, 1000)")
	}
}

// TestDecodeIndexes checks the index readers on hand-made bytes.
func TestDecodeIndexes(t *testing.T) {
	be := binary.BigEndian
	entry := func(rel, pos uint32) []byte { return be.AppendUint32(be.AppendUint32(nil, rel), pos) }
	cat := func(bs ...[]byte) []byte {
		var out []byte
		for _, b := range bs {
			out = append(out, b...)
		}
		return out
	}
	zero := make([]byte, 8)
	for _, c := range []struct {
		name    string
		data    []byte
		want    []OffsetIndexEntry
		corrupt bool
	}{
		{"trimmed", cat(entry(3, 100), entry(7, 300)), []OffsetIndexEntry{{103, 100}, {107, 300}}, false},
		{"preallocated tail", cat(entry(3, 100), zero, zero), []OffsetIndexEntry{{103, 100}}, false},
		{"preallocated, empty", cat(zero, zero, zero), nil, false},
		{"one zero entry", zero, []OffsetIndexEntry{{100, 0}}, false},
		{"zero entry in the middle", cat(entry(3, 100), zero, entry(7, 300)), nil, true},
		{"offsets not increasing", cat(entry(7, 100), entry(3, 300)), nil, true},
		{"relative offset above 2^31-1", entry(1<<31, 5), nil, true},
		{"partial entry", cat(entry(3, 100), []byte{1, 2, 3}), nil, true},
	} {
		got, err := decodeOffsetIndex(c.data, 100)
		if c.corrupt {
			if !errors.Is(err, ErrCorruptIndex) {
				t.Errorf("%s: %v, want ErrCorruptIndex", c.name, err)
			}
			continue
		}
		if err != nil || len(got) != len(c.want) {
			t.Errorf("%s: %v %v, want %v", c.name, got, err, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%s: entry %d %v, want %v", c.name, i, got[i], c.want[i])
			}
		}
	}
	// Time index: (timestamp int64, relative offset int32).
	ti := be.AppendUint32(be.AppendUint64(nil, 1234), 5)
	ti = append(ti, make([]byte, 24)...)
	got, err := decodeTimeIndex(ti, 10)
	if err != nil || len(got) != 1 || got[0] != (TimeIndexEntry{1234, 15}) {
		t.Errorf("time index %v %v", got, err)
	}
	// Txn index: a hand-made 34-byte entry; a bad version; last offsets
	// not increasing.
	txn := []byte{
		0, 0, // version
		0, 0, 0, 0, 0, 0, 0, 7, // producer id
		0, 0, 0, 0, 0, 0, 0, 10, // first offset
		0, 0, 0, 0, 0, 0, 0, 20, // last offset
		0, 0, 0, 0, 0, 0, 0, 21, // last stable offset
	}
	a, err := decodeTxnIndex(txn, 15)
	if err != nil || len(a) != 1 || a[0] != (AbortedTxn{ProducerID: 7, FirstOffset: 10, LastOffset: 20, LastStableOffset: 21}) {
		t.Errorf("txn index %v %v", a, err)
	}
	if string(encodeTxnIndex(a)) != string(txn) {
		t.Errorf("encodeTxnIndex %x, want %x", encodeTxnIndex(a), txn)
	}
	bad := append([]byte(nil), txn...)
	bad[1] = 1
	if _, err := decodeTxnIndex(bad, 15); !errors.Is(err, ErrCorruptIndex) {
		t.Errorf("version 1: %v", err)
	}
	if _, err := decodeTxnIndex(append(append([]byte(nil), txn...), txn...), 15); !errors.Is(err, ErrCorruptIndex) {
		t.Errorf("repeated last offset: %v", err)
	}
	if _, err := decodeTxnIndex(txn, 21); !errors.Is(err, ErrCorruptIndex) {
		t.Errorf("last offset below the base: %v", err)
	}
}
