package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// TestOSFS: the OS file system's calls do what their documentation and
// POSIX say, with os's error shapes (*fs.PathError for open and remove,
// *os.LinkError for rename, each matching fs.ErrNotExist for a missing
// path), whatever system calls make them.
func TestOSFS(t *testing.T) {
	var o OSFS
	dir := t.TempDir()
	p := filepath.Join(dir, "a.log")

	// Create makes the file, and truncates it when it exists.
	write := func(path, s string) {
		t.Helper()
		f, err := o.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	read := func(path string) string {
		t.Helper()
		f, err := o.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if f.Name() != path {
			t.Errorf("Name %q, want %q", f.Name(), path)
		}
		b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<20))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write(p, "hello world")
	write(p, "abc")
	if got := read(p); got != "abc" {
		t.Errorf("after a second Create: %q, want %q", got, "abc")
	}
	if st, err := o.Stat(p); err != nil || st.Mode().Perm()&0o600 != 0o600 {
		t.Errorf("Stat %v, %v: want a file its owner reads and writes", st, err)
	}

	// OpenAppend writes at the end; OpenReadWrite keeps the bytes and
	// writes where asked.
	f, err := o.OpenAppend(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("de")); err != nil {
		t.Fatal(err)
	}
	f.Close()
	f, err = o.OpenReadWrite(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte("X"), 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := read(p); got != "aXcde" {
		t.Errorf("after OpenAppend and OpenReadWrite: %q, want %q", got, "aXcde")
	}

	// Opening a missing file.
	missing := filepath.Join(dir, "missing.log")
	for _, open := range []func(string) (File, error){o.Open, o.OpenAppend, o.OpenReadWrite} {
		_, err := open(missing)
		var pe *fs.PathError
		if !errors.As(err, &pe) || pe.Op != "open" || pe.Path != missing || !IsNotExist(err) {
			t.Errorf("open of a missing file: %v (%T), want *fs.PathError open %s, not exist", err, err, missing)
		}
	}
	if _, err := o.Create(filepath.Join(dir, "no-such-dir", "x")); !IsNotExist(err) {
		t.Errorf("Create in a missing directory: %v, want not exist", err)
	}

	// Rename moves, and replaces an existing file.
	q := filepath.Join(dir, "b.log")
	write(q, "old")
	if err := o.Rename(p, q); err != nil {
		t.Fatal(err)
	}
	if got := read(q); got != "aXcde" {
		t.Errorf("renamed over an existing file: %q, want %q", got, "aXcde")
	}
	err = o.Rename(p, q)
	var le *os.LinkError
	if !errors.As(err, &le) || le.Op != "rename" || le.Old != p || le.New != q || !IsNotExist(err) {
		t.Errorf("rename of a missing file: %v (%T), want *os.LinkError rename %s %s, not exist", err, err, p, q)
	}

	// Remove takes a file or an empty directory; a missing path and a
	// directory with something in it are errors.
	if err := o.Remove(q); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Stat(q); !IsNotExist(err) {
		t.Errorf("Stat of a removed file: %v", err)
	}
	err = o.Remove(q)
	var pe *fs.PathError
	if !errors.As(err, &pe) || pe.Op != "remove" || pe.Path != q || !IsNotExist(err) {
		t.Errorf("remove of a missing file: %v (%T), want *fs.PathError remove %s, not exist", err, err, q)
	}
	sub := filepath.Join(dir, "sub")
	if err := o.MkdirAll(sub); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(sub, "c"), "c")
	if err := o.Remove(sub); err == nil || IsNotExist(err) {
		t.Errorf("remove of a directory with a file in it: %v, want an error other than not exist", err)
	}
	if err := o.Remove(filepath.Join(sub, "c")); err != nil {
		t.Fatal(err)
	}
	if err := o.Remove(sub); err != nil {
		t.Errorf("remove of an empty directory: %v", err)
	}
	if err := o.SyncDir(dir); err != nil {
		t.Errorf("SyncDir: %v", err)
	}
}
