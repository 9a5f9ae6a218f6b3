package engine

import (
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

var propertySeeds = flag.Int("cleaner.property.seeds", 4, "random workloads TestCleanerPropertyTransactions runs (each ~300 operations)")

// txnModel is the ground truth of a random transactional workload: every
// data record appended, the transactions' outcomes and the open ones.
type txnModel struct {
	recs    map[record.Offset]modelRecord
	open    map[int64]record.Offset   // producer -> first offset of its open transaction
	pending map[int64][]record.Offset // producer -> offsets of its open transaction's records
	leo     record.Offset
}

type modelRecord struct {
	key     string
	value   *string // nil: tombstone
	aborted bool
}

func (m *txnModel) lso() record.Offset {
	lso := m.leo
	for _, f := range m.open {
		lso = min(lso, f)
	}
	return lso
}

// committedState is what a read_committed consumer must see: each key's
// last non-aborted record below the last stable offset, tombstones as
// absence.
func (m *txnModel) committedState() map[string]string {
	lso := m.lso()
	offs := slices.Sorted(maps.Keys(m.recs))
	out := map[string]string{}
	for _, o := range offs {
		r := m.recs[o]
		if o >= lso || r.aborted {
			continue
		}
		if r.value == nil {
			delete(out, r.key)
		} else {
			out[r.key] = *r.value
		}
	}
	return out
}

// TestCleanerPropertyTransactions runs random workloads of keys,
// tombstones, plain batches and transactions of three producers (committed
// and aborted, some left open), with rolls, reopenings and cleans at random
// points (random offset map sizes, so that many cleans stop mid-range; a
// clock that passes delete horizons and producer expirations). After every
// clean: a read_committed consumer from the log start sees for every key
// the same final state as before the clean and as the ground truth (a
// value, or absence for a deleted key whose tombstone may have expired)
// and never an aborted record; every record either consumer delivers is
// the one appended at its offset; the log end offset has not moved; Verify
// passes. After every reopen the rebuilt producer state has the same open
// transactions and last stable offset. -cleaner.property.seeds sets how
// many workloads run.
func TestCleanerPropertyTransactions(t *testing.T) {
	for seed := range *propertySeeds {
		t.Run(fmt.Sprintf("seed=%d", seed), func(t *testing.T) { runTxnProperty(t, uint64(seed)) })
	}
}

func runTxnProperty(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	dir := filepath.Join(t.TempDir(), "prop-0")
	cfg := DefaultLogConfig()
	cfg.SegmentBytes = 600 + int64(rng.IntN(1500))
	cfg.SegmentIndexBytes = 4096 // small preallocated indexes: Verify reads them whole
	cfg.DeleteRetentionMs = 500
	cfg.ProducerIDExpirationMs = 3000
	cfg.FileDeleteDelayMs = 0
	nowMs := int64(1_000_000)
	clock := func() int64 { return nowMs }
	open := func() *Log {
		l, err := Open(dir, Options{Config: &cfg, Create: true, FS: vfstest.NoSyncFS{}, Now: fixedClock(clock())})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	l := open()
	defer func() { l.Close() }()
	m := &txnModel{recs: map[record.Offset]modelRecord{}, open: map[int64]record.Offset{}, pending: map[int64][]record.Offset{}}
	none := record.NoProducerID
	appendBatch := func(pid int64, txn bool, n int) {
		var specs []string
		base := m.leo
		for i := range n {
			k := fmt.Sprintf("k%d", rng.IntN(12))
			r := modelRecord{key: k}
			if rng.IntN(7) == 0 {
				specs = append(specs, k+"=null")
			} else {
				v := fmt.Sprintf("v%d", base+record.Offset(i))
				r.value = &v
				specs = append(specs, k+"="+v)
			}
			m.recs[base+record.Offset(i)] = r
			if txn {
				m.pending[pid] = append(m.pending[pid], base+record.Offset(i))
			}
		}
		if err := l.Append(txnTestBatch(t, base, nowMs, pid, txn, "", specs...)); err != nil {
			t.Fatal(err)
		}
		if txn {
			if _, ok := m.open[pid]; !ok {
				m.open[pid] = base
			}
		}
		m.leo += record.Offset(n)
	}
	endTxn := func(pid int64, commit bool) {
		control := "abort"
		if commit {
			control = "commit"
		}
		if err := l.Append(txnTestBatch(t, m.leo, nowMs, pid, false, control)); err != nil {
			t.Fatal(err)
		}
		if !commit {
			for _, o := range m.pending[pid] {
				r := m.recs[o]
				r.aborted = true
				m.recs[o] = r
			}
		}
		delete(m.pending, pid)
		delete(m.open, pid)
		m.leo++
	}

	cleans := 0
	for op := range 300 {
		nowMs += int64(rng.IntN(250))
		switch r := rng.IntN(100); {
		case r < 30:
			appendBatch(none, false, 1+rng.IntN(3))
		case r < 58:
			appendBatch(int64(1+rng.IntN(3)), true, 1+rng.IntN(2))
		case r < 70:
			if len(m.open) > 0 {
				pids := slices.Sorted(maps.Keys(m.open))
				endTxn(pids[rng.IntN(len(pids))], rng.IntN(10) < 6)
			}
		case r < 76:
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		case r < 95:
			checkTxnClean(t, l, m, rng, nowMs, fmt.Sprintf("op %d", op))
			cleans++
		default:
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			l = open()
			checkProducerState(t, l, m, fmt.Sprintf("op %d reopen", op))
		}
	}
	// Close every transaction, roll, and clean until nothing is left.
	for _, pid := range slices.Sorted(maps.Keys(m.open)) {
		endTxn(pid, rng.IntN(2) == 0)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		nowMs += cfg.DeleteRetentionMs
		checkTxnClean(t, l, m, rng, nowMs, fmt.Sprintf("final clean %d", i))
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = open()
	checkProducerState(t, l, m, "final reopen")
	if cleans == 0 {
		t.Error("no clean ran")
	}
}

// checkTxnClean cleans l once at nowMs with a random map size and checks
// the properties of TestCleanerPropertyTransactions.
func checkTxnClean(t *testing.T, l *Log, m *txnModel, rng *rand.Rand, nowMs int64, what string) {
	t.Helper()
	before, err := l.ReadState(ReadCommitted)
	if err != nil {
		t.Fatalf("%s: read before the clean: %v", what, err)
	}
	keys := 2 + rng.IntN(30)
	c := testCleanerWithMap(t, nowMs, int64(keys*24*10/9+24))
	opts := CleanOptions{Force: true}
	if rng.IntN(5) == 0 {
		opts.OverrideFirstDirty = true // as Kafka's tests: LogToClean(0)
	}
	if _, err := c.Clean(l, opts); err != nil {
		t.Fatalf("%s: clean: %v", what, err)
	}
	if leo := l.LogEndOffset(); leo != m.leo {
		t.Fatalf("%s: log end offset %d after the clean, want %d", what, leo, m.leo)
	}
	after, err := l.ReadState(ReadCommitted)
	if err != nil {
		t.Fatalf("%s: read after the clean: %v", what, err)
	}
	want := m.committedState()
	for name, got := range map[string]map[string][]byte{"before the clean": before, "after the clean": after} {
		if len(got) != len(want) {
			t.Errorf("%s: read_committed state %s has %d keys, want %d", what, name, len(got), len(want))
		}
		for k, v := range want {
			if string(got[k]) != v {
				t.Errorf("%s: read_committed %s: key %s = %q, want %q", what, name, k, got[k], v)
			}
		}
	}
	for _, iso := range []IsolationLevel{ReadCommitted, ReadUncommitted} {
		last := record.Offset(-1)
		err := l.NewConsumer(-1, iso, 300).ReadAll(func(r *ConsumerRecord) error {
			mr, ok := m.recs[r.Offset]
			switch {
			case !ok:
				return fmt.Errorf("offset %d: no record was appended there", r.Offset)
			case mr.key != string(r.Key) || (mr.value == nil) != (r.Value == nil) || (mr.value != nil && *mr.value != string(r.Value)):
				return fmt.Errorf("offset %d: %s=%q, appended %s=%v", r.Offset, r.Key, r.Value, mr.key, mr.value)
			case iso == ReadCommitted && mr.aborted:
				return fmt.Errorf("offset %d: aborted record %s delivered", r.Offset, r.Key)
			case r.Offset <= last:
				return fmt.Errorf("offset %d after %d", r.Offset, last)
			}
			last = r.Offset
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %s consumer: %v", what, iso, err)
		}
	}
	if rep, err := Verify(l.Dir(), VerifyOptions{}); err != nil {
		t.Fatalf("%s: verify: %v %v", what, err, rep.Problems)
	}
}

// checkProducerState compares the rebuilt producer state of a reopened log
// with the ground truth's open transactions.
func checkProducerState(t *testing.T, l *Log, m *txnModel, what string) {
	t.Helper()
	open, err := l.OpenTransactions()
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(open, m.open) {
		t.Fatalf("%s: open transactions %v, want %v", what, open, m.open)
	}
	lso, err := l.LastStableOffset()
	if err != nil || lso != m.lso() {
		t.Fatalf("%s: last stable offset %d (%v), want %d", what, lso, err, m.lso())
	}
	if leo := l.LogEndOffset(); leo != m.leo {
		t.Fatalf("%s: log end offset %d, want %d", what, leo, m.leo)
	}
}
