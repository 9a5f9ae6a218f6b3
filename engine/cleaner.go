package engine

import (
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// CleanerOptions are the seams of a Cleaner.
type CleanerOptions struct {
	// Now is the cleaner's "now" (delete horizons, lags). Default time.Now.
	// The timings of CleanStats (StartTime, MapCompleteTime, EndTime) always
	// read the real clock, so that a fixed Now does not zero them.
	Now func() time.Time
	// Map replaces the offset map built from the config (tests: a map with a
	// chosen capacity). Its capacity is still capped by LoadFactor.
	Map offsetmap.Map
	// Progress, when set, has every byte the cleaner reads added to it (map
	// building and copying), so a caller can show progress by polling it.
	Progress *atomic.Int64
	// FsyncPolicy of cleaned segments (iosched.ParseFsyncPolicy). Default
	// iosched.FsyncSegment (each cleaned segment fsynced before the swap, as
	// Kafka flushes). Every policy but none also fsyncs the directory after
	// each swap.
	FsyncPolicy iosched.FsyncPolicy
	// Throttler, when set, is the I/O throttle shared by all cleaner threads
	// (Kafka has one; NewThrottler makes it from the config). When nil and
	// CleanerConfig.MaxIOBytesPerSecond > 0, NewCleaner makes one for this
	// cleaner alone.
	Throttler iosched.Throttler
	// PhaseProbe, when set, measures each phase of a clean (map build,
	// copy) from the kernel's counters into CleanStats.IO (e.g.
	// iosched.ThreadPhaseProbe).
	PhaseProbe iosched.PhaseProbe
}

// Cleaner cleans one log at a time, as one thread of Kafka's LogCleaner: it
// owns one offset map (DedupeBufferBytes / Threads bytes) and one read and one
// write buffer (IOBufferBytes / Threads / 2 bytes each), allocated once. Not
// safe for concurrent use.
type Cleaner struct {
	cfg        CleanerConfig
	now        func() time.Time
	offsetMap  offsetmap.Map
	maxEntries int
	ioBufBytes int
	reader     iosched.SegmentReader // of cfg.IOPath; metered when throttled
	metered    *meteredReader        // reader, when throttled; else nil
	throttler  iosched.Throttler     // nil: unthrottled
	probe      iosched.PhaseProbe
	writer     *iosched.Writer
	dec        record.Decoder
	builder    record.Builder
	scratch    []byte   // rebuilt batches
	kept       []uint64 // bitmap of kept records of the current batch
	// batchScratch: per-record facts and map keys of the batch being filtered.
	batchScratch batchScratch
	progress     *atomic.Int64
	// oversize holds a batch larger than the read buffer may grow to
	// (max.message.bytes lowered after it was written), read after a header
	// sanity check as Kafka's growBuffersOrFail does.
	oversize []byte
	// checkDone is the current clean's CleanOptions.CheckDone.
	checkDone func() error
	// appends groups the output batches into Kafka's appends, for the
	// cleaned segment's index entries (cleaned_index.go).
	appends cleanedAppends
	// rebuiltMaxOffset is the offset of the last record filterBatch kept:
	// the largest offset Kafka's filterTo counts for a rebuilt batch.
	rebuiltMaxOffset record.Offset
	// bounds are the current clean's removal bounds (NoRemovalBounds by default).
	bounds RemovalBounds
	// truncGen is the log's truncation count when the current clean began.
	truncGen uint64
	// lookAheadKeys is prefetchNext's reused list of the next batch's keys.
	lookAheadKeys [][]byte
	// verdicts are the dirty section's records decided by the map build
	// (CleanerConfig.SkipDirtyLookups).
	verdicts dirtyVerdicts
	// ahead is ParallelLookups' reader and blocks; aheadWait makes the
	// filter wait for the goroutine's answers (tests only: by default it
	// looks up itself what has not arrived).
	ahead     aheadState
	aheadWait bool
	// aheadBeforeBatch, when set (tests), is called by the ParallelLookups
	// goroutine before each batch it walks, with the goroutine and the
	// batch's file position.
	aheadBeforeBatch func(a *lookupAhead, pos int64)
	// mapAheadSt is ParallelMapBuild's reader and blocks.
	mapAheadSt mapAheadState
	// outq orders the copy's output around ParallelRecompress's jobs.
	outq outQueue
	// inPlace is the uncompressed batch filterBatch left for emitInPlace
	// to rebuild in the write buffer.
	inPlace inPlaceBatch
	// rebuildByDecode makes a rebuilt batch decode its kept records again
	// and re-encode them field by field, instead of copying their bytes
	// (appendKept): the reference path of the equivalence tests only.
	rebuildByDecode bool
	// ioStart is the reader's and writer's counters when the clean under
	// way began (startIO), for its fallback and direct-write figures.
	ioStart ioSnapshot
	// behind is the group whose sync and swap run behind the copy
	// (CleanerConfig.SyncBehind), nil when none; behindWait sums the time
	// the cleaner waited for such groups.
	behind     *groupBehind
	behindWait time.Duration
	// worker is ParallelCopy's copy worker (made on first use); concurrent,
	// set on a copy worker only, is the map its lookups go through.
	worker     *Cleaner
	concurrent offsetmap.ConcurrentGetter
	// crcChecked are the byte ranges of the dirty segments whose batches'
	// CRCs the current clean's map build checked (VerifyCRCOnce).
	crcChecked crcRanges
}

// NewCleaner allocates a cleaner's offset map (of layout cfg.OffsetMap) and
// buffers. Errors: an invalid config, an unknown hasher or layout name, or
// ErrMapTooSmall when the map cannot hold
// a single key at the load factor.
func NewCleaner(cfg CleanerConfig, opts CleanerOptions) (*Cleaner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	c := &Cleaner{cfg: cfg, now: opts.Now, offsetMap: opts.Map, progress: opts.Progress, bounds: NoRemovalBounds()}
	if c.now == nil {
		c.now = time.Now
	}
	if c.offsetMap == nil {
		h, err := offsetmap.NewHasher(cfg.Hasher)
		if err != nil {
			return nil, err
		}
		m, err := offsetmap.New(cfg.OffsetMap, int(cfg.PerThreadMapTableBytes()), h)
		if err != nil {
			return nil, err
		}
		c.offsetMap = m
	}
	if sb, ok := c.offsetMap.(offsetmap.SortBufferer); ok {
		// A map given in opts keeps a buffer of the right size (a
		// parallel copy's second cleaner shares the first's map).
		if n := cfg.PerThreadMapSortPuts(c.offsetMap.Slots()); sb.SortBuffer() != n {
			if err := sb.SetSortBuffer(n); err != nil {
				return nil, err
			}
		}
	}
	c.maxEntries = offsetmap.MaxEntries(c.offsetMap, cfg.LoadFactor)
	if c.maxEntries < 1 {
		return nil, fmt.Errorf("%w: %d slots x load factor %v; increase log.cleaner.dedupe.buffer.size or decrease log.cleaner.threads", ErrMapTooSmall, c.offsetMap.Slots(), cfg.LoadFactor)
	}
	c.ioBufBytes = int(cfg.PerThreadIOBufferBytes())
	c.appends = newCleanedAppends(cfg, c.ioBufBytes)
	if err := c.initIO(cfg, opts); err != nil {
		return nil, err
	}
	return c, nil
}

// OffsetMap is the cleaner's dedupe map.
func (c *Cleaner) OffsetMap() offsetmap.Map { return c.offsetMap }

// Config is the cleaner's configuration, as NewCleaner was given it.
func (c *Cleaner) Config() CleanerConfig { return c.cfg }

// MaxMapEntries is the number of keys one clean can hold: slots x load factor.
func (c *Cleaner) MaxMapEntries() int { return c.maxEntries }

// CleanOptions choose the range and bookkeeping of one clean.
type CleanOptions struct {
	// FirstDirtyOffset replaces the checkpoint when OverrideFirstDirty is set
	// (as Kafka's tests pass LogToClean(firstDirtyOffset) directly). By
	// default the checkpoint file gives it.
	FirstDirtyOffset   record.Offset
	OverrideFirstDirty bool
	// CheckpointPath is the cleaner-offset-checkpoint file to read and update.
	// Default CheckpointPath(log.Dir()).
	CheckpointPath string
	// NoCheckpointUpdate leaves the checkpoint file alone.
	NoCheckpointUpdate bool
	// Force cleans even when the cleanable ratio is not above
	// min.cleanable.dirty.ratio (as a direct call of Kafka's Cleaner.clean).
	// When false, such a log is left alone and CleanStats.Skipped says why.
	Force bool
	// Range, when set, is the range to clean as the manager chose it
	// (Kafka's LogToClean handed to Cleaner.clean): the checkpoint is not
	// read and the ratio not checked.
	Range *LogToClean
	// CheckDone is called before every buffer the clean reads (Kafka's
	// checkDone); a non-nil error stops the clean with that error, the group
	// being cleaned left as it was. The manager aborts cleans with it.
	CheckDone func() error
	// Bounds, when set, replaces the log's removal bounds (Log.SetRemovalBounds)
	// for this clean: tombstones and transaction markers at or above them stay
	// whatever their delete horizon. nil: the log's, which are
	// NoRemovalBounds() unless set (Kafka's cleaner, byte for byte).
	Bounds *RemovalBounds
}

// Clean runs one clean of l, as Kafka's Cleaner.doClean: build the offset map
// over [first dirty, first uncleanable) until it is full, then recopy every
// segment below the map's end offset, grouped by size, through .cleaned and
// .swap files, and move the checkpoint to the end offset. It returns the
// stats of the clean. Errors: ErrNotCompacted; a *record.CorruptionError
// naming the file and byte position of a bad batch (the log is left as it
// was: nothing is swapped in for the group being cleaned, and groups already
// swapped in are complete and valid); ErrLegacyFormat for magic 0/1
// messages; I/O errors. An I/O error in the middle of a swap leaves its
// .swap and .deleted files for the next Open to complete, as Kafka's log
// loader does; until then the open Log still reads the old segments, so it
// should be closed and reopened (Kafka takes the log directory offline).
//
// A truncation of the log (TruncateTo, TruncateFullyAndStartAt) while the
// clean runs makes it fail with ErrCleaningAborted, whatever error the
// changed files gave its reads: nothing of it is swapped in afterwards and
// the checkpoint does not move (Kafka pauses cleaning around a truncation).
func (c *Cleaner) Clean(l *Log, opts CleanOptions) (*CleanStats, error) {
	c.truncGen = l.truncationCount()
	st, err := c.clean(l, opts)
	if err != nil && !errors.Is(err, ErrCleaningAborted) && l.truncationCount() != c.truncGen {
		return nil, fmt.Errorf("%w: %s was truncated while it was cleaned (%v)", ErrCleaningAborted, l.Dir(), err)
	}
	return st, err
}

// clean is Clean.
func (c *Cleaner) clean(l *Log, opts CleanOptions) (_ *CleanStats, err error) {
	cfg := l.Config()
	if !cfg.Compact {
		return nil, fmt.Errorf("%w: %s", ErrNotCompacted, l.Dir())
	}
	if l.readOnly {
		return nil, fmt.Errorf("engine: clean %s: log opened read-only", l.Dir())
	}
	if c.reader.MaxBufferBytes() < cfg.MaxMessageBytes {
		if err := c.newReader(cfg.MaxMessageBytes); err != nil {
			return nil, err
		}
	}
	ckptPath := opts.CheckpointPath
	if ckptPath == "" {
		ckptPath = CheckpointPath(l.Dir())
	}
	c.bounds = l.cleanerBounds(&opts)
	// c.now is the cleaner's "now" (horizons, lags), which a caller may fix;
	// the timings of the clean read the real clock.
	start := time.Now()
	nowMs := c.now().UnixMilli()
	var lt LogToClean
	if opts.Range != nil {
		lt = *opts.Range
	} else {
		checkpoint, present := NoCheckpoint, false
		if opts.OverrideFirstDirty {
			checkpoint, present = opts.FirstDirtyOffset, opts.FirstDirtyOffset >= 0
		} else {
			entries, err := ReadCheckpoint(l.fs, ckptPath)
			if err != nil {
				return nil, err
			}
			checkpoint, present = entries[l.tp]
		}
		var err error
		if lt, err = l.CleanableOffsetsEntry(checkpoint, present, nowMs); err != nil {
			return nil, err
		}
		// A checkpoint outside [log start offset, log end offset] is reset
		// to the log start offset and rewritten, as Kafka's choice of a log
		// does (the warning is in the stats' LogToClean.CheckpointWarning).
		if lt.ForceUpdateCheckpoint && !opts.OverrideFirstDirty && !opts.NoCheckpointUpdate {
			if err := UpdateCheckpoint(l.fs, ckptPath, l.tp, lt.FirstDirtyOffset); err != nil {
				return nil, fmt.Errorf("engine: write checkpoint %s: %w", ckptPath, err)
			}
		}
	}
	// A range chosen before a truncation is stale: its clean is not swapped
	// in and moves no checkpoint (finishClean, replaceSegments).
	c.truncGen = lt.truncGen
	stats := &CleanStats{TopicPartition: l.tp, LogToClean: lt, StartTime: start, NowMs: nowMs, MaxMapEntries: c.maxEntries, MapSlots: c.offsetMap.Slots()}
	stats.StartSizeBytes = l.SizeBytes()
	if lt.FirstDirtyOffset >= lt.FirstUncleanableOffset || lt.CleanableBytes == 0 {
		stats.Skipped = fmt.Sprintf("nothing to clean: first dirty offset %d, first uncleanable offset %d", lt.FirstDirtyOffset, lt.FirstUncleanableOffset)
		stats.finish(time.Now(), l)
		return stats, nil
	}
	if opts.Range == nil && !opts.Force && !(lt.CleanableRatio > cfg.MinCleanableDirtyRatio) && !lt.NeedCompactionNow {
		stats.Skipped = fmt.Sprintf("cleanable ratio %.4f is not above min.cleanable.dirty.ratio %v", lt.CleanableRatio, cfg.MinCleanableDirtyRatio)
		stats.finish(time.Now(), l)
		return stats, nil
	}
	c.checkDone = opts.CheckDone
	defer func() { c.checkDone = nil }()
	readBefore, writeBefore := c.reader.Stats(), c.writer.Stats()
	wrBefore, wwBefore, _ := c.workerIO()
	c.startIO(stats)
	defer c.stopIO(stats)

	endMap := c.startPhase(PhaseMap, func() ([]*Segment, []int64) {
		return l.mapPhaseSegments(lt.FirstDirtyOffset, lt.FirstUncleanableOffset)
	}, &stats.IO.Map)
	defer endMap()
	if err := c.buildOffsetMap(l, lt.FirstDirtyOffset, lt.FirstUncleanableOffset, stats); err != nil {
		return nil, err
	}
	endMap()
	endOffset := record.Offset(c.offsetMap.LatestOffset() + 1)
	stats.EndOffset = endOffset
	stats.MapEntries = c.offsetMap.Size()
	stats.BufferUtilization = c.offsetMap.Utilization()
	stats.MapStats = c.offsetMap.Stats()
	stats.MapCompleteTime = time.Now()
	stats.MapReadTime = c.reader.Stats().Time - readBefore.Time

	active, err := l.ActiveProducers(nowMs)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	segs := l.segmentsInRange(0, endOffset)
	l.acquire(segs)
	l.mu.Unlock()
	defer l.release(segs)
	// A group synced and swapped behind the copy is through before the
	// round returns, on error too, and before its segments are released.
	// Its error comes first: it happened first in Kafka's order (its fsync
	// or swap fails before the next group starts), and it is what decides
	// whether the root goes offline.
	defer func() {
		if berr := c.waitBehind(); berr != nil {
			if err != nil {
				berr = fmt.Errorf("%w (then, on the next group: %v)", berr, err)
			}
			err = berr
		}
	}()
	waitedBefore := c.behindWait
	endCopy := c.startPhase(PhaseCopy, func() ([]*Segment, []int64) { return l.copyPhaseSegments(endOffset) }, &stats.IO.Copy)
	defer endCopy()
	groups := groupSegmentsBySize(segs, cfg.SegmentBytes, cfg.SegmentIndexBytes, lt.FirstUncleanableOffset)
	// One transaction tracker for the whole round (KAFKA-8351, case C2).
	txns := newCleanedTxnMetadata()
	// O_DIRECT output or not, by the records the map build read
	// (WriteDirectMinRecordBytes) or the bytes the round rewrites
	// (WriteDirectMinCleanBytes); the copy worker follows the cleaner's.
	for _, s := range segs {
		stats.IO.SourceSegmentBytes += s.Size()
	}
	direct, rule := directWriteBytes(c.cfg, stats.MapBytesRead, stats.MapMessagesRead, stats.IO.SourceSegmentBytes)
	c.writer.SetDirect(direct)
	stats.IO.WriteDirectBytes, stats.IO.WriteDirectRule = int64(c.writer.Direct()), rule
	if err := c.copyGroups(l, groups, lt.FirstUncleanableOffset, nowMs, &cfg, active, txns, stats); err != nil {
		return nil, err
	}
	if err := c.waitBehind(); err != nil {
		return nil, err
	}
	stats.IO.SyncBehindWait = c.behindWait - waitedBefore
	endCopy()
	rs, ws := c.reader.Stats(), c.writer.Stats()
	// The copy worker's reads and writes (ParallelCopy) are the clean's too.
	wr, ww, _ := c.workerIO()
	rs.Time += wr.Time - wrBefore.Time
	ws = addWriteStats(ws, ww)
	writeBefore = addWriteStats(writeBefore, wwBefore)
	stats.ReadTime = rs.Time - readBefore.Time
	stats.WriteTime = ws.WriteTime - writeBefore.WriteTime
	stats.SyncTime = ws.SyncTime - writeBefore.SyncTime
	stats.Syncs = ws.Syncs + ws.Datasyncs - writeBefore.Syncs - writeBefore.Datasyncs
	stats.CheckpointOffset = endOffset
	if err := l.finishClean(lt.FirstDirtyOffset, endOffset, c.truncGen, ckptPath, !opts.NoCheckpointUpdate); err != nil {
		return nil, err
	}
	stats.finish(time.Now(), l)
	return stats, nil
}

// buildOffsetMap fills the offset map from the dirty segments, as Kafka's
// Cleaner.buildOffsetMap: clear it, then put every keyed record with offset
// >= start of every data batch, segment by segment, until the map holds its
// maximum entries (slots x load factor) and one more new put is due. The
// map's latest offset advances per batch and, after each fully read segment,
// to the next segment's base - 1 (end - 1 for the last).
func (c *Cleaner) buildOffsetMap(l *Log, start, end record.Offset, stats *CleanStats) error {
	c.offsetMap.Clear()
	c.verdicts.on = false
	c.crcChecked.reset(c.cfg.VerifyCRC && c.cfg.VerifyCRCOnce)
	if c.cfg.SkipDirtyLookups {
		c.verdicts.start(c.offsetMap, int64(start), int64(end), c.maxEntries)
		defer c.verdicts.stop(c.offsetMap)
	}
	l.mu.Lock()
	dirty := l.segmentsInRange(start, end)
	l.acquire(dirty)
	// Aborted transactions of the whole dirty range: their data never
	// enters the map (docs/kafka-rules.md §3).
	txns := newCleanedTxnMetadata()
	txns.addAborted(collectAbortedTxns(l.segments, start, end))
	l.mu.Unlock()
	defer l.release(dirty)
	var ahead *mapAhead
	if c.cfg.ParallelMapBuild {
		from := make([]int64, len(dirty))
		for i, s := range dirty {
			from[i] = int64(s.ix.lookup(start))
		}
		var err error
		if ahead, err = c.startMapAhead(dirty, from, start); err != nil {
			return err
		}
		defer func() { ahead.close() }()
	}
	for i, s := range dirty {
		next := end
		if i+1 < len(dirty) {
			next = dirty[i+1].base
		}
		var full bool
		var err error
		if ahead != nil {
			var stopped bool
			full, stopped, err = c.mapSegmentAhead(ahead, i, s, start, next, txns, stats)
			if stopped {
				// The goroutine stopped in s: the cleaner reads the rest.
				ahead.close()
				ahead = nil
			}
		} else {
			full, err = c.mapSegmentFrom(s, int64(s.ix.lookup(start)), start, next, txns, stats)
		}
		if err != nil {
			return err
		}
		if full {
			stats.MapFull = true
			return nil
		}
	}
	return nil
}

// mapSegmentFrom maps segment s from byte pos (a batch boundary) to its
// end, reading it: next is the following segment's base offset (the dirty
// end for the last). It reports whether the map became full.
func (c *Cleaner) mapSegmentFrom(s *Segment, pos int64, start, next record.Offset, txns *cleanedTxnMetadata, stats *CleanStats) (full bool, err error) {
	defer c.reader.Restore()
	it := c.iter(s, pos)
	for {
		batch, pos, err := it.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return false, err
		}
		if full, err := c.mapBatch(s, batch, pos, start, txns, stats); err != nil || full {
			return full, err
		}
	}
	// Offsets gaps: the whole segment is mapped, so its end is covered.
	c.offsetMap.UpdateLatestOffset(int64(next - 1))
	return false, nil
}

// mapBatch maps one batch of s read at pos, as Kafka's
// buildOffsetMapForSegment: a control batch updates the transactions, an
// aborted transaction's data is skipped, and every other batch's keyed
// records at offsets >= start are put; the map's latest offset then
// advances to the batch's last offset. It reports whether the map became
// full before one of the batch's keys.
func (c *Cleaner) mapBatch(s *Segment, batch []byte, pos FilePos, start record.Offset, txns *cleanedTxnMetadata, stats *CleanStats) (full bool, err error) {
	h, recs, err := c.decode(s, batch, pos)
	if err != nil {
		return false, err
	}
	c.crcChecked.note(s, int64(pos), int64(len(batch)))
	c.countMapRead(len(batch), stats)
	switch {
	case h.Attributes.Control():
		typ, empty, err := c.controlTypeOf(s, pos, recs)
		if err != nil {
			return false, err
		}
		if _, err := txns.onControlBatchRead(&h, typ, empty); err != nil {
			return false, err
		}
		stats.MapMessagesRead++
	case txns.onBatchRead(&h):
		// Aborted data: not put in the map (docs/kafka-rules.md §3).
		stats.MapMessagesRead += int64(h.RecordCount)
	default:
		// Gather the batch's keys at or after start, then put them
		// together (a Batcher map overlaps their cache misses).
		sc := &c.batchScratch
		sc.reset()
		records := int32(0)
		var full record.Record
		var r record.KeyRecord
		for {
			ok, err := nextKey(c.cfg.KeyScan, &recs, &full, &r)
			if err != nil {
				return false, c.corrupt(s, pos, "record", err)
			}
			if !ok {
				break
			}
			if off := int64(r.Offset(&h)); r.Key != nil && off >= int64(start) {
				sc.keys = append(sc.keys, r.Key)
				sc.offsets = append(sc.offsets, off)
				sc.keyRecord = append(sc.keyRecord, records)
			}
			records++
		}
		if c.putKeys(sc.keys, nil, sc.offsets, sc.keyRecord, records, stats) {
			return true, nil
		}
	}
	c.mappedThrough(&h, start)
	return false, nil
}

// countMapRead counts size bytes of batch the map build read.
func (c *Cleaner) countMapRead(size int, stats *CleanStats) {
	stats.MapBytesRead += int64(size)
	if c.progress != nil {
		c.progress.Add(int64(size))
	}
}

// mappedThrough advances the map's latest offset to the last offset of a
// batch the build went through, when it lies at or after start.
func (c *Cleaner) mappedThrough(h *record.BatchHeader, start record.Offset) {
	if h.LastOffset() >= start {
		c.offsetMap.UpdateLatestOffset(int64(h.LastOffset()))
	}
}

// iter returns a batch iterator over the whole .log of s from byte pos,
// reading through the cleaner's buffer, calling the clean's CheckDone before
// every read, and reading a batch past the buffer's cap into c.oversize.
func (c *Cleaner) iter(s *Segment, pos int64) batchIter {
	it := newBatchIter(c.reader, s.f, pos, s.size)
	it.beforeRead = c.checkDone
	it.oversize = &c.oversize
	return it
}

// controlTypeOf returns the type of the first record of a control batch,
// and empty when it holds none (a batch an earlier clean emptied).
func (c *Cleaner) controlTypeOf(s *Segment, pos FilePos, recs record.RecordIterator) (typ record.ControlType, empty bool, err error) {
	var r record.Record
	ok, err := recs.Next(&r)
	if err != nil {
		return 0, false, c.corrupt(s, pos, "control record", err)
	}
	if !ok {
		return 0, true, nil
	}
	typ, err = record.ParseControlKey(r.Key)
	if err != nil {
		return 0, false, c.corrupt(s, pos, "control record key", err)
	}
	return typ, false, nil
}

// putKeys puts the gathered keys of one batch into the map (the keys
// themselves, or, when fps is not nil, their fingerprints: see
// offsetmap.FingerprintPutter), with offsets[j] the offset of key j and
// keyRecord[j] its record's number within the batch, as Kafka's
// buildOffsetMapForSegment does record by record: before each put, a map
// holding its maximum entries, or unable to store the offset (a layout
// storing offsets relative to the pass's first), is full, and the pass ends
// before that record. It counts the batch's records read in
// stats.MapMessagesRead (records, its whole count, or those before the one
// that found the map full) and reports whether the map became full.
func (c *Cleaner) putKeys(keys [][]byte, fps []offsetmap.Fingerprint, offsets []int64, keyRecord []int32, records int32, stats *CleanStats) (full bool) {
	if at := c.putKeysUpTo(keys, fps, offsets, keyRecord); at >= 0 {
		stats.MapMessagesRead += int64(at)
		return true
	}
	stats.MapMessagesRead += int64(records)
	return false
}

// putKeysUpTo is putKeys' puts: it returns the number within the batch of
// the record that found the map full, or -1 when every key went in.
func (c *Cleaner) putKeysUpTo(keys [][]byte, fps []offsetmap.Fingerprint, offsets []int64, keyRecord []int32) int32 {
	m := c.offsetMap
	n := len(offsets)
	if n == 0 {
		return -1
	}
	fpp, _ := m.(offsetmap.FingerprintPutter)
	b, batcher := m.(offsetmap.Batcher)
	// Offsets increase within a batch, so if the first and last fit, all do.
	// SizeAtMost first: it leaves a write-behind map's queue alone; Size,
	// exact, only when the bound says the batch may not fit.
	if (fps != nil || batcher) && m.Fits(offsets[0]) && m.Fits(offsets[n-1]) &&
		(n <= c.maxEntries-offsetmap.SizeAtMost(m) || n <= c.maxEntries-m.Size()) {
		c.verdicts.notePut(offsets)
		if fps != nil {
			fpp.PutFingerprints(fps, offsets)
		} else {
			b.PutBatch(keys, offsets)
		}
		return -1
	}
	for j := range n {
		if m.Size() >= c.maxEntries || !m.Fits(offsets[j]) {
			return keyRecord[j]
		}
		c.verdicts.notePut(offsets[j : j+1])
		if fps != nil {
			fpp.PutFingerprints(fps[j:j+1], offsets[j:j+1])
		} else {
			m.Put(keys[j], offsets[j])
		}
	}
	return -1
}

// nextKey reads the next record's key, deltas and value nullness into r:
// through the key scan (RecordIterator.NextKey) when scan
// (CleanerConfig.KeyScan), else by decoding every field into full
// (RecordIterator.Next) and taking those from it. The records, positions
// and errors are the same either way.
func nextKey(scan bool, it *record.RecordIterator, full *record.Record, r *record.KeyRecord) (bool, error) {
	if scan {
		return it.NextKey(r)
	}
	ok, err := it.Next(full)
	if ok {
		r.TimestampDelta, r.OffsetDelta, r.Key, r.NullValue = full.TimestampDelta, full.OffsetDelta, full.Key, full.Value == nil
	}
	return ok, err
}

// decode checks one batch (v2 magic, CRC) and returns its header and records.
func (c *Cleaner) decode(s *Segment, batch []byte, pos FilePos) (record.BatchHeader, record.RecordIterator, error) {
	return c.decodeChecked(s, batch, pos, false)
}

// decodeChecked is decode, with the CRC check left out when crcChecked
// (ParallelLookups' goroutine checked it on its read of the batch).
func (c *Cleaner) decodeChecked(s *Segment, batch []byte, pos FilePos, crcChecked bool) (record.BatchHeader, record.RecordIterator, error) {
	if len(batch) > record.MagicPos && batch[record.MagicPos] != record.MagicV2 && (batch[record.MagicPos] == 0 || batch[record.MagicPos] == 1) {
		return record.BatchHeader{}, record.RecordIterator{}, &record.CorruptionError{Path: s.f.Name(), Pos: int64(pos),
			Reason: fmt.Sprintf("magic %d message set", batch[record.MagicPos]), Err: ErrLegacyFormat}
	}
	if c.cfg.VerifyCRC && !crcChecked {
		if err := record.VerifyCRC(batch); err != nil {
			return record.BatchHeader{}, record.RecordIterator{}, c.corrupt(s, pos, "batch CRC", err)
		}
	}
	h, recs, err := c.dec.Records(batch)
	if err != nil {
		return h, recs, c.corrupt(s, pos, "batch", err)
	}
	return h, recs, nil
}

func (c *Cleaner) corrupt(s *Segment, pos FilePos, what string, err error) error {
	var ce *record.CorruptionError
	if errors.As(err, &ce) {
		return err
	}
	return &record.CorruptionError{Path: s.f.Name(), Pos: int64(pos), Reason: what, Err: err}
}
