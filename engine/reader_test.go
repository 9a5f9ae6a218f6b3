package engine

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// txnTestBatch builds one batch at base with timestamp ts: producer pid
// (record.NoProducerID: a plain batch), transactional when txn, holding
// specs as records at consecutive offsets, or, with control "commit" or
// "abort", a transaction marker.
func txnTestBatch(t testing.TB, base record.Offset, ts int64, pid int64, txn bool, control string, specs ...string) []byte {
	t.Helper()
	h := record.BatchHeader{BaseOffset: base, BaseTimestamp: ts, MaxTimestamp: ts,
		ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}
	if pid != record.NoProducerID {
		h.ProducerID, h.ProducerEpoch, h.BaseSequence = pid, 0, 0
	}
	if txn {
		h.Attributes |= record.AttrTransactional
	}
	var recs []record.Record
	switch control {
	case "":
		for i, s := range specs {
			r := parseRecordSpec(t, s)
			r.OffsetDelta = int32(i)
			recs = append(recs, r)
		}
	case "commit", "abort":
		typ := record.ControlCommit
		if control == "abort" {
			typ = record.ControlAbort
		}
		h.Attributes |= record.AttrControl | record.AttrTransactional
		h.BaseSequence = record.NoSequence
		recs = []record.Record{{Key: record.AppendControlKey(nil, typ), Value: record.AppendEndTxnMarkerValue(nil, 0)}}
	}
	h.LastOffsetDelta = int32(len(recs) - 1)
	b, err := record.BuildBatch(nil, h, recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func consumed(t *testing.T, l *Log, from record.Offset, iso IsolationLevel, maxBytes int) (string, record.Offset) {
	t.Helper()
	c := l.NewConsumer(from, iso, maxBytes)
	var got []string
	err := c.ReadAll(func(r *ConsumerRecord) error {
		v := "null"
		if r.Value != nil {
			v = string(r.Value)
		}
		got = append(got, fmt.Sprintf("%d:%s=%s", r.Offset, r.Key, v))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(got, " "), c.Position()
}

// TestReaderIsolationLevels: read_uncommitted reads to the high watermark,
// aborted data and open transactions included; read_committed reads to the
// last stable offset and skips the data of aborted transactions, found
// through the txn index even when a fetch starts in the middle of one
// (one batch per fetch); control records are never delivered.
func TestReaderIsolationLevels(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "iso-0")
	l, err := Open(dir, Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	none := record.NoProducerID
	for _, b := range [][]byte{
		txnTestBatch(t, 0, 0, 1, true, "", "a=1"), // p1, aborted at 3
		txnTestBatch(t, 1, 0, none, false, "", "b=1"),
		txnTestBatch(t, 2, 0, 1, true, "", "a=2"),
		txnTestBatch(t, 3, 0, 1, false, "abort"),
		txnTestBatch(t, 4, 0, 2, true, "", "c=1"), // p2, open
		txnTestBatch(t, 5, 0, none, false, "", "d=1"),
	} {
		if err := l.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		iso      IsolationLevel
		maxBytes int
		want     string
		pos      record.Offset
	}{
		{ReadUncommitted, 0, "0:a=1 1:b=1 2:a=2 4:c=1 5:d=1", 6},
		{ReadCommitted, 0, "1:b=1", 4},
		{ReadCommitted, 1, "1:b=1", 4},
	} {
		got, pos := consumed(t, l, 0, c.iso, c.maxBytes)
		if got != c.want || pos != c.pos {
			t.Errorf("%s maxBytes %d: %q position %d, want %q position %d", c.iso, c.maxBytes, got, pos, c.want, c.pos)
		}
	}
	res, err := l.Fetch(2, 1, ReadCommitted)
	if err != nil {
		t.Fatal(err)
	}
	if res.LastStableOffset != 4 || res.HighWatermark != 6 || len(res.AbortedTxns) != 1 ||
		res.AbortedTxns[0] != (AbortedTxn{ProducerID: 1, FirstOffset: 0, LastOffset: 3, LastStableOffset: 4}) {
		t.Errorf("fetch from 2: lso %d hw %d aborted %v", res.LastStableOffset, res.HighWatermark, res.AbortedTxns)
	}
	if err := l.Append(txnTestBatch(t, 6, 0, 2, false, "commit")); err != nil {
		t.Fatal(err)
	}
	if got, pos := consumed(t, l, 0, ReadCommitted, 1); got != "1:b=1 4:c=1 5:d=1" || pos != 7 {
		t.Errorf("read_committed after the commit: %q position %d", got, pos)
	}
	if got, _ := consumed(t, l, 5, ReadCommitted, 0); got != "5:d=1" {
		t.Errorf("read_committed from 5: %q", got)
	}
	for _, from := range []record.Offset{8, -2} {
		if _, err := l.Fetch(from, 100, ReadUncommitted); from >= 0 && !errors.Is(err, ErrOffsetOutOfRange) {
			t.Errorf("fetch from %d: %v, want ErrOffsetOutOfRange", from, err)
		}
	}
	// After a clean the same consumers see the same records, less the
	// superseded ones (none here) and the aborted data (gone for both).
	if _, err := testCleaner(t, 1000).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true}); err != nil {
		t.Fatal(err)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if _, err := testCleaner(t, 1000).Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true}); err != nil {
		t.Fatal(err)
	}
	for _, iso := range []IsolationLevel{ReadUncommitted, ReadCommitted} {
		if got, pos := consumed(t, l, 0, iso, 1); got != "1:b=1 4:c=1 5:d=1" || pos != 7 {
			t.Errorf("%s after cleaning: %q position %d", iso, got, pos)
		}
	}
}

// TestConcurrentReadersDuringClean is C15's readers: while a writer
// appends and rolls and the cleaner cleans again and again, readers of
// both isolation levels read the whole log over and over. No read fails;
// every record delivered is the one appended at its offset; offsets
// increase; and each pass sees, for every key, the record that was its
// latest below the high watermark when the pass began, or a later one of
// that key (a record disappears only when superseded).
func TestConcurrentReadersDuringClean(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "conc-0")
	cfg := DefaultLogConfig()
	cfg.SegmentBytes = 2048
	cfg.FileDeleteDelayMs = 0
	l, err := Open(dir, Options{Config: &cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	var mu sync.Mutex // guards appended
	appended := map[record.Offset]string{}
	appendOne := func(rng *rand.Rand) {
		mu.Lock()
		defer mu.Unlock()
		o := l.LogEndOffset()
		k := fmt.Sprintf("k%d", rng.IntN(20))
		v := fmt.Sprintf("v%d", o)
		if rng.IntN(10) == 0 {
			v = "null"
		}
		if err := l.Append(testBatch(t, o, 1000, k+"="+v)); err != nil {
			t.Error(err)
			return
		}
		appended[o] = k + "=" + v
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		appendOne(rng)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	var passes atomic.Int64
	for r := range 4 {
		iso := IsolationLevel(r % 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				// The latest record of each key below the high watermark now.
				hw := l.HighWatermark()
				mu.Lock()
				latest := map[string]record.Offset{}
				for o, s := range appended {
					if o < hw {
						k, _, _ := strings.Cut(s, "=")
						if cur, ok := latest[k]; !ok || o > cur {
							latest[k] = o
						}
					}
				}
				mu.Unlock()
				seen := map[string]record.Offset{}
				last := record.Offset(-1)
				c := l.NewConsumer(-1, iso, 512)
				err := c.ReadAll(func(cr *ConsumerRecord) error {
					v := "null"
					if cr.Value != nil {
						v = string(cr.Value)
					}
					mu.Lock()
					want := appended[cr.Offset]
					mu.Unlock()
					if got := fmt.Sprintf("%s=%s", cr.Key, v); got != want {
						return fmt.Errorf("offset %d: %s, appended %s", cr.Offset, got, want)
					}
					if cr.Offset <= last {
						return fmt.Errorf("offset %d after %d", cr.Offset, last)
					}
					last = cr.Offset
					seen[string(cr.Key)] = max(seen[string(cr.Key)], cr.Offset)
					return nil
				})
				if err != nil {
					t.Errorf("%s reader: %v", iso, err)
					return
				}
				for k, o := range latest {
					if s, ok := seen[k]; !ok || s < o {
						t.Errorf("%s reader: key %s's record at %d (latest below %d at the start) missing; saw %d", iso, k, o, hw, seen[k])
						return
					}
				}
				passes.Add(1)
			}
		}()
	}
	// The writer appends (600 records, a roll every 60) while the cleaner runs.
	wg.Add(1)
	go func() {
		defer wg.Done()
		wrng := rand.New(rand.NewPCG(3, 4))
		for i := range 600 {
			appendOne(wrng)
			if i%60 == 59 {
				if err := l.Roll(); err != nil {
					t.Error(err)
					return
				}
			}
		}
	}()
	for round := 0; round < 30 || l.LogEndOffset() < 800; round++ {
		c := testCleanerWithMap(t, 10_000, int64(24*(8+rng.IntN(40))))
		if _, err := c.Clean(l, CleanOptions{Force: true}); err != nil {
			t.Fatalf("clean %d: %v", round, err)
		}
	}
	for passes.Load() < 8 && !t.Failed() {
		runtime.Gosched()
	}
	stop.Store(true)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	var offs []int
	for o := range appended {
		offs = append(offs, int(o))
	}
	sort.Ints(offs)
	if len(offs) != 800 {
		t.Errorf("%d appends, want 800", len(offs))
	}
}
