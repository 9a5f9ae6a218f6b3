package vfstest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCrashFS walks the strict durability model step by step, each
// outcome worked by hand from the rules: bytes durable at a file's fsync,
// names at their directory's fsync.
func TestCrashFS(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("A"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := NewCrashFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	state := func() string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			b, err := os.ReadFile(p(e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, e.Name()+"="+string(b))
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	write := func(name, s string, sync bool) {
		f, err := c.Create(p(name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
		if sync {
			if err := f.Sync(); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	crash := func(want string) {
		t.Helper()
		if err := c.Crash(); err != nil {
			t.Fatal(err)
		}
		if got := state(); got != want {
			t.Errorf("after crash %d: %q, want %q", c.Crashes(), got, want)
		}
	}
	// 1. A file synced but its directory not: gone.
	write("b", "bb", true)
	crash("a=A")
	// 2. Synced, directory synced, then appended without a sync: the
	// synced bytes only.
	write("c", "c1", true)
	if err := c.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	f, err := c.OpenAppend(p("c"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("c2"))
	f.Close()
	crash("a=A c=c1")
	// 3. A rename without a directory fsync is undone; with one it stays.
	if err := c.Rename(p("a"), p("d")); err != nil {
		t.Fatal(err)
	}
	crash("a=A c=c1")
	if err := c.Rename(p("a"), p("d")); err != nil {
		t.Fatal(err)
	}
	if err := c.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	crash("c=c1 d=A")
	// 4. A removal without a directory fsync comes back.
	if err := c.Remove(p("d")); err != nil {
		t.Fatal(err)
	}
	crash("c=c1 d=A")
	// 5. A file rewritten in place and fdatasynced keeps the new bytes; a
	// write after the fdatasync is lost.
	g, err := c.OpenReadWrite(p("c"))
	if err != nil {
		t.Fatal(err)
	}
	g.WriteAt([]byte("C"), 0)
	if err := g.(interface{ Datasync() error }).Datasync(); err != nil {
		t.Fatal(err)
	}
	g.WriteAt([]byte("X"), 1)
	g.Close()
	crash("c=C1 d=A")
}

// TestCrashTorn: a file appended to since its fsync keeps its synced bytes
// and the first half of the rest ("ab" synced, "cdef" appended: "abcd");
// one rewritten in place keeps its synced bytes only.
func TestCrashTorn(t *testing.T) {
	dir := t.TempDir()
	c, err := NewCrashFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"appended", "rewritten"} {
		f, err := c.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("ab"))
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if name == "appended" {
			f.Write([]byte("cdef"))
		} else {
			f.WriteAt([]byte("XYcdef"), 0)
		}
		f.Close()
	}
	if err := c.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := c.CrashTorn(0.5); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"appended": "abcd", "rewritten": "ab"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s: %q after a torn crash, want %q", name, b, want)
		}
	}
}

// TestCrashTornBytes: each appended file keeps its synced bytes and at
// most n of the rest ("ab" synced, "cdef" appended, n=3: "abcde"; "gh"
// appended to a file synced empty: "gh", shorter than n); one rewritten in
// place keeps its synced bytes only.
func TestCrashTornBytes(t *testing.T) {
	dir := t.TempDir()
	c, err := NewCrashFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, synced, appended string, inPlace bool) {
		f, err := c.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		f.Write([]byte(synced))
		if err := f.Sync(); err != nil {
			t.Fatal(err)
		}
		if inPlace {
			f.WriteAt([]byte(appended), 0)
		} else {
			f.Write([]byte(appended))
		}
	}
	write("appended", "ab", "cdef", false)
	write("short", "", "gh", false)
	write("rewritten", "ab", "XYcdef", true)
	if err := c.SyncDir(dir); err != nil {
		t.Fatal(err)
	}
	if err := c.CrashTornBytes(3); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"appended": "abcde", "short": "gh", "rewritten": "ab"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s: %q after a torn crash, want %q", name, b, want)
		}
	}
}
