package iosched

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWriteBehindWritesTheSame writes the same pieces through a plain
// Writer and a write-behind one, over two files each: the files' bytes, the
// number and sizes of write(2) calls, the syncs and the stats must match.
func TestWriteBehindWritesTheSame(t *testing.T) {
	for _, policy := range []FsyncPolicy{FsyncSegment, FsyncNone} {
		var files [2][2]*countingFile
		var stats [2]WriteStats
		for i, behind := range []bool{false, true} {
			w := NewWriter(16, policy)
			w.SetWriteBehind(behind)
			if w.WriteBehind() != behind {
				t.Fatalf("WriteBehind() = %v after SetWriteBehind(%v)", w.WriteBehind(), behind)
			}
			for j := range 2 {
				f := &countingFile{}
				files[i][j] = f
				w.Reset(f)
				for _, p := range pieces {
					if err := w.Write([]byte(p)); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Finish(); err != nil {
					t.Fatal(err)
				}
			}
			stats[i] = w.Stats()
		}
		want := strings.Join(pieces, "")
		for j := range 2 {
			plain, behind := files[0][j], files[1][j]
			if behind.buf.String() != want || plain.buf.String() != want {
				t.Errorf("%s file %d: write-behind wrote %q, plain %q, want %q", policy, j, behind.buf.String(), plain.buf.String(), want)
			}
			if behind.writes != plain.writes || behind.syncs != plain.syncs {
				t.Errorf("%s file %d: write-behind %d writes %d syncs, plain %d and %d", policy, j, behind.writes, behind.syncs, plain.writes, plain.syncs)
			}
		}
		if s, p := stats[1], stats[0]; s.Bytes != p.Bytes || s.Writes != p.Writes || s.Syncs != p.Syncs || s.Bytes != 2*int64(len(want)) {
			t.Errorf("%s: write-behind stats %+v, plain %+v", policy, s, p)
		}
	}
}

// TestWriteBehindReportsErrors: a write that fails behind the caller is
// reported by a later call (here the 2nd write(2) fails: the first full
// buffer is written, the second fails while the caller fills the third),
// never lost, and Finish does not sync after it.
func TestWriteBehindReportsErrors(t *testing.T) {
	boom := errors.New("disk on fire")
	f := &countingFile{failAt: 2, failErr: boom}
	w := NewWriter(16, FsyncSegment)
	w.SetWriteBehind(true)
	w.Reset(f)
	var err error
	for i := 0; i < 10 && err == nil; i++ {
		err = w.Write(bytes.Repeat([]byte{byte('a' + i)}, 10))
	}
	if err == nil {
		err = w.Finish()
	}
	var ioe *IOError
	if !errors.Is(err, boom) || !errors.As(err, &ioe) || ioe.Op != "write" || ioe.Path != "counting.log" {
		t.Fatalf("error = %v, want the write's *IOError wrapping %v", err, boom)
	}
	if f.syncs != 0 {
		t.Errorf("%d syncs after a failed write, want 0", f.syncs)
	}
}

// TestWriteBehindRealFile writes 1 MiB in 4 KiB buffers to a real file with
// write-behind and the bytes=N policy (whose sync_file_range runs behind
// too) and reads it back.
func TestWriteBehindRealFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := NewWriter(4096, FsyncBytes(64<<10))
	w.SetWriteBehind(true)
	w.Reset(f)
	var want []byte
	for i := range 1000 {
		p := bytes.Repeat([]byte{byte(i)}, 1+i%2000)
		want = append(want, p...)
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("file holds %d bytes (err %v), want the %d written", len(got), err, len(want))
	}
	if st := w.Stats(); st.RangeSyncs == 0 || st.Datasyncs != 1 || st.Bytes != int64(len(want)) {
		t.Errorf("stats %+v: want range syncs, one fdatasync, %d bytes", st, len(want))
	}
}

// TestWriteBehindWait: Wait returns once the buffer in flight is in the
// file, with its error, and is a no-op without write-behind.
func TestWriteBehindWait(t *testing.T) {
	f := &countingFile{}
	w := NewWriter(8, FsyncNone)
	if err := w.Wait(); err != nil {
		t.Fatalf("Wait with nothing in flight: %v", err)
	}
	w.SetWriteBehind(true)
	w.Reset(f)
	for _, p := range []string{"abcdef", "ghijkl"} { // the second flushes the first
		if err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := f.buf.String(); got != "abcdef" {
		t.Errorf("after Wait the file holds %q, want the flushed %q", got, "abcdef")
	}
	boom := errors.New("eio")
	g := &countingFile{failAt: 1, failErr: boom}
	w.Reset(g)
	w.Write([]byte("abcdef"))
	w.Write([]byte("ghijkl"))
	if err := w.Wait(); !errors.Is(err, boom) {
		t.Errorf("Wait after a failed write behind = %v, want %v", err, boom)
	}
}

// TestWriteBehindInline: when a write-behind goroutine has not started by
// the time the caller needs its buffer back, the caller writes the buffer
// itself, and the goroutine, starting later, writes nothing. The
// goroutines are held before they claim their jobs, so every buffer is
// written inline. Seven 10-byte pieces through a 16-byte buffer: each
// piece after the first does not fit behind the one buffered, so 6 Writes
// flush 10 bytes each and Finish flushes the last 10: 7 buffers, 7
// write(2) calls in order, 1 fsync.
func TestWriteBehindInline(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 16)
	f := &countingFile{}
	w := NewWriter(16, FsyncSegment)
	w.beforeJob = func() {
		started <- struct{}{}
		select { // held until the end (a Writer that only waited would hang without the timeout)
		case <-release:
		case <-time.After(2 * time.Second):
		}
	}
	w.SetWriteBehind(true)
	w.Reset(f)
	var want []byte
	for i := range 7 {
		p := bytes.Repeat([]byte{byte('a' + i)}, 10)
		want = append(want, p...)
		if err := w.Write(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	st := w.Stats()
	close(release)
	for range st.BehindWrites {
		<-started
	}
	if got := f.buf.String(); got != string(want) {
		t.Fatalf("file = %q, want %q", got, want)
	}
	if st.BehindWrites != 7 || st.BehindInline != 7 {
		t.Errorf("BehindWrites %d, BehindInline %d: want 7 and 7", st.BehindWrites, st.BehindInline)
	}
	if f.writes != 7 || f.syncs != 1 {
		t.Errorf("%d writes, %d syncs: want 7 and 1", f.writes, f.syncs)
	}
}
