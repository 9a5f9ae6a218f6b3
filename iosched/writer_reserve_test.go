package iosched

import (
	"bytes"
	"errors"
	"testing"
)

// reservePieces writes every other piece through Reserve and Commit (the
// piece appended to the tail in place), the others through Write, and
// returns what the file must hold. A piece longer than the buffer gets a
// nil tail and goes through Write.
func reservePieces(t *testing.T, w *Writer, pieces [][]byte) []byte {
	t.Helper()
	var want []byte
	for i, p := range pieces {
		want = append(want, p...)
		if i%2 == 1 {
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		tail, err := w.Reserve(len(p))
		if err != nil {
			t.Fatal(err)
		}
		if tail == nil {
			if len(p) <= w.BufferBytes() {
				t.Fatalf("piece %d: no tail for %d bytes in a %d-byte buffer", i, len(p), w.BufferBytes())
			}
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if len(tail) != 0 || cap(tail) < len(p) {
			t.Fatalf("piece %d: tail of %d bytes, capacity %d, want empty with room for %d", i, len(tail), cap(tail), len(p))
		}
		if out := append(tail, p...); &out[0] != &tail[:1][0] {
			t.Fatalf("piece %d: appending to the tail moved it", i)
		}
		w.Commit(len(p))
		if w.Buffered() > w.BufferBytes() {
			t.Fatalf("piece %d: buffered %d > buffer %d", i, w.Buffered(), w.BufferBytes())
		}
	}
	return want
}

// TestWriterReserve: bytes appended in place through Reserve and Commit
// reach the file in order with Write's, exactly, whether the writer writes
// itself or behind, through a 16-byte buffer with pieces shorter than it,
// as long as it, and longer.
func TestWriterReserve(t *testing.T) {
	var pieces [][]byte
	for _, p := range []string{"a", "bcdefgh", "ijklmnop", "q", "0123456789abcdef", "st", "RRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR", "v", "WWWWWWWWWWWWWWW", "xyz"} {
		pieces = append(pieces, []byte(p))
	}
	for _, behind := range []bool{false, true} {
		f := &countingFile{}
		w := NewWriter(16, FsyncNone)
		w.SetWriteBehind(behind)
		w.Reset(f)
		want := reservePieces(t, w, pieces)
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.buf.Bytes(), want) {
			t.Fatalf("behind %v: wrote %q, want %q", behind, f.buf.Bytes(), want)
		}
		if st := w.Stats(); st.Bytes != int64(len(want)) {
			t.Fatalf("behind %v: stats count %d bytes, want %d", behind, st.Bytes, len(want))
		}
	}
}

// TestWriterReserveErrors: Reserve before Reset is an error; a flush that
// fails inside Reserve returns its error.
func TestWriterReserveErrors(t *testing.T) {
	w := NewWriter(16, FsyncNone)
	if _, err := w.Reserve(1); err == nil {
		t.Fatal("Reserve before Reset: no error")
	}
	boom := errors.New("EIO")
	f := &countingFile{failAt: 1, failErr: boom}
	w.Reset(f)
	if err := w.Write([]byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Reserve(10); !errors.Is(err, boom) {
		t.Fatalf("Reserve flushing onto a failing write: %v, want %v", err, boom)
	}
}
