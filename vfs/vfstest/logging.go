package vfstest

import (
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/cleanerlab/cleanerlab/vfs"
)

// LoggingFS wraps an FS and records every operation, in order, including
// reads and closes. Safe for concurrent use.
type LoggingFS struct {
	inner hookFS
	mu    sync.Mutex
	w     io.Writer
	ops   []Op
}

// NewLoggingFS wraps fsys (vfs.Default when nil). When w is not nil, each
// operation is also written to it, one line each, as it happens.
func NewLoggingFS(fsys vfs.FS, w io.Writer) *LoggingFS {
	if fsys == nil {
		fsys = vfs.Default
	}
	l := &LoggingFS{w: w}
	l.inner = hookFS{fs: fsys, h: l.before}
	return l
}

func (l *LoggingFS) before(op Op) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = append(l.ops, op)
	if l.w != nil {
		fmt.Fprintln(l.w, op)
	}
	return false, nil
}

// Ops returns the operations recorded so far; filter, when not nil, keeps
// only those it accepts (e.g. Op.Mutating).
func (l *LoggingFS) Ops(filter func(Op) bool) []Op {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Op
	for _, o := range l.ops {
		if filter == nil || filter(o) {
			out = append(out, o)
		}
	}
	return out
}

// Reset forgets the operations recorded so far.
func (l *LoggingFS) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.ops = nil
}

func (l *LoggingFS) Create(path string) (vfs.File, error)        { return l.inner.Create(path) }
func (l *LoggingFS) Open(path string) (vfs.File, error)          { return l.inner.Open(path) }
func (l *LoggingFS) OpenAppend(path string) (vfs.File, error)    { return l.inner.OpenAppend(path) }
func (l *LoggingFS) OpenReadWrite(path string) (vfs.File, error) { return l.inner.OpenReadWrite(path) }
func (l *LoggingFS) Rename(oldpath, newpath string) error        { return l.inner.Rename(oldpath, newpath) }
func (l *LoggingFS) Remove(path string) error                    { return l.inner.Remove(path) }
func (l *LoggingFS) ReadDir(dir string) ([]fs.DirEntry, error)   { return l.inner.ReadDir(dir) }
func (l *LoggingFS) Stat(path string) (fs.FileInfo, error)       { return l.inner.Stat(path) }
func (l *LoggingFS) MkdirAll(dir string) error                   { return l.inner.MkdirAll(dir) }
func (l *LoggingFS) SyncDir(dir string) error                    { return l.inner.SyncDir(dir) }
func (l *LoggingFS) Chtimes(path string, atime, mtime time.Time) error {
	return l.inner.Chtimes(path, atime, mtime)
}

// NoSyncFS is an FS whose file and directory fsyncs do nothing: crash loops
// simulate failing operations, not lost writes, and real fsyncs only slow
// them down.
type NoSyncFS struct{ FS vfs.FS }

func (n NoSyncFS) base() vfs.FS {
	if n.FS == nil {
		return vfs.Default
	}
	return n.FS
}

func noSync(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return noSyncFile{f}, nil
}

func (n NoSyncFS) Create(path string) (vfs.File, error)     { return noSync(n.base().Create(path)) }
func (n NoSyncFS) Open(path string) (vfs.File, error)       { return n.base().Open(path) }
func (n NoSyncFS) OpenAppend(path string) (vfs.File, error) { return noSync(n.base().OpenAppend(path)) }
func (n NoSyncFS) OpenReadWrite(path string) (vfs.File, error) {
	return noSync(n.base().OpenReadWrite(path))
}
func (n NoSyncFS) Rename(oldpath, newpath string) error      { return n.base().Rename(oldpath, newpath) }
func (n NoSyncFS) Remove(path string) error                  { return n.base().Remove(path) }
func (n NoSyncFS) ReadDir(dir string) ([]fs.DirEntry, error) { return n.base().ReadDir(dir) }
func (n NoSyncFS) Stat(path string) (fs.FileInfo, error)     { return n.base().Stat(path) }
func (n NoSyncFS) MkdirAll(dir string) error                 { return n.base().MkdirAll(dir) }
func (NoSyncFS) SyncDir(string) error                        { return nil }
func (n NoSyncFS) Chtimes(path string, atime, mtime time.Time) error {
	return n.base().Chtimes(path, atime, mtime)
}

type noSyncFile struct{ vfs.File }

func (noSyncFile) Sync() error                       { return nil }
func (noSyncFile) Datasync() error                   { return nil }
func (noSyncFile) SyncRange(int64, int64, int) error { return nil }
