package iosched

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixtureLogs returns the .log files of the real Kafka fixtures in the
// repository's testdata/kafka-real; the test fails when they are absent.
func fixtureLogs(t *testing.T) []string {
	t.Helper()
	root := "../testdata/kafka-real"
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		t.Fatalf("real-Kafka fixtures %s missing (they are in the repository): %v", root, err)
	}
	var logs []string
	var err error
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.HasSuffix(p, ".log") {
			logs = append(logs, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) == 0 {
		t.Fatalf("no .log files under %s", root)
	}
	return logs
}

// readAll walks f from 0 to size the way the engine's batch iterator does:
// each step keeps only part of what a Read returned (a batch that does not
// fit is read again from its start), grows the window once part way and
// restores it at the end. It returns the bytes in file order.
func readAll(t *testing.T, r SegmentReader, f File, size int64) []byte {
	t.Helper()
	var out []byte
	grown := false
	for pos, step := int64(0), 0; pos < size; step++ {
		if !grown && pos > size/2 {
			if err := r.Grow(3 * r.BufferBytes()); err != nil {
				t.Fatal(err)
			}
			grown = true
		}
		got, err := r.Read(f, pos, size)
		if err != nil {
			t.Fatalf("%s: Read(%d, %d): %v", r.Path(), pos, size, err)
		}
		if len(got) == 0 || len(got) > r.BufferBytes() {
			t.Fatalf("%s: Read(%d, %d) returned %d bytes, window %d", r.Path(), pos, size, len(got), r.BufferBytes())
		}
		keep := len(got)
		if step%3 == 1 && keep > 1 {
			keep = keep/2 + 1 // the rest is a batch cut by the window's end
		}
		out = append(out, got[:keep]...)
		pos += int64(keep)
	}
	r.Restore()
	return out
}

// readFrom reads f from byte from to size, window after window as Read
// returns them, and returns the bytes; unlike readAll it keeps the file
// (no Restore), so a test can wait for its read-ahead helper first.
func readFrom(t *testing.T, r SegmentReader, f File, from, size int64) []byte {
	t.Helper()
	var got []byte
	for pos := from; pos < size; {
		b, err := r.Read(f, pos, size)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, b...)
		pos += int64(len(b))
	}
	return got
}

func newPath(t *testing.T, p ReadPath, buf, max int) SegmentReader {
	t.Helper()
	r, err := NewSegmentReader(ReaderOptions{Path: p, BufferBytes: buf, MaxBufferBytes: max})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path() != p {
		t.Fatalf("Path() = %s, want %s", r.Path(), p)
	}
	return r
}

// TestReadPathsByteExactOnFixtures reads every real Kafka segment through
// each read path, with a small window so that most files take many reads,
// and compares the bytes with the file's.
func TestReadPathsByteExactOnFixtures(t *testing.T) {
	logs := fixtureLogs(t)
	for _, p := range ReadPaths() {
		for _, dropBehind := range []bool{false, true} {
			r := newPath(t, p, 4096, 1<<20)
			r.SetDropBehind(dropBehind)
			var total int64
			for _, path := range logs {
				want, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				got := readAll(t, r, f, int64(len(want)))
				f.Close()
				if !bytes.Equal(got, want) {
					t.Fatalf("%s (drop-behind %v): %s differs from the file", p, dropBehind, path)
				}
				total += int64(len(want))
			}
			if st := r.Stats(); st.Bytes < total || st.Fallbacks != 0 || st.AdviceErrors != 0 {
				t.Fatalf("%s: stats %+v after %d file bytes", p, st, total)
			}
		}
	}
}

func TestReadPathsSyntheticFile(t *testing.T) {
	const size = 1<<20 + 12345 // not a whole number of blocks
	f, data := tempFile(t, size)
	for _, p := range ReadPaths() {
		r := newPath(t, p, 8192, 64<<10)
		if got := readAll(t, r, f, size); !bytes.Equal(got, data) {
			t.Fatalf("%s: bytes differ", p)
		}
		// Reads at odd positions and limits inside the file.
		for _, c := range []struct{ pos, limit int64 }{{1, size}, {4095, 4097}, {size - 1, size}, {12345, 12345 + 8192}, {500, 600}} {
			got, err := r.Read(f, c.pos, c.limit)
			if err != nil {
				t.Fatalf("%s: Read(%d, %d): %v", p, c.pos, c.limit, err)
			}
			if want := data[c.pos:min(c.limit, c.pos+8192)]; !bytes.Equal(got, want) {
				t.Fatalf("%s: Read(%d, %d): %d bytes, want %d (or content differs)", p, c.pos, c.limit, len(got), len(want))
			}
		}
		if got, err := r.Read(f, size, size); err != nil || len(got) != 0 {
			t.Fatalf("%s: Read at the limit: %d bytes, %v", p, len(got), err)
		}
		r.Restore()
		// A limit past the end of the file: the pread and direct paths
		// find the end while reading, mmap by fstat before mapping.
		_, err := r.Read(f, size-100, size+100)
		var ioe *IOError
		if !errors.Is(err, io.ErrUnexpectedEOF) || !errors.As(err, &ioe) || ioe.Path != f.Name() {
			t.Fatalf("%s: reading past the end: %v", p, err)
		}
		r.Restore()
		if err := r.Grow(64<<10 + 1); !errors.Is(err, ErrBatchTooLarge) {
			t.Fatalf("%s: Grow past the cap: %v", p, err)
		}
	}
}

func TestDirectFallback(t *testing.T) {
	data := []byte(strings.Repeat("0123456789", 100))
	noFd := &chunkyFile{data: data, chunk: 1000}

	strict := newPath(t, ReadDirect, 4096, 4096)
	if _, err := strict.Read(noFd, 0, 1000); !errors.Is(err, ErrDirectUnsupported) || !strings.Contains(err.Error(), "chunky") {
		t.Fatalf("direct without fallback on a file with no descriptor: %v", err)
	}

	r, err := NewSegmentReader(ReaderOptions{Path: ReadDirect, BufferBytes: 4096, DirectFallback: true})
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Read(noFd, 10, 1000)
	if err != nil || string(got) != string(data[10:]) {
		t.Fatalf("fallback read: %q, %v", got, err)
	}
	if _, err := r.Read(noFd, 20, 1000); err != nil {
		t.Fatal(err)
	}
	st := r.Stats()
	if st.Fallbacks != 1 || !strings.Contains(st.FallbackReason, "chunky") || st.LastFallbackReason != st.FallbackReason {
		t.Fatalf("one file fell back: stats %+v", st)
	}
	// A second file that falls back: the first reason stays, the latest
	// names it.
	other := &namedFile{chunkyFile: &chunkyFile{data: data, chunk: 1000}, name: "second.log"}
	if _, err := r.Read(other, 0, 1000); err != nil {
		t.Fatal(err)
	}
	st = r.Stats()
	if st.Fallbacks != 2 || !strings.Contains(st.FallbackReason, "chunky") || !strings.Contains(st.LastFallbackReason, "second.log") {
		t.Fatalf("two files fell back: Fallbacks %d, first %q, latest %q", st.Fallbacks, st.FallbackReason, st.LastFallbackReason)
	}

	m := newPath(t, ReadMmap, 4096, 4096)
	if _, err := m.Read(noFd, 0, 1000); err == nil || !strings.Contains(err.Error(), "descriptor") {
		t.Fatalf("mmap of a file with no descriptor: %v", err)
	}
}

// TestReadaheadHintCalls counts the advice each hint gives over one file of
// 100,003 bytes read in 4,096-byte windows: 25 reads (24 whole windows and
// 1,699 bytes). sequential advises once per file; willneed once per read
// that does not reach the end (24); none never.
func TestReadaheadHintCalls(t *testing.T) {
	const size = 100_003
	f, data := tempFile(t, size)
	for hint, wantAdvice := range map[ReadaheadHint]int64{HintNone: 0, HintSequential: 1, HintWillneed: 24} {
		r, err := NewSegmentReader(ReaderOptions{BufferBytes: 4096, MaxBufferBytes: 4096, Readahead: hint})
		if err != nil {
			t.Fatal(err)
		}
		got := readFrom(t, r, f, 0, size)
		r.Restore()
		st := r.Stats()
		if !bytes.Equal(got, data) || st.Reads != 25 || st.Advice != wantAdvice || st.AdviceErrors != 0 {
			t.Fatalf("hint %s: %d reads, %d advice (%d failed), want 25 and %d", hint, st.Reads, st.Advice, st.AdviceErrors, wantAdvice)
		}
	}
	if _, err := ParseReadaheadHint("often"); err == nil {
		t.Fatal("ParseReadaheadHint(often) succeeded")
	}
	if _, err := ParseReadPath("aio"); err == nil || !strings.Contains(err.Error(), "aio") {
		t.Fatalf("ParseReadPath(aio) = %v", err)
	}
}

// namedFile is a chunkyFile with a name of its own.
type namedFile struct {
	*chunkyFile
	name string
}

func (f *namedFile) Name() string { return f.name }
