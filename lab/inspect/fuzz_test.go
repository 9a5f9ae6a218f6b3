package inspect

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

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
	})
}

// FuzzDecodeCheckpoints: the checkpoint decoders never panic, and a decoded
// offset checkpoint written back in Kafka's format decodes to the same
// entries.
func FuzzDecodeCheckpoints(f *testing.F) {
	f.Add([]byte("0\n2\norders 0 3\n__consumer_offsets 17 1041962\n"))
	f.Add([]byte("0\n1\n0 0\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
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
