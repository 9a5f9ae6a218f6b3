package engine

import (
	"fmt"
	"math"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// NoCheckpoint is passed as a checkpoint offset when the checkpoint file has
// no entry for the log.
const NoCheckpoint record.Offset = -1

// LogToClean is the cleanable part of one log, as Kafka's LogToClean.
type LogToClean struct {
	TopicPartition TopicPartition
	// FirstDirtyOffset is where this clean starts building the offset map.
	FirstDirtyOffset record.Offset
	// FirstUncleanableOffset is the base offset of the first segment that may
	// not be cleaned (LogCleanerManager.cleanableOffsets, snapped down to a
	// segment boundary as LogToClean.calculateCleanableBytes).
	FirstUncleanableOffset record.Offset
	// CleanBytes: bytes of the segments holding offsets below FirstDirtyOffset.
	CleanBytes int64
	// CleanableBytes: bytes of the segments in [FirstDirtyOffset's segment, FirstUncleanableOffset).
	CleanableBytes int64
	// CleanableRatio = CleanableBytes / (CleanBytes + CleanableBytes); 0 for an empty log.
	CleanableRatio float64
	// LastStableOffset is the bound the open transactions and the high
	// watermark put on the clean: min(first offset of the earliest open
	// transaction, high watermark).
	LastStableOffset record.Offset
	// MaxCompactionDelayMs is how long past max.compaction.lag.ms the oldest
	// dirty segment is (Kafka's LogCleanerManager.maxCompactionDelay): now -
	// max.compaction.lag.ms - the earliest first-batch timestamp of the
	// non-active segments from the first dirty offset, when positive; else 0.
	MaxCompactionDelayMs int64
	// NeedCompactionNow: MaxCompactionDelayMs > 0, so the log is cleaned
	// whatever its ratio as long as it has cleanable bytes.
	NeedCompactionNow bool
	// ForceUpdateCheckpoint: the checkpoint lay outside [log start offset,
	// log end offset], so the first dirty offset was reset to the log start
	// offset and the checkpoint should be rewritten with it.
	ForceUpdateCheckpoint bool
	// CheckpointWarning is Kafka's warning for that reset
	// (LogCleanerManager.cleanableOffsets), "" when none: a checkpoint
	// below the log start offset (not warned of when cleanup.policy is
	// compact,delete, where retention moves the log start offset past it
	// as a matter of course), or above the log end offset.
	CheckpointWarning string
	// truncGen is the log's truncation count when the range was computed:
	// a clean of it after a truncation is aborted (ErrCleaningAborted).
	truncGen uint64
}

// TotalBytes = CleanBytes + CleanableBytes (Kafka's LogToClean.totalBytes).
func (lt *LogToClean) TotalBytes() int64 { return lt.CleanBytes + lt.CleanableBytes }

// CleanableOffsets computes the cleanable range of l, as Kafka's
// LogCleanerManager.cleanableOffsets and LogToClean:
//   - first dirty offset: the checkpoint, or the log start offset when there is
//     none or it lies outside [log start offset, log end offset] (then
//     ForceUpdateCheckpoint, and CheckpointWarning says so as Kafka warns);
//   - first uncleanable offset: max(first dirty, min(last stable offset (the
//     first offset of the earliest open transaction, bounded by the high
//     watermark), active segment base offset, base of the first dirty
//     segment whose largest timestamp is newer than nowMs -
//     min.compaction.lag.ms when that lag is > 0)), then snapped down to the
//     base offset of the segment holding it.
//
// The last stable offset needs the producer state, which the first call
// after an open loads by reading every batch header; when that read fails,
// nothing is cleanable (first uncleanable = first dirty). Log.CleanableOffsets
// returns the error, with the range computed as if no transaction were open.
func CleanableOffsets(l *Log, checkpoint record.Offset, nowMs int64) LogToClean {
	lt, err := l.CleanableOffsets(checkpoint, nowMs)
	if err != nil {
		lt.FirstUncleanableOffset = lt.FirstDirtyOffset
		lt.CleanableBytes, lt.CleanableRatio = 0, 0
	}
	return lt
}

// CleanableOffsets is the package function CleanableOffsets, with the error
// of loading the producer state (the last stable offset needs it).
// A negative checkpoint is none (NoCheckpoint); CleanableOffsetsEntry
// tells a negative entry of the checkpoint file from no entry.
func (l *Log) CleanableOffsets(checkpoint record.Offset, nowMs int64) (LogToClean, error) {
	return l.CleanableOffsetsEntry(checkpoint, checkpoint >= 0, nowMs)
}

// CleanableOffsetsEntry is CleanableOffsets for the partition's entry of
// the cleaner-offset-checkpoint file: checkpoint is the entry and present
// says whether there is one. Any entry, a negative one included, is
// Kafka's lastCleanOffset: one below the log start offset is reset with
// Kafka's warning and rewritten (ForceUpdateCheckpoint).
func (l *Log) CleanableOffsetsEntry(checkpoint record.Offset, present bool, nowMs int64) (LogToClean, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	active := l.segments[len(l.segments)-1]
	leo := active.nextOffset
	firstDirty := checkpoint
	lt := LogToClean{TopicPartition: l.tp, truncGen: l.truncations}
	if !present || checkpoint < l.logStartOffset || checkpoint > leo {
		firstDirty = l.logStartOffset
		lt.ForceUpdateCheckpoint = present
		switch {
		case !present:
		case checkpoint < l.logStartOffset:
			if !(l.cfg.Compact && l.cfg.Delete) {
				lt.CheckpointWarning = fmt.Sprintf("Resetting first dirty offset of %s to log start offset %d since the checkpointed offset %d is invalid.", l.tp, l.logStartOffset, checkpoint)
			}
		default:
			lt.CheckpointWarning = fmt.Sprintf("The last checkpoint dirty offset for partition %s is %d, which is larger than the log end offset %d. Resetting to the log start offset %d.", l.tp, checkpoint, leo, l.logStartOffset)
		}
	}
	lt.FirstDirtyOffset = firstDirty
	hw := l.highWatermark
	if hw < 0 || hw > leo {
		hw = leo
	}
	lso := hw
	err := l.ensureProducerState()
	if err == nil {
		if first, ok := l.pstate.firstUnstableOffset(); ok && first < lso {
			lso = first
		}
	}
	lt.LastStableOffset = lso
	bound := min(lso, active.base)
	if lag := l.cfg.MinCompactionLagMs; lag > 0 {
		for _, s := range l.segmentsInRange(firstDirty, active.base) {
			if l.largestTimestamp(s) > nowMs-lag {
				bound = min(bound, s.base)
				break
			}
		}
	}
	uncleanable := max(firstDirty, bound)

	// Snap down: the segment holding `uncleanable`, unless that is the active one.
	firstUncleanable := active.base
	if uncleanable < active.base {
		if segs := l.segmentsInRange(uncleanable, active.base); len(segs) > 0 {
			firstUncleanable = segs[0].base
		}
	}
	lt.FirstUncleanableOffset = firstUncleanable
	for _, s := range l.segmentsInRange(-1, firstDirty) {
		lt.CleanBytes += s.size
	}
	for _, s := range l.segmentsInRange(min(firstDirty, firstUncleanable), firstUncleanable) {
		lt.CleanableBytes += s.size
	}
	if total := lt.CleanBytes + lt.CleanableBytes; total > 0 {
		lt.CleanableRatio = float64(lt.CleanableBytes) / float64(total)
	}
	lt.MaxCompactionDelayMs = l.maxCompactionDelay(firstDirty, nowMs)
	lt.NeedCompactionNow = lt.MaxCompactionDelayMs > 0
	return lt, err
}

// maxCompactionDelay is Kafka's LogCleanerManager.maxCompactionDelay: the
// earliest first-batch max timestamp (> 0) of the non-active segments from
// firstDirty on; when it is before now - max.compaction.lag.ms, the delay
// between the two, else 0.
// REQUIRES: l.mu held.
func (l *Log) maxCompactionDelay(firstDirty record.Offset, nowMs int64) int64 {
	active := l.segments[len(l.segments)-1]
	earliest := int64(math.MaxInt64)
	for _, s := range l.segmentsInRange(firstDirty, active.base) {
		if s == active {
			continue
		}
		if ts := s.firstBatchMaxTimestamp(); ts > 0 && ts < earliest {
			earliest = ts
		}
	}
	lag := max(l.cfg.MaxCompactionLagMs, 0)
	if nowMs < math.MinInt64+lag { // now - lag is before any timestamp
		return 0
	}
	cleanUntil := nowMs - lag
	if earliest < cleanUntil {
		return cleanUntil - earliest
	}
	return 0
}

// groupSegmentsBySize groups consecutive segments, oldest first, so that each
// group fits one cleaned segment, as Kafka's Cleaner.groupSegmentsBySize:
// a segment joins the group while the sums of .log sizes stay <= maxBytes,
// of offset-index and time-index sizes each <= maxIndexBytes, and (unless the
// segment is empty) its estimated last offset (next segment's base - 1, or
// firstUncleanable - 1 for the last one) minus the group's base offset fits
// in an int32.
func groupSegmentsBySize(segs []*Segment, maxBytes, maxIndexBytes int64, firstUncleanable record.Offset) [][]*Segment {
	var groups [][]*Segment
	for len(segs) > 0 {
		group := []*Segment{segs[0]}
		logSize, indexSize, timeIndexSize := segs[0].size, segs[0].OffsetIndexBytes(), segs[0].TimeIndexBytes()
		segs = segs[1:]
		for len(segs) > 0 {
			next := segs[0]
			lastOffset := firstUncleanable - 1
			if len(segs) > 1 {
				lastOffset = segs[1].base - 1
			}
			if logSize+next.size > maxBytes ||
				indexSize+next.OffsetIndexBytes() > maxIndexBytes ||
				timeIndexSize+next.TimeIndexBytes() > maxIndexBytes ||
				(next.size != 0 && int64(lastOffset-group[0].base) > 1<<31-1) {
				break
			}
			group = append(group, next)
			logSize += next.size
			indexSize += next.OffsetIndexBytes()
			timeIndexSize += next.TimeIndexBytes()
			segs = segs[1:]
		}
		groups = append(groups, group)
	}
	return groups
}
