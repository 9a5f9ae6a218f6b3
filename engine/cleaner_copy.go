package engine

import (
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// cleanSegments cleans one group into a single .cleaned segment with the
// first segment's base offset and swaps it in, as Kafka's Cleaner.cleanSegments:
// copyGroup, then finishCopied. On error the .cleaned files are removed and
// the log is unchanged.
func (c *Cleaner) cleanSegments(l *Log, group []*Segment, firstUncleanable record.Offset, nowMs int64, cfg *LogConfig, active map[int64]ProducerEntry, txns *cleanedTxnMetadata, stats *CleanStats) error {
	cleaned, pending, err := c.copyGroup(l, group, firstUncleanable, nowMs, cfg, active, txns, stats)
	if err != nil {
		return err
	}
	return c.finishCopied(l, cleaned, group, pending)
}

// copyGroup copies one group into a new .cleaned segment and writes its
// .log out: under SyncBehind the last buffer is written and the sync is
// returned pending (iosched.Writer.FinishBehind), otherwise the segment is
// synced per the fsync policy (Finish). The aborted transactions of each
// segment's whole offset range (KAFKA-13727, case C7) join the round's
// transaction tracker txns before its batches are read; ABORT markers kept
// put their AbortedTxn in the cleaned segment's .txnindex. On error the
// .cleaned files are removed. It reads and writes only the cleaner's own
// buffers, the group's segments and the cleaned segment, so that a second
// cleaner can copy another group at the same time (ParallelCopy).
func (c *Cleaner) copyGroup(l *Log, group []*Segment, firstUncleanable record.Offset, nowMs int64, cfg *LogConfig, active map[int64]ProducerEntry, txns *cleanedTxnMetadata, stats *CleanStats) (_ *Segment, pending iosched.PendingSync, err error) {
	cleaned, err := createSegment(l.fs, l.dir, group[0].base, CleanedFileSuffix, cfg)
	if err != nil {
		return nil, pending, err
	}
	defer func() {
		txns.cleanedIndex = nil
		if err != nil {
			_ = c.writer.Wait() // no write behind left running on the file
			discardCleaned(l, cleaned)
		}
	}()
	txns.cleanedIndex = cleaned
	c.writer.Reset(cleaned.f)
	for i, s := range group {
		upper := s.nextOffset
		if i+1 < len(group) {
			upper = group[i+1].base
		}
		l.mu.Lock()
		txns.addAborted(collectAbortedTxns(l.segments, s.base, upper))
		l.mu.Unlock()
		if err := c.cleanInto(s, cleaned, firstUncleanable, nowMs, cfg, active, txns, stats); err != nil {
			return nil, pending, err
		}
	}
	cleaned.ix.onBecomeInactive()
	if c.cfg.SyncBehind {
		if pending, err = c.writer.FinishBehind(); err != nil {
			return nil, pending, fmt.Errorf("engine: write %s: %w", cleaned.f.Name(), err)
		}
		return cleaned, pending, nil
	}
	if err := c.writer.Finish(); err != nil {
		return nil, pending, fmt.Errorf("engine: write %s: %w", cleaned.f.Name(), err)
	}
	return cleaned, pending, nil
}

// finishCopied swaps in a group's cleaned segment, written out by
// copyGroup (pending is its sync under SyncBehind): under SyncBehind it
// waits for the group behind, calls CheckDone and starts this group's
// sync and swap behind the next group's copy (startBehind); otherwise it
// finishes the group at once (finishGroup). On error the cleaned
// segment is discarded (discardCleaned).
func (c *Cleaner) finishCopied(l *Log, cleaned *Segment, group []*Segment, pending iosched.PendingSync) (err error) {
	defer func() {
		if err != nil {
			discardCleaned(l, cleaned)
		}
	}()
	if c.cfg.SyncBehind {
		// The previous group's sync and swap come first: the swaps stay in
		// the order of the groups, and at most one group is behind.
		if err := c.waitBehind(); err != nil {
			return err
		}
		if c.checkDone != nil {
			if err := c.checkDone(); err != nil {
				return err
			}
		}
		c.startBehind(l, cleaned, group, pending)
		return nil
	}
	return finishGroup(l, cleaned, group, c.checkDone, c.writer.Policy().SyncsDir(), c.truncGen)
}

// discardCleaned closes a failed group's cleaned segment and removes its
// files while they are still .cleaned. Only output not yet renamed to
// .swap may go: once the swap has begun, the old segments may already be
// .deleted, and the .swap (or renamed) files are what recovery completes
// the swap with.
func discardCleaned(l *Log, cleaned *Segment) {
	cleaned.f.Close()
	if cleaned.suffix == CleanedFileSuffix {
		for _, ext := range []string{LogFileSuffix, IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
			l.fs.Remove(cleaned.path(ext))
		}
	}
}

// finishGroup ends the clean of one group once its cleaned segment's .log
// is written and synced: it writes the segment's index files, keeps the
// last replaced segment's modification time, calls check (nil: none) and
// swaps the cleaned segment in for the group (syncsDir and truncGen are
// replaceSegments'). It reads nothing of the cleaner's, so that it can run
// behind the next group's copy (startBehind).
func finishGroup(l *Log, cleaned *Segment, group []*Segment, check func() error, syncsDir bool, truncGen uint64) error {
	if err := cleaned.writeIndexes(); err != nil {
		return err
	}
	if len(cleaned.txns) > 0 {
		if err := cleaned.writeTxnIndex(); err != nil {
			return err
		}
	}
	// Keep the last replaced segment's modification time, as Kafka's
	// cleanSegments (cleaned.setLastModified): retention and the legacy delete
	// horizon read it.
	if st, err := group[len(group)-1].f.Stat(); err == nil {
		if err := l.fs.Chtimes(cleaned.path(LogFileSuffix), st.ModTime(), st.ModTime()); err != nil {
			return fmt.Errorf("engine: set mtime of %s: %w", cleaned.path(LogFileSuffix), err)
		}
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	return l.replaceSegments(cleaned, group, syncsDir, truncGen)
}

// groupBehind is one group whose sync, index files and swap run on a
// goroutine while the cleaner copies the next group
// (CleanerConfig.SyncBehind).
type groupBehind struct {
	done chan struct{} // closed when the goroutine is through
	sync iosched.SyncResult
	err  error
}

// startBehind starts the goroutine that syncs the cleaned segment per the
// fsync policy (pending), then finishes the group as finishGroup; on an
// error it discards the cleaned segment (discardCleaned), as
// cleanSegments does for its own errors. The cleaner must waitBehind
// before the next swap and before the round ends.
func (c *Cleaner) startBehind(l *Log, cleaned *Segment, group []*Segment, pending iosched.PendingSync) {
	b := &groupBehind{done: make(chan struct{})}
	syncsDir, truncGen := c.writer.Policy().SyncsDir(), c.truncGen
	c.behind = b
	go func() {
		defer close(b.done)
		b.sync = pending.Run()
		if b.err = b.sync.Err; b.err != nil {
			b.err = fmt.Errorf("engine: write %s: %w", cleaned.f.Name(), b.err)
		} else {
			b.err = finishGroup(l, cleaned, group, nil, syncsDir, truncGen)
		}
		if b.err != nil {
			discardCleaned(l, cleaned)
		}
	}()
}

// waitBehind waits for the group behind, if any, adds its sync's counts
// to the writer's, and returns its error. The time waited is counted in
// behindWait.
func (c *Cleaner) waitBehind() error {
	b := c.behind
	if b == nil {
		return nil
	}
	start := time.Now()
	<-b.done
	c.behindWait += time.Since(start)
	c.behind = nil
	c.writer.AddSynced(b.sync)
	return b.err
}

// batchRetention is Kafka's MemoryRecords.RecordFilter.BatchRetention.
type batchRetention int8

const (
	deleteEmpty batchRetention = iota // dropped when no record remains
	retainEmpty                       // kept, as a header, even with no record
	deleteBatch                       // dropped without looking at its records
)

// cleanInto filters the batches of src into dest, as Kafka's
// Cleaner.cleanInto with MemoryRecords.filterTo. Each batch first updates
// the round's transaction state (checkBatchRetention): a data batch of an
// aborted transaction loses its records; a control batch that may be
// discarded (an ABORT or COMMIT marker with no batch of its transaction in
// this round) is dropped once its delete horizon has passed, and gets a
// horizon stamped (now + delete.retention.ms) the first time it is kept.
// The batch holding an active producer's last data (or, for a producer that
// wrote only markers, a marker of its epoch) and the one whose next offset
// is the first uncleanable offset (Kafka 4.x, KAFKA-17076) stay, as empty
// headers when nothing else of them is kept (RETAIN_EMPTY); other batches
// go when no record is kept. Data records are kept by the offset map
// (filterBatch); a batch whose records all stay is copied verbatim unless a
// horizon must be stamped.
func (c *Cleaner) cleanInto(src, dest *Segment, firstUncleanable record.Offset, nowMs int64, cfg *LogConfig, active map[int64]ProducerEntry, txns *cleanedTxnMetadata, stats *CleanStats) error {
	defer c.reader.Restore()
	ahead, err := c.startLookupAhead(src)
	if err != nil {
		return err
	}
	defer ahead.close()
	it := c.iter(src, 0)
	c.appends.startSegment(cfg.MaxMessageBytes)
	c.outq.startSegment(c, dest, stats)
	defer c.outq.abandon() // after an error: no job left running
	for {
		batch, pos, err := it.next()
		if errors.Is(err, io.EOF) {
			if err := c.outq.drain(); err != nil {
				return err
			}
			c.appends.flush(dest)
			return nil
		}
		if err != nil {
			return err
		}
		if err := c.outq.source(int64(pos), int64(len(batch))); err != nil {
			return err
		}
		var ab aheadBatch
		if ahead != nil {
			ab, _ = ahead.take(int64(pos))
		}
		checked := c.crcChecked.covers(src, int64(pos), int64(len(batch)))
		if checked {
			stats.CRCsSkipped++
		}
		h, recs, err := c.decodeChecked(src, batch, pos, ab.crcOK || checked)
		if err != nil {
			return err
		}
		stats.BytesRead += int64(len(batch))
		if c.progress != nil {
			c.progress.Add(int64(len(batch)))
		}

		control := h.Attributes.Control()
		var canDiscard, discardRecords bool
		if control {
			typ, empty, err := c.controlTypeOf(src, pos, recs)
			if err != nil {
				return err
			}
			if canDiscard, err = txns.onControlBatchRead(&h, typ, empty); err != nil {
				return err
			}
			horizon, hasHorizon := h.DeleteHorizonMs()
			// A marker at or above the coordination bound stays (MXRO).
			discardRecords = canDiscard && hasHorizon && horizon <= nowMs && h.LastOffset() < c.bounds.TxnMarkers
		} else {
			canDiscard = txns.onBatchRead(&h)
			discardRecords = canDiscard
		}
		retention := deleteEmpty
		switch {
		case isLastBatchOfProducer(active, &h):
			retention = retainEmpty
		case h.NextOffset() == firstUncleanable:
			retention = retainEmpty
		case control && h.LastOffset() >= c.bounds.TxnMarkers:
			// An emptied control batch at or above the coordination bound
			// stays as its header: a lagging replica may still need it.
			retention = retainEmpty
		case discardRecords:
			retention = deleteBatch
		}
		if retention == deleteBatch {
			stats.BatchesDropped++
			if control {
				stats.MarkersDiscarded++
			} else {
				stats.AbortedBatchesDiscarded++
			}
			continue
		}
		stats.MessagesRead += int64(h.RecordCount)
		c.prefetchNext(&it)
		out, job, keptCount, err := c.filterBatch(src, pos, &h, recs, &ab, nowMs, cfg.DeleteRetentionMs, discardRecords, canDiscard && control, stats)
		if err != nil {
			return err
		}
		inPlace := c.inPlace.on
		c.inPlace.on = false
		switch {
		case job != nil:
			stats.MessagesWritten += int64(keptCount)
			if err := c.outq.compress(job, int64(pos), c.rebuiltMaxOffset); err != nil {
				return err
			}
		case inPlace:
			stats.MessagesWritten += int64(keptCount)
			if err := c.emitInPlace(src, pos, dest, c.rebuiltMaxOffset, stats); err != nil {
				return err
			}
		case out != nil:
			stats.MessagesWritten += int64(keptCount)
			oh, err := record.ParseHeader(out)
			if err != nil {
				return fmt.Errorf("engine: rebuilt batch at %s byte %d: %w", src.f.Name(), pos, err)
			}
			if err := c.outq.batch(&oh, out, c.rebuiltMaxOffset); err != nil {
				return err
			}
		case keptCount < 0:
			stats.MessagesWritten += int64(h.RecordCount)
			if err := c.outq.batch(&h, batch, h.LastOffset()); err != nil {
				return err
			}
		case retention == retainEmpty:
			empty := c.emptyBatch(&h)
			eh, _ := record.ParseHeader(empty)
			stats.EmptyBatchesRetained++
			if err := c.outq.batch(&eh, empty, eh.LastOffset()); err != nil {
				return err
			}
		default:
			stats.BatchesDropped++
			if !control && discardRecords {
				stats.AbortedBatchesDiscarded++
			}
		}
	}
}

// filterBatch decides which records of one batch stay, as Kafka's
// Cleaner.shouldRetainRecord inside MemoryRecords.filterTo: none when
// discardRecords (aborted data, or an expired marker kept only as a
// header); every record of a control batch; a data record when it lies
// past the map's latest offset, or has a key whose map offset is at or
// below its own and a value or a delete horizon still ahead. It returns
// keptCount -1 when the batch is to be copied verbatim, a rebuilt batch
// (aliasing c.scratch) when some records go or a delete horizon must be
// stamped (a kept tombstone, or markerForEmptyTxn: a kept marker that may
// be discarded once its horizon passes), and nil with keptCount 0 when none
// stay. Under ParallelRecompress a rebuilt batch of a compressed topic
// comes back as a job (its records in the job's Builder, not compressed
// yet) instead of out. An uncompressed batch to rebuild with no output
// queued ahead of it (outQueue empty) is not built here: it comes back as
// c.inPlace, out nil, for emitInPlace to build in the write buffer.
func (c *Cleaner) filterBatch(src *Segment, pos FilePos, h *record.BatchHeader, recs record.RecordIterator, ab *aheadBatch, nowMs, deleteRetentionMs int64, discardRecords, markerForEmptyTxn bool, stats *CleanStats) (out []byte, job *recompressJob, keptCount int, err error) {
	if discardRecords {
		return nil, nil, 0, nil
	}
	control := h.Attributes.Control()
	// The bitmap and the scratch slices grow with the records actually
	// decoded, never with the header's count, which a bad batch could inflate.
	n := int(h.RecordCount)
	kept := c.kept[:0]
	horizon, hasHorizon := h.DeleteHorizonMs()
	retainDeletes := !hasHorizon || nowMs < horizon
	latest := c.offsetMap.LatestOffset()
	containsTombstone := false
	firstKeptTs, maxKeptTs := record.NoTimestamp, record.NoTimestamp

	// Pass 1: note each record's offset, timestamp and kind, and queue the
	// keys that need a map lookup, so that they are looked up together (a
	// Batcher map overlaps their cache misses).
	sc := &c.batchScratch
	sc.reset()
	iter := recs // a copy: the rebuild below starts again from the first record
	var full record.Record
	var r record.KeyRecord
	for i := 0; ; i++ {
		start := iter.Pos()
		ok, err := nextKey(c.cfg.KeyScan, &iter, &full, &r)
		if err != nil {
			return nil, nil, 0, c.corrupt(src, pos, "record", err)
		}
		if !ok {
			sc.spans = append(sc.spans, start) // the end of the last record
			break
		}
		sc.spans = append(sc.spans, start)
		if i>>6 >= len(kept) {
			kept = append(kept, 0)
		}
		off := int64(r.Offset(h))
		tombstone := r.NullValue && !control
		sc.offsets = append(sc.offsets, off)
		sc.timestamps = append(sc.timestamps, r.Timestamp(h))
		sc.tombstone = append(sc.tombstone, tombstone)
		switch {
		case control:
			kept[i>>6] |= 1 << (i & 63) // control records stay (Kafka's filter)
		case off > latest:
			kept[i>>6] |= 1 << (i & 63) // beyond the map: kept, as Kafka's pastLatestOffset
		case r.Key == nil:
			stats.InvalidMessagesRead++
		default:
			if known, superseded := c.verdicts.decided(off); known {
				// Put by the map build: the map's offset for the key is
				// above off when superseded, off itself otherwise (pass 2's
				// rule with that offset).
				stats.LookupsSkipped++
				if !superseded && (!tombstone || retainDeletes || record.Offset(off) >= c.bounds.Tombstones) {
					kept[i>>6] |= 1 << (i & 63)
				}
				break
			}
			// lookupAhead.lookUp queues the same keys, in this order.
			sc.keys = append(sc.keys, r.Key)
			sc.keyRecord = append(sc.keyRecord, int32(i))
		}
	}
	c.kept = kept
	switch {
	case len(sc.keys) == 0:
	case ab.looked && len(ab.found) == len(sc.keys):
		copy(sc.sizeFound(), ab.found)
		stats.LookupsAhead += int64(len(sc.keys))
	case c.concurrent != nil:
		// A copy worker: its lookups run beside the cleaner's.
		c.concurrent.GetConcurrent(sc.keys, sc.sizeFound())
	default:
		sc.lookup(c.offsetMap)
	}
	// Pass 2: Kafka's Cleaner.shouldRetainRecord for the looked-up records:
	// kept iff its offset is the map's for the key (or later) and it has a
	// value or deletes are still retained.
	for j, i := range sc.keyRecord {
		if sc.offsets[i] >= sc.found[j] && (!sc.tombstone[i] || retainDeletes || record.Offset(sc.offsets[i]) >= c.bounds.Tombstones) {
			kept[i>>6] |= 1 << (i & 63)
		}
	}
	for i := range sc.offsets {
		if kept[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		c.rebuiltMaxOffset = record.Offset(sc.offsets[i]) // offsets increase: the last kept is the largest
		keptCount++
		if sc.tombstone[i] {
			containsTombstone = true
		}
		if keptCount == 1 {
			firstKeptTs = sc.timestamps[i]
		}
		maxKeptTs = max(maxKeptTs, sc.timestamps[i])
	}
	needHorizon := (containsTombstone || markerForEmptyTxn) && !hasHorizon
	// A batch already empty (a header kept by an earlier clean) is not
	// copied as it is: like any batch left with no record it goes unless it
	// must stay (MemoryRecords.filterTo writes only retained records or a
	// RETAIN_EMPTY header).
	if keptCount == n && n > 0 && !needHorizon {
		return nil, nil, -1, nil
	}
	if keptCount == 0 {
		return nil, nil, 0, nil
	}

	nh := *h
	nh.Attributes &^= record.AttrDeleteHorizon
	switch {
	case needHorizon:
		// Kafka computes currentTime + delete.retention.ms in a long, which wraps
		// for huge retentions and then drops tombstones at once; saturate instead.
		nh.BaseTimestamp = nowMs + deleteRetentionMs
		if deleteRetentionMs > math.MaxInt64-nowMs {
			nh.BaseTimestamp = math.MaxInt64
		}
		nh.Attributes |= record.AttrDeleteHorizon
		stats.HorizonsStamped++
	case hasHorizon:
		nh.BaseTimestamp = horizon
		nh.Attributes |= record.AttrDeleteHorizon
	default:
		nh.BaseTimestamp = firstKeptTs
	}
	if !h.Attributes.LogAppendTime() {
		nh.MaxTimestamp = maxKeptTs
	}
	if nh.Attributes.Codec() == record.CodecNone && c.outq.size == 0 && !c.rebuildByDecode {
		// Nothing is queued ahead of it: cleanInto writes its kept records
		// straight into the write buffer (emitInPlace).
		c.inPlace = inPlaceBatch{on: true, h: nh, section: recs.Section(), kept: keptCount}
		stats.BatchesRebuilt++
		return nil, nil, keptCount, nil
	}
	b, job, err := c.outq.builder(&nh)
	if err != nil {
		return nil, nil, 0, err
	}
	b.Reset(nh)
	if err := c.appendKept(b, src, pos, h, &nh, recs, kept); err != nil {
		if job != nil {
			c.outq.release(job)
		}
		return nil, nil, 0, err
	}
	stats.BatchesRebuilt++
	if job != nil {
		return nil, job, keptCount, nil
	}
	c.scratch, err = b.Finish(c.scratch[:0])
	if err != nil {
		return nil, nil, 0, fmt.Errorf("engine: rebuild batch from %s byte %d: %w", src.f.Name(), pos, err)
	}
	return c.scratch, nil, keptCount, nil
}

// appendKept appends the kept records of a rebuilt batch to b, each
// with its timestamp delta relative to the new header nh (Kafka's
// MemoryRecordsBuilder writes timestamp - baseTimestamp; offsets and their
// deltas stay, as the base offset does). Each record's bytes are those
// pass 1 walked (batchScratch.spans): copied as they are when the delta
// does not change, with only the length and delta re-encoded when it does
// (Builder.AppendRetimed); no record is decoded a second time. With
// c.rebuildByDecode (tests) the records are decoded again and re-encoded
// field by field instead, the path the raw one must match byte for byte.
func (c *Cleaner) appendKept(b *record.Builder, src *Segment, pos FilePos, h, nh *record.BatchHeader, recs record.RecordIterator, kept []uint64) error {
	sc := &c.batchScratch
	if !c.rebuildByDecode {
		sec := recs.Section()
		for i := range sc.offsets {
			if kept[i>>6]&(1<<(i&63)) == 0 {
				continue
			}
			if err := b.AppendRetimed(sec[sc.spans[i]:sc.spans[i+1]], sc.timestamps[i]-nh.BaseTimestamp); err != nil {
				return c.corrupt(src, pos, "record", err)
			}
		}
		return nil
	}
	var r record.Record
	for i := 0; ; i++ {
		ok, err := recs.Next(&r)
		if err != nil {
			return c.corrupt(src, pos, "record", err)
		}
		if !ok {
			return nil
		}
		if kept[i>>6]&(1<<(i&63)) == 0 {
			continue
		}
		r.TimestampDelta = r.Timestamp(h) - nh.BaseTimestamp
		b.Append(&r)
	}
}

// emptyBatch returns the 61-byte header-only batch Kafka's
// DefaultRecordBatch.writeEmptyHeader writes for a batch retained empty:
// count 0, codec none, no delete horizon, BaseTimestamp -1, the original
// MaxTimestamp, offsets, producer fields, leader epoch and flags kept.
func (c *Cleaner) emptyBatch(h *record.BatchHeader) []byte {
	eh := *h
	eh.Attributes &= record.AttrLogAppendTime | record.AttrTransactional | record.AttrControl
	eh.Length = record.BatchHeaderSize - record.LogOverhead
	eh.BaseTimestamp = record.NoTimestamp
	eh.RecordCount = 0
	eh.Magic = record.MagicV2
	c.scratch = append(c.scratch[:0], make([]byte, record.BatchHeaderSize)...)
	record.PutHeader(c.scratch, &eh)
	record.UpdateCRC(c.scratch)
	return c.scratch
}

// emit appends one output batch to dest through the writer and hands it to
// the index rule (cleanedAppends.output); maxOffset is what Kafka's filterTo
// counts as the batch's largest offset.
func (c *Cleaner) emit(dest *Segment, h *record.BatchHeader, batch []byte, maxOffset record.Offset, stats *CleanStats) error {
	if err := c.writer.Write(batch); err != nil {
		return fmt.Errorf("engine: write %s: %w", dest.f.Name(), err)
	}
	c.emitted(dest, h, len(batch), maxOffset, stats)
	return nil
}

// emitted accounts for one output batch of n bytes written to dest's writer.
func (c *Cleaner) emitted(dest *Segment, h *record.BatchHeader, n int, maxOffset record.Offset, stats *CleanStats) {
	c.appends.output(dest, h, int64(n), maxOffset)
	dest.size += int64(n)
	dest.nextOffset = h.NextOffset()
	stats.BytesWritten += int64(n)
}

// inPlaceBatch is an uncompressed batch filterBatch decided to rebuild
// and left to emitInPlace: its new header, its source records section
// (the kept records' spans and timestamps are in batchScratch, which bits
// of c.kept are set) and its kept count.
type inPlaceBatch struct {
	on      bool
	h       record.BatchHeader
	section []byte
	kept    int
}

// emitInPlace builds the batch c.inPlace (rebuilt from the source batch at
// pos of src) in the write buffer itself (iosched.Writer.Reserve): a
// header's room, then each kept record's bytes as the filter walked them,
// re-timed where its timestamp delta changes (record.AppendRetimed), then
// the header and CRC (record.FinishUncompressed); as Kafka's filterTo
// builds a retained batch in its write buffer. The Builder path copied
// the records into the Builder, then the finished batch into c.scratch,
// then into the write buffer. A batch that may not fit an empty write
// buffer goes the Builder's way. The bytes are the same either way.
func (c *Cleaner) emitInPlace(src *Segment, pos FilePos, dest *Segment, maxOffset record.Offset, stats *CleanStats) error {
	sc, kept, nh := &c.batchScratch, c.kept, &c.inPlace.h
	bound := record.BatchHeaderSize
	for i := range sc.offsets {
		if kept[i>>6]&(1<<(i&63)) != 0 {
			bound += sc.spans[i+1] - sc.spans[i] + record.MaxRetimedGrowth
		}
	}
	tail, err := c.writer.Reserve(bound)
	if err != nil {
		return fmt.Errorf("engine: write %s: %w", dest.f.Name(), err)
	}
	var out []byte
	if tail == nil {
		b := &c.builder
		b.Reset(*nh)
		if err := c.appendKept(b, src, pos, nil, nh, record.NewRecordIterator(c.inPlace.section, 0), kept); err != nil {
			return err
		}
		if c.scratch, err = b.Finish(c.scratch[:0]); err != nil {
			return fmt.Errorf("engine: rebuild batch from %s byte %d: %w", src.f.Name(), pos, err)
		}
		out = c.scratch
	} else {
		out = tail[:record.BatchHeaderSize]
		sec := c.inPlace.section
		for i := range sc.offsets {
			if kept[i>>6]&(1<<(i&63)) == 0 {
				continue
			}
			if out, err = record.AppendRetimed(out, sec[sc.spans[i]:sc.spans[i+1]], sc.timestamps[i]-nh.BaseTimestamp); err != nil {
				return c.corrupt(src, pos, "record", err)
			}
		}
		if err := record.FinishUncompressed(out, *nh, int32(c.inPlace.kept)); err != nil {
			return fmt.Errorf("engine: rebuild batch from %s byte %d: %w", src.f.Name(), pos, err)
		}
	}
	h, err := record.ParseHeader(out)
	if err != nil {
		return fmt.Errorf("engine: rebuilt batch at %s byte %d: %w", src.f.Name(), pos, err)
	}
	if tail == nil || len(out) > cap(tail) {
		// (Past the tail's room out would be a copy: bound rules it out.)
		return c.emit(dest, &h, out, maxOffset, stats)
	}
	c.writer.Commit(len(out))
	c.emitted(dest, &h, len(out), maxOffset, stats)
	return nil
}

// batchScratch holds one batch's per-record facts and the keys it looks up
// in the offset map. Its slices are reused from batch to batch: no
// allocation per record or per batch once they have grown.
type batchScratch struct {
	offsets    []int64
	timestamps []int64
	tombstone  []bool
	keys       [][]byte // alias the batch (or its decompressed records) until the next batch
	keyRecord  []int32  // index of the record each key belongs to
	found      []int64  // map offsets of keys
	// spans[i] is the byte position of record i in the batch's records
	// section (RecordIterator.Pos); spans[n] is the end of the last one.
	spans []int
}

func (sc *batchScratch) reset() {
	sc.offsets = sc.offsets[:0]
	sc.timestamps = sc.timestamps[:0]
	sc.tombstone = sc.tombstone[:0]
	sc.keys = sc.keys[:0]
	sc.keyRecord = sc.keyRecord[:0]
	sc.spans = sc.spans[:0]
}

// sizeFound makes found as long as keys and returns it.
func (sc *batchScratch) sizeFound() []int64 {
	if cap(sc.found) < len(sc.keys) {
		sc.found = make([]int64, len(sc.keys))
	}
	sc.found = sc.found[:len(sc.keys)]
	return sc.found
}

// lookup fills found with the map's offset of every queued key, in one
// GetBatch call when the map is a Batcher.
func (sc *batchScratch) lookup(m offsetmap.Map) {
	sc.sizeFound()
	if b, ok := m.(offsetmap.Batcher); ok {
		b.GetBatch(sc.keys, sc.found)
		return
	}
	for j, k := range sc.keys {
		sc.found[j] = m.Get(k)
	}
}
