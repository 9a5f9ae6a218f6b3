package vfstest

import (
	"io/fs"
	"time"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/vfs"
)

// hook is called before every operation of a hookFS. A non-nil error fails
// the operation without doing it, except for writes with short set, which
// first write half their bytes.
type hook func(op Op) (short bool, err error)

// hookFS wraps an FS and its files, calling h before each operation.
type hookFS struct {
	fs vfs.FS
	h  hook
}

func (h *hookFS) call(op Op) error {
	_, err := h.h(op)
	return err
}

func (h *hookFS) wrap(f vfs.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &hookFile{File: f, h: h.h}, nil
}

func (h *hookFS) Create(path string) (vfs.File, error) {
	if err := h.call(Op{Kind: OpCreate, Path: path}); err != nil {
		return nil, err
	}
	return h.wrap(h.fs.Create(path))
}

func (h *hookFS) Open(path string) (vfs.File, error) {
	if err := h.call(Op{Kind: OpOpen, Path: path}); err != nil {
		return nil, err
	}
	return h.wrap(h.fs.Open(path))
}

func (h *hookFS) OpenAppend(path string) (vfs.File, error) {
	if err := h.call(Op{Kind: OpOpenAppend, Path: path}); err != nil {
		return nil, err
	}
	return h.wrap(h.fs.OpenAppend(path))
}

func (h *hookFS) OpenReadWrite(path string) (vfs.File, error) {
	if err := h.call(Op{Kind: OpOpenReadWrite, Path: path}); err != nil {
		return nil, err
	}
	return h.wrap(h.fs.OpenReadWrite(path))
}

func (h *hookFS) Rename(oldpath, newpath string) error {
	if err := h.call(Op{Kind: OpRename, Path: oldpath, Path2: newpath}); err != nil {
		return err
	}
	return h.fs.Rename(oldpath, newpath)
}

func (h *hookFS) Remove(path string) error {
	if err := h.call(Op{Kind: OpRemove, Path: path}); err != nil {
		return err
	}
	return h.fs.Remove(path)
}

func (h *hookFS) ReadDir(dir string) ([]fs.DirEntry, error) {
	if err := h.call(Op{Kind: OpReadDir, Path: dir}); err != nil {
		return nil, err
	}
	return h.fs.ReadDir(dir)
}

func (h *hookFS) Stat(path string) (fs.FileInfo, error) {
	if err := h.call(Op{Kind: OpStat, Path: path}); err != nil {
		return nil, err
	}
	return h.fs.Stat(path)
}

func (h *hookFS) MkdirAll(dir string) error {
	if err := h.call(Op{Kind: OpMkdirAll, Path: dir}); err != nil {
		return err
	}
	return h.fs.MkdirAll(dir)
}

func (h *hookFS) Chtimes(path string, atime, mtime time.Time) error {
	if err := h.call(Op{Kind: OpChtimes, Path: path}); err != nil {
		return err
	}
	return h.fs.Chtimes(path, atime, mtime)
}

func (h *hookFS) SyncDir(dir string) error {
	if err := h.call(Op{Kind: OpSyncDir, Path: dir}); err != nil {
		return err
	}
	return h.fs.SyncDir(dir)
}

type hookFile struct {
	vfs.File
	h hook
}

func (f *hookFile) call(op Op) error {
	_, err := f.h(op)
	return err
}

func (f *hookFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.call(Op{Kind: OpRead, Path: f.Name(), Off: off, Len: len(p)}); err != nil {
		return 0, err
	}
	return f.File.ReadAt(p, off)
}

func (f *hookFile) Write(p []byte) (int, error) {
	short, err := f.h(Op{Kind: OpWrite, Path: f.Name(), Len: len(p)})
	if err != nil {
		if short && len(p) > 1 {
			n, werr := f.File.Write(p[:len(p)/2])
			if werr != nil {
				return n, werr
			}
			return n, err
		}
		return 0, err
	}
	return f.File.Write(p)
}

func (f *hookFile) WriteAt(p []byte, off int64) (int, error) {
	short, err := f.h(Op{Kind: OpWriteAt, Path: f.Name(), Off: off, Len: len(p)})
	if err != nil {
		if short && len(p) > 1 {
			n, werr := f.File.WriteAt(p[:len(p)/2], off)
			if werr != nil {
				return n, werr
			}
			return n, err
		}
		return 0, err
	}
	return f.File.WriteAt(p, off)
}

func (f *hookFile) Sync() error {
	if err := f.call(Op{Kind: OpSync, Path: f.Name()}); err != nil {
		return err
	}
	return f.File.Sync()
}

// Datasync is logged as OpDatasync, then done by iosched.Datasync on the
// wrapped file (fdatasync on its descriptor).
func (f *hookFile) Datasync() error {
	if err := f.call(Op{Kind: OpDatasync, Path: f.Name()}); err != nil {
		return err
	}
	return iosched.Datasync(f.File)
}

// SyncRange is logged as OpSyncRange, then done by iosched.SyncRange on the
// wrapped file (sync_file_range on its descriptor).
func (f *hookFile) SyncRange(off, n int64, flags int) error {
	if err := f.call(Op{Kind: OpSyncRange, Path: f.Name(), Off: off, Len: int(n), Flags: flags}); err != nil {
		return err
	}
	return iosched.SyncRange(f.File, off, n, flags)
}

func (f *hookFile) Truncate(size int64) error {
	if err := f.call(Op{Kind: OpTruncate, Path: f.Name(), Off: size}); err != nil {
		return err
	}
	return f.File.Truncate(size)
}

func (f *hookFile) Stat() (fs.FileInfo, error) {
	if err := f.call(Op{Kind: OpFileStat, Path: f.Name()}); err != nil {
		return nil, err
	}
	return f.File.Stat()
}

func (f *hookFile) Close() error {
	// A close is logged but never failed: the engine cannot do anything
	// useful with a failed close, and failing it would leak the descriptor.
	f.h(Op{Kind: OpClose, Path: f.Name()})
	return f.File.Close()
}
