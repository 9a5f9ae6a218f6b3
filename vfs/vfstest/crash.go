package vfstest

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/vfs"
)

// CrashFS is the OS file system under one root directory with a model of
// what a power failure keeps, the strictest POSIX allows (as pebble's
// strict MemFS): a file's bytes are durable as of its last fsync or
// fdatasync (sync_file_range makes nothing durable: it writes pages back
// without the metadata that finds them); a name, whether created, renamed
// or removed, is durable as of its directory's last fsync. Crash rewrites
// the root to that durable state: files whose directory was not fsynced
// since their creation vanish, renames not followed by a directory fsync
// are undone, and every file keeps only its synced bytes.
//
// Directories themselves are taken as durable once made (MkdirAll is not
// modelled). Files the engine changes through a memory map are seen at the
// next fsync, as the kernel would write them back. Bytes are held in
// memory, so it suits small logs. Safe for concurrent use; Crash needs
// every file closed (the caller abandons its logs first).
type CrashFS struct {
	// SkipOSSync leaves out the operating system's fsyncs (the model still
	// records each as a durability point): for labs whose only failures
	// are the model's, where real fsyncs would only cost time.
	SkipOSSync bool

	root string
	mu   sync.Mutex
	// names maps each path under root to its file, as the OS has it now.
	names map[string]*crashFile
	// durable maps each directory to its names as of its last fsync (the
	// root's listing when it was wrapped, for directories never synced).
	durable map[string]map[string]*crashFile
	crashes int
}

// crashFile is one file (an inode): the bytes its last fsync made
// durable.
type crashFile struct {
	synced []byte
}

// NewCrashFS wraps root, an existing directory: every file under it now
// is taken as durable, with its current bytes.
func NewCrashFS(root string) (*CrashFS, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	c := &CrashFS{root: root}
	if err := c.adopt(); err != nil {
		return nil, err
	}
	return c, nil
}

// adopt takes every file under the root as durable with its current bytes.
func (c *CrashFS) adopt() error {
	c.names = map[string]*crashFile{}
	c.durable = map[string]map[string]*crashFile{}
	return filepath.WalkDir(c.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			c.durable[path] = map[string]*crashFile{}
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f := &crashFile{synced: b}
		c.names[path] = f
		c.durable[filepath.Dir(path)][filepath.Base(path)] = f
		return nil
	})
}

// Crashes counts the crashes so far.
func (c *CrashFS) Crashes() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.crashes
}

// Crash makes the root what a power failure at this instant would leave:
// each directory holds the names of its last fsync, each file the bytes of
// its last fsync. Every file must be closed. Errors: the OS's, rewriting
// the root.
func (c *CrashFS) Crash() error { return c.CrashTorn(0) }

// CrashTorn is Crash where each file whose bytes now extend its synced
// bytes (appends since its last fsync) also keeps the first
// floor(keep x extra) of those bytes: a torn tail, as a disk that wrote
// part of the page cache back before the power went (keep in [0, 1]; 0 is
// Crash). A file rewritten in place since its fsync keeps its synced bytes
// only.
func (c *CrashFS) CrashTorn(keep float64) error {
	return c.crash(func(extra int) int { return int(keep * float64(extra)) }, keep > 0)
}

// CrashTornBytes is Crash where each file whose bytes now extend its
// synced bytes also keeps the first min(n, extra) of the extra bytes
// appended since its last fsync: a torn tail cut at a byte (n >= 0; 0 is
// Crash). A file rewritten in place since its fsync keeps its synced bytes
// only.
func (c *CrashFS) CrashTornBytes(n int64) error {
	return c.crash(func(extra int) int { return int(min(n, int64(extra))) }, n > 0)
}

// crash is CrashTorn and CrashTornBytes: kept says how many of a file's
// extra appended bytes survive (torn false: none).
func (c *CrashFS) crash(kept func(extra int) int, torn bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.crashes++
	if torn {
		for p, f := range c.names {
			now, err := os.ReadFile(p)
			if err != nil || len(now) <= len(f.synced) || string(now[:len(f.synced)]) != string(f.synced) {
				continue
			}
			f.synced = now[:len(f.synced)+kept(len(now)-len(f.synced))]
		}
	}
	dirs := make([]string, 0, len(c.durable))
	for d := range c.durable {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		keep := c.durable[dir]
		entries, err := os.ReadDir(dir)
		if err != nil {
			if os.IsNotExist(err) {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					return err
				}
			} else {
				return err
			}
		}
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			if _, ok := keep[e.Name()]; !ok {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
					return err
				}
			}
		}
		for name, f := range keep {
			if err := os.WriteFile(filepath.Join(dir, name), f.synced, 0o644); err != nil {
				return err
			}
		}
	}
	// Every surviving name is now durable, its bytes synced.
	c.names = map[string]*crashFile{}
	for dir, keep := range c.durable {
		for name, f := range keep {
			c.names[filepath.Join(dir, name)] = f
		}
	}
	return nil
}

func (c *CrashFS) abs(path string) string {
	if p, err := filepath.Abs(path); err == nil {
		return p
	}
	return path
}

// file returns path's file, adopting one made outside the FS (durable
// with no bytes: nothing synced it).
func (c *CrashFS) file(path string) *crashFile {
	p := c.abs(path)
	f, ok := c.names[p]
	if !ok {
		f = &crashFile{}
		c.names[p] = f
	}
	return f
}

func (c *CrashFS) wrap(path string, f *os.File, err error) (vfs.File, error) {
	if err != nil {
		return nil, err
	}
	return &crashOSFile{File: f, fs: c, path: c.abs(path)}, nil
}

// Create creates or truncates path: a new file, whose name is durable at
// its directory's next fsync.
func (c *CrashFS) Create(path string) (vfs.File, error) {
	f, err := vfs.Default.Create(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	p := c.abs(path)
	if _, ok := c.names[p]; !ok {
		c.names[p] = &crashFile{}
	}
	// An existing file truncated keeps its inode: its synced bytes stay
	// until its next fsync.
	c.mu.Unlock()
	return &crashOSFile{File: f.(*os.File), fs: c, path: p}, nil
}

// Open opens path read-only.
func (c *CrashFS) Open(path string) (vfs.File, error) { return c.open(path, vfs.Default.Open) }

// OpenAppend opens path for appending.
func (c *CrashFS) OpenAppend(path string) (vfs.File, error) {
	return c.open(path, vfs.Default.OpenAppend)
}

// OpenReadWrite opens path for reading and writing.
func (c *CrashFS) OpenReadWrite(path string) (vfs.File, error) {
	return c.open(path, vfs.Default.OpenReadWrite)
}

// open opens an existing path with openFn, tracking its file.
func (c *CrashFS) open(path string, openFn func(string) (vfs.File, error)) (vfs.File, error) {
	f, err := openFn(path)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.file(path)
	c.mu.Unlock()
	return c.wrap(path, f.(*os.File), nil)
}

// Rename moves a name; durable at the directories' next fsyncs.
func (c *CrashFS) Rename(oldpath, newpath string) error {
	if err := vfs.Default.Rename(oldpath, newpath); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.file(oldpath)
	delete(c.names, c.abs(oldpath))
	c.names[c.abs(newpath)] = f
	return nil
}

// Remove removes a name; durable at its directory's next fsync.
func (c *CrashFS) Remove(path string) error {
	if err := vfs.Default.Remove(path); err != nil {
		return err
	}
	c.mu.Lock()
	delete(c.names, c.abs(path))
	c.mu.Unlock()
	return nil
}

// ReadDir lists dir as the OS has it now.
func (c *CrashFS) ReadDir(dir string) ([]fs.DirEntry, error) { return vfs.Default.ReadDir(dir) }

// Stat stats path as the OS has it now.
func (c *CrashFS) Stat(path string) (fs.FileInfo, error) { return vfs.Default.Stat(path) }

// MkdirAll makes dir (durable at once: see CrashFS).
func (c *CrashFS) MkdirAll(dir string) error {
	if err := vfs.Default.MkdirAll(dir); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for d := c.abs(dir); ; d = filepath.Dir(d) {
		if _, ok := c.durable[d]; !ok {
			c.durable[d] = map[string]*crashFile{}
		}
		if d == c.root || d == filepath.Dir(d) || len(d) < len(c.root) {
			break
		}
	}
	return nil
}

// SyncDir fsyncs dir: its names as they are now become durable.
func (c *CrashFS) SyncDir(dir string) error {
	if !c.SkipOSSync {
		if err := vfs.Default.SyncDir(dir); err != nil {
			return err
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d := c.abs(dir)
	keep := map[string]*crashFile{}
	for p, f := range c.names {
		if filepath.Dir(p) == d {
			keep[filepath.Base(p)] = f
		}
	}
	c.durable[d] = keep
	return nil
}

// Chtimes sets path's times.
func (c *CrashFS) Chtimes(path string, atime, mtime time.Time) error {
	return vfs.Default.Chtimes(path, atime, mtime)
}

// syncFile makes path's current bytes durable.
func (c *CrashFS) syncFile(f *os.File, path string) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	b := make([]byte, st.Size())
	if _, err := f.ReadAt(b, 0); err != nil && len(b) > 0 {
		// A file opened for append only cannot be read through f.
		if b, err = os.ReadFile(path); err != nil {
			return fmt.Errorf("vfstest: crash fs: reading %s to sync it: %w", path, err)
		}
	}
	c.mu.Lock()
	c.file(path).synced = b
	c.mu.Unlock()
	return nil
}

// crashOSFile is an OS file whose fsyncs CrashFS records.
type crashOSFile struct {
	*os.File
	fs   *CrashFS
	path string
}

// Sync fsyncs the file and makes its bytes durable.
func (f *crashOSFile) Sync() error {
	if !f.fs.SkipOSSync {
		if err := f.File.Sync(); err != nil {
			return err
		}
	}
	return f.fs.syncFile(f.File, f.path)
}

// Datasync fdatasyncs the file and makes its bytes durable.
func (f *crashOSFile) Datasync() error {
	if !f.fs.SkipOSSync {
		if err := iosched.Datasync(f.File); err != nil {
			return err
		}
	}
	return f.fs.syncFile(f.File, f.path)
}

// SyncRange writes a range back (sync_file_range): nothing becomes durable.
func (f *crashOSFile) SyncRange(off, n int64, flags int) error {
	return iosched.SyncRange(f.File, off, n, flags)
}

var (
	_ vfs.FS   = (*CrashFS)(nil)
	_ vfs.File = (*crashOSFile)(nil)
)
