package iosched

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestDirectWriterReserve: with O_DIRECT output (whole blocks from the
// aligned buffer, a partial block kept for the next flush), pieces
// appended in place reach the file exactly.
func TestDirectWriterReserve(t *testing.T) {
	pieces, _ := directPieces()
	pieces = append(pieces, bytes.Repeat([]byte{7}, 9000)) // longer than the buffer
	for _, behind := range []bool{false, true} {
		f, err := os.Create(filepath.Join(t.TempDir(), "00000000000000000000.log.cleaned"))
		if err != nil {
			t.Fatal(err)
		}
		w := NewWriter(8192, FsyncSegment)
		w.SetDirect(8192)
		w.SetWriteBehind(behind)
		w.Reset(f)
		want := reservePieces(t, w, pieces)
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(f.Name())
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("behind %v: file differs (%d bytes, want %d; %v)", behind, len(got), len(want), err)
		}
		if w.Stats().DirectBytes == 0 {
			t.Fatalf("behind %v: nothing written direct: %+v", behind, w.Stats())
		}
		f.Close()
	}
}
