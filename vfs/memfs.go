package vfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// MemFS is an FS held in memory: files are byte slices, directories a set
// of names. It behaves as the OS file system does for what the engine
// asks of it (a file opened by Create starts empty and Write advances its
// offset; OpenAppend writes at the end; Rename replaces its target; Remove
// fails on a missing path or a non-empty directory; a file needs its
// directory; ReadDir lists names sorted), with these differences: nothing
// is durable or shared with other processes, Sync and SyncDir do nothing,
// and File.Fd is ^uintptr(0) (no descriptor: readers fall back to ReadAt,
// as for test doubles, and mmap, fadvise and locks are not available).
// Modification times come from Now (time.Now when nil), set by every
// write, as the kernel sets them.
//
// It suits labs that create, rename and remove many small files, where
// the system calls cost more than the work (a replication campaign). Safe
// for concurrent use; a file's bytes are guarded by the FS's lock.
type MemFS struct {
	// Now stamps modification times; time.Now when nil.
	Now func() time.Time

	mu    sync.Mutex
	files map[string]*memNode
	dirs  map[string]bool
}

// memNode is one file (an inode): renaming moves the node, and open files
// keep it after a remove, as on Unix.
type memNode struct {
	data  []byte
	mtime time.Time
}

// NewMemFS returns an empty MemFS with the root directory "/" (and ".")
// present.
func NewMemFS() *MemFS {
	return &MemFS{files: map[string]*memNode{}, dirs: map[string]bool{"/": true, ".": true}}
}

func (m *MemFS) now() time.Time {
	if m.Now != nil {
		return m.Now()
	}
	return time.Now()
}

func memErr(op, path string, err error) error { return &fs.PathError{Op: op, Path: path, Err: err} }

// parentOK reports whether path's directory exists. REQUIRES: m.mu held.
func (m *MemFS) parentOK(path string) bool { return m.dirs[filepath.Dir(path)] }

func (m *MemFS) open(op, path string, create, trunc, appendOnly, readOnly bool) (File, error) {
	path = cleanPath(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.dirs[path] && !readOnly {
		return nil, memErr(op, path, syscall.EISDIR)
	}
	n, ok := m.files[path]
	switch {
	case !ok && !create:
		return nil, memErr(op, path, fs.ErrNotExist)
	case !ok:
		if !m.parentOK(path) {
			return nil, memErr(op, path, fs.ErrNotExist)
		}
		n = &memNode{mtime: m.now()}
		m.files[path] = n
	case trunc:
		n.data = n.data[:0:0]
		n.mtime = m.now()
	}
	return &memFile{fs: m, n: n, name: path, appendOnly: appendOnly, readOnly: readOnly}, nil
}

func (m *MemFS) Create(path string) (File, error) {
	return m.open("open", path, true, true, false, false)
}
func (m *MemFS) Open(path string) (File, error) {
	return m.open("open", path, false, false, false, true)
}
func (m *MemFS) OpenAppend(path string) (File, error) {
	return m.open("open", path, false, false, true, false)
}
func (m *MemFS) OpenReadWrite(path string) (File, error) {
	return m.open("open", path, false, false, false, false)
}

// Rename moves a file (replacing a file at newpath) or a directory with
// everything under it (onto a missing or empty directory).
func (m *MemFS) Rename(oldpath, newpath string) error {
	oldpath, newpath = cleanPath(oldpath), cleanPath(newpath)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.parentOK(newpath) {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrNotExist}
	}
	if n, ok := m.files[oldpath]; ok {
		if m.dirs[newpath] {
			return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.EISDIR}
		}
		delete(m.files, oldpath)
		m.files[newpath] = n
		return nil
	}
	if !m.dirs[oldpath] {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: fs.ErrNotExist}
	}
	if _, ok := m.files[newpath]; ok || m.hasChildren(newpath) {
		return &os.LinkError{Op: "rename", Old: oldpath, New: newpath, Err: syscall.ENOTEMPTY}
	}
	prefix := oldpath + string(filepath.Separator)
	for p, n := range m.files {
		if strings.HasPrefix(p, prefix) {
			delete(m.files, p)
			m.files[newpath+p[len(oldpath):]] = n
		}
	}
	for d := range m.dirs {
		if d == oldpath || strings.HasPrefix(d, prefix) {
			delete(m.dirs, d)
			m.dirs[newpath+d[len(oldpath):]] = true
		}
	}
	return nil
}

// hasChildren reports whether directory dir holds anything. REQUIRES:
// m.mu held.
func (m *MemFS) hasChildren(dir string) bool {
	prefix := dir + string(filepath.Separator)
	if dir == "/" {
		prefix = dir
	}
	for p := range m.files {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	for d := range m.dirs {
		if d != dir && strings.HasPrefix(d, prefix) {
			return true
		}
	}
	return false
}

func (m *MemFS) Remove(path string) error {
	path = cleanPath(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.files[path]; ok {
		delete(m.files, path)
		return nil
	}
	if !m.dirs[path] {
		return memErr("remove", path, fs.ErrNotExist)
	}
	if m.hasChildren(path) {
		return memErr("remove", path, syscall.ENOTEMPTY)
	}
	delete(m.dirs, path)
	return nil
}

func (m *MemFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	dir = cleanPath(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[dir] {
		if _, ok := m.files[dir]; ok {
			return nil, memErr("readdirent", dir, syscall.ENOTDIR)
		}
		return nil, memErr("open", dir, fs.ErrNotExist)
	}
	var out []fs.DirEntry
	for p, n := range m.files {
		if filepath.Dir(p) == dir && p != dir {
			out = append(out, fs.FileInfoToDirEntry(memInfo{name: filepath.Base(p), size: int64(len(n.data)), mtime: n.mtime}))
		}
	}
	for d := range m.dirs {
		if filepath.Dir(d) == dir && d != dir {
			out = append(out, fs.FileInfoToDirEntry(memInfo{name: filepath.Base(d), dir: true}))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

func (m *MemFS) Stat(path string) (fs.FileInfo, error) {
	path = cleanPath(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	if n, ok := m.files[path]; ok {
		return memInfo{name: filepath.Base(path), size: int64(len(n.data)), mtime: n.mtime}, nil
	}
	if m.dirs[path] {
		return memInfo{name: filepath.Base(path), dir: true}, nil
	}
	return nil, memErr("stat", path, fs.ErrNotExist)
}

func (m *MemFS) MkdirAll(dir string) error {
	dir = cleanPath(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	for d := dir; !m.dirs[d]; d = filepath.Dir(d) {
		if _, ok := m.files[d]; ok {
			return memErr("mkdir", d, syscall.ENOTDIR)
		}
		m.dirs[d] = true
	}
	return nil
}

// SyncDir checks that dir exists; nothing is durable.
func (m *MemFS) SyncDir(dir string) error {
	dir = cleanPath(dir)
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.dirs[dir] {
		return memErr("open", dir, fs.ErrNotExist)
	}
	return nil
}

func (m *MemFS) Chtimes(path string, _, mtime time.Time) error {
	path = cleanPath(path)
	m.mu.Lock()
	defer m.mu.Unlock()
	n, ok := m.files[path]
	if !ok {
		if m.dirs[path] {
			return nil
		}
		return memErr("chtimes", path, fs.ErrNotExist)
	}
	n.mtime = mtime
	return nil
}

// memFile is an open MemFS file.
type memFile struct {
	fs                   *MemFS
	n                    *memNode
	name                 string
	pos                  int64
	appendOnly, readOnly bool
	closed               bool
}

var errClosed = fs.ErrClosed

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, memErr("read", f.name, syscall.EINVAL)
	}
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return 0, memErr("read", f.name, errClosed)
	}
	if off >= int64(len(f.n.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.n.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// writeAt writes p at off, growing the file with zeros as needed.
// REQUIRES: f.fs.mu held.
func (f *memFile) writeAt(p []byte, off int64) {
	end := off + int64(len(p))
	if end > int64(len(f.n.data)) {
		if end > int64(cap(f.n.data)) {
			grown := make([]byte, end, max(end, 2*int64(cap(f.n.data))))
			copy(grown, f.n.data)
			f.n.data = grown
		} else {
			old := len(f.n.data)
			f.n.data = f.n.data[:end]
			clear(f.n.data[old:])
		}
	}
	copy(f.n.data[off:], p)
	f.n.mtime = f.fs.now()
}

func (f *memFile) Write(p []byte) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	switch {
	case f.closed:
		return 0, memErr("write", f.name, errClosed)
	case f.readOnly:
		return 0, memErr("write", f.name, syscall.EBADF)
	}
	if f.appendOnly {
		f.pos = int64(len(f.n.data))
	}
	f.writeAt(p, f.pos)
	f.pos += int64(len(p))
	return len(p), nil
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	switch {
	case f.closed:
		return 0, memErr("write", f.name, errClosed)
	case f.readOnly:
		return 0, memErr("write", f.name, syscall.EBADF)
	case f.appendOnly:
		return 0, errors.New("vfs: " + f.name + ": WriteAt on a file opened for appending")
	case off < 0:
		return 0, memErr("write", f.name, syscall.EINVAL)
	}
	f.writeAt(p, off)
	return len(p), nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return memErr("sync", f.name, errClosed)
	}
	return nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return memErr("close", f.name, errClosed)
	}
	f.closed = true
	return nil
}

func (f *memFile) Stat() (fs.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return nil, memErr("stat", f.name, errClosed)
	}
	return memInfo{name: filepath.Base(f.name), size: int64(len(f.n.data)), mtime: f.n.mtime}, nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	switch {
	case f.closed:
		return memErr("truncate", f.name, errClosed)
	case f.readOnly:
		return memErr("truncate", f.name, syscall.EINVAL)
	case size < 0:
		return memErr("truncate", f.name, syscall.EINVAL)
	}
	if size <= int64(len(f.n.data)) {
		f.n.data = f.n.data[:size]
	} else {
		f.writeAt(nil, size)
	}
	f.n.mtime = f.fs.now()
	return nil
}

// Fd is ^uintptr(0): a MemFS file has no OS descriptor.
func (f *memFile) Fd() uintptr  { return ^uintptr(0) }
func (f *memFile) Name() string { return f.name }

// memInfo is a MemFS file's or directory's fs.FileInfo.
type memInfo struct {
	name  string
	size  int64
	mtime time.Time
	dir   bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o755
	}
	return 0o644
}
func (i memInfo) ModTime() time.Time { return i.mtime }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }

// cleanPath is filepath.Clean, skipping the work for a path that is
// already clean (the engine's paths always are: they come from
// filepath.Join): absolute, no empty, "." or ".." element, no trailing
// separator.
func cleanPath(p string) string {
	if len(p) < 2 || p[0] != '/' || p[len(p)-1] == '/' {
		return filepath.Clean(p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '/' {
			continue
		}
		rest := p[i+1:]
		if rest == "" || rest[0] == '/' || rest == "." || rest == ".." || strings.HasPrefix(rest, "./") || strings.HasPrefix(rest, "../") {
			return filepath.Clean(p)
		}
	}
	return p
}
