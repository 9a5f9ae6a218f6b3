package iosched

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// DefaultWriteBufferBytes is log.cleaner.io.buffer.size (524288) / threads (1) / 2:
// the per-thread write buffer of Kafka's cleaner.
const DefaultWriteBufferBytes = 256 << 10

// FsyncPolicy says when a Writer syncs the file it writes.
type FsyncPolicy string

const (
	// FsyncSegment syncs each cleaned segment file in Finish, before the swap, as
	// Kafka flushes a cleaned segment before replacing the old ones. The default.
	FsyncSegment FsyncPolicy = "segment"
	// FsyncNone never syncs: the page cache holds the cleaned bytes until the kernel
	// writes them back. Not crash safe; for measuring what fsync costs.
	FsyncNone FsyncPolicy = "none"
)

// ParseFsyncPolicy parses "none" or "segment"; "" gives the default, FsyncSegment.
// Any other value is an error.
func ParseFsyncPolicy(s string) (FsyncPolicy, error) {
	switch FsyncPolicy(s) {
	case "", FsyncSegment:
		return FsyncSegment, nil
	case FsyncNone:
		return FsyncNone, nil
	}
	return "", fmt.Errorf("iosched: unknown fsync policy %q (want %q or %q)", s, FsyncNone, FsyncSegment)
}

func (p FsyncPolicy) String() string { return string(p) }

// WriteStats counts what a Writer did since it was made.
type WriteStats struct {
	Bytes     int64         // bytes accepted by File.Write calls
	Writes    int64         // File.Write calls
	Syncs     int64         // File.Sync calls
	WriteTime time.Duration // wall time inside File.Write calls
	SyncTime  time.Duration // wall time inside File.Sync calls
}

// Writer appends to a file through one reusable write buffer, flushed when full, and
// syncs in Finish per its FsyncPolicy. The buffer is allocated once, in NewWriter. A
// Writer is not safe for concurrent use: one per cleaner thread.
type Writer struct {
	buf     []byte // cap fixed; len = pending bytes
	policy  FsyncPolicy
	f       File
	written int64 // bytes written to f since Reset, for error positions
	stats   WriteStats
}

// NewWriter returns a Writer with a write buffer of bufferBytes (Kafka:
// log.cleaner.io.buffer.size / log.cleaner.threads / 2; 256 KiB by default; a value
// < 1 gives DefaultWriteBufferBytes) that syncs per policy ("" means FsyncSegment).
func NewWriter(bufferBytes int, policy FsyncPolicy) *Writer {
	if bufferBytes < 1 {
		bufferBytes = DefaultWriteBufferBytes
	}
	if policy == "" {
		policy = FsyncSegment
	}
	return &Writer{buf: make([]byte, 0, bufferBytes), policy: policy}
}

// Reset starts writing f at its current end (File.Write appends at the file's
// offset). Bytes still buffered for the previous file are discarded: call Finish
// (or Flush) first.
func (w *Writer) Reset(f File) {
	w.f = f
	w.buf = w.buf[:0]
	w.written = 0
}

// Write buffers p, flushing the buffer whenever it fills. A p larger than the buffer
// is written through after flushing what is pending. Errors are *IOError values
// naming the file and byte position; after an error the file's content is undefined.
func (w *Writer) Write(p []byte) error {
	if w.f == nil {
		return errors.New("iosched: Writer.Write before Reset")
	}
	if len(p) > cap(w.buf)-len(w.buf) {
		if err := w.Flush(); err != nil {
			return err
		}
		if len(p) >= cap(w.buf) {
			return w.writeFile(p)
		}
	}
	w.buf = append(w.buf, p...)
	return nil
}

// Flush writes the buffered bytes to the file. It does not sync.
func (w *Writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if w.f == nil {
		return errors.New("iosched: Writer.Flush before Reset")
	}
	err := w.writeFile(w.buf)
	w.buf = w.buf[:0]
	return err
}

// Finish flushes, then syncs the file unless the policy is FsyncNone. The Writer
// keeps the file; Reset it before writing another.
func (w *Writer) Finish() error {
	if err := w.Flush(); err != nil {
		return err
	}
	if w.policy == FsyncNone || w.f == nil {
		return nil
	}
	start := time.Now()
	err := w.f.Sync()
	w.stats.SyncTime += time.Since(start)
	w.stats.Syncs++
	if err != nil {
		return &IOError{Op: "sync", Path: w.f.Name(), Pos: -1, Err: err}
	}
	return nil
}

// Buffered is the number of bytes written to the Writer but not yet to the file.
func (w *Writer) Buffered() int { return len(w.buf) }

// BufferBytes is the write buffer's size in bytes.
func (w *Writer) BufferBytes() int { return cap(w.buf) }

// Policy is the Writer's fsync policy.
func (w *Writer) Policy() FsyncPolicy { return w.policy }

// Stats returns the counts since NewWriter.
func (w *Writer) Stats() WriteStats { return w.stats }

// writeFile writes all of p to the file, retrying short writes that report no error.
func (w *Writer) writeFile(p []byte) error {
	for len(p) > 0 {
		start := time.Now()
		n, err := w.f.Write(p)
		w.stats.WriteTime += time.Since(start)
		w.stats.Writes++
		w.stats.Bytes += int64(n)
		w.written += int64(n)
		p = p[n:]
		switch {
		case err != nil:
			return &IOError{Op: "write", Path: w.f.Name(), Pos: w.written, Err: err}
		case n == 0 && len(p) > 0:
			return &IOError{Op: "write", Path: w.f.Name(), Pos: w.written, Err: fmt.Errorf("%w: %w", ErrNoProgress, io.ErrShortWrite)}
		}
	}
	return nil
}
