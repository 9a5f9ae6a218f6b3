package engine

import (
	"errors"
	"sync/atomic"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// The copy phase under CleanerConfig.ParallelCopy: the groups are copied
// two at a time, the first by the cleaner, the second by a copy worker (a
// second Cleaner with buffers of its own, sharing the offset map, which the
// copy only reads) on another goroutine, and swapped in in their order.
//
// A group's output depends on the map, the clean's bounds and clock, and
// the round's transaction state when the group starts (cleanedTxnMetadata,
// carried from group to group: KAFKA-8351). The worker starts the second
// group from a copy of the state the first group starts from, which is
// the state the second starts from exactly when the first group changes
// nothing of it (cleanedTxnMetadata.changes: no transactional batch, no
// marker, no aborted transaction reached or queued). When the first group
// did change it, the worker's copy is discarded (the worker stops at its
// next read once the first change is made) and the cleaner copies the
// second group again, in order, as the sequential copy would. A log with
// no transactions therefore has every pair copied at once; a
// transactional one pays a wasted copy on the other core where a pair's
// first group holds transactions.
//
// Errors are those of the sequential copy: an error of the first group
// stops the worker (its output is discarded) and is returned; an error of
// the second is returned after the first group is through, unless the
// first changed the transaction state, in which case the cleaner copies
// the second again and reports what it finds.

// errCopyStopped stops a copy worker whose pair's first group failed;
// errCopyVoid one whose copy will be thrown away, the first group having
// changed the transaction state the worker started from.
var (
	errCopyStopped = errors.New("engine: copy worker stopped: the group before its own failed")
	errCopyVoid    = errors.New("engine: copy worker stopped: the group before its own changed the transaction state")
)

// copyWorker returns the cleaner's copy worker, made on first use, ready
// for a round of the current clean; nil when ParallelCopy is off, the
// cleaner is throttled (the throttle meters the cleaner's own reader), or
// the offset map cannot answer lookups from two goroutines at once
// (offsetmap.ConcurrentGetter).
func (c *Cleaner) copyWorker(maxMessageBytes int) (*Cleaner, error) {
	g, ok := c.offsetMap.(offsetmap.ConcurrentGetter)
	if !c.cfg.ParallelCopy || c.throttler != nil || !ok {
		return nil, nil
	}
	if c.worker == nil || c.worker.offsetMap != c.offsetMap {
		cfg := c.cfg
		// The worker's lookups go through GetConcurrent; the look-ahead
		// prefetches through the map's own scratch, so it stays off there.
		cfg.LookAhead, cfg.ParallelCopy, cfg.ParallelMapBuild = false, false, false
		w, err := NewCleaner(cfg, CleanerOptions{Now: c.now, Map: c.offsetMap, FsyncPolicy: c.writer.Policy()})
		if err != nil {
			return nil, err
		}
		w.concurrent = g
		c.worker = w
	}
	w := c.worker
	if w.reader.MaxBufferBytes() < maxMessageBytes {
		if err := w.newReader(maxMessageBytes); err != nil {
			return nil, err
		}
	}
	w.reader.SetDropBehind(c.cfg.CacheFriendly)
	w.writer.SetDirect(c.writer.Direct())
	w.verdicts, w.bounds, w.truncGen, w.progress = c.verdicts, c.bounds, c.truncGen, c.progress
	w.crcChecked = c.crcChecked // read only in the copy phase
	w.rebuildByDecode, w.aheadWait, w.aheadBeforeBatch = c.rebuildByDecode, c.aheadWait, c.aheadBeforeBatch
	return w, nil
}

// copyGroups runs the copy phase over groups, in order, with the round's
// transaction state txns: one group after another, or, with a copy
// worker (copyWorker), two at a time (copyPair).
func (c *Cleaner) copyGroups(l *Log, groups [][]*Segment, firstUncleanable record.Offset, nowMs int64, cfg *LogConfig, active map[int64]ProducerEntry, txns *cleanedTxnMetadata, stats *CleanStats) error {
	var w *Cleaner
	if len(groups) > 1 {
		var err error
		if w, err = c.copyWorker(cfg.MaxMessageBytes); err != nil {
			return err
		}
	}
	for k := 0; k < len(groups); {
		if w == nil || k+1 == len(groups) {
			if err := c.cleanSegments(l, groups[k], firstUncleanable, nowMs, cfg, active, txns, stats); err != nil {
				return err
			}
			stats.Groups++
			stats.SegmentsCleaned += len(groups[k])
			k++
			continue
		}
		done, err := c.copyPair(l, w, groups[k], groups[k+1], firstUncleanable, nowMs, cfg, active, txns, stats)
		if err != nil {
			return err
		}
		k += done
	}
	return nil
}

// copyResult is what a copy worker's copyGroup returned.
type copyResult struct {
	cleaned *Segment
	pending iosched.PendingSync
	err     error
}

// copyPair cleans first on the cleaner while the worker w copies second,
// then swaps in first, and second when its copy stands (see the comment
// at the top of this file). It returns the number of groups done: 2, or 1
// when second is left for the cleaner to copy again.
func (c *Cleaner) copyPair(l *Log, w *Cleaner, first, second []*Segment, firstUncleanable record.Offset, nowMs int64, cfg *LogConfig, active map[int64]ProducerEntry, txns *cleanedTxnMetadata, stats *CleanStats) (int, error) {
	spec := txns.clone()
	before := txns.changes
	var ws CleanStats
	var stop, void atomic.Bool
	// The first group's first change of the transaction state makes the
	// worker's copy void: the worker stops at its next read.
	txns.onChange = func() { void.Store(true) }
	check := c.checkDone
	w.checkDone = func() error {
		if stop.Load() {
			return errCopyStopped
		}
		if void.Load() {
			return errCopyVoid
		}
		if check != nil {
			return check()
		}
		return nil
	}
	done := make(chan copyResult, 1)
	go func() {
		cleaned, pending, err := w.copyGroup(l, second, firstUncleanable, nowMs, cfg, active, spec, &ws)
		done <- copyResult{cleaned, pending, err}
	}()
	err := c.cleanSegments(l, first, firstUncleanable, nowMs, cfg, active, txns, stats)
	txns.onChange = nil
	if err != nil {
		stop.Store(true)
	}
	r := <-done
	w.checkDone = nil
	discard := func() {
		if r.err == nil {
			discardCleaned(l, r.cleaned)
		}
	}
	if err != nil {
		discard()
		return 0, err
	}
	stats.Groups++
	stats.SegmentsCleaned += len(first)
	if txns.changes != before {
		// The first group moved the transaction state the second was
		// copied from: that copy is void, and the cleaner copies the
		// second group again.
		discard()
		stats.GroupsRecopied++
		return 1, nil
	}
	if r.err != nil {
		return 1, r.err
	}
	*txns = *spec
	stats.addCopyCounts(&ws)
	stats.GroupsCopiedAside++
	if err := c.finishCopied(l, r.cleaned, second, r.pending); err != nil {
		return 1, err
	}
	stats.Groups++
	stats.SegmentsCleaned += len(second)
	return 2, nil
}

// addCopyCounts adds the copy phase's counts of o, a copy worker's stats
// of one group, to s.
func (s *CleanStats) addCopyCounts(o *CleanStats) {
	s.BytesRead += o.BytesRead
	s.BytesWritten += o.BytesWritten
	s.MessagesRead += o.MessagesRead
	s.MessagesWritten += o.MessagesWritten
	s.InvalidMessagesRead += o.InvalidMessagesRead
	s.LookupsSkipped += o.LookupsSkipped
	s.LookupsAhead += o.LookupsAhead
	s.BatchesRebuilt += o.BatchesRebuilt
	s.BatchesDropped += o.BatchesDropped
	s.EmptyBatchesRetained += o.EmptyBatchesRetained
	s.HorizonsStamped += o.HorizonsStamped
	s.AbortedBatchesDiscarded += o.AbortedBatchesDiscarded
	s.MarkersDiscarded += o.MarkersDiscarded
	s.CRCsSkipped += o.CRCsSkipped
	s.IO.Recompressed += o.IO.Recompressed
	s.IO.RecompressInline += o.IO.RecompressInline
}

// workerIO returns the copy worker's reader and writer counts and the
// bytes its look-ahead goroutine read (zero without a worker), for the
// clean's figures: the worker's reads and writes are the copy phase's too.
func (c *Cleaner) workerIO() (iosched.ReadStats, iosched.WriteStats, int64) {
	if c.worker == nil {
		return iosched.ReadStats{}, iosched.WriteStats{}, 0
	}
	return c.worker.reader.Stats(), c.worker.writer.Stats(), c.worker.ahead.readBytes
}

// addWriteStats returns the sum of the counts of a and b (b's fallback
// reasons when it has any).
func addWriteStats(a, b iosched.WriteStats) iosched.WriteStats {
	a.Bytes += b.Bytes
	a.Writes += b.Writes
	a.Syncs += b.Syncs
	a.Datasyncs += b.Datasyncs
	a.RangeSyncs += b.RangeSyncs
	a.WriteTime += b.WriteTime
	a.SyncTime += b.SyncTime
	a.FinalSyncTime += b.FinalSyncTime
	a.DroppedBytes += b.DroppedBytes
	a.DirectBytes += b.DirectBytes
	a.DirectFallbacks += b.DirectFallbacks
	a.BehindWrites += b.BehindWrites
	a.BehindInline += b.BehindInline
	if b.LastDirectFallbackReason != "" {
		a.LastDirectFallbackReason = b.LastDirectFallbackReason
	}
	return a
}
