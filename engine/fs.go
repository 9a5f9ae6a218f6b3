package engine

import (
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// File is what the engine needs of an open file. *os.File satisfies it.
type File interface {
	ReadAt(p []byte, off int64) (int, error)
	Write(p []byte) (int, error)
	Sync() error
	Close() error
	Stat() (fs.FileInfo, error)
	Truncate(size int64) error
	Fd() uintptr
	Name() string
}

// FS is the narrow seam through which the engine reaches files, so tests can
// log every operation or inject errors. Paths are OS paths.
type FS interface {
	// Create creates or truncates path for writing (mode 0644).
	Create(path string) (File, error)
	// Open opens path read-only.
	Open(path string) (File, error)
	// OpenAppend opens an existing path for appending writes (and reads).
	OpenAppend(path string) (File, error)
	Rename(oldpath, newpath string) error
	Remove(path string) error
	ReadDir(dir string) ([]fs.DirEntry, error)
	Stat(path string) (fs.FileInfo, error)
	MkdirAll(dir string) error
	// SyncDir fsyncs a directory so that renames and creations in it are durable.
	SyncDir(dir string) error
	// Chtimes sets a file's access and modification times.
	Chtimes(path string, atime, mtime time.Time) error
}

// OSFS is the FS of the operating system.
type OSFS struct{}

// DefaultFS is the FS used when a caller passes none.
var DefaultFS FS = OSFS{}

func (OSFS) Create(path string) (File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
}

func (OSFS) Open(path string) (File, error) { return os.Open(path) }

func (OSFS) OpenAppend(path string) (File, error) {
	return os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0o644)
}

func (OSFS) Rename(oldpath, newpath string) error      { return os.Rename(oldpath, newpath) }
func (OSFS) Remove(path string) error                  { return os.Remove(path) }
func (OSFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
func (OSFS) Stat(path string) (fs.FileInfo, error)     { return os.Stat(path) }
func (OSFS) MkdirAll(dir string) error                 { return os.MkdirAll(dir, 0o755) }

func (OSFS) Chtimes(path string, atime, mtime time.Time) error {
	return os.Chtimes(path, atime, mtime)
}

func (OSFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeFileAtomic replaces path with data: write path.tmp, fsync, close,
// rename over path, fsync the directory. It is the one atomic-replace helper
// of the engine (checkpoints, indexes written whole).
func writeFileAtomic(fsys FS, path string, data []byte) error {
	tmp := path + ".tmp"
	f, err := fsys.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		fsys.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		fsys.Remove(tmp)
		return err
	}
	if err := fsys.Rename(tmp, path); err != nil {
		fsys.Remove(tmp)
		return err
	}
	return fsys.SyncDir(filepath.Dir(path))
}
