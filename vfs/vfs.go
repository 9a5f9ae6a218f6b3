// Package vfs is the narrow file-system seam of the engine (docs/contributing.md, "The file-system seam"):
// every byte the engine reads or writes, every rename, remove and fsync goes
// through an FS, so tests can log the operations, inject errors at the N-th
// one, or simulate crashes (see package vfstest). The OS implementation is
// Default. Paths are OS paths.
package vfs

import (
	"errors"
	"io/fs"
	"os"
	"time"
)

// File is what the engine needs of an open file. *os.File satisfies it.
type File interface {
	ReadAt(p []byte, off int64) (int, error)
	// Write appends at the file offset (the end, for files opened by OpenAppend).
	Write(p []byte) (int, error)
	// WriteAt writes at byte off. Not allowed on files opened by OpenAppend.
	WriteAt(p []byte, off int64) (int, error)
	Sync() error
	Close() error
	Stat() (fs.FileInfo, error)
	// Truncate sets the file size in bytes: it cuts a torn tail, trims an
	// index to its entries, or preallocates one (the new bytes read as zeros).
	Truncate(size int64) error
	// Fd is the OS file descriptor, for mmap, fadvise and mincore.
	Fd() uintptr
	Name() string
}

// FS is the seam through which the engine reaches files.
type FS interface {
	// Create creates or truncates path for reading and writing (mode 0644).
	Create(path string) (File, error)
	// Open opens path read-only.
	Open(path string) (File, error)
	// OpenAppend opens an existing path for appending writes (and reads).
	OpenAppend(path string) (File, error)
	// OpenReadWrite opens an existing path for reading and writing at any
	// position, without truncating it.
	OpenReadWrite(path string) (File, error)
	Rename(oldpath, newpath string) error
	Remove(path string) error
	ReadDir(dir string) ([]fs.DirEntry, error)
	Stat(path string) (fs.FileInfo, error)
	MkdirAll(dir string) error
	// SyncDir fsyncs a directory so that renames, creations and removals in it
	// are durable.
	SyncDir(dir string) error
	// Chtimes sets a file's access and modification times.
	Chtimes(path string, atime, mtime time.Time) error
}

// OSFS is the FS of the operating system.
type OSFS struct{}

// Default is the FS used when a caller passes none.
var Default FS = OSFS{}

func (OSFS) Create(path string) (File, error) {
	return openFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
}

func (OSFS) Open(path string) (File, error) { return openFile(path, os.O_RDONLY, 0) }

func (OSFS) OpenAppend(path string) (File, error) {
	return openFile(path, os.O_RDWR|os.O_APPEND, 0o644)
}

func (OSFS) OpenReadWrite(path string) (File, error) {
	return openFile(path, os.O_RDWR, 0o644)
}

func (OSFS) Rename(oldpath, newpath string) error      { return rename(oldpath, newpath) }
func (OSFS) Remove(path string) error                  { return remove(path) }
func (OSFS) ReadDir(dir string) ([]fs.DirEntry, error) { return os.ReadDir(dir) }
func (OSFS) Stat(path string) (fs.FileInfo, error)     { return os.Stat(path) }
func (OSFS) MkdirAll(dir string) error                 { return os.MkdirAll(dir, 0o755) }

func (OSFS) Chtimes(path string, atime, mtime time.Time) error {
	return os.Chtimes(path, atime, mtime)
}

func (OSFS) SyncDir(dir string) error {
	d, err := openFile(dir, os.O_RDONLY, 0)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// IsNotExist reports whether err says a file or directory does not exist
// (errors.Is(err, fs.ErrNotExist)), so callers need not import os for it.
func IsNotExist(err error) bool { return err != nil && errors.Is(err, fs.ErrNotExist) }
