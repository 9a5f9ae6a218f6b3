package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestRebuiltBatchInWriteBuffer: an uncompressed batch that loses a
// record is rebuilt in the write buffer itself (emitInPlace), and one
// that may not fit the write buffer is built aside by the Builder and
// written through (the write buffer here 1 KiB, the rebuilt batch about
// 1.9 KiB); both
// give the batch the cleaned log must hold: the first batch's records B,
// C, D at offsets 1, 2, 3 with their values, its last offset delta 3
// kept, then the batch at 4 as it was. The .log is the same with a 1 KiB
// and a 256 KiB write buffer.
func TestRebuiltBatchInWriteBuffer(t *testing.T) {
	const base = int64(1_700_000_000_000)
	v := strings.Repeat("x", 600)
	src := filepath.Join(t.TempDir(), "inplace-0")
	writeTestLog(t, src, nil,
		[][]byte{testBatch(t, 0, base, "A="+v, "B="+v, "C="+v, "D="+v), testBatch(t, 4, base+1, "A=2")},
		[][]byte{testBatch(t, 5, base+2, "Z=1")})
	var logs [2][]byte
	for i, ioBytes := range []int64{2 << 10, 512 << 10} {
		dir := filepath.Join(t.TempDir(), "inplace-0")
		copyDir(t, src, dir)
		cfg := DefaultLogConfig()
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		ccfg := DefaultCleanerConfig()
		ccfg.DedupeBufferBytes, ccfg.IOBufferBytes = 1<<20, ioBytes
		c, err := NewCleaner(ccfg, CleanerOptions{Now: fixedClock(base)})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Clean(l, CleanOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		if st.BatchesRebuilt != 1 || st.MessagesWritten != 4 {
			t.Fatalf("write buffer %d: %d batches rebuilt, %d records kept; want 1 and 4", ioBytes/2, st.BatchesRebuilt, st.MessagesWritten)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		if logs[i], err = os.ReadFile(seg(dir, 0, LogFileSuffix)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(logs[0], logs[1]) {
		t.Fatalf("the cleaned .log differs between a 1 KiB and a 256 KiB write buffer (%d and %d bytes)", len(logs[0]), len(logs[1]))
	}
	type rec struct {
		off   record.Offset
		key   string
		value string
	}
	var got []rec
	var lastDeltas []int32
	var dec record.Decoder
	for p := 0; p < len(logs[0]); {
		h, err := record.ParseHeader(logs[0][p:])
		if err != nil {
			t.Fatal(err)
		}
		batch := logs[0][p : p+h.Size()]
		if err := record.VerifyCRC(batch); err != nil {
			t.Fatalf("batch at byte %d: %v", p, err)
		}
		_, it, err := dec.Records(batch)
		if err != nil {
			t.Fatal(err)
		}
		var r record.Record
		for {
			ok, err := it.Next(&r)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			got = append(got, rec{r.Offset(&h), string(r.Key), string(r.Value)})
		}
		lastDeltas = append(lastDeltas, h.LastOffsetDelta)
		p += h.Size()
	}
	want := []rec{{1, "B", v}, {2, "C", v}, {3, "D", v}, {4, "A", "2"}}
	if len(got) != len(want) || len(lastDeltas) != 2 || lastDeltas[0] != 3 || lastDeltas[1] != 0 {
		t.Fatalf("cleaned records %v, batches' last offset deltas %v; want %v in two batches, deltas 3 and 0", got, lastDeltas, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("record %d: %v, want %v", i, got[i], want[i])
		}
	}
}
