package engine

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// wantCorruption asserts that err is a *record.CorruptionError naming path
// and pos, and that its message says both.
func wantCorruption(t *testing.T, what string, err error, path string, pos int64) *record.CorruptionError {
	t.Helper()
	var ce *record.CorruptionError
	if !errors.As(err, &ce) {
		t.Fatalf("%s: %v, want a *record.CorruptionError", what, err)
	}
	if ce.Path != path || ce.Pos != pos {
		t.Errorf("%s: corruption at %s byte %d, want %s byte %d", what, ce.Path, ce.Pos, path, pos)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "byte "+strconv.FormatInt(pos, 10)) {
		t.Errorf("%s: message %q does not name the file and byte position", what, msg)
	}
	return ce
}

// openAll opens dir read-only and read-write and verifies it, returning the
// three errors; any log that opens is closed.
func openAll(t *testing.T, dir string) (ro, rw, verify error) {
	t.Helper()
	if l, err := Open(dir, Options{ReadOnly: true}); err == nil {
		l.Close()
	} else {
		ro = err
	}
	if l, err := Open(dir, Options{}); err == nil {
		l.Close()
	} else {
		rw = err
	}
	_, verify = Verify(dir, VerifyOptions{})
	return ro, rw, verify
}

func TestBadInputMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent-0")
	ro, rw, verify := openAll(t, dir)
	for what, err := range map[string]error{"read-only open": ro, "open": rw, "verify": verify} {
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s: %v, want a not-exist error naming %s", what, err, dir)
		}
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the missing directory was created: %v", err)
	}
}

func TestBadInputNotASegment(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "junk-0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	junk := make([]byte, 300)
	for i := range junk {
		junk[i] = byte(rng.Uint32())
	}
	path := seg(dir, 0, LogFileSuffix)
	if err := os.WriteFile(path, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	before := hashTree(t, root)
	ro, rw, verify := openAll(t, dir)
	wantCorruption(t, "read-only open", ro, path, 0)
	wantCorruption(t, "open", rw, path, 0)
	wantCorruption(t, "verify", verify, path, 0)
	if d := diffHashes(before, hashTree(t, root)); d != "" {
		t.Errorf("files changed: %s", d)
	}
}

func TestBadInputTruncatedBatch(t *testing.T) {
	for _, base := range []record.Offset{0, 5} { // an inactive segment; the active one (a torn tail)
		t.Run("seg@"+strconv.FormatInt(int64(base), 10), func(t *testing.T) {
			dir := threeSegmentLog(t)
			root := filepath.Dir(dir)
			path := seg(dir, base, LogFileSuffix)
			pos := batchPositions(t, path)
			last := pos[len(pos)-1]
			// Cut the last batch of the file in the middle of its header.
			if err := os.Truncate(path, last+30); err != nil {
				t.Fatal(err)
			}
			before := hashTree(t, root)
			ro, rw, verify := openAll(t, dir)
			wantCorruption(t, "read-only open", ro, path, last)
			ce := wantCorruption(t, "open", rw, path, last)
			wantCorruption(t, "verify", verify, path, last)
			if !ce.TornTail || !errors.Is(rw, record.ErrTruncated) {
				t.Errorf("%v: want a torn tail wrapping record.ErrTruncated", rw)
			}
			if d := diffHashes(before, hashTree(t, root)); d != "" {
				t.Errorf("files changed: %s", d)
			}
		})
	}
}

// flipValueByte corrupts the value of the record in the batch at pos (the
// byte before the record's header count, the batch's second-to-last byte).
func flipValueByte(t *testing.T, path string, pos int64) {
	t.Helper()
	data := mustRead(t, path)
	end := pos + int64(binary.BigEndian.Uint32(data[pos+8:])) + 12
	patchFile(t, path, end-2, []byte{data[end-2] ^ 0x55})
}

func TestBadInputFlippedByte(t *testing.T) {
	// With the segment's index files present, Open trusts them and reads
	// nothing below their last entry, so it opens; Verify and Clean read the
	// batch and report it; nothing on disk changes.
	t.Run("indexed", func(t *testing.T) {
		dir := threeSegmentLog(t)
		root := filepath.Dir(dir)
		path := seg(dir, 0, LogFileSuffix)
		bad := batchPositions(t, path)[1]
		flipValueByte(t, path, bad)
		before := hashTree(t, root)

		_, verr := Verify(dir, VerifyOptions{})
		wantCorruption(t, "verify", verr, path, bad)
		if !errors.Is(verr, record.ErrCRCMismatch) {
			t.Errorf("verify: %v does not wrap record.ErrCRCMismatch", verr)
		}
		for _, v := range []struct {
			name string
			opts CleanOptions
		}{
			// From 0 the offset map is built from the bad segment.
			{"map", CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 0}},
			// From 3 the bad segment is only read while copying.
			{"copy", CleanOptions{Force: true, OverrideFirstDirty: true, FirstDirtyOffset: 3}},
		} {
			l, err := Open(dir, Options{})
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			_, cerr := testCleaner(t, 1000).Clean(l, v.opts)
			wantCorruption(t, "clean ("+v.name+")", cerr, path, bad)
			if !errors.Is(cerr, record.ErrCRCMismatch) {
				t.Errorf("clean (%s): %v does not wrap record.ErrCRCMismatch", v.name, cerr)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if d := diffHashes(before, hashTree(t, root)); d != "" {
				t.Errorf("clean (%s) changed files: %s", v.name, d)
			}
		}
	})
	// Without index files, Open rebuilds them from the log and checks every
	// CRC on the way.
	t.Run("unindexed", func(t *testing.T) {
		dir := threeSegmentLog(t)
		root := filepath.Dir(dir)
		for _, ext := range []string{IndexFileSuffix, TimeIndexFileSuffix} {
			if err := os.Remove(seg(dir, 0, ext)); err != nil {
				t.Fatal(err)
			}
		}
		path := seg(dir, 0, LogFileSuffix)
		bad := batchPositions(t, path)[1]
		flipValueByte(t, path, bad)
		before := hashTree(t, root)
		ro, rw, verify := openAll(t, dir)
		wantCorruption(t, "read-only open", ro, path, bad)
		wantCorruption(t, "open", rw, path, bad)
		wantCorruption(t, "verify", verify, path, bad)
		if d := diffHashes(before, hashTree(t, root)); d != "" {
			t.Errorf("files changed: %s", d)
		}
	})
}
