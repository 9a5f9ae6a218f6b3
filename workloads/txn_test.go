package workloads

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// txnSpec is smallSpec with half the head's batches in transactions of 3
// batches from 3 producers, 30% of them aborted.
func txnSpec() Spec {
	s := smallSpec()
	s.Keys = 20_000
	s.LogBytes = 2 << 20
	s.Txn = TxnSpec{Ratio: 0.5, AbortRatio: 0.3, Producers: 3, BatchesPerTxn: 3}
	return s
}

// replay reads the whole log as a read_committed consumer would, on its own:
// it checks each producer's batches (ids, epoch, sequences continuing from
// 0, markers only for open transactions), buffers each open transaction's
// records and applies them at its COMMIT or drops them at its ABORT. It
// returns, by key id, the offset of the latest visible record and whether it
// is a tombstone, the offsets of aborted records, and the number of
// transactions and of aborted ones.
type replayed struct {
	latest    map[uint64]int64
	tomb      map[uint64]bool
	aborted   map[int64]bool
	txns      int64
	aborts    int64
	abortedTx []engine.AbortedTxn // first and last offset of each aborted transaction
}

func replay(t *testing.T, l *engine.Log, s Spec) replayed {
	t.Helper()
	type write struct {
		id   uint64
		off  int64
		tomb bool
	}
	type producer struct {
		seq   int32
		open  bool
		first int64
		recs  []write
	}
	rp := replayed{latest: map[uint64]int64{}, tomb: map[uint64]bool{}, aborted: map[int64]bool{}}
	prods := map[int64]*producer{}
	apply := func(w write) {
		if cur, ok := rp.latest[w.id]; !ok || w.off > cur {
			rp.latest[w.id], rp.tomb[w.id] = w.off, w.tomb
		}
	}
	err := l.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		var dec record.Decoder
		var r record.Record
		h, recs, err := dec.Records(batch)
		if err != nil {
			return err
		}
		var pr *producer
		if h.HasProducerID() {
			if !h.Attributes.Transactional() || h.ProducerID < FirstProducerID || h.ProducerID >= FirstProducerID+int64(s.Txn.Producers) || h.ProducerEpoch != 0 {
				t.Fatalf("batch %d: producer %d epoch %d transactional %v", h.BaseOffset, h.ProducerID, h.ProducerEpoch, h.Attributes.Transactional())
			}
			if pr = prods[h.ProducerID]; pr == nil {
				pr = &producer{}
				prods[h.ProducerID] = pr
			}
		}
		if h.Attributes.Control() {
			ok, err := recs.Next(&r)
			if err != nil || !ok || h.RecordCount != 1 || h.BaseSequence != record.NoSequence {
				t.Fatalf("marker at %d: %d records, sequence %d, %v", h.BaseOffset, h.RecordCount, h.BaseSequence, err)
			}
			ct, err := record.ParseControlKey(r.Key)
			if err != nil || !ct.IsTxnMarker() || pr == nil || !pr.open {
				t.Fatalf("marker at %d: type %v (%v), producer open: %v", h.BaseOffset, ct, err, pr != nil && pr.open)
			}
			rp.txns++
			if ct == record.ControlAbort {
				rp.aborts++
				rp.abortedTx = append(rp.abortedTx, engine.AbortedTxn{ProducerID: h.ProducerID, FirstOffset: record.Offset(pr.first), LastOffset: h.BaseOffset})
				for _, w := range pr.recs {
					rp.aborted[w.off] = true
				}
			} else {
				for _, w := range pr.recs {
					apply(w)
				}
			}
			pr.open, pr.recs = false, nil
			return nil
		}
		if pr != nil {
			if h.BaseSequence != pr.seq {
				t.Fatalf("producer %d: batch at %d has sequence %d, want %d", h.ProducerID, h.BaseOffset, h.BaseSequence, pr.seq)
			}
			pr.seq += h.LastOffsetDelta + 1
			if !pr.open {
				pr.open, pr.first = true, int64(h.BaseOffset)
			}
		}
		for {
			ok, err := recs.Next(&r)
			if err != nil || !ok {
				return err
			}
			id, _ := parseKey(r.Key, s.KeyBytes)
			w := write{id: id, off: int64(r.Offset(&h)), tomb: r.IsTombstone()}
			if pr != nil {
				pr.recs = append(pr.recs, w)
			} else {
				apply(w)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for pid, pr := range prods {
		if pr.open {
			t.Errorf("producer %d's transaction from offset %d is still open at the log's end", pid, pr.first)
		}
	}
	return rp
}

// TestTransactions: the transactional head is what Kafka's producers and
// coordinator would write, and the ground truth is what a read_committed
// replay of the log gives: committed writes visible, aborted ones not.
func TestTransactions(t *testing.T) {
	s := txnSpec()
	res := mustGenerate(t, t.TempDir(), s)
	l := openLog(t, res, 0)
	tr := res.Truth[0]
	rp := replay(t, l, s)
	if rp.txns != res.Transactions || rp.aborts != res.AbortedTransactions || int64(len(rp.aborted)) != res.AbortedRecords {
		t.Errorf("log holds %d transactions, %d aborted with %d records; Result says %d, %d, %d",
			rp.txns, rp.aborts, len(rp.aborted), res.Transactions, res.AbortedTransactions, res.AbortedRecords)
	}
	// About 30% of about (half the head's ~1,000 batches / 3) transactions.
	if rp.txns < 100 || rp.aborts < rp.txns/5 || rp.aborts > rp.txns*2/5 {
		t.Errorf("%d transactions, %d aborted: not the 30%% asked for", rp.txns, rp.aborts)
	}
	for j := range tr.Keys() {
		off, tomb := tr.Latest(j)
		want, ok := rp.latest[uint64(tr.KeyID(j))]
		if !ok {
			want = -1
		}
		if off != want || (ok && tomb != rp.tomb[uint64(tr.KeyID(j))]) {
			t.Fatalf("key %d: truth says latest %d (tombstone %v), replay says %d (%v)", j, off, tomb, want, rp.tomb[uint64(tr.KeyID(j))])
		}
	}
	for off := range res.LogEndOffsets[0] {
		if tr.IsAborted(off) != rp.aborted[off] {
			t.Fatalf("offset %d: truth says aborted %v, replay %v", off, tr.IsAborted(off), rp.aborted[off])
		}
	}
	// The engine indexed every ABORT in the .txnindex files (Kafka's
	// AbortedTxn: producer, first offset, last offset = the marker's).
	var indexed []engine.AbortedTxn
	for _, seg := range l.Segments() {
		for _, a := range seg.TxnIndex() {
			indexed = append(indexed, engine.AbortedTxn{ProducerID: a.ProducerID, FirstOffset: a.FirstOffset, LastOffset: a.LastOffset})
		}
	}
	slices.SortFunc(rp.abortedTx, func(a, b engine.AbortedTxn) int { return int(a.LastOffset - b.LastOffset) })
	if !slices.Equal(indexed, rp.abortedTx) {
		t.Errorf(".txnindex entries %v, want %v", indexed, rp.abortedTx)
	}
	lso, err := l.LastStableOffset()
	if err != nil || int64(lso) != res.LogEndOffsets[0] {
		t.Errorf("last stable offset %d (%v), want the log end offset %d: a transaction was left open", lso, err, res.LogEndOffsets[0])
	}
	st, err := tr.VerifyLog(l, res.FirstDirtyOffsets[0])
	if err != nil {
		t.Fatal(err)
	}
	if st.AbortedRecords != res.AbortedRecords || st.ControlBatches != res.Transactions {
		t.Errorf("verify counted %d aborted records and %d markers, want %d and %d", st.AbortedRecords, st.ControlBatches, res.AbortedRecords, res.Transactions)
	}
}

// TestTransactionsCommittedClean: with every transaction committed, the
// cleaner (which treats committed transactional records as any others)
// leaves a log that passes verification.
func TestTransactionsCommittedClean(t *testing.T) {
	s := txnSpec()
	s.Txn.AbortRatio = 0
	res := mustGenerate(t, t.TempDir(), s)
	if res.AbortedTransactions != 0 || res.Transactions == 0 {
		t.Fatalf("%d transactions, %d aborted", res.Transactions, res.AbortedTransactions)
	}
	l := openLog(t, res, 0)
	cleanAll(t, l, res.Truth[0], newTestCleaner(t, "md5", 8<<20, s.StartTimeMs+3_600_000))
}

// TestVerifyAbortedNotLatest: an aborted record is never a key's latest
// value. Take a key whose latest visible write is followed by an aborted
// write; a log that lost the visible one (as a cleaner that put the aborted
// record into its offset map would leave it) fails verification naming it,
// though the aborted record is still there.
func TestVerifyAbortedNotLatest(t *testing.T) {
	s := txnSpec()
	s.TombstoneRatio = 0
	res := mustGenerate(t, t.TempDir(), s)
	l := openLog(t, res, 0)
	tr := res.Truth[0]
	// Find a key with an aborted write after its latest visible one.
	var key []byte
	var latest, abortedOff int64 = -1, -1
	err := l.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		var dec record.Decoder
		var r record.Record
		h, recs, err := dec.Records(batch)
		if err != nil || h.Attributes.Control() || key != nil {
			return err
		}
		for {
			ok, err := recs.Next(&r)
			if err != nil || !ok {
				return err
			}
			off := int64(r.Offset(&h))
			if j, ok := tr.localIndex(r.Key); ok && tr.IsAborted(off) {
				if lat, _ := tr.Latest(int64(j)); lat >= 0 && lat < off {
					key, latest, abortedOff = slices.Clone(r.Key), lat, off
					return nil
				}
			}
		}
	})
	if err != nil || key == nil {
		t.Fatalf("no key with an aborted write after its latest (%v)", err)
	}
	// Copy the log without the record at latest: rebuild its batch.
	dst := t.TempDir()
	cfg := res.LogConfig
	out, err := engine.Open(dst+"/"+fmt.Sprintf("%s-0", s.Topic), engine.Options{Config: &cfg, Create: true})
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	err = l.ReadBatches(0, func(_ *engine.Segment, _ engine.FilePos, batch []byte) error {
		var dec record.Decoder
		var r record.Record
		h, recs, err := dec.Records(batch)
		if err != nil {
			return err
		}
		if int64(h.BaseOffset) > latest || int64(h.LastOffset()) < latest {
			return out.Append(batch)
		}
		var keep []record.Record
		for {
			ok, err := recs.Next(&r)
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if int64(r.Offset(&h)) != latest {
				keep = append(keep, record.Record{TimestampDelta: r.TimestampDelta, OffsetDelta: r.OffsetDelta,
					Key: slices.Clone(r.Key), Value: slices.Clone(r.Value)})
			}
		}
		b, err := record.BuildBatch(nil, h, keep)
		if err != nil {
			return err
		}
		return out.Append(b)
	})
	if err != nil {
		t.Fatal(err)
	}
	msg := verifyProblems(t, tr, out, res.FirstDirtyOffsets[0])
	if want := fmt.Sprintf("key %q: latest write at offset %d is missing", key, latest); !strings.Contains(msg, want) {
		t.Errorf("problems do not say %s (the aborted write at %d is no substitute):\n%s", want, abortedOff, msg)
	}
}

// TestTransactionsAbortedClean: after cleaning a head with aborted
// transactions, every key's latest committed value is there and no aborted
// record is left: Kafka's cleaner keeps aborted records out of its offset
// map and removes them (the cleaner's transaction rules, issue 5). A
// cleaner that put an aborted record into its map would drop the committed
// value below it, which the verification reports as "latest write ... is
// missing".
func TestTransactionsAbortedClean(t *testing.T) {
	s := txnSpec()
	res := mustGenerate(t, t.TempDir(), s)
	l := openLog(t, res, 0)
	_, st := cleanAll(t, l, res.Truth[0], newTestCleaner(t, "md5", 8<<20, s.StartTimeMs+3_600_000))
	if st.AbortedRecords != 0 {
		t.Errorf("%d aborted records left after cleaning", st.AbortedRecords)
	}
}
