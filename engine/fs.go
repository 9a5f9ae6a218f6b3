package engine

import (
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/vfs"
)

// File is what the engine needs of an open file (vfs.File). *os.File satisfies it.
type File = vfs.File

// FS is the narrow seam through which the engine reaches files (vfs.FS), so
// tests can log every operation or inject errors (package vfs/vfstest). Every
// file access of the engine goes through one.
type FS = vfs.FS

// OSFS is the FS of the operating system.
type OSFS = vfs.OSFS

// DefaultFS is the FS used when a caller passes none.
var DefaultFS FS = vfs.Default

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

// isNotExist reports whether err says a file does not exist.
func isNotExist(err error) bool { return vfs.IsNotExist(err) }
