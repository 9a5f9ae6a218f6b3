package engine

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TruncateTo removes every batch whose last offset is >= offset, as
// Kafka's UnifiedLog.truncateTo (with LogManager.truncateTo's
// maybeTruncateCheckpoint), for a follower whose log diverged from its
// leader's. An offset at or past the log end offset changes no segment but,
// as Kafka's, truncates the leader epoch cache at the log end offset (an
// entry there is an epoch this replica led without appending, which its
// new leader does not know); one below the first segment's base offset is
// TruncateFullyAndStartAt(offset).
// Otherwise, in this order (each step crash safe; see below):
//  1. the cleaner checkpoint entry is lowered to the base offset of the
//     segment that will be active, the recovery point entry to offset, when
//     they are above (lowering them early is harmless: more cleaning or
//     recovery; lowering them late could let a stale checkpoint cover
//     appends made after a crash);
//  2. the segments whose base offset is > offset are renamed to .deleted,
//     newest first, and removed after file.delete.delay.ms;
//  3. the segment holding offset is cut at the start of the first batch
//     whose last offset is >= offset, as Kafka's LogSegment.truncateTo
//     (translateOffset): a batch holding offset goes whole. Its .log is
//     fsynced, its indexes rebuilt from what is left, its .txnindex loses
//     the transactions whose marker is gone; it becomes the active segment;
//  4. the directory is fsynced;
//  5. the leader epoch cache loses the epochs starting at or after the new
//     log end offset (truncateFromEnd) and leader-epoch-checkpoint is
//     rewritten;
//  6. the log start offset becomes min(itself, offset, new log end offset),
//     the high watermark is lowered to the new log end offset if it was
//     above, the producer state is rebuilt from the log (at its next use),
//     and the MCCO is lowered to the new log end offset.
//
// The new log end offset is the next offset after the last batch kept:
// offset when offset is a batch boundary (epoch end offsets and high
// watermarks are), lower when it fell inside a batch or a gap that
// cleaning left. (Kafka's in-memory log end offset stays at offset until
// its next restart; this one is what the files say, before and after a
// restart.) A crash at any step leaves, after Open, a log whose batches
// are a prefix of the old log's that holds every batch with last offset
// < offset. A clean in progress is not swapped in afterwards
// (ErrCleaningAborted). Errors: ErrClosed, ErrReadOnly, a negative offset,
// I/O errors (the log should then be closed and reopened).
func (l *Log) TruncateTo(offset record.Offset) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkTruncate("truncate", offset); err != nil {
		return err
	}
	if leo := l.segments[len(l.segments)-1].nextOffset; offset >= leo {
		// Kafka's UnifiedLog.truncateTo always truncates the epoch cache at
		// the log end offset: a broker that led an epoch without appending
		// in it holds an entry there that its new leader does not know.
		if l.epochs.truncateFromEnd(leo) {
			return l.writeEpochCache()
		}
		return nil
	}
	if offset < l.segments[0].base {
		return l.truncateFullyLocked(offset)
	}
	l.truncations++
	idx := 0
	for i, s := range l.segments {
		if s.base <= offset {
			idx = i
		}
	}
	keep := l.segments[idx]
	if err := l.lowerRootCheckpoints(keep.base, offset); err != nil {
		return err
	}
	doomed := l.segments[idx+1:]
	for i := len(doomed) - 1; i >= 0; i-- {
		s := doomed[i]
		s.closeIndexFiles()
		l.segments = l.segments[:idx+1+i]
		l.retire(s)
		if err := s.renameSuffix(DeletedFileSuffix); err != nil {
			return err
		}
		l.scheduleDelete(s)
	}
	s, err := keep.truncatedAt(offset, l)
	if err != nil {
		return err
	}
	keep.closeIndexFiles()
	l.segments[idx] = s
	l.retire(keep)
	keep = s
	if err := l.fs.SyncDir(l.dir); err != nil {
		return fmt.Errorf("engine: fsync %s: %w", l.dir, err)
	}
	leo := keep.nextOffset
	if l.epochs.truncateFromEnd(leo) {
		if err := l.writeEpochCache(); err != nil {
			return err
		}
	}
	lso := min(l.logStartOffset, offset, leo)
	if lso != l.logStartOffset {
		l.logStartOffset = lso
		if err := l.writeLogStartOffset(); err != nil {
			return err
		}
	}
	if l.highWatermark > leo {
		l.highWatermark = leo
	}
	l.pstate = nil
	l.mcco = min(l.mcco, leo)
	return nil
}

// TruncateFullyAndStartAt deletes every segment and starts the log empty at
// offset, as Kafka's UnifiedLog.truncateFullyAndStartAt (a follower that
// fetched below its leader's log start offset and got OFFSET_OUT_OF_RANGE).
// In this order: the cleaner checkpoint and recovery point entries are
// lowered to offset when above; the log start offset entry is set to
// offset (so that a crash that leaves no segment reopens, with
// Options.Create, at offset, as Kafka's LogLoader starts an empty log at
// its log start offset); every segment is renamed to .deleted, newest first;
// an empty active segment is created at offset and the directory fsynced;
// the leader epoch cache is cleared (Kafka's clearAndFlush) and its file
// rewritten. Log start offset, log end offset, high watermark (when set)
// and MCCO all become offset; the producer state becomes empty. Errors as
// TruncateTo.
func (l *Log) TruncateFullyAndStartAt(offset record.Offset) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.checkTruncate("truncate fully", offset); err != nil {
		return err
	}
	return l.truncateFullyLocked(offset)
}

// truncateFullyLocked is TruncateFullyAndStartAt. REQUIRES: l.mu held.
func (l *Log) truncateFullyLocked(offset record.Offset) error {
	l.truncations++
	if err := l.lowerRootCheckpoints(offset, offset); err != nil {
		return err
	}
	if err := updateCheckpointEntry(l.fs, filepath.Join(l.root, LogStartOffsetCheckpointFile), l.tp, offset, false); err != nil {
		return err
	}
	for i := len(l.segments) - 1; i >= 0; i-- {
		s := l.segments[i]
		s.closeIndexFiles()
		l.segments = l.segments[:i]
		l.retire(s)
		if err := s.renameSuffix(DeletedFileSuffix); err != nil {
			return err
		}
		l.scheduleDelete(s)
	}
	s, err := createSegment(l.fs, l.dir, offset, "", &l.cfg)
	if err != nil {
		return err
	}
	s.created = l.nowMs()
	l.segments = []*Segment{s}
	if err := s.activate(); err != nil {
		return err
	}
	if err := l.fs.SyncDir(l.dir); err != nil {
		return fmt.Errorf("engine: fsync %s: %w", l.dir, err)
	}
	l.epochs = epochCache{}
	if err := l.writeEpochCache(); err != nil {
		return err
	}
	l.logStartOffset = offset
	if err := l.writeLogStartOffset(); err != nil {
		return err
	}
	if l.highWatermark >= 0 {
		l.highWatermark = offset
	}
	l.pstate = newProducerStateManager()
	l.mcco = offset
	return nil
}

// checkTruncate is the common precondition of the truncations.
// REQUIRES: l.mu held.
func (l *Log) checkTruncate(what string, offset record.Offset) error {
	if err := l.writableLocked(what); err != nil {
		return err
	}
	if offset < 0 {
		return fmt.Errorf("%w: %s %s to offset %d, want >= 0", ErrOffsetOutOfRange, what, l.tp, offset)
	}
	return nil
}

// lowerRootCheckpoints lowers the partition's cleaner checkpoint entry to
// cleanerTo and its recovery point entry to recoveryTo, where they are
// above (Kafka's LogCleanerManager.maybeTruncateCheckpoint and
// LocalLog.updateLogEndOffset's recovery point update).
// REQUIRES: l.mu held.
func (l *Log) lowerRootCheckpoints(cleanerTo, recoveryTo record.Offset) error {
	for _, c := range []struct {
		path string
		to   record.Offset
	}{{CheckpointPath(l.dir), cleanerTo}, {filepath.Join(l.root, RecoveryPointCheckpointFile), recoveryTo}} {
		off, ok, err := checkpointEntry(l.fs, c.path, l.tp)
		if err != nil {
			return err
		}
		if ok && off > c.to {
			if err := updateCheckpointEntry(l.fs, c.path, l.tp, c.to, false); err != nil {
				return fmt.Errorf("engine: lower %s: %w", c.path, err)
			}
		}
	}
	return nil
}

// truncatedAt returns a new Segment for s's files cut at the start of the
// first batch whose last offset is >= offset (as Kafka's
// LogSegment.truncateTo): the .log reopened for appending and, when
// something is cut, truncated and fsynced; the indexes rebuilt from what is
// left; the aborted transactions whose marker went dropped (the .txnindex
// rewritten); made the active segment (its index files recreated,
// preallocated, so that no stale entry is left in them). s itself is left
// for the caller to retire: readers that hold it keep their file handle.
// REQUIRES: l.mu held.
func (s *Segment) truncatedAt(offset record.Offset, l *Log) (*Segment, error) {
	cut := s.size
	it := newBatchIter(l.reader, s.f, int64(s.ix.lookup(offset)), s.size)
	for {
		batch, pos, err := it.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			l.reader.Restore()
			return nil, err
		}
		h, err := s.header(batch, pos)
		if err != nil {
			l.reader.Restore()
			return nil, err
		}
		if h.LastOffset() >= offset {
			cut = int64(pos)
			break
		}
	}
	l.reader.Restore()
	f, err := l.fs.OpenAppend(s.path(LogFileSuffix))
	if err != nil {
		return nil, fmt.Errorf("engine: reopen %s: %w", s.path(LogFileSuffix), err)
	}
	ns := &Segment{fs: s.fs, dir: s.dir, base: s.base, f: f, size: cut, nextOffset: s.base, ix: newIndexer(s.base, s.ix.intervalBytes),
		readOnly: s.readOnly, rollTs: record.NoTimestamp, created: s.created, hadIndex: true,
		txns: append([]AbortedTxn(nil), s.txns...), hadTxnIndex: s.hadTxnIndex}
	ns.ix.maxOffsets, ns.ix.maxTimes = s.ix.maxOffsets, s.ix.maxTimes
	fail := func(err error) (*Segment, error) {
		ns.closeFiles()
		return nil, err
	}
	if cut < s.size {
		if err := f.Truncate(cut); err != nil {
			return fail(fmt.Errorf("engine: truncate %s to %d bytes: %w", f.Name(), cut, err))
		}
		if err := f.Sync(); err != nil {
			return fail(fmt.Errorf("engine: fsync %s: %w", f.Name(), err))
		}
	}
	// Rebuild the indexes (and next offset, abort markers) from the bytes left.
	if err := ns.scan(false, l.reader); err != nil {
		l.reader.Restore()
		return fail(err)
	}
	l.reader.Restore()
	if ns.size == 0 {
		ns.created = l.nowMs()
	}
	before := len(ns.txns)
	ns.dropTxnsFrom(ns.nextOffset)
	if len(ns.txns) != before || (len(ns.txns) == 0 && ns.hadTxnIndex) {
		if err := ns.writeTxnIndex(); err != nil {
			return fail(err)
		}
	}
	if err := ns.activate(); err != nil {
		return fail(err)
	}
	return ns, nil
}

// MaybeIncrementLogStartOffset raises the log start offset to offset when
// it is higher, as Kafka's UnifiedLog.maybeIncrementLogStartOffset for a
// follower taking its leader's log start offset: offset must be <= the
// high watermark (ErrOffsetOutOfRange otherwise; Kafka's check, which a
// follower meets because its high watermark follows the leader's). The
// leader epoch cache is truncated from the start (truncateFromStart) and
// its file rewritten, the log-start-offset-checkpoint entry written, and
// the MCCO raised to at least offset. Segments wholly below it go at the
// next DeleteOldSegments. It returns the log start offset.
func (l *Log) MaybeIncrementLogStartOffset(offset record.Offset) (record.Offset, error) {
	hw := l.HighWatermark()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("raise the log start offset of"); err != nil {
		return l.logStartOffset, err
	}
	if offset > hw {
		return l.logStartOffset, fmt.Errorf("%w: log start offset %d of %s above the high watermark %d", ErrOffsetOutOfRange, offset, l.tp, hw)
	}
	return l.raiseLogStartOffset(offset)
}

// raiseLogStartOffset sets the log start offset to offset when it is higher,
// writes its log-start-offset-checkpoint entry and follows the raise
// (logStartOffsetRaised); it returns the log start offset. The caller has
// checked offset against the high watermark. REQUIRES: l.mu held.
func (l *Log) raiseLogStartOffset(offset record.Offset) (record.Offset, error) {
	if offset <= l.logStartOffset {
		return l.logStartOffset, nil
	}
	l.logStartOffset = offset
	if err := l.writeLogStartOffset(); err != nil {
		return l.logStartOffset, err
	}
	return l.logStartOffset, l.logStartOffsetRaised()
}

// logStartOffsetRaised follows a raise of the log start offset, as Kafka's
// maybeIncrementLogStartOffset: the leader epoch cache is truncated from the
// start (its file rewritten when it changed) and the MCCO is at least the
// log start offset. REQUIRES: l.mu held.
func (l *Log) logStartOffsetRaised() error {
	l.mcco = max(l.mcco, l.logStartOffset)
	if l.epochs.truncateFromStart(l.logStartOffset) {
		return l.writeEpochCache()
	}
	return nil
}

// truncationCount is the number of truncations so far (TruncateTo,
// TruncateFullyAndStartAt): a clean that began before one must not move
// the checkpoint.
func (l *Log) truncationCount() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.truncations
}
