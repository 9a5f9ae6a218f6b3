package iosched

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestReadaheadBytesCalls counts the WILLNEED calls of a read-ahead
// distance of 16,384 bytes over one file of 100,003 bytes read from its
// start in 4,096-byte windows (25 reads): the first read asks for
// [0, 16384), and each read that finds half the distance or less asked for
// ahead of it asks up to its position + 16,384, capped at the file's end.
// That is the reads at 0, 8192, ..., 90112: 12 calls. Read from 50,000 on,
// the reads at 50000, 58192, ..., 90960 ask: 6 calls.
func TestReadaheadBytesCalls(t *testing.T) {
	const size = 100_003
	f, data := tempFile(t, size)
	for _, c := range []struct {
		from       int64
		wantReads  int64
		wantAdvice int64
	}{{0, 25, 12}, {50_000, 13, 6}} {
		r, err := NewSegmentReader(ReaderOptions{BufferBytes: 4096, MaxBufferBytes: 4096, ReadaheadBytes: 16384})
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for pos := c.from; pos < size; {
			b, err := r.Read(f, pos, size)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, b...)
			pos += int64(len(b))
		}
		r.Restore()
		st := r.Stats()
		if !bytes.Equal(got, data[c.from:]) || st.Reads != c.wantReads || st.Advice != c.wantAdvice || st.AdviceErrors != 0 {
			t.Fatalf("from %d: %d reads, %d advice (%d failed), want %d and %d", c.from, st.Reads, st.Advice, st.AdviceErrors, c.wantReads, c.wantAdvice)
		}
	}
}

// TestReadaheadBytesSameBytes reads the real Kafka segments and a synthetic
// file with and without a read-ahead distance, the engine's way (partial
// batches read again, the window grown part way), and compares the bytes;
// with the willneed hint too, whose window the distance already covers.
func TestReadaheadBytesSameBytes(t *testing.T) {
	f, data := tempFile(t, 3<<20+4321)
	for _, o := range []ReaderOptions{
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20},
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20, ReadaheadBytes: 1 << 20},
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20, ReadaheadBytes: 100_000, Readahead: HintWillneed},
		{BufferBytes: 8192, MaxBufferBytes: 1 << 20, ReadaheadBytes: 64 << 20},
	} {
		r, err := NewSegmentReader(o)
		if err != nil {
			t.Fatal(err)
		}
		r.SetDropBehind(o.ReadaheadBytes == 100_000)
		if got := readAll(t, r, f, int64(len(data))); !bytes.Equal(got, data) {
			t.Fatalf("%+v: bytes differ", o)
		}
		if st := r.Stats(); st.AdviceErrors != 0 || (o.ReadaheadBytes > 0) != (st.Advice > 0) {
			t.Fatalf("%+v: stats %+v", o, st)
		}
	}
	for _, path := range fixtureLogs(t) {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		g, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewSegmentReader(ReaderOptions{BufferBytes: 4096, MaxBufferBytes: 1 << 20, ReadaheadBytes: 32 << 10})
		if err != nil {
			t.Fatal(err)
		}
		got := readAll(t, r, g, int64(len(want)))
		g.Close()
		if !bytes.Equal(got, want) {
			t.Fatalf("%s differs from the file with read-ahead", path)
		}
	}
}

func TestReadaheadBytesNegative(t *testing.T) {
	_, err := NewSegmentReader(ReaderOptions{ReadaheadBytes: -1})
	if err == nil || !strings.Contains(err.Error(), "read-ahead") || !strings.Contains(err.Error(), "-1") {
		t.Fatalf("ReadaheadBytes -1: %v", err)
	}
}
