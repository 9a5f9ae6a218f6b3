package engine

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
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
	// ReadOnly opens every file read-only: nothing on disk is changed, indexes
	// missing on disk are rebuilt in memory only, and appends fail.
	ReadOnly bool
	// Create makes the directory when it does not exist, and an empty active
	// segment at offset 0 when it holds no segment. Without it, a directory
	// with no segment is an error (ErrNotLogDir) and nothing is written.
	Create bool
	// Now is the clock (file.delete.delay.ms). Default time.Now.
	Now func() time.Time
}

// Log is one partition directory: its segments in base offset order, the
// last one active, as Kafka's UnifiedLog/LocalLog. Methods are safe for
// concurrent use; the cleaner holds no lock while copying and takes it to swap.
type Log struct {
	mu       sync.Mutex
	fs       FS
	dir      string
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
	// producers is the producer state, nil until LoadProducerState.
	producers producerState // REQUIRES: mu held
	// pendingDeletes are replaced segments waiting out file.delete.delay.ms.
	pendingDeletes []pendingDelete // REQUIRES: mu held
}

func (l *Log) nowMs() int64 { return l.now().UnixMilli() }

// Open opens the partition directory dir (named topic-partition). Segments
// are the *.log files with a 20-digit base offset name; other files
// (snapshots, checkpoints, partition.metadata) are left alone. A directory
// without segments gets an empty active segment at offset 0 (unless ReadOnly,
// where it is an error). Errors name the file and byte position of bad input.
func Open(dir string, opts Options) (*Log, error) {
	cfg := DefaultLogConfig()
	if opts.Config != nil {
		cfg = *opts.Config
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	fsys := opts.FS
	if fsys == nil {
		fsys = DefaultFS
	}
	dir = filepath.Clean(dir)
	tp, err := ParseTopicPartition(filepath.Base(dir))
	if err != nil {
		return nil, err
	}
	if _, err := fsys.Stat(dir); err != nil {
		if errors.Is(err, os.ErrNotExist) && opts.Create && !opts.ReadOnly {
			if err := fsys.MkdirAll(dir); err != nil {
				return nil, fmt.Errorf("engine: create %s: %w", dir, err)
			}
		} else {
			return nil, fmt.Errorf("engine: open log %s: %w", dir, err)
		}
	}
	l := &Log{fs: fsys, dir: dir, tp: tp, cfg: cfg, readOnly: opts.ReadOnly, highWatermark: -1,
		reader: iosched.NewReader(256<<10, max(cfg.MaxMessageBytes, 256<<10)), now: opts.Now}
	if l.now == nil {
		l.now = time.Now
	}
	if !opts.ReadOnly {
		if err := recoverSwap(fsys, dir, &cfg, l.reader); err != nil {
			return nil, err
		}
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("engine: list %s: %w", dir, err)
	}
	var bases []record.Offset
	for _, e := range entries {
		if base, ok := parseSegmentFileName(e.Name(), LogFileSuffix); ok && !e.IsDir() {
			bases = append(bases, base)
		}
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i] < bases[j] })
	for _, base := range bases {
		s, err := openSegment(fsys, dir, base, &cfg, l.reader, opts.ReadOnly)
		if err != nil {
			l.closeSegments()
			return nil, err
		}
		if n := len(l.segments); n > 0 && l.segments[n-1].nextOffset > base {
			l.closeSegments()
			s.f.Close()
			return nil, fmt.Errorf("engine: %s: segment %s overlaps the previous one, which ends at offset %d", dir, segmentFileName(base, LogFileSuffix), l.segments[n-1].nextOffset)
		}
		l.segments = append(l.segments, s)
	}
	if len(l.segments) == 0 {
		if opts.ReadOnly || !opts.Create {
			return nil, fmt.Errorf("%w: %s holds no segment (*.log with a 20-digit base offset)", ErrNotLogDir, dir)
		}
		s, err := createSegment(fsys, dir, 0, "", &cfg)
		if err != nil {
			return nil, err
		}
		l.segments = append(l.segments, s)
	}
	l.logStartOffset = l.segments[0].base
	return l, nil
}

func (l *Log) closeSegments() {
	for _, s := range l.segments {
		s.f.Close()
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

// LastStableOffset is min(first offset of an open transaction, high
// watermark). Transactions are not tracked yet, so it is the high watermark.
func (l *Log) LastStableOffset() record.Offset { return l.HighWatermark() }

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
// rolled first when the batches would take it past segment.bytes or their
// last offset would not fit a 32-bit offset relative to its base.
func (l *Log) Append(batches []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if l.readOnly {
		return fmt.Errorf("engine: append to %s: log opened read-only", l.dir)
	}
	if len(batches) == 0 {
		return nil
	}
	if int64(len(batches)) > l.cfg.SegmentBytes {
		return fmt.Errorf("%w: %d bytes appended at once, segment.bytes is %d", ErrBatchTooLarge, len(batches), l.cfg.SegmentBytes)
	}
	headers := make([]record.BatchHeader, 0, 8)
	expect := l.segments[len(l.segments)-1].nextOffset
	for pos := 0; pos < len(batches); {
		h, err := record.ParseHeader(batches[pos:])
		if err != nil {
			return fmt.Errorf("engine: append to %s: batch at byte %d of the input: %w", l.dir, pos, err)
		}
		if pos+h.Size() > len(batches) {
			return fmt.Errorf("engine: append to %s: batch at byte %d of the input: %w: %d bytes, %d left", l.dir, pos, record.ErrTruncated, h.Size(), len(batches)-pos)
		}
		if err := record.VerifyCRC(batches[pos : pos+h.Size()]); err != nil {
			return fmt.Errorf("engine: append to %s: batch at byte %d of the input: %w", l.dir, pos, err)
		}
		if h.BaseOffset < expect {
			return fmt.Errorf("%w: batch base offset %d, log end offset %d", ErrNonMonotonicOffset, h.BaseOffset, expect)
		}
		expect = h.NextOffset()
		headers = append(headers, h)
		pos += h.Size()
	}
	active := l.segments[len(l.segments)-1]
	last := headers[len(headers)-1].LastOffset()
	if active.size > 0 && (active.size+int64(len(batches)) > l.cfg.SegmentBytes || last-active.base > math.MaxInt32) {
		if err := l.roll(headers[0].BaseOffset); err != nil {
			return err
		}
		active = l.segments[len(l.segments)-1]
	}
	if err := active.append(batches, headers); err != nil {
		return err
	}
	if l.producers != nil {
		for i := range headers {
			l.producers.update(&headers[i])
		}
	}
	return nil
}

// roll makes the active segment inactive (its roll-time index entry, its
// indexes written trimmed) and starts a new one at base.
// REQUIRES: l.mu held.
func (l *Log) roll(base record.Offset) error {
	active := l.segments[len(l.segments)-1]
	if base < active.nextOffset {
		base = active.nextOffset
	}
	active.ix.onBecomeInactive()
	active.indexDirty = true
	if err := active.writeIndexes(); err != nil {
		return err
	}
	s, err := createSegment(l.fs, l.dir, base, "", &l.cfg)
	if err != nil {
		return err
	}
	l.segments = append(l.segments, s)
	return nil
}

// Roll starts a new empty active segment at the log end offset, as Kafka's
// UnifiedLog.roll. A roll of an empty active segment does nothing.
func (l *Log) Roll() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	active := l.segments[len(l.segments)-1]
	if active.size == 0 {
		return nil
	}
	return l.roll(active.nextOffset)
}

// Flush writes every changed index and fsyncs every .log file and the directory.
func (l *Log) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return ErrClosed
	}
	if l.readOnly {
		return nil
	}
	for _, s := range l.segments {
		if err := s.writeIndexes(); err != nil {
			return err
		}
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("engine: fsync %s: %w", s.f.Name(), err)
		}
	}
	return l.fs.SyncDir(l.dir)
}

// Close flushes (unless read-only) and closes every file.
func (l *Log) Close() error {
	if l.closed {
		return nil
	}
	if !l.readOnly {
		// Kafka's LogSegment.close appends the max-timestamp entry to the time
		// index, so a cleanly closed active segment has it too.
		l.mu.Lock()
		for _, s := range l.segments {
			if s.ix.onBecomeInactive() {
				s.indexDirty = true
			}
		}
		l.mu.Unlock()
	}
	err := l.Flush()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for _, p := range l.pendingDeletes {
		p.seg.removeFiles()
	}
	l.pendingDeletes = nil
	for _, s := range l.segments {
		if cerr := s.f.Close(); err == nil {
			err = cerr
		}
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
func (l *Log) ReadBatches(from record.Offset, fn func(seg *Segment, pos FilePos, batch []byte) error) error {
	l.mu.Lock()
	segs := l.segmentsInRange(from, math.MaxInt64)
	l.mu.Unlock()
	rd := iosched.NewReader(256<<10, max(l.cfg.MaxMessageBytes, 256<<10))
	for _, s := range segs {
		it := newBatchIter(rd, s.f, int64(s.ix.lookup(from)), s.size)
		for {
			batch, pos, err := it.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return err
			}
			h, err := s.header(batch, pos)
			if err != nil {
				return err
			}
			if h.LastOffset() < from {
				continue
			}
			if err := fn(s, pos, batch); err != nil {
				return err
			}
		}
	}
	return nil
}
