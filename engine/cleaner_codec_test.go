package engine

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"

	xerial "github.com/eapache/go-xerial-snappy"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// decompressWithLibrary decompresses a records section with each codec's
// library called directly (the standard library's gzip, eapache's xerial
// snappy, pierrec lz4, klauspost zstd): no engine or record code.
func decompressWithLibrary(t *testing.T, c record.Codec, src []byte) []byte {
	t.Helper()
	var out []byte
	var err error
	switch c {
	case record.CodecGzip:
		var zr *gzip.Reader
		if zr, err = gzip.NewReader(bytes.NewReader(src)); err == nil {
			out, err = io.ReadAll(zr)
		}
	case record.CodecSnappy:
		out, err = xerial.Decode(src)
	case record.CodecLZ4:
		out, err = io.ReadAll(lz4.NewReader(bytes.NewReader(src)))
	case record.CodecZstd:
		var zd *zstd.Decoder
		if zd, err = zstd.NewReader(nil); err == nil {
			out, err = zd.DecodeAll(src, nil)
			zd.Close()
		}
	default:
		return src
	}
	if err != nil {
		t.Fatalf("%s: %v", c, err)
	}
	return out
}

// TestCleanerRecompressesEveryCodec cleans, for each codec, a compressed
// batch that loses records: A=1 B=1 A=2 C=1 B=null at offsets 0-4, then C=2
// at 5 (uncompressed), then a roll. The cleaner must rebuild the first batch
// with offsets 2 (A=2) and 4 (B=null, the tombstone, whose batch gets the
// delete horizon now + delete.retention.ms) and recompress it with the same
// codec. The output is read with franz-go's kmsg and each codec's own
// library: the CRC-32C is right, the codec, base offset and last offset
// delta are kept, and the records are exactly the kept ones.
func TestCleanerRecompressesEveryCodec(t *testing.T) {
	const nowMs = 50_000
	for _, c := range []record.Codec{record.CodecGzip, record.CodecSnappy, record.CodecLZ4, record.CodecZstd} {
		t.Run(c.String(), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "codec-0")
			h := record.BatchHeader{BaseOffset: 0, LastOffsetDelta: 4, Attributes: record.Attributes(c), BaseTimestamp: 100, MaxTimestamp: 104,
				ProducerID: record.NoProducerID, ProducerEpoch: record.NoProducerEpoch, BaseSequence: record.NoSequence}
			var recs []record.Record
			for i, spec := range []string{"A=1", "B=1", "A=2", "C=1", "B=null"} {
				r := parseRecordSpec(t, spec)
				r.OffsetDelta, r.TimestampDelta = int32(i), int64(i)
				recs = append(recs, r)
			}
			compressed, err := record.BuildBatch(nil, h, recs)
			if err != nil {
				t.Fatal(err)
			}
			writeTestLog(t, dir, nil, [][]byte{compressed, testBatch(t, 5, 200, "C=2")}, nil)
			l, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			st, err := testCleaner(t, nowMs).Clean(l, CleanOptions{Force: true})
			if err != nil {
				t.Fatal(err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if st.BatchesRebuilt != 1 {
				t.Errorf("%d batches rebuilt, want 1", st.BatchesRebuilt)
			}
			data, err := os.ReadFile(seg(dir, 0, LogFileSuffix))
			if err != nil {
				t.Fatal(err)
			}
			var kb kmsg.RecordBatch
			if err := kb.ReadFrom(data); err != nil {
				t.Fatal(err)
			}
			size := int(kb.Length) + 12
			if crc := crc32.Checksum(data[21:size], crc32.MakeTable(crc32.Castagnoli)); uint32(kb.CRC) != crc {
				t.Errorf("CRC field 0x%08x, CRC-32C of the batch 0x%08x", uint32(kb.CRC), crc)
			}
			horizon := int64(nowMs + DefaultLogConfig().DeleteRetentionMs)
			if kb.FirstOffset != 0 || kb.LastOffsetDelta != 4 || record.Attributes(kb.Attributes).Codec() != c ||
				!record.Attributes(kb.Attributes).HasDeleteHorizon() || kb.FirstTimestamp != horizon || kb.MaxTimestamp != 104 || kb.NumRecords != 2 {
				t.Errorf("rebuilt batch header %+v: want offsets 0+4, codec %s, horizon %d as base timestamp, max timestamp 104, 2 records", kb, c, horizon)
			}
			raw := decompressWithLibrary(t, c, kb.Records)
			want := []struct {
				off        int32
				key, value string
				null       bool
				ts         int64
			}{{2, "A", "2", false, 102}, {4, "B", "", true, 104}}
			for _, w := range want {
				l, n := binary.Varint(raw)
				if n <= 0 || l < 0 || int(l) > len(raw)-n {
					t.Fatalf("bad record length varint")
				}
				var kr kmsg.Record
				if err := kr.ReadFrom(raw[:n+int(l)]); err != nil {
					t.Fatal(err)
				}
				if kr.OffsetDelta != w.off || string(kr.Key) != w.key || (kr.Value == nil) != w.null || string(kr.Value) != w.value ||
					kb.FirstTimestamp+kr.TimestampDelta64 != w.ts {
					t.Errorf("record %+v, want offset %d %s=%s (null %v) at %d", kr, w.off, w.key, w.value, w.null, w.ts)
				}
				raw = raw[n+int(l):]
			}
			if len(raw) != 0 {
				t.Errorf("%d bytes after the kept records", len(raw))
			}
			mustVerify(t, dir, VerifyOptions{})
		})
	}
}

// TestCleanerStopsAtLegacyMessages: the cleaner does not follow Kafka's
// legacy rules; it stops at the first magic 0/1 message with ErrLegacyFormat
// naming the file and byte position, and the log is left as it was.
func TestCleanerStopsAtLegacyMessages(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "legacy-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	v2 := testBatch(t, 0, 10, "A=1")
	data := append(append([]byte(nil), v2...), legacyMessage(1, 1, 1000, "A", "2")...)
	data = append(data, legacyMessage(2, 0, 0, "B", "1")...)
	if err := os.WriteFile(seg(dir, 0, LogFileSuffix), data, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Roll(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, root)
	if l, err = Open(dir, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = testCleaner(t, 1000).Clean(l, CleanOptions{Force: true})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ce := wantCorruption(t, "clean", err, seg(dir, 0, LogFileSuffix), int64(len(v2)))
	if !errors.Is(err, ErrLegacyFormat) || ce.TornTail {
		t.Errorf("clean: %v, want ErrLegacyFormat", err)
	}
	if d := diffHashes(before, hashTree(t, root)); d != "" {
		t.Errorf("a refused clean changed files: %s", d)
	}
	rep := mustVerify(t, dir, VerifyOptions{})
	if rep.LegacyBatches != 2 || rep.Batches != 1 || rep.Records != 3 {
		t.Errorf("verify: %d legacy, %d batches, %d records", rep.LegacyBatches, rep.Batches, rep.Records)
	}
}
