package vfstest

import (
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"syscall"
	"time"

	"github.com/cleanerlab/cleanerlab/vfs"
)

// ErrInjected is wrapped by every error a FaultFS injects.
var ErrInjected = errors.New("vfstest: injected fault")

// Fault says which operation of a FaultFS fails, and how.
type Fault struct {
	// At is the index, counting from 0 among the counted operations, of the
	// first one that fails. Negative: none fails.
	At int
	// Count selects the operations that are counted (and may fail). Nil
	// counts the mutating ones (Op.Mutating).
	Count func(Op) bool
	// Err is the error the failing operation returns, wrapped with
	// ErrInjected in an *fs.PathError. Default syscall.EIO.
	Err error
	// Short makes a failing Write or WriteAt write the first half of its
	// bytes before it returns the error, as a disk that fills up mid-write.
	Short bool
	// Sticky fails every counted operation from At on, not only the one at
	// At (a full disk stays full; a dead disk stays dead).
	Sticky bool
}

// FaultFS wraps an FS and fails the operation Fault selects. It records the
// counted operations in order (Ops), so a test can say which one failed.
// Safe for concurrent use.
type FaultFS struct {
	inner hookFS
	mu    sync.Mutex
	fault Fault
	ops   []Op
	hits  int
}

// NewFaultFS wraps fsys (vfs.Default when nil).
func NewFaultFS(fsys vfs.FS, f Fault) *FaultFS {
	if fsys == nil {
		fsys = vfs.Default
	}
	if f.Err == nil {
		f.Err = syscall.EIO
	}
	ffs := &FaultFS{fault: f}
	ffs.inner = hookFS{fs: fsys, h: ffs.before}
	return ffs
}

// ENOSPC and EIO are the errors tests inject most.
var (
	ENOSPC error = syscall.ENOSPC
	EIO    error = syscall.EIO
)

func (f *FaultFS) before(op Op) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	count := f.fault.Count
	if count == nil {
		count = Op.Mutating
	}
	if !count(op) {
		return false, nil
	}
	n := len(f.ops)
	f.ops = append(f.ops, op)
	if f.fault.At < 0 || n < f.fault.At || (n > f.fault.At && !f.fault.Sticky) {
		return false, nil
	}
	f.hits++
	return f.fault.Short, &fs.PathError{Op: string(op.Kind), Path: op.Path, Err: fmt.Errorf("%w: %w", ErrInjected, f.fault.Err)}
}

// Ops returns the counted operations so far, in order.
func (f *FaultFS) Ops() []Op {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Op(nil), f.ops...)
}

// Hit reports whether an operation was failed.
func (f *FaultFS) Hit() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.hits > 0
}

// Arm sets the fault to inject from now on: its At counts from the next
// counted operation (0: the next one fails), its Count, Err (default
// EIO), Short and Sticky replace the old ones, and Hit starts over.
func (f *FaultFS) Arm(fault Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault.Err == nil {
		fault.Err = syscall.EIO
	}
	if fault.At >= 0 {
		fault.At += len(f.ops)
	}
	f.fault, f.hits = fault, 0
}

// Disarm stops injecting faults; operations are still counted.
func (f *FaultFS) Disarm() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fault.At = -1
}

func (f *FaultFS) Create(path string) (vfs.File, error)        { return f.inner.Create(path) }
func (f *FaultFS) Open(path string) (vfs.File, error)          { return f.inner.Open(path) }
func (f *FaultFS) OpenAppend(path string) (vfs.File, error)    { return f.inner.OpenAppend(path) }
func (f *FaultFS) OpenReadWrite(path string) (vfs.File, error) { return f.inner.OpenReadWrite(path) }
func (f *FaultFS) Rename(oldpath, newpath string) error        { return f.inner.Rename(oldpath, newpath) }
func (f *FaultFS) Remove(path string) error                    { return f.inner.Remove(path) }
func (f *FaultFS) ReadDir(dir string) ([]fs.DirEntry, error)   { return f.inner.ReadDir(dir) }
func (f *FaultFS) Stat(path string) (fs.FileInfo, error)       { return f.inner.Stat(path) }
func (f *FaultFS) MkdirAll(dir string) error                   { return f.inner.MkdirAll(dir) }
func (f *FaultFS) SyncDir(dir string) error                    { return f.inner.SyncDir(dir) }
func (f *FaultFS) Chtimes(path string, atime, mtime time.Time) error {
	return f.inner.Chtimes(path, atime, mtime)
}
