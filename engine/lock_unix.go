//go:build unix

package engine

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// lockRootDir opens (creating it if need be) and locks root/.lock: an
// exclusive, non-blocking flock, as Kafka's LogManager.lockLogDirs takes its
// FileLock (tryLock), plus, where the OS has them, an open-file-description
// record lock (ofdLock), which is what conflicts with the fcntl lock a
// Kafka broker's FileChannel.tryLock holds. The file is opened through the
// FS seam, like every file of the engine (a full or read-only disk fails
// the open cleanly, and operation logs see it); the lock is taken on its
// descriptor (File.Fd) with x/sys/unix: the seam has no Lock method, as a
// lock is a property of an open file in the kernel that no wrapper of the
// seam could fake. It is released when the file is closed (unlockRootDir),
// or by the kernel when the process dies. On NFS, where Linux emulates
// flock with a record lock, the two locks conflict with each other and a
// read-write open fails (Kafka does not support log directories on NFS).
func lockRootDir(fsys FS, root string) (File, error) {
	f, err := openLockFile(fsys, root)
	if err != nil {
		return nil, err
	}
	if f.Fd() == ^uintptr(0) {
		// A file system without descriptors (vfs.MemFS) lives in this
		// process alone: no other process can open the directory, and
		// this process's registry of roots (rootEntry) already refuses a
		// second owner, so there is no kernel lock to take.
		return f, nil
	}
	path := filepath.Join(root, LockFile)
	busy := func() error {
		f.Close()
		return fmt.Errorf("%w: %s: %s is locked: another process (a cleanerlab command or a Kafka broker) is using this log directory", ErrLogDirLocked, root, path)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, busy()
		}
		f.Close()
		return nil, fmt.Errorf("engine: lock log directory %s: flock %s: %w", root, path, err)
	}
	if err := ofdLock(f); err != nil {
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return nil, busy()
		}
		f.Close()
		return nil, fmt.Errorf("engine: lock log directory %s: fcntl %s: %w", root, path, err)
	}
	return f, nil
}

// unlockRootDir releases a lock taken by lockRootDir.
func unlockRootDir(f File) {
	if f != nil {
		f.Close() // closing the last descriptor drops both locks
	}
}
