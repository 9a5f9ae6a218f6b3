package engine

import (
	"fmt"
	"path/filepath"
	"sync"
)

// LockFile is the lock file of a log directory root, as Kafka's
// LogManager.LockFileName: every read-write open holds an exclusive lock
// on it (lockRootDir) so that one process at a time changes the root's
// partitions and checkpoint files. It stays on disk when unlocked, as
// Kafka's does: removing it would let two processes lock two different
// files of the same name.
const LockFile = ".lock"

// openLockFile opens root/.lock read-write through the FS, creating it when
// it is missing; the caller locks it (lockRootDir). Errors name the root.
func openLockFile(fsys FS, root string) (File, error) {
	path := filepath.Join(root, LockFile)
	f, err := fsys.OpenReadWrite(path)
	if isNotExist(err) {
		f, err = fsys.Create(path)
	}
	if err != nil {
		return nil, fmt.Errorf("engine: lock log directory %s: %w", root, err)
	}
	return f, nil
}

// logDirRoot is this process's state of one log directory root (the
// parent of partition directories): the one owner of the read-write Logs
// open in it, the root's .lock, the clean-shutdown marker written when the
// last of them closes, and the locks serialising the read-modify-write of
// its checkpoint files. Kafka's LogManager owns a whole log directory; a
// Log here is one partition, so the state is counted per root and shared
// by the process's Logs of that root.
type logDirRoot struct {
	path string // absolute and clean: the key of roots.m

	// The fields below are guarded by roots.mu.
	refs       int             // read-write Logs (and OpenLogDir calls) holding the root
	lock       File            // the locked .lock while refs > 0
	partitions map[string]bool // partition directories open read-write
	// unclean is set when a Log of the root failed to open after it had
	// begun changing the partition, closed with an error, or was
	// abandoned: the last release then leaves the clean-shutdown marker
	// unwritten, so that the next open recovers.
	unclean   bool
	ckpt      map[string]*sync.Mutex // checkpoint file name -> its lock
	ckptUsers int                    // lockCheckpoint calls holding or waiting for a lock
}

// roots is the process's table of log directory roots in use.
var roots = struct {
	mu sync.Mutex
	m  map[string]*logDirRoot
}{m: map[string]*logDirRoot{}}

// rootKey is the key of a root in roots: its absolute, clean path.
func rootKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// rootEntry returns the entry of root, made if absent.
// REQUIRES: roots.mu held.
func rootEntry(root string) *logDirRoot {
	key := rootKey(root)
	r := roots.m[key]
	if r == nil {
		r = &logDirRoot{path: key, partitions: map[string]bool{}, ckpt: map[string]*sync.Mutex{}}
		roots.m[key] = r
	}
	return r
}

// forgetIfUnused drops r from roots once nothing holds it.
// REQUIRES: roots.mu held.
func (r *logDirRoot) forgetIfUnused() {
	if r.refs == 0 && r.ckptUsers == 0 && roots.m[r.path] == r {
		delete(roots.m, r.path)
	}
}

// acquireRoot counts one more holder of the root: the first takes its
// .lock (lockRootDir). With partition != "", the holder is the read-write
// Log of that partition directory, which may be open only once in the
// process. Errors: ErrLogDirLocked (another process holds the lock),
// ErrPartitionOpen, or the error of creating or locking .lock.
func acquireRoot(fsys FS, root, partition string) (*logDirRoot, error) {
	roots.mu.Lock()
	defer roots.mu.Unlock()
	r := rootEntry(root)
	if partition != "" {
		partition = rootKey(partition)
		if r.partitions[partition] {
			return nil, fmt.Errorf("%w: %s", ErrPartitionOpen, partition)
		}
	}
	if r.refs == 0 {
		f, err := lockRootDir(fsys, r.path)
		if err != nil {
			r.forgetIfUnused()
			return nil, err
		}
		r.lock = f
		r.unclean = false
	}
	r.refs++
	if partition != "" {
		r.partitions[partition] = true
	}
	return r, nil
}

// How a holder lets go of a root (logDirRoot.release).
type releaseKind int8

const (
	// releaseClean: the holder ends without error, its partition consistent.
	releaseClean releaseKind = iota
	// releaseUnclean: the holder failed (an open that had begun changing
	// the partition, a close with an error, an abandoned Log): the root is
	// marked unclean, so its last release writes no clean-shutdown marker.
	releaseUnclean
	// releaseNeutral: the holder changed nothing (OpenLogDir's own hold);
	// as the last holder it writes no marker either, leaving it as it was.
	releaseNeutral
)

// release undoes one acquireRoot. The last holder writes CleanShutdownFile
// (unless the root is unclean or the holder neutral), then unlocks .lock.
// It returns the error of writing the marker.
func (r *logDirRoot) release(fsys FS, partition string, how releaseKind) error {
	roots.mu.Lock()
	defer roots.mu.Unlock()
	if partition != "" {
		delete(r.partitions, rootKey(partition))
	}
	if how == releaseUnclean {
		r.unclean = true
	}
	r.refs--
	if r.refs > 0 {
		return nil
	}
	var err error
	if !r.unclean && how == releaseClean {
		// Written while .lock is still held: no other process can have
		// begun changing the root.
		err = writeCleanShutdown(fsys, r.path)
	}
	unlockRootDir(r.lock)
	r.lock = nil
	r.forgetIfUnused()
	return err
}

// removeCleanShutdown removes the root's clean-shutdown marker, durably:
// from here on a crash is an unclean shutdown.
func (r *logDirRoot) removeCleanShutdown(fsys FS) error {
	path := filepath.Join(r.path, CleanShutdownFile)
	if err := fsys.Remove(path); err != nil && !isNotExist(err) {
		return fmt.Errorf("engine: remove %s: %w", path, err)
	}
	if err := fsys.SyncDir(r.path); err != nil {
		return fmt.Errorf("engine: fsync %s: %w", r.path, err)
	}
	return nil
}

// rootHolders returns how many holders the root has in this process (tests).
func rootHolders(root string) int {
	roots.mu.Lock()
	defer roots.mu.Unlock()
	if r := roots.m[rootKey(root)]; r != nil {
		return r.refs
	}
	return 0
}

// partitionOpenHere reports whether the partition directory is open
// read-write in this process.
func partitionOpenHere(partition string) bool {
	roots.mu.Lock()
	defer roots.mu.Unlock()
	r := roots.m[filepath.Dir(rootKey(partition))]
	return r != nil && r.partitions[rootKey(partition)]
}

// lockCheckpoint takes the lock of the checkpoint file at path (one per
// file, in its root's state): several partitions of one root, and several
// cleaner threads, read-modify-write the same file. It returns the unlock.
func lockCheckpoint(path string) func() {
	roots.mu.Lock()
	r := rootEntry(filepath.Dir(rootKey(path)))
	name := filepath.Base(path)
	mu := r.ckpt[name]
	if mu == nil {
		mu = &sync.Mutex{}
		r.ckpt[name] = mu
	}
	r.ckptUsers++
	roots.mu.Unlock()
	mu.Lock()
	return func() {
		mu.Unlock()
		roots.mu.Lock()
		r.ckptUsers--
		r.forgetIfUnused()
		roots.mu.Unlock()
	}
}

// writeCleanShutdown creates the clean-shutdown marker in root, durably.
func writeCleanShutdown(fsys FS, root string) error {
	path := filepath.Join(root, CleanShutdownFile)
	f, err := fsys.Create(path)
	if err != nil {
		return fmt.Errorf("engine: create %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("engine: fsync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("engine: close %s: %w", path, err)
	}
	return fsys.SyncDir(root)
}
