// Package iosched is how the cleaner's bytes move between segment files and memory:
// the segment Reader (pread into one reusable buffer, as Kafka's cleaner reads with
// its read buffer, optionally with a read-ahead helper that keeps the disk reading
// ahead of it), the Writer (one reusable write buffer, flushed when full, synced
// per FsyncPolicy), and page-cache control for cold and warm runs (fdatasync +
// posix_fadvise DONTNEED, drop_caches, a read-once warm-up, mincore residency).
//
// iosched imports no other package of cleanerlab: the engine reaches files through
// its FS seam, whose files satisfy File.
package iosched

// File is what iosched needs of an open file. The engine's FS seam yields these;
// *os.File satisfies it. Fd is used for fadvise, mmap and to open second
// descriptors of the file (the direct path's O_DIRECT one, the read-ahead
// helper's) only; Name is used in error messages.
type File interface {
	ReadAt(p []byte, off int64) (int, error)
	Write(p []byte) (int, error)
	Sync() error
	Fd() uintptr
	Name() string
}
