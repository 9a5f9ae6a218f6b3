package iosched

// sync_file_range(2) flags, with Linux's values.
const (
	// SyncRangeWaitBefore waits for write-back of the range already under way.
	SyncRangeWaitBefore = 1
	// SyncRangeWrite starts write-back of the range's dirty pages.
	SyncRangeWrite = 2
	// SyncRangeWaitAfter waits for the write-back this call started.
	SyncRangeWaitAfter = 4
)

// Datasyncer is a File with its own fdatasync(2). The engine's FS seam
// wrappers (vfstest) implement it so that a logging or faulting FS sees the
// call; Datasync uses it when a File has it.
type Datasyncer interface {
	Datasync() error
}

// RangeSyncer is a File with its own sync_file_range(2) (flags
// SyncRangeWaitBefore, SyncRangeWrite, SyncRangeWaitAfter); SyncRange uses
// it when a File has it.
type RangeSyncer interface {
	SyncRange(off, n int64, flags int) error
}

// Datasync flushes f's data and the metadata needed to read it back:
// f.Datasync when f is a Datasyncer, else fdatasync(2) on its descriptor,
// else (no descriptor, or not Linux) f.Sync.
func Datasync(f File) error {
	if d, ok := f.(Datasyncer); ok {
		return d.Datasync()
	}
	if fd, ok := osFd(f); ok {
		if done, err := fdatasync(fd); done {
			return err
		}
	}
	return f.Sync()
}

// SyncRange starts or waits for write-back of bytes [off, off+n) of f
// (sync_file_range(2); n 0: to the end of the file): f.SyncRange when f is a
// RangeSyncer, else the system call on its descriptor. A File with neither
// (a test double, or not Linux) has nothing to write back: nil.
func SyncRange(f File, off, n int64, flags int) error {
	if r, ok := f.(RangeSyncer); ok {
		return r.SyncRange(off, n, flags)
	}
	if fd, ok := osFd(f); ok {
		return syncFileRange(fd, off, n, flags)
	}
	return nil
}
