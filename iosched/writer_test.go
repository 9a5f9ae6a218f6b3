package iosched

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// countingFile records writes and syncs, and can fail the N-th write.
type countingFile struct {
	buf      bytes.Buffer
	writes   int
	syncs    int
	failAt   int   // 1-based write call that fails; 0 never
	failErr  error // returned by the failing write
	zeroAt   int   // 1-based write call that returns 0, nil
	maxWrite int   // most bytes one write accepts; 0 no limit
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(c.buf.Bytes()).ReadAt(p, off)
}

func (c *countingFile) Write(p []byte) (int, error) {
	c.writes++
	if c.writes == c.failAt {
		return 0, c.failErr
	}
	if c.writes == c.zeroAt {
		return 0, nil
	}
	if c.maxWrite > 0 && len(p) > c.maxWrite {
		p = p[:c.maxWrite]
	}
	return c.buf.Write(p)
}
func (c *countingFile) Sync() error  { c.syncs++; return nil }
func (c *countingFile) Fd() uintptr  { return ^uintptr(0) }
func (c *countingFile) Name() string { return "counting.log" }

// pieces are writes of assorted sizes around a 16-byte buffer.
var pieces = []string{"a", "bcdefgh", "ijklmnop", "q", strings.Repeat("R", 40), "st", strings.Repeat("U", 16), "v", strings.Repeat("W", 15)}

func TestWriterWritesExactBytes(t *testing.T) {
	for _, policy := range []FsyncPolicy{FsyncSegment, FsyncNone} {
		f := &countingFile{}
		w := NewWriter(16, policy)
		w.Reset(f)
		var want bytes.Buffer
		for _, p := range pieces {
			if err := w.Write([]byte(p)); err != nil {
				t.Fatal(err)
			}
			want.WriteString(p)
			if w.Buffered() > w.BufferBytes() {
				t.Fatalf("buffered %d > buffer %d", w.Buffered(), w.BufferBytes())
			}
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(f.buf.Bytes(), want.Bytes()) {
			t.Fatalf("%s: wrote %q, want %q", policy, f.buf.Bytes(), want.Bytes())
		}
		wantSyncs := map[FsyncPolicy]int{FsyncSegment: 1, FsyncNone: 0}[policy]
		if f.syncs != wantSyncs {
			t.Fatalf("%s: %d syncs after one Finish, want %d", policy, f.syncs, wantSyncs)
		}
		st := w.Stats()
		if st.Bytes != int64(want.Len()) || st.Writes != int64(f.writes) || st.Syncs != int64(wantSyncs) {
			t.Fatalf("%s: stats %+v, file saw %d writes", policy, st, f.writes)
		}

		// A second file: one more sync under segment, still none under none.
		g := &countingFile{}
		w.Reset(g)
		if err := w.Write([]byte("next")); err != nil {
			t.Fatal(err)
		}
		if g.writes != 0 {
			t.Fatalf("a 4-byte write reached the file before Flush")
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		if g.buf.String() != "next" || g.syncs != wantSyncs || f.syncs != wantSyncs {
			t.Fatalf("%s: second file %q, syncs %d/%d", policy, g.buf.String(), g.syncs, f.syncs)
		}
		if w.Stats().Syncs != 2*int64(wantSyncs) {
			t.Fatalf("%s: total syncs %d", policy, w.Stats().Syncs)
		}
	}
}

func TestWriterRealFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "00000000000000000000.log.cleaned")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("existing|"); err != nil {
		t.Fatal(err)
	}
	w := NewWriter(0, "")
	if w.Policy() != FsyncSegment || w.BufferBytes() != DefaultWriteBufferBytes {
		t.Fatalf("defaults: %s, %d", w.Policy(), w.BufferBytes())
	}
	w.Reset(f)
	want := "existing|"
	big := bytes.Repeat([]byte("0123456789abcdef"), DefaultWriteBufferBytes/8) // 2 buffers
	for _, p := range [][]byte{[]byte("head"), big, []byte("tail")} {
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
		want += string(p)
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("file holds %d bytes, want %d (or content differs)", len(got), len(want))
	}
}

func TestWriterErrors(t *testing.T) {
	boom := errors.New("EIO")
	f := &countingFile{failAt: 2, failErr: boom}
	w := NewWriter(8, FsyncSegment)
	w.Reset(f)
	if err := w.Write([]byte("12345678")); err != nil { // fills the buffer
		t.Fatal(err)
	}
	if err := w.Write([]byte("9")); err != nil { // flush: write 1 succeeds
		t.Fatal(err)
	}
	err := w.Finish() // write 2 fails
	var ioe *IOError
	if !errors.Is(err, boom) || !errors.As(err, &ioe) || ioe.Path != "counting.log" || ioe.Pos != 8 {
		t.Fatalf("err = %v, want EIO at byte 8 of counting.log", err)
	}
	if f.syncs != 0 {
		t.Fatal("synced after a failed write")
	}

	// Short writes without error are continued; a zero-byte write is an error.
	s := &countingFile{maxWrite: 3}
	w.Reset(s)
	if err := w.Write([]byte("abcdefghij")); err != nil {
		t.Fatal(err)
	}
	if s.buf.String() != "abcdefghij" {
		t.Fatalf("short writes: %q", s.buf.String())
	}
	z := &countingFile{zeroAt: 1}
	w.Reset(z)
	if err := w.Write([]byte("abcdefghij")); !errors.Is(err, ErrNoProgress) || !errors.Is(err, io.ErrShortWrite) {
		t.Fatalf("zero write: %v", err)
	}

	if err := NewWriter(8, FsyncNone).Write([]byte("x")); err == nil {
		t.Fatal("Write before Reset succeeded")
	}
}

func TestParseFsyncPolicy(t *testing.T) {
	for in, want := range map[string]FsyncPolicy{"": FsyncSegment, "segment": FsyncSegment, "none": FsyncNone} {
		got, err := ParseFsyncPolicy(in)
		if err != nil || got != want {
			t.Errorf("ParseFsyncPolicy(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseFsyncPolicy("always"); err == nil || !strings.Contains(err.Error(), "always") {
		t.Errorf("ParseFsyncPolicy(always) = %v", err)
	}
}

func TestWriterDoesNotAllocate(t *testing.T) {
	f := &countingFile{}
	w := NewWriter(64, FsyncSegment)
	small, big := []byte("0123456789"), make([]byte, 100)
	allocs := testing.AllocsPerRun(100, func() {
		f.buf.Reset()
		w.Reset(f)
		for range 10 {
			if err := w.Write(small); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(big); err != nil {
			t.Fatal(err)
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per file written", allocs)
	}
}
