package iosched

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"
)

// DefaultWriteBufferBytes is log.cleaner.io.buffer.size (524288) / threads (1) / 2:
// the per-thread write buffer of Kafka's cleaner.
const DefaultWriteBufferBytes = 256 << 10

// FsyncPolicy says when a Writer syncs the file it writes: "none",
// "segment", "fdatasync" or "bytes=N" (N in bytes, canonical form of
// ParseFsyncPolicy). Every policy but none also has the engine fsync the
// directory after the swap.
type FsyncPolicy string

const (
	// FsyncSegment fsyncs (fsync(2)) each cleaned segment file in Finish,
	// before the swap, as Kafka flushes a cleaned segment
	// (FileChannel.force(true)) before replacing the old ones. The default.
	FsyncSegment FsyncPolicy = "segment"
	// FsyncFdatasync is FsyncSegment with fdatasync(2): the file's data and
	// the metadata needed to read it back (its size), not its timestamps.
	FsyncFdatasync FsyncPolicy = "fdatasync"
	// FsyncNone never syncs: the page cache holds the cleaned bytes until the
	// kernel writes them back, and the engine skips the directory fsync of
	// the swap too. Not crash safe: a crash after the swap can lose cleaned
	// data whose originals are already gone. For measuring what syncing costs.
	FsyncNone FsyncPolicy = "none"
)

// fsyncBytesPrefix starts the "bytes=N" policies.
const fsyncBytesPrefix = "bytes="

// FsyncBytes is the policy "bytes=n": every n bytes written, start the
// write-back of them (sync_file_range(2) SYNC_FILE_RANGE_WRITE, which does
// not wait), and fdatasync in Finish; so Finish waits for at most the last
// n bytes plus what write-back has not finished. n must be at least 1.
func FsyncBytes(n int64) FsyncPolicy { return FsyncPolicy(fsyncBytesPrefix + strconv.FormatInt(n, 10)) }

// ParseFsyncPolicy parses "none", "segment", "fdatasync" or "bytes=N" (N a
// byte count, with an optional KiB, MiB or GiB suffix; at least 1) and
// returns it in canonical form ("bytes=1MiB" gives "bytes=1048576"); ""
// gives the default, FsyncSegment. Any other value is an error.
func ParseFsyncPolicy(s string) (FsyncPolicy, error) {
	switch FsyncPolicy(s) {
	case "", FsyncSegment:
		return FsyncSegment, nil
	case FsyncNone, FsyncFdatasync:
		return FsyncPolicy(s), nil
	}
	if n, ok := strings.CutPrefix(s, fsyncBytesPrefix); ok {
		v, err := parseBytes(n)
		if err != nil || v < 1 {
			return "", fmt.Errorf("iosched: fsync policy %q: N must be a byte count of at least 1 (e.g. bytes=1048576, bytes=8MiB)", s)
		}
		return FsyncBytes(v), nil
	}
	return "", fmt.Errorf("iosched: unknown fsync policy %q (want none, segment, fdatasync or bytes=N)", s)
}

// parseBytes parses a non-negative byte count with an optional KiB, MiB or
// GiB suffix.
func parseBytes(s string) (int64, error) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if t, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = t, u.mult
			break
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 || v > math.MaxInt64/mult {
		return 0, fmt.Errorf("iosched: %q is not a byte count", s)
	}
	return v * mult, nil
}

func (p FsyncPolicy) String() string { return string(p) }

// RangeBytes is N of a "bytes=N" policy, else 0.
func (p FsyncPolicy) RangeBytes() int64 {
	n, ok := strings.CutPrefix(string(p), fsyncBytesPrefix)
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(n, 10, 64)
	if err != nil || v < 1 {
		return 0
	}
	return v
}

// SyncsDir reports whether the directory of a swap is fsynced under p: under
// every policy but FsyncNone.
func (p FsyncPolicy) SyncsDir() bool { return p != FsyncNone }

// WriteStats counts what a Writer did since it was made.
type WriteStats struct {
	Bytes      int64         // bytes accepted by File.Write calls
	Writes     int64         // File.Write calls
	Syncs      int64         // fsync calls (File.Sync)
	Datasyncs  int64         // fdatasync calls
	RangeSyncs int64         // sync_file_range calls
	WriteTime  time.Duration // wall time inside File.Write calls
	// SyncTime is the wall time inside fsync, fdatasync and
	// sync_file_range calls.
	SyncTime time.Duration
	// FinalSyncTime is the part of SyncTime inside the fsync and
	// fdatasync calls of Finish (or of a PendingSync): without the
	// sync_file_range starts of early write-back, bytes=N and drop-behind.
	FinalSyncTime time.Duration
	// DroppedBytes counts bytes written and then dropped from the page cache
	// by the cache-friendly mode (SetDropBehind).
	DroppedBytes int64
	// DirectBytes counts the bytes of Bytes written with O_DIRECT
	// (SetDirect); DirectFallbacks the files SetDirect was on for but that
	// were written through the page cache, the first one's cause in
	// DirectFallbackReason.
	DirectBytes          int64
	DirectFallbacks      int64
	DirectFallbackReason string `json:",omitempty"`
	// LastDirectFallbackReason is the latest fallback's cause (a caller
	// counting one span of writes, such as a clean, takes that span's).
	LastDirectFallbackReason string `json:",omitempty"`
	// BehindWrites counts the buffers handed to write-behind
	// (SetWriteBehind); BehindInline those of them the caller wrote itself
	// because their goroutine had not started when the caller needed the
	// buffer back (no core was free to run it).
	BehindWrites int64
	BehindInline int64
}

// Writer appends to a file through one reusable write buffer, flushed when
// full, and syncs per its FsyncPolicy. The buffer is allocated once, in
// NewWriter. A Writer is not safe for concurrent use: one per cleaner thread.
type Writer struct {
	buf        []byte // cap fixed; len = pending bytes
	policy     FsyncPolicy
	rangeBytes int64 // N of a bytes=N policy; 0 otherwise
	writeback  int64 // SetWritebackBytes; 0: off
	startEvery int64 // write-back started every this many bytes of the file Reset (writebackEvery); 0: never
	dropBehind bool
	f          File
	fd         int   // f's descriptor for fadvise; -1 when it has none
	base       int64 // file offset of the first byte written since Reset
	written    int64 // bytes written to f since Reset, for error positions
	started    int64 // bytes since Reset whose write-back startEvery started
	wbStarted  int64 // bytes since Reset whose write-back drop-behind started
	dropped    int64 // bytes since Reset dropped from the page cache
	stats      WriteStats

	// Write-behind (SetWriteBehind): spare is the second buffer, in flight
	// while inFlight as job; done carries the in-flight write's error. The
	// job is written by whichever claims it first: its goroutine, or the
	// caller's side when it needs the buffer back before the goroutine has
	// started (settle). While a write is in flight its goroutine alone
	// touches f, the counters above and stats; the caller's side settles
	// the job before it reads them.
	writeBehind bool
	spare       []byte
	inFlight    bool
	job         *behindJob
	done        chan error
	// beforeJob, when set (tests), is called by each write-behind
	// goroutine before it claims its job.
	beforeJob func()

	// O_DIRECT output (SetDirect): dfd is the O_DIRECT descriptor of f,
	// -1 when f is written with write(2); appendMode says f was opened
	// O_APPEND. While dfd >= 0 the buffers are aligned to
	// directAlignBytes, whole blocks go out by pwrite on dfd at
	// base+written, and a partial block waits in the buffer until Finish.
	direct int // SetDirect's write size in bytes; 0: off
	// throughCache: the rest of this file goes by pwrite on f's own
	// descriptor, through the page cache (its last partial block, or all
	// of it once the file system refused an O_DIRECT write); touched only
	// where the writes are, or after wait.
	throughCache bool
	dfd          int
	appendMode   bool
}

// NewWriter returns a Writer with a write buffer of bufferBytes (Kafka:
// log.cleaner.io.buffer.size / log.cleaner.threads / 2; 256 KiB by default; a
// value < 1 gives DefaultWriteBufferBytes) that syncs per policy ("" means
// FsyncSegment). policy should come from ParseFsyncPolicy or FsyncBytes; an
// unknown one makes Finish fail.
func NewWriter(bufferBytes int, policy FsyncPolicy) *Writer {
	if bufferBytes < 1 {
		bufferBytes = DefaultWriteBufferBytes
	}
	if policy == "" {
		policy = FsyncSegment
	}
	return &Writer{buf: make([]byte, 0, bufferBytes), policy: policy, rangeBytes: policy.RangeBytes(), fd: -1, dfd: -1}
}

// SetDirect turns O_DIRECT output on, in writes of n bytes (n rounded up
// to a multiple of 4,096), or off (n <= 0, the default), for the files
// Reset after the call. With it on, Reset opens a second descriptor of the
// file with O_DIRECT (through /proc/self/fd), the write buffers (two with
// write-behind) become n bytes, aligned to 4,096 bytes, and each flush
// writes the buffer's whole 4,096-byte blocks straight to the device by
// pwrite(2), with no copy into the page cache (the size matters: each
// direct write waits for the device, so small ones leave it idle between
// requests);
// a partial block is carried over to the next buffer, and the file's last
// partial block is written through the page cache by Finish, which then
// syncs per the policy as ever (the sync also flushes the device's write
// cache and makes the file's size durable). The bytes and the file are
// those of the plain Writer. It costs the cleaned file's pages in the
// cache: a later read of the file comes from storage. Early write-back
// (SetWritebackBytes, bytes=N) and drop-behind have no pages to act on
// and are skipped for the direct blocks. A file that cannot be written so
// (no OS descriptor, a start that is not block aligned, a file system that
// refuses the O_DIRECT open) is written through the page cache and counted
// in WriteStats.DirectFallbacks. A direct write the device or file system
// refuses is an *IOError. Linux only: elsewhere every file falls back. Not
// a Kafka feature (Kafka writes through the page cache and force()s).
func (w *Writer) SetDirect(n int) { w.direct = DirectWriteSize(n) }

// DirectWriteSize is the O_DIRECT write size SetDirect makes of n bytes: n
// rounded up to a multiple of 4,096, or 0 (off) for n <= 0.
func DirectWriteSize(n int) int {
	if n <= 0 {
		return 0
	}
	return int(alignUp(int64(n), directAlignBytes))
}

// Direct is SetDirect's write size in bytes (a multiple of 4,096), 0 when
// off.
func (w *Writer) Direct() int { return w.direct }

// SetDropBehind turns the cache-friendly mode on or off for the files Reset
// after the call: the pages written are dropped from the page cache behind
// the writing. Dirty pages cannot be dropped, so after each flush of the
// buffer the Writer starts the write-back of the bytes just written
// (sync_file_range WRITE), waits for that of the previous flush
// (WAIT_BEFORE|WRITE|WAIT_AFTER) and drops it (fadvise DONTNEED); Finish
// drops the rest after its sync. This writes the data back even under
// FsyncNone (without making it durable: no fdatasync, no directory fsync).
func (w *Writer) SetDropBehind(on bool) { w.dropBehind = on }

// SetWritebackBytes sets early write-back for the files Reset after the
// call, under the segment and fdatasync policies: every n bytes written
// (n in bytes; 0, the default, is off, as Kafka; a negative n is 0), start
// the write-back of the bytes written since the last start
// (sync_file_range(2) SYNC_FILE_RANGE_WRITE, which does not wait), as
// bytes=N does. Finish still fsyncs (segment) or fdatasyncs (fdatasync)
// the whole file, so durability is the policy's; the final sync just has
// less left to wait for. The starts run where the writes do (on the
// write-behind goroutine with SetWriteBehind) and count in RangeSyncs and
// SyncTime. Under bytes=N the policy's N applies instead, and under none
// nothing is started (that policy measures not syncing). With
// SetDropBehind, which starts every flush's write-back anyway, they are
// redundant (cheap: the pages are already under write-back). Not a Kafka
// feature (Kafka's cleaner writes the segment, then force(true)).
func (w *Writer) SetWritebackBytes(n int64) { w.writeback = max(n, 0) }

// WritebackBytes is the n of SetWritebackBytes when the policy uses it
// (segment, fdatasync), else 0.
func (w *Writer) WritebackBytes() int64 {
	if w.policy == FsyncSegment || w.policy == FsyncFdatasync {
		return w.writeback
	}
	return 0
}

// writebackEvery is how many bytes written start their write-back: N of
// bytes=N, else SetWritebackBytes' n under segment and fdatasync; 0: never.
func (w *Writer) writebackEvery() int64 {
	if w.rangeBytes > 0 {
		return w.rangeBytes
	}
	return w.WritebackBytes()
}

// SetWriteBehind turns write-behind on or off for the files Reset after the
// call. With it on, a full buffer is handed to a goroutine that writes it
// (and starts its write-back under bytes=N or SetWritebackBytes, drops it
// under SetDropBehind) while the caller fills a second buffer of the same
// size, so the cleaner's filtering on one core overlaps the write(2)
// copying into the page cache on another. At most one buffer is in
// flight; the next flush, Finish, Stats and Reset wait for it. The bytes,
// their order and the syncs are those of the plain Writer; an error of a
// write behind is returned by the next Write, Flush or Finish. Costs a
// second write buffer, allocated on the first flush. Not a Kafka feature
// (Kafka's cleaner thread writes each buffer itself).
func (w *Writer) SetWriteBehind(on bool) {
	w.wait() // a write in flight finishes under the mode it started in
	w.writeBehind = on
}

// WriteBehind reports whether SetWriteBehind is on.
func (w *Writer) WriteBehind() bool { return w.writeBehind }

// Wait waits for a write behind in flight, if any, and returns its error
// (nil without write-behind), and closes the O_DIRECT descriptor of
// SetDirect. Call it before closing the file after an error, so no write
// is left running on it and no descriptor left open.
func (w *Writer) Wait() error {
	err := w.wait()
	w.closeDirect()
	return err
}

// wait waits for the write in flight, if any, and returns its error.
func (w *Writer) wait() error {
	if !w.inFlight {
		return nil
	}
	w.inFlight = false
	return w.settle()
}

// behindJob is one buffer handed to write-behind, and who writes it.
type behindJob struct {
	p []byte
	// claimed is set by whoever writes p: the job's goroutine, or settle.
	claimed atomic.Bool
}

// settle returns the in-flight write's error once it is written: by its
// goroutine, waited for, or, when the goroutine has not claimed it yet
// (it sits in the run queue behind busy cores), by the caller itself, at
// once, rather than waiting for the scheduler to start the goroutine.
func (w *Writer) settle() error {
	if w.job.claimed.CompareAndSwap(false, true) {
		w.stats.BehindInline++
		return w.writeFile(w.job.p)
	}
	return <-w.done
}

// flushBehind hands the buffer's first n bytes to a goroutine that writes
// them, after the previous one is written, and continues in the spare
// buffer, which starts with the rest (a partial block of O_DIRECT output).
func (w *Writer) flushBehind(n int) error {
	if err := w.wait(); err != nil {
		w.buf = w.buf[:0]
		return err
	}
	if w.done == nil {
		w.done = make(chan error, 1)
	}
	if cap(w.spare) != cap(w.buf) || (w.dfd >= 0 && !isAligned(w.spare)) {
		w.spare = w.newBuffer(cap(w.buf))
	}
	full := w.buf
	w.buf, w.spare = append(w.spare[:0], full[n:]...), full
	w.inFlight = true
	// A job of its own each time: a goroutine that lost its job to settle
	// may still be about to look at it.
	w.job = &behindJob{p: full[:n]}
	w.stats.BehindWrites++
	go w.writeBehindJob(w.job)
	return nil
}

// newBuffer makes an empty buffer of capacity n, aligned to
// directAlignBytes while the file is written with O_DIRECT.
func (w *Writer) newBuffer(n int) []byte {
	if w.dfd < 0 {
		return make([]byte, 0, n)
	}
	raw := make([]byte, n+directAlignBytes)
	addr := int64(uintptr(unsafe.Pointer(unsafe.SliceData(raw))))
	off := int(alignUp(addr, directAlignBytes) - addr)
	return raw[off : off : off+n]
}

// isAligned says whether b's first byte is aligned to directAlignBytes.
func isAligned(b []byte) bool {
	return cap(b) > 0 && uintptr(unsafe.Pointer(unsafe.SliceData(b[:1])))%directAlignBytes == 0
}

// openDirect opens f's O_DIRECT descriptor for SetDirect, or counts the
// fallback to write(2), and aligns the buffers.
func (w *Writer) openDirect(f File) {
	reason := ""
	fd, ok := osFd(f)
	var off int64
	if !ok {
		reason = "the file has no OS descriptor"
	} else if off, w.appendMode, ok = appendOffset(fd); !ok {
		reason = "its write offset cannot be read"
	} else if off%directAlignBytes != 0 {
		reason = fmt.Sprintf("writing starts at byte %d, not a multiple of %d", off, directAlignBytes)
	} else if dfd, err := openDirectWrite(fd); err != nil {
		reason = fmt.Sprintf("O_DIRECT open failed (%v)", err)
	} else {
		w.dfd, w.fd, w.base = dfd, fd, off
	}
	if reason != "" {
		w.noteDirectFallback(fmt.Sprintf("%s: %s; written through the page cache", f.Name(), reason))
		return
	}
	if cap(w.buf) != w.direct || !isAligned(w.buf) {
		w.buf = w.newBuffer(w.direct)
	}
}

// noteDirectFallback counts one file written through the page cache
// although SetDirect was on, and why.
func (w *Writer) noteDirectFallback(reason string) {
	w.stats.DirectFallbacks++
	w.stats.LastDirectFallbackReason = reason
	if w.stats.DirectFallbackReason == "" {
		w.stats.DirectFallbackReason = reason
	}
}

// closeDirect closes the O_DIRECT descriptor, if any.
func (w *Writer) closeDirect() {
	if w.dfd >= 0 {
		closeFd(w.dfd)
		w.dfd = -1
	}
	w.throughCache = false
}

// directPwrite is pwriteFull; tests replace it to refuse O_DIRECT writes.
var directPwrite = pwriteFull

// writeBehindJob is the goroutine of one write behind: it writes j's
// buffer unless settle claimed it first.
func (w *Writer) writeBehindJob(j *behindJob) {
	if w.beforeJob != nil {
		w.beforeJob()
	}
	if j.claimed.CompareAndSwap(false, true) {
		w.done <- w.writeFile(j.p)
	}
}

// Reset starts writing f at its current end (File.Write appends at the file's
// offset). Bytes still buffered for the previous file are discarded: call Finish
// (or Flush) first.
func (w *Writer) Reset(f File) {
	_ = w.wait() // the previous file's last write; its error was Finish's to report
	w.closeDirect()
	w.f = f
	w.buf = w.buf[:0]
	w.written, w.started, w.wbStarted, w.dropped, w.base = 0, 0, 0, 0, 0
	w.startEvery = w.writebackEvery()
	w.fd = -1
	if w.direct > 0 {
		w.openDirect(f)
	}
	if w.dfd < 0 && (w.startEvery > 0 || w.dropBehind) {
		// sync_file_range and fadvise take file offsets: where appending starts.
		if fd, ok := osFd(f); ok {
			w.fd = fd
			w.base = fileSize(fd)
		}
	}
}

// Write buffers p, flushing the buffer whenever it fills. A p larger than the buffer
// is written through after flushing what is pending. Errors are *IOError values
// naming the file and byte position; after an error the file's content is undefined.
func (w *Writer) Write(p []byte) error {
	if w.f == nil {
		return errors.New("iosched: Writer.Write before Reset")
	}
	if w.dfd >= 0 {
		// O_DIRECT writes go from the aligned buffer only: fill it, flush
		// its whole blocks, go on.
		for {
			n := copy(w.buf[len(w.buf):cap(w.buf)], p)
			w.buf, p = w.buf[:len(w.buf)+n], p[n:]
			if len(p) == 0 {
				return nil
			}
			if err := w.Flush(); err != nil {
				return err
			}
		}
	}
	if len(p) > cap(w.buf)-len(w.buf) {
		if err := w.Flush(); err != nil {
			return err
		}
		if len(p) >= cap(w.buf) {
			if err := w.wait(); err != nil {
				return err
			}
			return w.writeFile(p)
		}
	}
	w.buf = append(w.buf, p...)
	return nil
}

// Reserve returns the buffer's free tail, empty and with a capacity of at
// least n bytes, for the caller to append up to n bytes to in place (no
// copy through a slice of its own) and then hand back with Commit. When
// fewer than n bytes are free it flushes first (as Write does). It
// returns a nil tail when n is more than an empty buffer holds: write
// those bytes with Write instead. The tail is valid until the next call
// on w. Errors are Flush's.
func (w *Writer) Reserve(n int) ([]byte, error) {
	if w.f == nil {
		return nil, errors.New("iosched: Writer.Reserve before Reset")
	}
	if n > cap(w.buf)-len(w.buf) {
		if err := w.Flush(); err != nil {
			return nil, err
		}
		if n > cap(w.buf)-len(w.buf) {
			return nil, nil
		}
	}
	return w.buf[len(w.buf):len(w.buf):cap(w.buf)], nil
}

// Commit adds to the buffered bytes the first n bytes appended to the
// tail the last Reserve returned (n at most that tail's capacity).
func (w *Writer) Commit(n int) { w.buf = w.buf[:len(w.buf)+n] }

// Flush writes the buffered bytes to the file; with write-behind it hands
// them to the writing goroutine (after the previous buffer is written) and
// returns. With O_DIRECT output (SetDirect) it writes the whole blocks and
// keeps a partial one buffered, for the next flush or Finish. It does not
// sync (but see FsyncBytes, SetWritebackBytes and SetDropBehind).
func (w *Writer) Flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if w.f == nil {
		return errors.New("iosched: Writer.Flush before Reset")
	}
	n := len(w.buf)
	if w.dfd >= 0 {
		if n = int(alignDown(int64(n), directAlignBytes)); n == 0 {
			return nil
		}
	}
	if w.writeBehind {
		return w.flushBehind(n)
	}
	err := w.writeFile(w.buf[:n])
	w.buf = w.buf[:copy(w.buf, w.buf[n:])]
	return err
}

// Finish flushes, then syncs the file per the policy: fsync (segment),
// fdatasync (fdatasync, bytes=N) or nothing (none); in the cache-friendly
// mode it then drops the file's remaining pages. The Writer keeps the file;
// Reset it before writing another. It is FinishBehind, then the
// PendingSync's Run, recorded by AddSynced.
func (w *Writer) Finish() error {
	p, err := w.FinishBehind()
	if err != nil {
		return err
	}
	r := p.Run()
	w.AddSynced(r)
	return r.Err
}

// PendingSync is the end of Finish taken out of the Writer by
// FinishBehind: the sync of one written file per the policy, and the
// cache-friendly mode's last drop. Its Run may be called on any goroutine
// while the Writer goes on with another file; once. The zero PendingSync
// has nothing to do.
type PendingSync struct {
	f          File
	policy     FsyncPolicy
	rangeBytes int64
	dropBehind bool
	fd         int   // f's descriptor for fadvise; -1 when none is known
	base       int64 // file offset where the Writer's bytes start
	dropped    int64 // bytes from base already dropped by drop-behind
	written    int64 // bytes the Writer wrote from base
}

// SyncResult is what a PendingSync's Run did: its error (an *IOError
// naming the file) and the counts it adds to WriteStats (AddSynced).
type SyncResult struct {
	Err                          error
	Syncs, Datasyncs, RangeSyncs int64
	SyncTime                     time.Duration
	FinalSyncTime                time.Duration // of SyncTime, inside fsync or fdatasync
	DroppedBytes                 int64
}

// FinishBehind is Finish without its sync: it writes everything buffered
// (waiting for a write behind) and returns what is left to do, the sync
// per the policy and drop-behind's last drop, as a PendingSync, so that
// the caller can run it on another goroutine while this Writer is Reset
// to the next file (the caller must not close the file before Run
// returns). Record its SyncResult with AddSynced. Errors are the write
// errors of Finish; a Writer with no file gives the zero PendingSync.
func (w *Writer) FinishBehind() (PendingSync, error) {
	if err := w.Flush(); err != nil {
		return PendingSync{}, err
	}
	if err := w.wait(); err != nil {
		return PendingSync{}, err
	}
	if w.f == nil {
		return PendingSync{}, nil
	}
	if w.dfd >= 0 {
		if err := w.finishDirect(); err != nil {
			return PendingSync{}, err
		}
	}
	fd := -1
	if w.dropBehind {
		fd = w.fd
	}
	p := PendingSync{f: w.f, policy: w.policy, rangeBytes: w.rangeBytes, dropBehind: w.dropBehind, fd: fd, base: w.base, dropped: w.dropped, written: w.written}
	w.dropped = w.written // the drop is the PendingSync's
	return p, nil
}

// AddSynced adds a PendingSync's counts to the Writer's WriteStats. Call
// it from the Writer's goroutine.
func (w *Writer) AddSynced(r SyncResult) {
	w.stats.Syncs += r.Syncs
	w.stats.Datasyncs += r.Datasyncs
	w.stats.RangeSyncs += r.RangeSyncs
	w.stats.SyncTime += r.SyncTime
	w.stats.FinalSyncTime += r.FinalSyncTime
	w.stats.DroppedBytes += r.DroppedBytes
}

// Run syncs the file per the policy: fsync (segment), fdatasync
// (fdatasync, bytes=N) or nothing (none, where the cache-friendly mode
// still writes back what it has not dropped, and waits for it); then, in
// the cache-friendly mode, it drops the file's pages not dropped yet. The
// zero PendingSync does nothing.
func (p *PendingSync) Run() SyncResult {
	var r SyncResult
	if p.f == nil {
		return r
	}
	timed := func(op string, pos int64, count *int64, sync func() error) error {
		start := time.Now()
		err := sync()
		r.SyncTime += time.Since(start)
		*count++
		if err != nil {
			return &IOError{Op: op, Path: p.f.Name(), Pos: pos, Err: err}
		}
		return nil
	}
	switch {
	case p.policy == FsyncNone:
		if p.dropBehind && p.written > p.dropped {
			r.Err = timed("sync_file_range", p.base+p.dropped, &r.RangeSyncs, func() error {
				return SyncRange(p.f, p.base+p.dropped, p.written-p.dropped, SyncRangeWaitBefore|SyncRangeWrite|SyncRangeWaitAfter)
			})
		}
	case p.policy == FsyncSegment:
		before := r.SyncTime
		r.Err = timed("fsync", -1, &r.Syncs, p.f.Sync)
		r.FinalSyncTime = r.SyncTime - before
	case p.policy == FsyncFdatasync || p.rangeBytes > 0:
		before := r.SyncTime
		r.Err = timed("fdatasync", -1, &r.Datasyncs, func() error { return Datasync(p.f) })
		r.FinalSyncTime = r.SyncTime - before
	default:
		r.Err = &IOError{Op: "sync", Path: p.f.Name(), Pos: -1, Err: fmt.Errorf("unknown fsync policy %q", p.policy)}
	}
	if r.Err == nil && p.dropBehind && p.written > p.dropped {
		if p.fd >= 0 {
			from := alignDown(p.base+p.dropped, pageBytes)
			if fadvise(p.fd, from, p.base+p.written-from, adviseDontneed) == nil {
				r.DroppedBytes = p.written - p.dropped
			}
		}
	}
	return r
}

// finishDirect writes the last partial block of O_DIRECT output through
// the page cache (pwrite on f's descriptor), at its place, leaves f's offset at the end as write(2)
// would have, and closes the O_DIRECT descriptor.
func (w *Writer) finishDirect() error {
	defer w.closeDirect()
	if len(w.buf) > 0 {
		// pwrite on f's own descriptor: at the tail's place (or, on an
		// O_APPEND file, at its end, which is the same place).
		w.throughCache = true
		err := w.writeFile(w.buf)
		w.buf = w.buf[:0]
		if err != nil {
			return err
		}
	}
	if !w.appendMode {
		if err := seekTo(w.fd, w.base+w.written); err != nil {
			return &IOError{Op: "seek", Path: w.f.Name(), Pos: w.base + w.written, Err: err}
		}
	}
	return nil
}

// Buffered is the number of bytes written to the Writer but not yet to the file.
func (w *Writer) Buffered() int { return len(w.buf) }

// BufferBytes is the write buffer's size in bytes.
func (w *Writer) BufferBytes() int { return cap(w.buf) }

// Policy is the Writer's fsync policy.
func (w *Writer) Policy() FsyncPolicy { return w.policy }

// Stats returns the counts since NewWriter, after waiting for a write in
// flight. An error of that write stays for the next Write, Flush or Finish.
func (w *Writer) Stats() WriteStats {
	if w.inFlight {
		err := w.settle()
		w.done <- err // kept (the job stays claimed): not Stats' to report
	}
	return w.stats
}

// writeFile writes all of p to the file, retrying short writes that report
// no error, then starts write-back per the policy (or SetWritebackBytes) and
// the cache-friendly mode.
func (w *Writer) writeFile(p []byte) error {
	if w.dfd >= 0 {
		fd, direct := w.dfd, !w.throughCache
		if !direct {
			fd = w.fd
		}
		start := time.Now()
		n, err := directPwrite(fd, p, w.base+w.written)
		if direct && n == 0 && errors.Is(err, errInvalid) {
			// The file system took the O_DIRECT open but refuses the
			// write (an alignment it needs beyond 4,096 bytes): the rest of
			// the file goes through the page cache, counted.
			w.throughCache = true
			w.noteDirectFallback(fmt.Sprintf("%s: O_DIRECT write refused (%v); written through the page cache", w.f.Name(), err))
			fd, direct = w.fd, false
			n, err = directPwrite(fd, p, w.base+w.written)
		}
		w.stats.WriteTime += time.Since(start)
		w.stats.Writes++
		w.stats.Bytes += int64(n)
		w.written += int64(n)
		if direct {
			// Direct blocks never enter the page cache: nothing for
			// drop-behind to drop (or count) there.
			w.stats.DirectBytes += int64(n)
			w.dropped, w.wbStarted = w.written, w.written
		}
		if err != nil {
			return &IOError{Op: "write", Path: w.f.Name(), Pos: w.base + w.written, Err: err}
		}
		return nil
	}
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
	if w.startEvery > 0 && w.written-w.started >= w.startEvery {
		if err := w.syncRange(w.started, w.written-w.started, SyncRangeWrite); err != nil {
			return err
		}
		w.started = w.written
	}
	if w.dropBehind {
		// The previous flush's write-back was started: wait for it and drop
		// its pages; then start this flush's.
		if w.wbStarted > w.dropped {
			if err := w.syncRange(w.dropped, w.wbStarted-w.dropped, SyncRangeWaitBefore|SyncRangeWrite|SyncRangeWaitAfter); err != nil {
				return err
			}
			w.drop(w.wbStarted)
		}
		if err := w.syncRange(w.wbStarted, w.written-w.wbStarted, SyncRangeWrite); err != nil {
			return err
		}
		w.wbStarted = w.written
	}
	return nil
}

// syncRange calls sync_file_range over bytes [off, off+n) written since Reset.
func (w *Writer) syncRange(off, n int64, flags int) error {
	start := time.Now()
	err := SyncRange(w.f, w.base+off, n, flags)
	w.stats.SyncTime += time.Since(start)
	w.stats.RangeSyncs++
	if err != nil {
		return &IOError{Op: "sync_file_range", Path: w.f.Name(), Pos: w.base + off, Err: err}
	}
	return nil
}

// drop advises DONTNEED over the bytes written since Reset from w.dropped to
// to (whole pages only; the partial page at the end stays until Finish).
func (w *Writer) drop(to int64) {
	if to <= w.dropped {
		return
	}
	if w.fd >= 0 {
		from := alignDown(w.base+w.dropped, pageBytes)
		if fadvise(w.fd, from, w.base+to-from, adviseDontneed) == nil {
			w.stats.DroppedBytes += to - w.dropped
		}
	}
	w.dropped = to
}
