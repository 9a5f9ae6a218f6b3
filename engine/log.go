package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// TopicPartition names a partition as Kafka's directory name does: topic-partition.
type TopicPartition struct {
	Topic     string
	Partition int32
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// ParseTopicPartition splits a partition directory name such as
// "__consumer_offsets-17" at its last '-'.
func ParseTopicPartition(dirName string) (TopicPartition, error) {
	i := strings.LastIndexByte(dirName, '-')
	if i <= 0 || i == len(dirName)-1 {
		return TopicPartition{}, fmt.Errorf("%w: %q is not named topic-partition", ErrNotLogDir, dirName)
	}
	p, err := strconv.ParseInt(dirName[i+1:], 10, 32)
	if err != nil || p < 0 {
		return TopicPartition{}, fmt.Errorf("%w: %q has no partition number after its last '-'", ErrNotLogDir, dirName)
	}
	return TopicPartition{Topic: dirName[:i], Partition: int32(p)}, nil
}

// Options are the knobs of opening a Log.
type Options struct {
	// Config is the log's topic config. Zero value: DefaultLogConfig().
	Config *LogConfig
	// FS is the file system seam. Default DefaultFS.
	FS FS
	// ReadOnly opens every file read-only: nothing on disk is changed (no
	// swap recovery, no truncation, no marker removed), indexes missing on
	// disk are rebuilt in memory only, a torn tail a read-write open would
	// cut is reported in Recovery() and left out of what the Log reads, and
	// appends, rolls, cleaning and retention fail with ErrReadOnly.
	ReadOnly bool
	// Create makes the directory when it does not exist.
	Create bool
	// KafkaRecoveryTruncation lets an unclean open treat a bad last batch of a
	// segment that has data after it in later segments as Kafka's LogLoader
	// does: cut it and delete every later segment. By default that is an error
	// (corruption in the middle of the log) and nothing is changed; only a
	// torn tail at the very end of the log is cut.
	KafkaRecoveryTruncation bool
	// AcceptTruncatedSegments lets a read-write open go on with a segment
	// whose indexes prove that its .log lost data (ErrTruncatedSegment):
	// the log is opened as it is, the indexes rebuilt from what is left.
	// By default such an open is refused and nothing is changed.
	AcceptTruncatedSegments bool
	// Now is the clock (file.delete.delay.ms, segment.ms without
	// timestamps). Default time.Now.
	Now func() time.Time
}

// Log is one partition directory: its segments in base offset order, the
// last one active, as Kafka's UnifiedLog/LocalLog. Methods are safe for
// concurrent use; the cleaner holds no lock while copying and takes it to swap.
type Log struct {
	mu       sync.Mutex
	fs       FS
	dir      string
	root     string // the log directory root: dir's parent
	tp       TopicPartition
	cfg      LogConfig
	readOnly bool
	closed   bool
	segments []*Segment // REQUIRES: mu held to read or change

	// logStartOffset is the first offset a reader may fetch (Kafka's log start offset).
	logStartOffset record.Offset
	// highWatermark bounds the cleaner (and the last stable offset, without
	// transactions). -1 means the log end offset.
	highWatermark record.Offset
	reader        *iosched.Reader
	now           func() time.Time
	// pstate is the producer state (producers, their last batches and open
	// transactions); nil until first needed (loadProducerState).
	pstate *producerStateManager // REQUIRES: mu held
	// pendingDeletes are replaced segments waiting out file.delete.delay.ms.
	pendingDeletes []pendingDelete // REQUIRES: mu held
	// closing holds a channel per goroutine closing the files of deleted
	// segments (release), closed when it is through: Close and abandon
	// wait for those started before them. REQUIRES: mu held.
	closing []chan struct{}
	// recovery is what Open found and did.
	recovery *RecoveryReport
	// rootHold is the log's hold on its log directory root (its .lock, the
	// clean-shutdown marker); nil for a read-only Log or once closed.
	rootHold *logDirRoot
	// epochs is the leader epoch cache (leader-epoch-checkpoint).
	epochs epochCache // REQUIRES: mu held
	// truncations counts TruncateTo / TruncateFullyAndStartAt calls that
	// changed the log; a clean that began before one is not swapped in.
	truncations uint64 // REQUIRES: mu held
	// mcco is the max cleanly compacted offset (MaxCleanlyCompactedOffset).
	mcco record.Offset // REQUIRES: mu held
	// bounds are the coordination bounds of the cleaner (SetRemovalBounds).
	bounds RemovalBounds // REQUIRES: mu held
}

func (l *Log) nowMs() int64 { return l.now().UnixMilli() }

// closeSegments closes every segment's files without writing anything.
func (l *Log) closeSegments() {
	for _, s := range l.segments {
		s.closeFiles()
	}
}

// Dir is the partition directory.
func (l *Log) Dir() string { return l.dir }

// TopicPartition is parsed from the directory name.
func (l *Log) TopicPartition() TopicPartition { return l.tp }

// Config returns the log's config.
func (l *Log) Config() LogConfig { return l.cfg }

// Segments returns a copy of the segment list, oldest first; the last is active.
func (l *Log) Segments() []*Segment {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*Segment(nil), l.segments...)
}

// ActiveSegment is the segment appends go to. It is never cleaned.
func (l *Log) ActiveSegment() *Segment {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.segments[len(l.segments)-1]
}

// LogEndOffset is the offset the next appended record gets.
func (l *Log) LogEndOffset() record.Offset {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.segments[len(l.segments)-1].nextOffset
}

// LogStartOffset is the first offset of the log: the first segment's base
// offset at open, as a broker without a log-start-offset checkpoint entry.
func (l *Log) LogStartOffset() record.Offset {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.logStartOffset
}

// SetHighWatermark sets the high watermark, which bounds the cleaner's first
// uncleanable offset; -1 means the log end offset (the default).
func (l *Log) SetHighWatermark(hw record.Offset) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.highWatermark = hw
}

// HighWatermark is the high watermark (the log end offset unless set).
func (l *Log) HighWatermark() record.Offset {
	l.mu.Lock()
	defer l.mu.Unlock()
	leo := l.segments[len(l.segments)-1].nextOffset
	if l.highWatermark < 0 || l.highWatermark > leo {
		return leo
	}
	return l.highWatermark
}

// LastStableOffset is min(first offset of the earliest open transaction,
// high watermark), as Kafka's UnifiedLog.lastStableOffset. The first call
// after an open reads every batch header of the log to learn which
// transactions are open (the log keeps no producer snapshots); an error of
// that read is returned with the high watermark.
func (l *Log) LastStableOffset() (record.Offset, error) {
	hw := l.HighWatermark()
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.ensureProducerState(); err != nil {
		return hw, err
	}
	if first, ok := l.pstate.firstUnstableOffset(); ok && first < hw {
		return first, nil
	}
	return hw, nil
}

// SizeBytes is the sum of the .log file sizes.
func (l *Log) SizeBytes() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var n int64
	for _, s := range l.segments {
		n += s.size
	}
	return n
}

// Append appends one or more whole v2 batches, back to back, whose offsets
// start at or after the log end offset. Every batch's header and CRC are
// checked first; nothing is written if one is bad. The active segment is
// rolled first, as Kafka's LogSegment.shouldRoll, when the batches would take
// it past segment.bytes, when segment.ms has passed since its first batch's
// timestamp (or, without timestamps, since it was created or loaded), or
// when its offset or time index is full; and before any batch whose last
// offset would not fit a 32-bit offset relative to the segment's base (the
// new segment's base is that batch's base offset). An ABORT marker adds its
// transaction to the .txnindex of the segment it lands in.
func (l *Log) Append(batches []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("append to"); err != nil {
		return err
	}
	if len(batches) == 0 {
		return nil
	}
	return l.appendLocked(batches)
}

// writableLocked is the precondition of every change to the log: ErrClosed
// when it is closed, ErrReadOnly (naming op, e.g. "append to", and the
// directory) when it was opened read-only, nil otherwise.
// REQUIRES: l.mu held.
func (l *Log) writableLocked(op string) error {
	if l.closed {
		return ErrClosed
	}
	if l.readOnly {
		return fmt.Errorf("%w: %s %s", ErrReadOnly, op, l.dir)
	}
	return nil
}

// validateBatches checks the header, size, CRC and offsets of every batch
// of an append and returns their headers.
// REQUIRES: l.mu held.
func (l *Log) validateBatches(batches []byte) ([]record.BatchHeader, error) {
	if int64(len(batches)) > l.cfg.SegmentBytes {
		return nil, fmt.Errorf("%w: %d bytes appended at once, segment.bytes is %d", ErrBatchTooLarge, len(batches), l.cfg.SegmentBytes)
	}
	headers := make([]record.BatchHeader, 0, 8)
	expect := l.segments[len(l.segments)-1].nextOffset
	for pos := 0; pos < len(batches); {
		h, err := record.ParseHeader(batches[pos:])
		if err != nil {
			return nil, fmt.Errorf("engine: append to %s: batch at byte %d of the input: %w", l.dir, pos, err)
		}
		if pos+h.Size() > len(batches) {
			return nil, fmt.Errorf("engine: append to %s: batch at byte %d of the input: %w: %d bytes, %d left", l.dir, pos, record.ErrTruncated, h.Size(), len(batches)-pos)
		}
		if err := record.VerifyCRC(batches[pos : pos+h.Size()]); err != nil {
			return nil, fmt.Errorf("engine: append to %s: batch at byte %d of the input: %w", l.dir, pos, err)
		}
		if h.BaseOffset < expect {
			return nil, fmt.Errorf("%w: batch base offset %d, log end offset %d", ErrNonMonotonicOffset, h.BaseOffset, expect)
		}
		expect = h.NextOffset()
		headers = append(headers, h)
		pos += h.Size()
	}
	return headers, nil
}

// appendLocked is Append once the log is known open, writable and the
// input non-empty. REQUIRES: l.mu held.
func (l *Log) appendLocked(batches []byte) error {
	headers, err := l.validateBatches(batches)
	if err != nil {
		return err
	}
	maxTs := record.NoTimestamp
	for i := range headers {
		maxTs = max(maxTs, headers[i].MaxTimestamp)
	}
	if err := l.ensureProducerState(); err != nil {
		return err
	}
	active := l.segments[len(l.segments)-1]
	if l.shouldRoll(active, int64(len(batches)), maxTs) {
		if err := l.roll(headers[0].BaseOffset); err != nil {
			return err
		}
		active = l.segments[len(l.segments)-1]
	}
	if err := active.activate(); err != nil {
		return err
	}
	// Write runs of batches; roll before a batch whose last offset is out of
	// the active segment's relative-offset range (KAFKA-4451, case C21).
	var txnBatches []txnBatch
	from, fromPos, pos := 0, 0, 0
	for i := range headers {
		if headers[i].LastOffset()-active.base > math.MaxInt32 {
			if i > from {
				if err := active.append(batches[fromPos:pos], headers[from:i]); err != nil {
					return err
				}
				txnBatches = txnBatchesOf(batches[fromPos:pos], headers[from:i], active, txnBatches)
			}
			if err := l.roll(headers[i].BaseOffset); err != nil {
				return err
			}
			active = l.segments[len(l.segments)-1]
			if err := active.activate(); err != nil {
				return err
			}
			from, fromPos = i, pos
		}
		pos += headers[i].Size()
	}
	if err := active.append(batches[fromPos:], headers[from:]); err != nil {
		return err
	}
	txnBatches = txnBatchesOf(batches[fromPos:], headers[from:], active, txnBatches)
	for i := range txnBatches {
		if a := l.pstate.update(&txnBatches[i]); a != nil {
			if err := txnBatches[i].seg.appendTxn(*a); err != nil {
				return err
			}
		}
	}
	return nil
}

// txnBatchesOf appends the producer-state facts of the whole batches in buf
// (already validated by the caller), headers[i] being the header of the
// i-th batch, all written to seg.
func txnBatchesOf(buf []byte, headers []record.BatchHeader, seg *Segment, out []txnBatch) []txnBatch {
	pos := 0
	for i := range headers {
		size := headers[i].Size()
		out = append(out, txnBatchOf(&headers[i], buf[pos:pos+size], seg))
		pos += size
	}
	return out
}

// shouldRoll is Kafka's LogSegment.shouldRoll for an append of n bytes whose
// largest batch timestamp is maxTs: rolled for time once more than
// segment.ms minus the segment's jitter has passed.
// REQUIRES: l.mu held.
func (l *Log) shouldRoll(active *Segment, n, maxTs int64) bool {
	if active.size == 0 {
		return false
	}
	if active.size > l.cfg.SegmentBytes-n || active.ix.full() {
		return true
	}
	waited := l.nowMs() - active.created
	if first := active.firstBatchMaxTimestamp(); first >= 0 {
		waited = maxTs - first
	}
	return waited > l.cfg.SegmentMs-active.rollJitterMs
}

// randomSegmentJitter is Kafka's LogConfig.randomSegmentJitter: 0 without
// segment.jitter.ms, else uniform in [0, min(segment.jitter.ms, segment.ms)).
func (l *Log) randomSegmentJitter() int64 {
	if l.cfg.SegmentJitterMs <= 0 {
		return 0
	}
	return rand.Int64N(min(l.cfg.SegmentJitterMs, l.cfg.SegmentMs))
}

// roll makes the active segment inactive (its roll-time index entry, its
// indexes written trimmed) and starts a new active one at base (at least
// the log end offset).
// REQUIRES: l.mu held.
func (l *Log) roll(base record.Offset) error {
	active := l.segments[len(l.segments)-1]
	if base < active.nextOffset {
		base = active.nextOffset
	}
	if err := active.seal(); err != nil {
		return err
	}
	s, err := createSegment(l.fs, l.dir, base, "", &l.cfg)
	if err != nil {
		return err
	}
	// Its index files are created, preallocated, by its first append (as
	// Kafka's lazy indexes are, on the first shouldRoll check).
	s.created = l.nowMs()
	s.rollJitterMs = l.randomSegmentJitter()
	l.segments = append(l.segments, s)
	return nil
}

// Roll starts a new empty active segment at the log end offset, as Kafka's
// UnifiedLog.roll. A roll of an empty active segment does nothing.
func (l *Log) Roll() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("roll"); err != nil {
		return err
	}
	active := l.segments[len(l.segments)-1]
	if active.size == 0 {
		return nil
	}
	return l.roll(active.nextOffset)
}

// Flush writes every changed index, fsyncs every .log file and the
// directory, and records the log end offset as the partition's recovery
// point (recovery-point-offset-checkpoint) and its log start offset
// (log-start-offset-checkpoint), as Kafka's flush and checkpoint tasks do.
func (l *Log) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	return l.flush()
}

// flush is Flush. REQUIRES: l.mu held.
func (l *Log) flush() error {
	if l.readOnly {
		return nil
	}
	// The .log first, then its indexes, as Kafka's LogSegment.flush: an
	// index never reaches the disk ahead of the records it points to.
	for _, s := range l.segments {
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("engine: fsync %s: %w", s.f.Name(), err)
		}
		if err := s.writeIndexes(); err != nil {
			return err
		}
	}
	if err := l.fs.SyncDir(l.dir); err != nil {
		return fmt.Errorf("engine: fsync %s: %w", l.dir, err)
	}
	return l.writeCheckpoints()
}

// writeCheckpoints writes the partition's recovery point (the log end
// offset: everything is flushed) and log start offset entries. Kafka keeps
// a log start offset entry only when it is above the first segment's base.
// REQUIRES: l.mu held.
func (l *Log) writeCheckpoints() error {
	leo := l.segments[len(l.segments)-1].nextOffset
	if err := updateCheckpointEntry(l.fs, filepath.Join(l.root, RecoveryPointCheckpointFile), l.tp, leo, false); err != nil {
		return err
	}
	return l.writeLogStartOffset()
}

// writeLogStartOffset writes the partition's log-start-offset-checkpoint
// entry. REQUIRES: l.mu held.
func (l *Log) writeLogStartOffset() error {
	above := l.logStartOffset > l.segments[0].base
	return updateCheckpointEntry(l.fs, filepath.Join(l.root, LogStartOffsetCheckpointFile), l.tp, l.logStartOffset, !above)
}

// Close flushes (unless read-only) and closes every file, as Kafka's
// shutdown: the active segment becomes inactive (its roll-time time-index
// entry; both indexes trimmed), the checkpoints are written, and once the
// last read-write Log of the log directory root is closed, CleanShutdownFile
// is written there so that the next open skips recovery, unless a Log of
// the root failed (an open that had begun changing it, a close with an
// error, an abandoned Log). Then the root's .lock is released.
func (l *Log) Close() error {
	defer l.waitClosing()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil
	}
	var err error
	if !l.readOnly {
		// Kafka's LogSegment.close appends the max-timestamp entry to the
		// time index of every segment, so a cleanly closed active segment
		// has it too.
		for _, s := range l.segments {
			if s.ix.onBecomeInactive() {
				s.indexDirty = true
			}
		}
		err = l.flush()
	}
	l.closed = true
	for _, p := range l.pendingDeletes {
		p.seg.removeFiles()
	}
	l.pendingDeletes = nil
	for _, s := range l.segments {
		if cerr := s.close(); err == nil {
			err = cerr
		}
	}
	if l.rootHold != nil {
		how := releaseClean
		if err != nil {
			how = releaseUnclean
		}
		if rerr := l.rootHold.release(l.fs, l.dir, how); err == nil {
			err = rerr
		}
		l.rootHold = nil
	}
	return err
}

// segmentsInRange returns the segments holding offsets in [from, to): those
// whose next segment's base is > from and whose base is < to, as Kafka's
// UnifiedLog.logSegments(from, to).
// REQUIRES: l.mu held.
func (l *Log) segmentsInRange(from, to record.Offset) []*Segment {
	var out []*Segment
	for i, s := range l.segments {
		if s.base >= to {
			break
		}
		if i+1 < len(l.segments) && l.segments[i+1].base <= from {
			continue
		}
		out = append(out, s)
	}
	return out
}

// ReadBatches calls fn for every batch whose last offset is >= from, in
// offset order, across segments. batch aliases a reused buffer and is valid
// only during the call. It stops at the first error (fn's or a read's).
// The segments it reads are held until it returns, as Fetch holds them,
// so a clean or retention that replaces or deletes them meanwhile does not
// close their files under it: it reads the log's segments as they were
// when it began.
func (l *Log) ReadBatches(from record.Offset, fn func(seg *Segment, pos FilePos, batch []byte) error) error {
	l.mu.Lock()
	segs := l.segmentsInRange(from, math.MaxInt64)
	l.acquire(segs)
	l.mu.Unlock()
	defer l.release(segs)
	rd := getScanReader(256<<10, max(l.cfg.MaxMessageBytes, 256<<10))
	defer putScanReader(rd)
	for _, s := range segs {
		it := newBatchIter(rd, s.f, int64(s.ix.lookup(from)), s.size)
		err := it.each(func(batch []byte, pos FilePos) error {
			h, err := s.header(batch, pos)
			if err != nil || h.LastOffset() < from {
				return err
			}
			return fn(s, pos, batch)
		})
		if err != nil {
			return err
		}
	}
	return nil
}
