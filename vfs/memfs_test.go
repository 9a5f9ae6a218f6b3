package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemFSMatchesOS runs one script of operations on the OS file system
// (the oracle) and on MemFS, and compares every result: bytes read,
// sizes, listings, and which errors are "does not exist".
func TestMemFSMatchesOS(t *testing.T) {
	osRoot := t.TempDir()
	run := func(fsys FS, root string) []string {
		var log []string
		say := func(format string, args ...any) { log = append(log, fmt.Sprintf(format, args...)) }
		p := func(name string) string { return filepath.Join(root, name) }
		errStr := func(err error) string {
			switch {
			case err == nil:
				return "ok"
			case errors.Is(err, fs.ErrNotExist):
				return "not exist"
			}
			return "error"
		}
		read := func(name string) string {
			f, err := fsys.Open(p(name))
			if err != nil {
				return errStr(err)
			}
			defer f.Close()
			st, _ := f.Stat()
			buf := make([]byte, st.Size()+3)
			n, err := f.ReadAt(buf, 0)
			return fmt.Sprintf("%q eof=%v", buf[:n], errors.Is(err, io.EOF))
		}
		list := func(dir string) string {
			es, err := fsys.ReadDir(p(dir))
			if err != nil {
				return errStr(err)
			}
			var s []string
			for _, e := range es {
				s = append(s, fmt.Sprintf("%s:%v", e.Name(), e.IsDir()))
			}
			return strings.Join(s, " ")
		}
		say("mkdir %s", errStr(fsys.MkdirAll(p("a/b"))))
		_, err := fsys.Create(p("nodir/x"))
		say("create in missing dir: %s", errStr(err))
		f, err := fsys.Create(p("a/b/seg.log"))
		say("create %s", errStr(err))
		f.Write([]byte("hello"))
		f.Write([]byte(" world"))
		f.WriteAt([]byte("J"), 0)
		f.Truncate(8)
		f.Truncate(10)
		f.Close()
		say("after writes, truncates: %s", read("a/b/seg.log"))
		a, _ := fsys.OpenAppend(p("a/b/seg.log"))
		a.Write([]byte("++"))
		st, _ := a.Stat()
		say("append size %d", st.Size())
		a.Close()
		rw, _ := fsys.OpenReadWrite(p("a/b/seg.log"))
		rw.WriteAt([]byte("XY"), 1)
		rw.Close()
		say("read-write: %s", read("a/b/seg.log"))
		c, _ := fsys.Create(p("a/b/seg.log"))
		c.Close()
		say("create truncates: %s", read("a/b/seg.log"))
		g, _ := fsys.Create(p("a/b/other.index"))
		g.Write([]byte("idx"))
		g.Close()
		say("rename onto: %s", errStr(fsys.Rename(p("a/b/other.index"), p("a/b/seg.log"))))
		say("after rename: %s / %s", read("a/b/seg.log"), read("a/b/other.index"))
		say("list: %s", list("a/b"))
		say("list a: %s", list("a"))
		say("remove non-empty dir: %s", errStr(fsys.Remove(p("a/b"))))
		say("remove file: %s", errStr(fsys.Remove(p("a/b/seg.log"))))
		say("remove again: %s", errStr(fsys.Remove(p("a/b/seg.log"))))
		say("remove dir: %s", errStr(fsys.Remove(p("a/b"))))
		_, err = fsys.Stat(p("a/b"))
		say("stat removed: %s", errStr(err))
		_, err = fsys.Open(p("nothing"))
		say("open missing: %s", errStr(err))
		say("rename missing: %s", errStr(fsys.Rename(p("nothing"), p("a/x"))))
		return log
	}
	want := run(OSFS{}, osRoot)
	m := NewMemFS()
	if err := m.MkdirAll("/mem"); err != nil {
		t.Fatal(err)
	}
	got := run(m, "/mem")
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: MemFS %q, OS %q", i, got[i], want[i])
		}
	}
}

// TestCleanPath: cleanPath is filepath.Clean on every shape of path.
func TestCleanPath(t *testing.T) {
	for _, p := range []string{"/a/b", "/a/b/", "/a//b", "/a/./b", "/a/../b", "/a/.", "/a/..", "a/b", "./a", "/", "", "/.a/b..", "/a/.b/..c", "//a", "/a/b/."} {
		if got, want := cleanPath(p), filepath.Clean(p); got != want {
			t.Errorf("cleanPath(%q) = %q, want %q", p, got, want)
		}
	}
}
