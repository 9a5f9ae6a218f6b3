package iosched

import (
	"errors"
	"fmt"
)

// Sentinel errors of the package; match them with errors.Is.
var (
	// ErrBatchTooLarge: a batch needs more buffer than maxBufferBytes
	// (Kafka's max.message.bytes) allows. Returned, wrapped, by Reader.Grow.
	ErrBatchTooLarge = errors.New("iosched: batch larger than max buffer")
	// ErrNoProgress: a file's ReadAt or Write returned no bytes and no error,
	// so retrying could loop forever.
	ErrNoProgress = errors.New("iosched: read or write made no progress")
	// ErrDirectUnsupported: a file could not be opened with O_DIRECT (the
	// file system refuses it, or the file has no OS descriptor) and the
	// direct reader was not allowed to fall back to buffered reads.
	ErrDirectUnsupported = errors.New("iosched: O_DIRECT not available for this file")
)

// IOError says which operation on which file at which byte position failed.
// Pos is a byte position in the file (for writes: bytes written to it by this
// Writer since Reset). Unwrap gives the underlying error (io.ErrUnexpectedEOF,
// a *fs.PathError, ErrNoProgress, ...).
type IOError struct {
	Op   string // "read", "write", "sync", "fadvise", ...
	Path string // File.Name()
	Pos  int64  // byte position in the file, -1 when not applicable
	Err  error
}

func (e *IOError) Error() string {
	if e.Pos < 0 {
		return fmt.Sprintf("iosched: %s %s: %v", e.Op, e.Path, e.Err)
	}
	return fmt.Sprintf("iosched: %s %s at byte %d: %v", e.Op, e.Path, e.Pos, e.Err)
}

func (e *IOError) Unwrap() error { return e.Err }
