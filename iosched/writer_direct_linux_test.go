package iosched

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// directPieces is 12,388 bytes in pieces of 1,000 (the last 388), each
// byte its position mod 251.
func directPieces() ([][]byte, []byte) {
	all := make([]byte, 12_388)
	for i := range all {
		all[i] = byte(i % 251)
	}
	var pieces [][]byte
	for i := 0; i < len(all); i += 1000 {
		pieces = append(pieces, all[i:min(i+1000, len(all))])
	}
	return pieces, all
}

// writePieces writes pieces to f through w, from Reset to Finish.
func writePieces(t *testing.T, w *Writer, f File, pieces [][]byte) {
	t.Helper()
	w.Reset(f)
	for _, p := range pieces {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
}

// TestDirectWriterRealFile writes 12,388 bytes through an 8,192-byte
// buffer with O_DIRECT output, plain and behind the caller: the full
// buffer goes out whole, 8,192 bytes (1 write); Finish's flush sends the next whole block, 4,096 bytes
// (1 write), and writes the 100-byte tail through the page cache (1
// write); then one fsync. So 12,288 bytes go direct, 3 writes in all, and
// the file holds exactly the bytes, with its offset at the end. Of the
// file only the tail's page is in the page cache afterwards.
func TestDirectWriterRealFile(t *testing.T) {
	pieces, all := directPieces()
	for _, behind := range []bool{false, true} {
		f, err := os.Create(filepath.Join(t.TempDir(), "00000000000000000000.log.cleaned"))
		if err != nil {
			t.Fatal(err)
		}
		w := NewWriter(8192, FsyncSegment)
		w.SetDirect(8192)
		w.SetWriteBehind(behind)
		writePieces(t, w, f, pieces)
		st := w.Stats()
		if st.Bytes != 12_388 || st.DirectBytes != 12_288 || st.Writes != 3 || st.Syncs != 1 || st.DirectFallbacks != 0 {
			t.Fatalf("behind %v: stats %+v", behind, st)
		}
		if w.dfd != -1 {
			t.Fatalf("behind %v: O_DIRECT descriptor %d left open after Finish", behind, w.dfd)
		}
		if off, err := f.Seek(0, io.SeekCurrent); err != nil || off != 12_388 {
			t.Fatalf("behind %v: file offset %d (%v), want 12388", behind, off, err)
		}
		if cs, err := RangeCacheState(f, 0, 12_388); err == nil && cs.CachedBytes > 4096 {
			t.Fatalf("behind %v: %d bytes of the file cached, want at most the tail's page", behind, cs.CachedBytes)
		}
		got, err := os.ReadFile(f.Name())
		if err != nil || !bytes.Equal(got, all) {
			t.Fatalf("behind %v: file differs (%d bytes, %v)", behind, len(got), err)
		}
		// The next file, Reset on the same Writer, is written direct too.
		g, err := os.Create(f.Name() + ".2")
		if err != nil {
			t.Fatal(err)
		}
		w.Reset(g)
		if err := w.Write(all[:5000]); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(g.Name()); err != nil || !bytes.Equal(got, all[:5000]) || w.Stats().DirectBytes != 12_288+4096 {
			t.Fatalf("behind %v: second file: %d bytes, %v, stats %+v", behind, len(got), err, w.Stats())
		}
		f.Close()
		g.Close()
	}
}

// TestDirectWriterFallsBack: a file whose writing starts at byte 10 (an
// O_APPEND file of 10 bytes), and a file with no OS descriptor, are
// written through the page cache, counted, the first and the latest
// cause said; an O_APPEND file of 4,096 bytes is written direct from
// there.
func TestDirectWriterFallsBack(t *testing.T) {
	pieces, all := directPieces()
	dir := t.TempDir()
	w := NewWriter(8192, FsyncSegment)
	w.SetDirect(8192)
	for _, c := range []struct {
		head       int
		wantDirect int64
	}{{10, 0}, {4096, 12_288}} {
		path := filepath.Join(dir, fmt.Sprintf("head%d.log", c.head))
		if err := os.WriteFile(path, all[:c.head], 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		before := w.Stats().DirectBytes
		writePieces(t, w, f, pieces)
		f.Close()
		if got := w.Stats().DirectBytes - before; got != c.wantDirect {
			t.Errorf("head %d: %d bytes direct, want %d", c.head, got, c.wantDirect)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, append(all[:c.head:c.head], all...)) {
			t.Errorf("head %d: file differs (%d bytes, %v)", c.head, len(got), err)
		}
	}
	cf := &countingFile{}
	writePieces(t, w, cf, pieces)
	st := w.Stats()
	if cf.buf.String() != string(all) || st.DirectFallbacks != 2 || !strings.Contains(st.DirectFallbackReason, "starts at byte 10, not a multiple of 4096") {
		t.Fatalf("stats %+v; counting file got %d bytes", st, cf.buf.Len())
	}
	if !strings.Contains(st.LastDirectFallbackReason, "counting.log: the file has no OS descriptor") {
		t.Errorf("latest fallback reason %q, want the counting file's", st.LastDirectFallbackReason)
	}
}

// TestDirectWriterDropBehind: in the cache-friendly mode with O_DIRECT
// output only the 100-byte tail went through the page cache, so only it
// is dropped and counted (the 12,288 direct bytes never were cached).
func TestDirectWriterDropBehind(t *testing.T) {
	pieces, all := directPieces()
	f, err := os.Create(filepath.Join(t.TempDir(), "drop.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewWriter(8192, FsyncSegment)
	w.SetDirect(8192)
	w.SetDropBehind(true)
	writePieces(t, w, f, pieces)
	if st := w.Stats(); st.DirectBytes != 12_288 || st.DroppedBytes != 100 {
		t.Fatalf("stats %+v: want 12288 bytes direct and the 100-byte tail dropped", st)
	}
	if got, err := os.ReadFile(f.Name()); err != nil || !bytes.Equal(got, all) {
		t.Fatalf("file differs (%d bytes, %v)", len(got), err)
	}
}

// TestDirectWriterRefusedWrite: a file system that takes the O_DIRECT open
// but refuses the first direct write (EINVAL, as one needing a larger
// alignment does) gets the file through the page cache, whole and right,
// counted as a fallback with its cause; the next file tries direct again.
func TestDirectWriterRefusedWrite(t *testing.T) {
	pieces, all := directPieces()
	refuse := true
	directPwrite = func(fd int, p []byte, off int64) (int, error) {
		if refuse {
			refuse = false
			return 0, errInvalid
		}
		return pwriteFull(fd, p, off)
	}
	defer func() { directPwrite = pwriteFull }()
	dir := t.TempDir()
	w := NewWriter(8192, FsyncSegment)
	w.SetDirect(8192)
	for i, wantDirect := range []int64{0, 12_288} {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("refused%d.log", i)))
		if err != nil {
			t.Fatal(err)
		}
		before := w.Stats().DirectBytes
		writePieces(t, w, f, pieces)
		f.Close()
		if got, err := os.ReadFile(f.Name()); err != nil || !bytes.Equal(got, all) {
			t.Fatalf("file %d differs (%d bytes, %v)", i, len(got), err)
		}
		if got := w.Stats().DirectBytes - before; got != wantDirect {
			t.Errorf("file %d: %d bytes direct, want %d", i, got, wantDirect)
		}
	}
	if st := w.Stats(); st.DirectFallbacks != 1 || !strings.Contains(st.DirectFallbackReason, "O_DIRECT write refused") {
		t.Fatalf("stats %+v: want one fallback, its cause said", st)
	}
}
