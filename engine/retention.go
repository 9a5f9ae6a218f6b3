package engine

import (
	"fmt"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// Reasons a segment is deleted by retention, as Kafka logs them.
const (
	RetentionByTime           = "retention.ms"
	RetentionBySize           = "retention.bytes"
	RetentionByLogStartOffset = "log start offset"
)

// DeletedSegment is one segment retention deleted.
type DeletedSegment struct {
	BaseOffset record.Offset
	NextOffset record.Offset
	SizeBytes  int64
	// MaxTimestamp is the segment's largest batch timestamp (ms), -1 if none.
	MaxTimestamp int64
	Reason       string // RetentionByTime, RetentionBySize or RetentionByLogStartOffset
}

// RetentionResult says what one DeleteOldSegments did.
type RetentionResult struct {
	Deleted []DeletedSegment
	// Rolled: every segment was deletable, so an empty active segment was
	// rolled first and the old active one deleted too.
	Rolled bool
	// LogStartOffset after the deletions.
	LogStartOffset record.Offset
}

// DeleteRecords raises the log start offset to offset, as Kafka's
// UnifiedLog.maybeIncrementLogStartOffset for a DeleteRecords request
// (offset -1 means the high watermark). It returns the log start offset
// afterwards; an offset at or below the current one changes nothing.
// Errors: ErrOffsetOutOfRange for an offset above the high watermark or
// below -1. Records below the new log start offset are no longer readable;
// the segments wholly below it go at the next DeleteOldSegments, whatever
// cleanup.policy says (case C20). The log-start-offset-checkpoint entry is
// written at once. (A broker refuses the DeleteRecords request itself on a
// topic without cleanup.policy=delete; its log start offset can still rise
// on a compacted topic, e.g. on a follower. This method is that log-level
// step and does not check the policy.)
func (l *Log) DeleteRecords(offset record.Offset) (record.Offset, error) {
	hw := l.HighWatermark()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("delete records of"); err != nil {
		return l.logStartOffset, err
	}
	if offset == -1 {
		offset = hw
	}
	if offset < 0 || offset > hw {
		return l.logStartOffset, fmt.Errorf("%w: delete records below %d of %s: the high watermark is %d", ErrOffsetOutOfRange, offset, l.tp, hw)
	}
	return l.raiseLogStartOffset(offset)
}

// DeleteOldSegments applies retention at time now, as Kafka's
// UnifiedLog.deleteOldSegments (docs/kafka-rules.md §8). With cleanup.policy
// delete, segments go by retention.ms (now - largest timestamp >
// retention.ms; the .log file's modification time when no batch has a
// timestamp), then by retention.bytes (while the log without the segment is
// at least retention.bytes); whatever the policy, segments whose next
// segment starts at or below the log start offset go (case C20). Each walk
// starts at the oldest segment and stops at the first that may not go, and
// only a segment wholly below the high watermark may go. When every segment
// may go, an empty active segment is rolled first so that the old active one
// goes too. Deleted segments' files are renamed to .deleted and removed
// after file.delete.delay.ms (at once when it is 0); the log start offset
// rises to the first remaining segment's base offset and is checkpointed.
func (l *Log) DeleteOldSegments(now time.Time) (*RetentionResult, error) {
	hw := l.HighWatermark()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("retention of"); err != nil {
		return nil, err
	}
	nowMs := now.UnixMilli()
	res := &RetentionResult{}
	if l.cfg.Delete {
		if l.cfg.RetentionMs >= 0 {
			if err := l.deleteWhile(hw, nowMs, RetentionByTime, res, func(s *Segment, _ *Segment) bool {
				return nowMs-l.largestTimestamp(s) > l.cfg.RetentionMs
			}); err != nil {
				return res, err
			}
		}
		if l.cfg.RetentionBytes >= 0 {
			var size int64
			for _, s := range l.segments {
				size += s.size
			}
			diff := size - l.cfg.RetentionBytes
			if err := l.deleteWhile(hw, nowMs, RetentionBySize, res, func(s *Segment, _ *Segment) bool {
				if diff-s.size >= 0 {
					diff -= s.size
					return true
				}
				return false
			}); err != nil {
				return res, err
			}
		}
	}
	lso := l.logStartOffset
	if err := l.deleteWhile(hw, nowMs, RetentionByLogStartOffset, res, func(_ *Segment, next *Segment) bool {
		return next != nil && next.base <= lso
	}); err != nil {
		return res, err
	}
	l.deleteExpired(nowMs)
	res.LogStartOffset = l.logStartOffset
	return res, nil
}

// largestTimestamp is the segment's largest batch timestamp, or its .log
// file's modification time when it has none (Kafka's LogSegment.largestTimestamp).
// REQUIRES: l.mu held.
func (l *Log) largestTimestamp(s *Segment) int64 {
	if ts := s.ix.maxTimestampSoFar; ts >= 0 {
		return ts
	}
	if st, err := s.f.Stat(); err == nil {
		return st.ModTime().UnixMilli()
	}
	return record.NoTimestamp
}

// deleteWhile deletes segments from the oldest while pred holds (Kafka's
// deletableSegments then deleteSegments).
// REQUIRES: l.mu held.
func (l *Log) deleteWhile(hw record.Offset, nowMs int64, reason string, res *RetentionResult, pred func(s, next *Segment) bool) error {
	n := 0
	for i, s := range l.segments {
		var next *Segment
		upper := s.nextOffset
		if i+1 < len(l.segments) {
			next = l.segments[i+1]
			upper = next.base
		}
		if next == nil && s.size == 0 {
			break // the last segment, empty: nothing to delete
		}
		if hw < upper || !pred(s, next) {
			break
		}
		n++
	}
	if n == 0 {
		return nil
	}
	if n == len(l.segments) {
		// Kafka rolls first so that the log keeps an active segment.
		if err := l.roll(l.segments[len(l.segments)-1].nextOffset); err != nil {
			return err
		}
		res.Rolled = true
	}
	doomed := append([]*Segment(nil), l.segments[:n]...)
	l.segments = append([]*Segment(nil), l.segments[n:]...)
	for _, s := range doomed {
		res.Deleted = append(res.Deleted, DeletedSegment{BaseOffset: s.base, NextOffset: s.nextOffset, SizeBytes: s.size, MaxTimestamp: s.ix.maxTimestampSoFar, Reason: reason})
		l.retire(s)
		if err := s.renameSuffix(DeletedFileSuffix); err != nil {
			return err
		}
		l.scheduleDeleteAt(s, nowMs)
	}
	if err := l.fs.SyncDir(l.dir); err != nil {
		return fmt.Errorf("engine: fsync %s: %w", l.dir, err)
	}
	if first := l.segments[0].base; first > l.logStartOffset {
		l.logStartOffset = first
	}
	if err := l.writeLogStartOffset(); err != nil {
		return err
	}
	return l.logStartOffsetRaised()
}
