package iosched

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tempFile writes n pseudo-random bytes to a new file and returns it open, with the bytes.
func tempFile(t *testing.T, n int) (*os.File, []byte) {
	t.Helper()
	data := make([]byte, n)
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, data
}

func TestReaderReadsExactBytes(t *testing.T) {
	const size = 100_003
	f, data := tempFile(t, size)
	r := NewReader(4096, 16384)
	cases := []struct {
		pos, limit int64
		want       int // bytes returned
	}{
		{0, size, 4096},
		{1, size, 4096},
		{12345, size, 4096},
		{size - 4096, size, 4096},
		{size - 100, size, 100},
		{size - 1, size, 1},
		{500, 600, 100},     // limit inside the file
		{0, 4095, 4095},     // one short of the buffer
		{size, size, 0},     // at the limit
		{size + 5, size, 0}, // beyond it
	}
	for _, c := range cases {
		got, err := r.Read(f, c.pos, c.limit)
		if err != nil {
			t.Fatalf("Read(%d, %d): %v", c.pos, c.limit, err)
		}
		if len(got) != c.want {
			t.Fatalf("Read(%d, %d): %d bytes, want %d", c.pos, c.limit, len(got), c.want)
		}
		if c.want > 0 && !bytes.Equal(got, data[c.pos:c.pos+int64(c.want)]) {
			t.Fatalf("Read(%d, %d): content differs from the file", c.pos, c.limit)
		}
	}

	// Sequential reads through the whole file, growing part way, give the file back.
	var all []byte
	r.Restore()
	for pos := int64(0); pos < size; {
		if pos > size/2 && r.BufferBytes() == 4096 {
			if err := r.Grow(9000); err != nil {
				t.Fatal(err)
			}
		}
		got, err := r.Read(f, pos, size)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, got...)
		pos += int64(len(got))
	}
	if !bytes.Equal(all, data) {
		t.Fatal("sequential reads differ from the file")
	}
	st := r.Stats()
	if st.Reads == 0 || st.Bytes < size {
		t.Fatalf("stats %+v: want at least %d bytes", st, size)
	}
}

func TestReaderEOFBeforeLimit(t *testing.T) {
	f, _ := tempFile(t, 1000)
	r := NewReader(4096, 4096)
	_, err := r.Read(f, 900, 2000)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err = %v, want io.ErrUnexpectedEOF", err)
	}
	var ioe *IOError
	if !errors.As(err, &ioe) || ioe.Path != f.Name() || ioe.Pos != 1000 {
		t.Fatalf("err = %#v, want an *IOError at byte 1000 of %s", err, f.Name())
	}
	if !strings.Contains(err.Error(), f.Name()) || !strings.Contains(err.Error(), "1000") {
		t.Fatalf("error %q does not name the file and position", err)
	}
}

// chunkyFile returns at most chunk bytes per ReadAt, as a slow or interrupted
// file system may.
type chunkyFile struct {
	data  []byte
	chunk int
	calls int
}

func (c *chunkyFile) ReadAt(p []byte, off int64) (int, error) {
	c.calls++
	if off >= int64(len(c.data)) {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.chunk)], c.data[off:])
	if n == len(p) && off+int64(n) == int64(len(c.data)) {
		return n, io.EOF // a full read ending at EOF, allowed by io.ReaderAt
	}
	return n, nil
}
func (c *chunkyFile) Write(p []byte) (int, error) { return 0, errors.New("read only") }
func (c *chunkyFile) Sync() error                 { return nil }
func (c *chunkyFile) Fd() uintptr                 { return ^uintptr(0) }
func (c *chunkyFile) Name() string                { return "chunky" }

func TestReaderRetriesShortReads(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 10))
	f := &chunkyFile{data: data, chunk: 7}
	r := NewReader(64, 64)
	got, err := r.Read(f, 36, 100)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(data[36:100]) {
		t.Fatalf("got %q", got)
	}
	if want := int64((64 + 6) / 7); r.Stats().Reads != want {
		t.Fatalf("reads = %d, want %d", r.Stats().Reads, want)
	}

	stuck := &chunkyFile{data: data, chunk: 0}
	if _, err := r.Read(stuck, 0, 100); !errors.Is(err, ErrNoProgress) {
		t.Fatalf("err = %v, want ErrNoProgress", err)
	}
}

func TestReaderGrowAndRestore(t *testing.T) {
	r := NewReader(4096, 10000)
	if r.BufferBytes() != 4096 {
		t.Fatalf("initial %d", r.BufferBytes())
	}
	if err := r.Grow(4096); err != nil || r.BufferBytes() != 4096 {
		t.Fatalf("Grow(4096): %v, size %d", err, r.BufferBytes())
	}
	if err := r.Grow(5000); err != nil || r.BufferBytes() != 8192 {
		t.Fatalf("Grow(5000): %v, size %d, want 8192", err, r.BufferBytes())
	}
	if err := r.Grow(9000); err != nil || r.BufferBytes() != 10000 {
		t.Fatalf("Grow(9000): %v, size %d, want the cap 10000", err, r.BufferBytes())
	}
	err := r.Grow(10001)
	if !errors.Is(err, ErrBatchTooLarge) {
		t.Fatalf("Grow(10001) = %v, want ErrBatchTooLarge", err)
	}
	for _, n := range []int{10001, 10000} {
		if !strings.Contains(err.Error(), strconv.Itoa(n)) {
			t.Fatalf("error %q does not name %d", err, n)
		}
	}
	if r.BufferBytes() != 10000 {
		t.Fatalf("failed Grow changed the size to %d", r.BufferBytes())
	}
	r.Restore()
	if r.BufferBytes() != 4096 {
		t.Fatalf("after Restore %d", r.BufferBytes())
	}

	d := NewReader(0, 0)
	if d.BufferBytes() != DefaultReadBufferBytes || d.MaxBufferBytes() != DefaultReadBufferBytes {
		t.Fatalf("defaults: %d, %d", d.BufferBytes(), d.MaxBufferBytes())
	}
	k := NewReader(DefaultReadBufferBytes, DefaultMaxBufferBytes)
	if err := k.Grow(DefaultMaxBufferBytes); err != nil || k.BufferBytes() != DefaultMaxBufferBytes {
		t.Fatalf("Kafka sizes: %v, %d", err, k.BufferBytes())
	}
}

func TestReaderDoesNotAllocate(t *testing.T) {
	f := &chunkyFile{data: make([]byte, 1<<16), chunk: 1 << 16}
	r := NewReader(4096, 1<<16)
	if len(r.backing) != 4096 {
		t.Fatalf("NewReader allocated %d bytes, want the initial 4096", len(r.backing))
	}
	// AllocsPerRun runs the function once before counting: that run grows the array
	// to 32 KiB, and later rounds reuse it.
	allocs := testing.AllocsPerRun(100, func() {
		r.Restore()
		if _, err := r.Read(f, 0, 1<<16); err != nil {
			t.Fatal(err)
		}
		if err := r.Grow(1 << 15); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Read(f, 100, 1<<16); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per Read/Grow/Restore round", allocs)
	}
}

// TestReadStatsAdd: every count is summed; the first reason is the
// receiver's unless it has none.
func TestReadStatsAdd(t *testing.T) {
	a := ReadStats{Bytes: 1, Reads: 2, Time: 3, Maps: 4, Advice: 5, AdviceErrors: 6, ReadaheadSteps: 7, ReadaheadErrors: 8,
		ReadaheadBytes: 9, ReadaheadCachedBytes: 10, DroppedBytes: 11, Fallbacks: 12, LastFallbackReason: "a last"}
	b := ReadStats{Bytes: 100, Reads: 200, Time: 300, Maps: 400, Advice: 500, AdviceErrors: 600, ReadaheadSteps: 700, ReadaheadErrors: 800,
		ReadaheadBytes: 900, ReadaheadCachedBytes: 1000, DroppedBytes: 1100, Fallbacks: 1200, FallbackReason: "b first", LastFallbackReason: "b last"}
	want := ReadStats{Bytes: 101, Reads: 202, Time: 303, Maps: 404, Advice: 505, AdviceErrors: 606, ReadaheadSteps: 707, ReadaheadErrors: 808,
		ReadaheadBytes: 909, ReadaheadCachedBytes: 1010, DroppedBytes: 1111, Fallbacks: 1212, FallbackReason: "b first", LastFallbackReason: "a last"}
	if got := a.Add(b); got != want {
		t.Errorf("Add = %+v, want %+v", got, want)
	}
}
