package engine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// The fuzz targets of the store. Seeds: testdata/fuzz/<target>/ (real Kafka
// segment and index bytes, torn and corrupt copies), run by go test; a
// campaign: go test ./engine -run '^$' -fuzz '^FuzzOpenLog$' -fuzztime 10m
// (docs/safe-operation.md, "Fuzzing").

// FuzzOpenLog writes its inputs as one segment's .log and .index (no
// clean-shutdown marker: Open recovers it) and opens the partition
// read-only, verifies it, and opens it read-write. Invariants: nothing
// panics; a read-only open and Verify change no byte; every error is a
// *record.CorruptionError naming the .log or wraps ErrCorruptIndex, an
// ErrNotLogDir or an I/O error; after a read-write open the .log is a
// prefix of the input (only a torn tail is ever cut), its offsets run from
// the start to the log end offset, and a second open finds nothing to cut.
func FuzzOpenLog(f *testing.F) {
	f.Add(testBatch(f, 0, 1, "k=v"), []byte(nil))
	f.Add(append(testBatch(f, 0, 1, "a=1", "b=2"), testBatch(f, 2, 2, "a=3")[:40]...), []byte{0, 0, 0, 1, 0, 0, 0, 9})
	f.Fuzz(func(t *testing.T, logBytes, indexBytes []byte) {
		root := t.TempDir()
		dir := filepath.Join(root, "fuzz-0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		logPath := seg(dir, 0, LogFileSuffix)
		if err := os.WriteFile(logPath, logBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		if indexBytes != nil {
			if err := os.WriteFile(seg(dir, 0, IndexFileSuffix), indexBytes, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg := DefaultLogConfig()
		cfg.MaxMessageBytes = 1 << 20
		fsys := vfstest.NoSyncFS{} // crash safety is not under test here: skip the fsyncs
		checkErr := func(what string, err error) {
			var ce *record.CorruptionError
			if errors.As(err, &ce) {
				if ce.Path != logPath && ce.Path != seg(dir, 0, IndexFileSuffix) {
					t.Fatalf("%s: corruption error names %s", what, ce.Path)
				}
				if ce.Pos < 0 || ce.Pos > int64(len(logBytes)) {
					t.Fatalf("%s: corruption error at byte %d of %d", what, ce.Pos, len(logBytes))
				}
				return
			}
			if !errors.Is(err, ErrCorruptIndex) && !errors.Is(err, ErrNotLogDir) {
				t.Fatalf("%s: unexpected error %v", what, err)
			}
		}
		before := hashTree(t, root)
		if l, err := Open(dir, Options{Config: &cfg, FS: fsys, ReadOnly: true}); err != nil {
			checkErr("read-only open", err)
		} else {
			if l.LogEndOffset() < l.LogStartOffset() {
				t.Fatalf("log end offset %d below the log start offset %d", l.LogEndOffset(), l.LogStartOffset())
			}
			l.Close()
		}
		if _, err := Verify(dir, VerifyOptions{Config: &cfg, FS: fsys}); err != nil {
			checkErr("verify", err)
		}
		if d := diffHashes(before, hashTree(t, root)); d != "" {
			t.Fatalf("read-only open or Verify changed files: %s", d)
		}
		l, err := Open(dir, Options{Config: &cfg, FS: fsys})
		if err != nil {
			checkErr("open", err)
			return
		}
		leo := l.LogEndOffset()
		if err := l.Close(); err != nil {
			t.Fatalf("close: %v", err)
		}
		after, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(logBytes, after) {
			t.Fatalf("the .log is no longer a prefix of the input (%d bytes, was %d)", len(after), len(logBytes))
		}
		l, err = Open(dir, Options{Config: &cfg, FS: fsys})
		if err != nil {
			t.Fatalf("second open: %v", err)
		}
		defer l.Close()
		if r := l.Recovery(); len(r.Truncations) != 0 || l.LogEndOffset() != leo {
			t.Fatalf("second open: truncations %v, log end offset %d (was %d)", r.Truncations, l.LogEndOffset(), leo)
		}
	})
}

// FuzzDecodeOffsetIndex: never panics; decoded entries re-encode to the
// input's leading bytes; entries increase.
func FuzzDecodeOffsetIndex(f *testing.F) {
	f.Add([]byte{0, 0, 0, 1, 0, 0, 0, 70, 0, 0, 0, 2, 0, 0, 0, 140}, int64(0))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		if base < 0 || base > 1<<62 {
			return
		}
		entries, err := decodeOffsetIndex(data, record.Offset(base))
		if err != nil {
			if !errors.Is(err, ErrCorruptIndex) {
				t.Fatalf("error %v does not wrap ErrCorruptIndex", err)
			}
			return
		}
		ix := indexer{base: record.Offset(base), offsets: entries}
		enc, err := ix.encodeOffsetIndex(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, enc) {
			t.Fatalf("re-encoded entries %x are not the input's prefix %x", enc, data)
		}
		for i := 1; i < len(entries); i++ {
			if entries[i].Offset <= entries[i-1].Offset {
				t.Fatalf("entries not increasing: %v", entries)
			}
		}
	})
}

// FuzzDecodeTimeIndex: never panics; decoded entries re-encode to the
// input's leading bytes.
func FuzzDecodeTimeIndex(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 4, 210, 0, 0, 0, 5}, int64(10))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		if base < 0 || base > 1<<62 {
			return
		}
		entries, err := decodeTimeIndex(data, record.Offset(base))
		if err != nil {
			if !errors.Is(err, ErrCorruptIndex) {
				t.Fatalf("error %v does not wrap ErrCorruptIndex", err)
			}
			return
		}
		ix := indexer{base: record.Offset(base), times: entries}
		enc, err := ix.encodeTimeIndex(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(data, enc) {
			t.Fatalf("re-encoded entries %x are not the input's prefix %x", enc, data)
		}
	})
}

// FuzzDecodeTxnIndex: never panics; a decoded file re-encodes to exactly
// its bytes (decode(encode(x)) == x).
func FuzzDecodeTxnIndex(f *testing.F) {
	f.Add(encodeTxnIndex([]AbortedTxn{{ProducerID: 1, FirstOffset: 0, LastOffset: 4, LastStableOffset: 2}, {ProducerID: 3, FirstOffset: 6, LastOffset: 6, LastStableOffset: 7}}), int64(4))
	f.Fuzz(func(t *testing.T, data []byte, base int64) {
		entries, err := decodeTxnIndex(data, record.Offset(base))
		if err != nil {
			if !errors.Is(err, ErrCorruptIndex) {
				t.Fatalf("error %v does not wrap ErrCorruptIndex", err)
			}
			return
		}
		if enc := encodeTxnIndex(entries); !bytes.Equal(enc, data) {
			t.Fatalf("re-encoded %x, input %x", enc, data)
		}
		again, err := decodeTxnIndex(encodeTxnIndex(entries), record.Offset(base))
		if err != nil || len(again) != len(entries) {
			t.Fatalf("decode(encode(x)): %v %v", again, err)
		}
		for i := range again {
			if again[i] != entries[i] {
				t.Fatalf("decode(encode(x)) entry %d: %v, want %v", i, again[i], entries[i])
			}
		}
	})
}
