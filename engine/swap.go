package engine

import (
	"fmt"
	"path/filepath"
)

// replaceSegments swaps a cleaned segment in for the group it replaces, as
// Kafka's LocalLog.replaceSegments, in an order that a crash at any step
// leaves recoverable by Kafka's LogLoader rules:
//  1. rename the new segment's files .cleaned -> .swap;
//  2. rename every old segment's files to .deleted (oldest first);
//  3. rename the new segment's files .swap -> no suffix;
//  4. fsync the directory;
//  5. remove the .deleted files after file.delete.delay.ms (at once when it is 0).
//
// The new segment replaces the group in the segment list under l.mu.
//
// When the log was truncated since the clean began (truncGen is its
// truncation count then), or a segment of the group is no longer in the log (retention deleted it
// while the group was cleaned, case C15) nothing is renamed: the error wraps
// ErrCleaningAborted and the .cleaned files stay for the caller to remove.
//
// syncDir false skips step 4 (the cleaner's --fsync none: not crash safe).
func (l *Log) replaceSegments(cleaned *Segment, old []*Segment, syncDir bool, truncGen uint64) error {
	if err := cleaned.f.Close(); err != nil {
		return fmt.Errorf("engine: close %s: %w", cleaned.f.Name(), err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	first := -1
	for i, s := range l.segments {
		if s == old[0] {
			first = i
			break
		}
	}
	if truncGen != l.truncations {
		return fmt.Errorf("%w: %s was truncated while the group was cleaned", ErrCleaningAborted, l.dir)
	}
	if first < 0 || first+len(old) > len(l.segments) || l.closed {
		return fmt.Errorf("%w: %s: a segment of the group was deleted while it was cleaned", ErrCleaningAborted, l.dir)
	}
	for i, s := range old {
		if l.segments[first+i] != s {
			return fmt.Errorf("%w: %s: the segments of the group changed while it was cleaned", ErrCleaningAborted, l.dir)
		}
	}
	if err := cleaned.renameSuffix(SwapFileSuffix); err != nil {
		return err
	}
	for _, s := range old {
		if err := s.renameSuffix(DeletedFileSuffix); err != nil {
			return err
		}
	}
	if err := cleaned.renameSuffix(""); err != nil {
		return err
	}
	if syncDir {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return fmt.Errorf("engine: fsync directory %s: %w", l.dir, err)
		}
	}
	// Reopen the new segment's .log for reading and appending.
	f, err := l.fs.OpenAppend(cleaned.path(LogFileSuffix))
	if err != nil {
		return fmt.Errorf("engine: reopen %s: %w", cleaned.path(LogFileSuffix), err)
	}
	cleaned.f = f
	cleaned.indexDirty = false

	segs := append([]*Segment(nil), l.segments[:first]...)
	segs = append(segs, cleaned)
	segs = append(segs, l.segments[first+len(old):]...)
	l.segments = segs

	for _, s := range old {
		l.retire(s)
		l.scheduleDelete(s)
	}
	return nil
}

// acquire counts one more reader of each segment, so that their files stay
// open until release even if they leave the log meanwhile.
// REQUIRES: l.mu held.
func (l *Log) acquire(segs []*Segment) {
	for _, s := range segs {
		s.refs++
	}
}

// release undoes acquire, closing the files of retired segments no longer
// read. The files of a segment already deleted (removeFiles) are closed on
// a goroutine of their own, as Kafka's cleaner leaves the deletion of the
// replaced segments to its scheduler's "delete-file" task
// (LocalLog.deleteSegmentFiles with asyncDelete, which replaceSegments
// asks for even when file.delete.delay.ms is 0): the last close of an
// unlinked file is where the kernel frees its page cache, some 100 ms for
// 256 MiB on the lab's machine, which is not the cleaner thread's work.
// Close waits for those goroutines.
func (l *Log) release(segs []*Segment) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var deleted []*Segment
	for _, s := range segs {
		s.refs--
		if s.retired && s.refs == 0 {
			if s.removed {
				deleted = append(deleted, s)
				continue
			}
			s.closeFiles()
		}
	}
	if len(deleted) > 0 {
		done := make(chan struct{})
		// Forget the goroutines already through: a long-lived log's list
		// stays short.
		running := l.closing[:0]
		for _, c := range l.closing {
			if !isDone(c) {
				running = append(running, c)
			}
		}
		l.closing = append(running, done)
		go func() {
			defer close(done)
			for _, s := range deleted {
				s.closeFiles()
			}
		}()
	}
}

// isDone says whether c is closed.
func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// WaitClosing waits until the files of the segments a clean or retention
// deleted are closed: with file.delete.delay.ms 0 they are closed on a
// goroutine after the clean (as Kafka's asynchronous delete), and their
// last close is where the kernel frees their page cache. A caller that
// reads memory or page-cache counters after a clean waits for it first.
func (l *Log) WaitClosing() { l.waitClosing() }

// waitClosing waits for the goroutines release started to close deleted
// segments' files.
func (l *Log) waitClosing() {
	l.mu.Lock()
	pending := l.closing
	l.closing = nil
	l.mu.Unlock()
	for _, done := range pending {
		<-done
	}
}

// retire marks a segment removed from the log; its files are closed now, or
// by the release of its last reader.
// REQUIRES: l.mu held.
func (l *Log) retire(s *Segment) {
	s.retired = true
	if s.refs == 0 {
		s.closeFiles()
	}
}

// scheduleDelete removes the .deleted files of s now when
// file.delete.delay.ms is 0; otherwise they stay until the log is closed or
// DeleteExpired runs past the delay (Kafka deletes them asynchronously, and
// any left over at the next open).
// REQUIRES: l.mu held.
func (l *Log) scheduleDelete(s *Segment) { l.scheduleDeleteAt(s, l.nowMs()) }

// scheduleDeleteAt is scheduleDelete with the time given (ms).
// REQUIRES: l.mu held.
func (l *Log) scheduleDeleteAt(s *Segment, nowMs int64) {
	if l.cfg.FileDeleteDelayMs == 0 {
		s.removeFiles()
		return
	}
	l.pendingDeletes = append(l.pendingDeletes, pendingDelete{seg: s, at: nowMs + l.cfg.FileDeleteDelayMs})
}

// DeleteExpired removes the .deleted files whose file.delete.delay.ms has passed.
func (l *Log) DeleteExpired() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deleteExpired(l.nowMs())
}

// deleteExpired removes the .deleted files due by now (ms).
// REQUIRES: l.mu held.
func (l *Log) deleteExpired(now int64) {
	keep := l.pendingDeletes[:0]
	for _, p := range l.pendingDeletes {
		if now >= p.at {
			p.seg.removeFiles()
		} else {
			keep = append(keep, p)
		}
	}
	l.pendingDeletes = keep
}

type pendingDelete struct {
	seg *Segment
	at  int64 // ms
}

// removeFiles removes the segment's files under its current suffix.
func (s *Segment) removeFiles() {
	s.removed = true
	for _, ext := range []string{LogFileSuffix, IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
		if err := s.fs.Remove(filepath.Join(s.dir, segmentFileName(s.base, ext)+s.suffix)); err != nil && !isNotExist(err) {
			continue
		}
	}
}
