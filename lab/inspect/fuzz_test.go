package inspect

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// FuzzDecodeIndexes: the index decoders never panic; what they decode
// re-encodes to the bytes before the zero-filled tail, which is all zeros.
func FuzzDecodeIndexes(f *testing.F) {
	f.Add([]byte{0, 0, 0, 3, 0, 0, 0x10, 4, 0, 0, 0, 0, 0, 0, 0, 0}, int64(16272))
	f.Add(make([]byte, 34), int64(0))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		if base < 0 || base > 1<<62 {
			return
		}
		if oi, tail, err := decodeOffsetIndex(data, record.Offset(base)); err == nil {
			var enc []byte
			for _, e := range oi {
				enc = binary.BigEndian.AppendUint32(enc, uint32(e.Offset-record.Offset(base)))
				enc = binary.BigEndian.AppendUint32(enc, uint32(e.Pos))
			}
			if !bytes.Equal(enc, data[:len(enc)]) || len(enc)+tail*offsetIndexEntryBytes != len(data) || !allZero(data[len(enc):]) {
				t.Fatalf("offset index %x: entries %v, tail %d", data, oi, tail)
			}
		}
		if ti, tail, err := decodeTimeIndex(data, record.Offset(base)); err == nil {
			var enc []byte
			for _, e := range ti {
				enc = binary.BigEndian.AppendUint64(enc, uint64(e.Timestamp))
				enc = binary.BigEndian.AppendUint32(enc, uint32(e.Offset-record.Offset(base)))
			}
			if !bytes.Equal(enc, data[:len(enc)]) || len(enc)+tail*timeIndexEntryBytes != len(data) || !allZero(data[len(enc):]) {
				t.Fatalf("time index %x: entries %v, tail %d", data, ti, tail)
			}
		}
		if tx, err := decodeTxnIndex(data, record.Offset(base)); err == nil && len(tx)*txnIndexEntryBytes != len(data) {
			t.Fatalf("txn index %x: %d entries", data, len(tx))
		}
		crossCheckIndexes(t, data, record.Offset(base))
	})
}

// crossCheckIndexes: the engine's index decoders (the one codec dump and
// verify use) agree with this package's independent test decoders on data:
// the same entries and zero tail, or an error at the same byte position.
func crossCheckIndexes(t *testing.T, data []byte, base record.Offset) {
	t.Helper()
	pos := func(err error) int64 {
		var ie *engine.IndexError
		if !errors.As(err, &ie) {
			t.Fatalf("engine error %v is not an *engine.IndexError", err)
		}
		return ie.Pos
	}
	{
		want, wantTail, werr := decodeOffsetIndex(data, base)
		got, gotTail, err := engine.DecodeOffsetIndex(data, base)
		switch {
		case (werr == nil) != (err == nil):
			t.Fatalf("offset index %x: independent %v, engine %v", data, werr, err)
		case err != nil && pos(err) != werr.pos:
			t.Fatalf("offset index %x: bad at byte %d (independent) and %d (engine)", data, werr.pos, pos(err))
		case err == nil && (gotTail != wantTail || len(got) != len(want)):
			t.Fatalf("offset index %x: %d entries, tail %d (independent) and %d, %d (engine)", data, len(want), wantTail, len(got), gotTail)
		}
		for i := range got {
			if got[i].Offset != want[i].Offset || got[i].Pos != want[i].Pos {
				t.Fatalf("offset index %x: entry %d %+v (engine), %+v (independent)", data, i, got[i], want[i])
			}
		}
	}
	{
		want, wantTail, werr := decodeTimeIndex(data, base)
		got, gotTail, err := engine.DecodeTimeIndex(data, base)
		switch {
		case (werr == nil) != (err == nil):
			t.Fatalf("time index %x: independent %v, engine %v", data, werr, err)
		case err != nil && pos(err) != werr.pos:
			t.Fatalf("time index %x: bad at byte %d (independent) and %d (engine)", data, werr.pos, pos(err))
		case err == nil && (gotTail != wantTail || len(got) != len(want)):
			t.Fatalf("time index %x: %d entries, tail %d (independent) and %d, %d (engine)", data, len(want), wantTail, len(got), gotTail)
		}
		for i := range got {
			if got[i].Timestamp != want[i].Timestamp || got[i].Offset != want[i].Offset {
				t.Fatalf("time index %x: entry %d %+v (engine), %+v (independent)", data, i, got[i], want[i])
			}
		}
	}
	{
		want, werr := decodeTxnIndex(data, base)
		got, err := engine.DecodeTxnIndex(data, base)
		switch {
		case (werr == nil) != (err == nil):
			t.Fatalf("txn index %x: independent %v, engine %v", data, werr, err)
		case err != nil && pos(err) != werr.pos:
			t.Fatalf("txn index %x: bad at byte %d (independent) and %d (engine)", data, werr.pos, pos(err))
		case err == nil && len(got) != len(want):
			t.Fatalf("txn index %x: %d entries (independent), %d (engine)", data, len(want), len(got))
		}
		for i := range got {
			if got[i].ProducerID != want[i].ProducerID || got[i].FirstOffset != want[i].FirstOffset || got[i].LastOffset != want[i].LastOffset || got[i].LastStableOffset != want[i].LastStableOffset {
				t.Fatalf("txn index %x: entry %d %+v (engine), %+v (independent)", data, i, got[i], want[i])
			}
		}
	}
}

// TestIndexDecodersAgree: the cross-check on hand-made index files: entries
// with a zero-filled tail, a single zero entry (an entry, not a tail),
// all-zero files, a bad size, decreasing offsets, a relative offset of
// 2^31, and 34-byte transaction entries.
func TestIndexDecodersAgree(t *testing.T) {
	be := binary.BigEndian
	entry := func(rel, pos uint32) []byte { return be.AppendUint32(be.AppendUint32(nil, rel), pos) }
	cat := func(bs ...[]byte) []byte { return bytes.Join(bs, nil) }
	for _, data := range [][]byte{
		nil,
		make([]byte, 8),
		make([]byte, 24),
		make([]byte, 36),
		cat(entry(3, 4100), entry(7, 8200), make([]byte, 16)),
		cat(entry(3, 4100), entry(3, 8200)),
		cat(entry(1<<31, 4100)),
		make([]byte, 12+5),
		make([]byte, 34),
		cat(be.AppendUint16(nil, 0), be.AppendUint64(nil, 9), be.AppendUint64(nil, 10), be.AppendUint64(nil, 20), be.AppendUint64(nil, 10)),
		cat(be.AppendUint16(nil, 1), make([]byte, 32)),
	} {
		for _, base := range []record.Offset{0, 10, 100} {
			crossCheckIndexes(t, data, base)
		}
	}
}

// FuzzDecodeCheckpoints: the checkpoint decoders never panic, and a decoded
// offset checkpoint written back in Kafka's format decodes to the same
// entries.
func FuzzDecodeCheckpoints(f *testing.F) {
	f.Add([]byte("0\n2\norders 0 3\n__consumer_offsets 17 1041962\n"))
	f.Add([]byte("0\n1\n0 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		crossCheckCheckpoints(t, data)
		decodeLeaderEpochCheckpoint(data)
		entries, err := decodeOffsetCheckpoint(data)
		if err != nil {
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, "0\n%d\n", len(entries))
		for _, e := range entries {
			fmt.Fprintf(&b, "%s %d %d\n", e.Topic, e.Partition, e.Offset)
		}
		again, err := decodeOffsetCheckpoint([]byte(b.String()))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("%q re-encoded as %q: %v, %v", data, b.String(), again, err)
		}
		for i := range again {
			if again[i] != entries[i] {
				t.Fatalf("entry %d: %v, then %v", i, entries[i], again[i])
			}
		}
	})
}

// crossCheckCheckpoints: the engine's checkpoint decoders (the one codec
// dump and verify use) agree with this package's independent test decoder
// on data: the same entries, or an error at the same line and byte.
func crossCheckCheckpoints(t *testing.T, data []byte) {
	t.Helper()
	at := func(err error) (int, int64) {
		var ce *engine.CheckpointError
		if !errors.As(err, &ce) {
			t.Fatalf("engine error %v is not an *engine.CheckpointError", err)
		}
		return ce.Line, ce.Pos
	}
	want, werr := decodeOffsetCheckpoint(data)
	got, err := engine.DecodeOffsetCheckpoint("ckpt", data)
	switch {
	case (werr == nil) != (err == nil):
		t.Fatalf("offset checkpoint %q: independent %v, engine %v", data, werr, err)
	case err != nil:
		if line, pos := at(err); line != werr.line || pos != werr.pos {
			t.Fatalf("offset checkpoint %q: bad at line %d byte %d (independent), line %d byte %d (engine)", data, werr.line, werr.pos, line, pos)
		}
	case len(got) != len(want):
		t.Fatalf("offset checkpoint %q: %d entries (independent), %d (engine)", data, len(want), len(got))
	}
	for i := range got {
		if got[i].Topic != want[i].Topic || got[i].Partition != want[i].Partition || int64(got[i].Offset) != want[i].Offset {
			t.Fatalf("offset checkpoint %q: entry %d %+v (engine), %+v (independent)", data, i, got[i], want[i])
		}
	}
	wantE, werr := decodeLeaderEpochCheckpoint(data)
	gotE, err := engine.DecodeLeaderEpochCheckpoint("ckpt", data)
	switch {
	case (werr == nil) != (err == nil):
		t.Fatalf("leader-epoch checkpoint %q: independent %v, engine %v", data, werr, err)
	case err != nil:
		if line, pos := at(err); line != werr.line || pos != werr.pos {
			t.Fatalf("leader-epoch checkpoint %q: bad at line %d byte %d (independent), line %d byte %d (engine)", data, werr.line, werr.pos, line, pos)
		}
	case len(gotE) != len(wantE):
		t.Fatalf("leader-epoch checkpoint %q: %d entries (independent), %d (engine)", data, len(wantE), len(gotE))
	}
	for i := range gotE {
		if gotE[i].Epoch != wantE[i].Epoch || int64(gotE[i].StartOffset) != wantE[i].StartOffset {
			t.Fatalf("leader-epoch checkpoint %q: entry %d %+v (engine), %+v (independent)", data, i, gotE[i], wantE[i])
		}
	}
}

// TestCheckpointDecodersAgree: the cross-check on hand-made files: Kafka's
// line endings, signs, blanks where Java's parseInt and split refuse or
// drop them, bad counts, negative partitions and epochs.
func TestCheckpointDecodersAgree(t *testing.T) {
	for _, text := range []string{
		"", "0", "0\n", "0\n0\n", "0\n1\nt 0 5\n", "0\r\n1\r\nt 0 5\r\n", "0\r1\rt 0 5", "+0\n+1\nt 0 5",
		" 0\n0\n", "0 \n0\n", "0\n1 \nt 0 5", "0\n1\n t 0 5", "0\n1\nt 0 5  ", "0\n1\nt\t0\t5", "0\n2\nt 0 5\n",
		"0\n1\nt -1 5", "0\n1\n3 7\n", "0\n1\n-3 7\n", "0\n1\n3 -7\n", "1\n0\n", "0\n-1\n", "0\n1\n\n", "\n",
	} {
		crossCheckCheckpoints(t, []byte(text))
	}
}
