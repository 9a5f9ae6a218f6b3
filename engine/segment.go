package engine

import (
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// File name suffixes. They are part of Kafka's on-disk layout (LogFileUtils)
// and must not change. Temporary suffixes go after the extension:
// 00000000000000001234.log.cleaned.
const (
	LogFileSuffix       = ".log"
	IndexFileSuffix     = ".index"
	TimeIndexFileSuffix = ".timeindex"
	TxnIndexFileSuffix  = ".txnindex"
	CleanedFileSuffix   = ".cleaned"
	SwapFileSuffix      = ".swap"
	DeletedFileSuffix   = ".deleted"
)

// segmentFileName is the 20-digit zero-padded base offset plus ext, as Kafka's
// LogFileUtils.filenamePrefixFromOffset.
//
// It is built without fmt: every path of a segment's files goes through
// it, and a replication campaign renames segments thousands of times.
func segmentFileName(base record.Offset, ext string) string {
	if base < 0 {
		return fmt.Sprintf("%020d%s", int64(base), ext)
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(base), 10)
	b := make([]byte, 0, 20+len(ext))
	for range 20 - len(d) {
		b = append(b, '0')
	}
	return string(append(append(b, d...), ext...))
}

// ParseSegmentFileName returns the base offset of a segment file name such as
// 00000000000000001234.log: ext (".log", ".index", ".timeindex",
// ".txnindex", or one of them with a temporary suffix) after exactly 20
// decimal digits, as Kafka's LogFileUtils.offsetFromFileName. ok is false
// for any other name. It is the one parser of segment file names: the
// engine, dump and verify all read names through it.
func ParseSegmentFileName(name, ext string) (record.Offset, bool) {
	if !strings.HasSuffix(name, ext) {
		return 0, false
	}
	digits := strings.TrimSuffix(name, ext)
	if len(digits) != 20 || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return 0, false // strconv would also take a sign
	}
	v, err := strconv.ParseInt(digits, 10, 64) // base 10: leading zeros are padding, not octal
	if err != nil || v < 0 {
		return 0, false
	}
	return record.Offset(v), true
}

// Segment is one .log file with its .index, .timeindex and .txnindex, as
// Kafka's LogSegment. The offset and time indexes are kept in memory. While
// the segment is active their files are preallocated to segment.index.bytes
// (rounded down to whole entries) and new entries are written into them at
// each flush; when the segment becomes inactive (roll, close) the roll-time
// entry is appended and the files are trimmed to their entries, as Kafka's
// mmapped indexes are. The .txnindex is written as ABORT markers are
// appended.
type Segment struct {
	fs         FS
	dir        string
	suffix     string // "" or a temporary suffix such as CleanedFileSuffix
	base       record.Offset
	f          File
	size       int64
	nextOffset record.Offset // offset after the last batch; base when empty
	ix         indexer
	indexDirty bool // in-memory indexes differ from the files
	hadIndex   bool // the .index file existed at open
	readOnly   bool

	// Active-segment index files, preallocated; nil when inactive.
	oiFile, tiFile       File
	oiWritten, tiWritten int // entries already written into them

	txns        []AbortedTxn // the .txnindex entries
	hadTxnIndex bool         // the .txnindex file exists
	txnCorrupt  bool         // the .txnindex file exists but cannot be decoded
	// abortMarkers are the offsets of the ABORT markers a full scan met.
	abortMarkers []record.Offset

	// refs counts the readers (fetches, the cleaner) using the segment's
	// files; retired is set once the segment left the log (replaced by a
	// clean or deleted by retention). Its files are closed when both hold:
	// a reader that took the segment from the list keeps reading it, as
	// Kafka's file.delete.delay.ms lets in-flight reads finish.
	// REQUIRES: the Log's mu held.
	refs    int
	retired bool
	// removed: removeFiles ran; the files are unlinked, and their last
	// close frees their pages (release closes them on a goroutine).
	removed bool

	created int64 // ms when created or loaded (segment.ms without timestamps)
	// rollJitterMs is subtracted from segment.ms for this segment's time
	// roll (segment.jitter.ms), drawn when it was created or loaded.
	rollJitterMs int64
	rollTs       int64 // MaxTimestamp of the first batch, -1 if none (Kafka's rollingBasedTimestamp)
	rollTsKnown  bool
}

// BaseOffset is the offset in the segment's name: no batch in it is below.
func (s *Segment) BaseOffset() record.Offset { return s.base }

// Size is the .log file's size in bytes.
func (s *Segment) Size() int64 { return s.size }

// NextOffset is one past the last offset of the last batch; BaseOffset when empty.
func (s *Segment) NextOffset() record.Offset { return s.nextOffset }

// MaxTimestamp is the largest batch MaxTimestamp appended or read (ms), -1 if none.
func (s *Segment) MaxTimestamp() int64 { return s.ix.maxTimestampSoFar }

// LogPath is the path of the .log file (with its temporary suffix, if any).
func (s *Segment) LogPath() string { return s.path(LogFileSuffix) }

// OffsetIndex returns the in-memory offset index entries.
func (s *Segment) OffsetIndex() []OffsetIndexEntry { return s.ix.offsets }

// TimeIndex returns the in-memory time index entries.
func (s *Segment) TimeIndex() []TimeIndexEntry { return s.ix.times }

// OffsetIndexBytes is the size of the trimmed offset index file in bytes.
func (s *Segment) OffsetIndexBytes() int64 { return int64(len(s.ix.offsets)) * offsetIndexEntrySize }

// TimeIndexBytes is the size of the trimmed time index file in bytes.
func (s *Segment) TimeIndexBytes() int64 { return int64(len(s.ix.times)) * timeIndexEntrySize }

// File returns the open .log file.
func (s *Segment) File() File { return s.f }

func (s *Segment) path(ext string) string {
	return filepath.Join(s.dir, segmentFileName(s.base, ext)+s.suffix)
}

// createSegment creates an empty segment (its .log truncated if present).
// Its indexes are in memory until written; a Log makes it the active
// segment with activate.
func createSegment(fsys FS, dir string, base record.Offset, suffix string, cfg *LogConfig) (*Segment, error) {
	s := &Segment{fs: fsys, dir: dir, suffix: suffix, base: base, nextOffset: base, ix: newIndexer(base, cfg.IndexIntervalBytes), indexDirty: true,
		rollTs: record.NoTimestamp, rollTsKnown: true}
	s.ix.setCapacity(cfg.SegmentIndexBytes)
	f, err := fsys.Create(s.path(LogFileSuffix))
	if err != nil {
		return nil, fmt.Errorf("engine: create segment: %w", err)
	}
	s.f = f
	return s, nil
}

// activate makes s the active segment: its .index and .timeindex files are
// (re)created preallocated to the capacity segment.index.bytes gives them,
// with the in-memory entries written at their head, as Kafka's LogSegment
// keeps the active segment's indexes (and LogLoader resizes them at load).
func (s *Segment) activate() error {
	if s.readOnly || s.oiFile != nil {
		return nil
	}
	oi, err := s.fs.Create(s.path(IndexFileSuffix))
	if err != nil {
		return fmt.Errorf("engine: create %s: %w", s.path(IndexFileSuffix), err)
	}
	ti, err := s.fs.Create(s.path(TimeIndexFileSuffix))
	if err != nil {
		oi.Close()
		return fmt.Errorf("engine: create %s: %w", s.path(TimeIndexFileSuffix), err)
	}
	s.oiFile, s.tiFile = oi, ti
	s.oiWritten, s.tiWritten = 0, 0
	fail := func(err error) error {
		s.closeIndexFiles()
		return err
	}
	if err := oi.Truncate(int64(s.ix.maxOffsets) * offsetIndexEntrySize); err != nil {
		return fail(fmt.Errorf("engine: preallocate %s: %w", oi.Name(), err))
	}
	if err := ti.Truncate(int64(s.ix.maxTimes) * timeIndexEntrySize); err != nil {
		return fail(fmt.Errorf("engine: preallocate %s: %w", ti.Name(), err))
	}
	if err := s.writeNewIndexEntries(); err != nil {
		return fail(err)
	}
	s.hadIndex = true
	s.indexDirty = false
	return nil
}

func (s *Segment) closeIndexFiles() {
	if s.oiFile != nil {
		s.oiFile.Close()
	}
	if s.tiFile != nil {
		s.tiFile.Close()
	}
	s.oiFile, s.tiFile = nil, nil
}

// writeNewIndexEntries writes the entries not yet in the preallocated files
// at their slots.
func (s *Segment) writeNewIndexEntries() error {
	if n := len(s.ix.offsets); n > s.oiWritten {
		sub := indexer{base: s.ix.base, offsets: s.ix.offsets[s.oiWritten:]}
		b, err := sub.encodeOffsetIndex(nil)
		if err != nil {
			return err
		}
		if _, err := s.oiFile.WriteAt(b, int64(s.oiWritten)*offsetIndexEntrySize); err != nil {
			return fmt.Errorf("engine: write %s: %w", s.oiFile.Name(), err)
		}
		s.oiWritten = n
	}
	if n := len(s.ix.times); n > s.tiWritten {
		sub := indexer{base: s.ix.base, times: s.ix.times[s.tiWritten:]}
		b, err := sub.encodeTimeIndex(nil)
		if err != nil {
			return err
		}
		if _, err := s.tiFile.WriteAt(b, int64(s.tiWritten)*timeIndexEntrySize); err != nil {
			return fmt.Errorf("engine: write %s: %w", s.tiFile.Name(), err)
		}
		s.tiWritten = n
	}
	return nil
}

// seal makes the active segment inactive, as Kafka's
// LogSegment.onBecomeInactiveSegment: the roll-time time-index entry (the
// largest timestamp so far, which may take the reserved last slot), then
// both index files written, trimmed to their entries and fsynced.
func (s *Segment) seal() error {
	if s.ix.onBecomeInactive() {
		s.indexDirty = true
	}
	if s.oiFile == nil {
		return s.writeIndexes()
	}
	defer s.closeIndexFiles()
	if err := s.writeNewIndexEntries(); err != nil {
		return err
	}
	for _, t := range []struct {
		f    File
		size int64
	}{{s.oiFile, int64(len(s.ix.offsets)) * offsetIndexEntrySize}, {s.tiFile, int64(len(s.ix.times)) * timeIndexEntrySize}} {
		if err := t.f.Truncate(t.size); err != nil {
			return fmt.Errorf("engine: trim %s: %w", t.f.Name(), err)
		}
		if err := t.f.Sync(); err != nil {
			return fmt.Errorf("engine: fsync %s: %w", t.f.Name(), err)
		}
	}
	s.indexDirty = false
	return nil
}

// firstBatchMaxTimestamp returns the MaxTimestamp of the segment's first v2
// batch (-1 when empty, legacy or unreadable), read once: Kafka's
// rollingBasedTimestamp, which segment.ms is measured from.
func (s *Segment) firstBatchMaxTimestamp() int64 {
	if s.rollTsKnown {
		return s.rollTs
	}
	s.rollTsKnown = true
	s.rollTs = record.NoTimestamp
	if s.size < record.BatchHeaderSize {
		return s.rollTs
	}
	var b [record.BatchHeaderSize]byte
	if n, _ := s.f.ReadAt(b[:], 0); n == len(b) {
		if h, err := record.ParseHeader(b[:]); err == nil {
			s.rollTs = h.MaxTimestamp
		}
	}
	return s.rollTs
}

// openSegment opens an existing segment. Its indexes are read from their
// files when present and consistent with the log, else rebuilt by reading the
// log (as Kafka's LogSegment.recover). The next offset is found by reading
// the log from the last offset-index entry.
func openSegment(fsys FS, dir string, base record.Offset, cfg *LogConfig, rd *iosched.Reader, readOnly, recover bool) (*Segment, error) {
	s := &Segment{fs: fsys, dir: dir, base: base, nextOffset: base, ix: newIndexer(base, cfg.IndexIntervalBytes), readOnly: readOnly, rollTs: record.NoTimestamp}
	s.ix.setCapacity(cfg.SegmentIndexBytes)
	var f File
	var err error
	if readOnly {
		f, err = fsys.Open(s.path(LogFileSuffix))
	} else {
		f, err = fsys.OpenAppend(s.path(LogFileSuffix))
	}
	if err != nil {
		return nil, fmt.Errorf("engine: open segment: %w", err)
	}
	s.f = f
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine: stat %s: %w", f.Name(), err)
	}
	s.size = st.Size()

	txnOK, err := s.loadTxnIndex()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("engine: read %s: %w", s.path(TxnIndexFileSuffix), err)
	}
	if !txnOK {
		s.txnCorrupt = true
	}
	if recover {
		// Kafka's LogSegment.recover: every batch re-read, its CRC checked,
		// the indexes rebuilt. A torn tail is returned (with s) for the
		// loader to truncate.
		if _, serr := fsys.Stat(s.path(IndexFileSuffix)); serr == nil {
			s.hadIndex = true
		}
		err = s.scan(false, rd)
	} else {
		loaded := s.loadIndexes()
		err = s.scan(loaded, rd)
		if err != nil && loaded {
			// The last index entry points at bytes that are not a batch: the index
			// is corrupt, so rebuild it from the whole log, as Kafka does.
			s.nextOffset = base
			err = s.scan(false, rd)
		}
	}
	if err != nil {
		var ce *record.CorruptionError
		if recover && errors.As(err, &ce) && ce.TornTail {
			return s, err
		}
		f.Close()
		return nil, err
	}
	return s, nil
}

// loadIndexes reads the index files; it reports whether both were usable.
func (s *Segment) loadIndexes() bool {
	oi, err := s.fs.Open(s.path(IndexFileSuffix))
	if err != nil {
		return false
	}
	s.hadIndex = true
	offs, err := readOffsetIndex(oi, s.base)
	oi.Close()
	if err != nil {
		return false
	}
	ti, err := s.fs.Open(s.path(TimeIndexFileSuffix))
	if err != nil {
		return false
	}
	times, err := readTimeIndex(ti, s.base)
	ti.Close()
	if err != nil {
		return false
	}
	// Kafka's sanity checks: positions within the log, offsets increasing.
	for i, e := range offs {
		if int64(e.Pos) >= s.size && !(s.size == 0 && e.Pos == 0) || (i > 0 && e.Offset <= offs[i-1].Offset) {
			return false
		}
	}
	s.ix.offsets = offs
	s.ix.times = times
	if n := len(times); n > 0 {
		s.ix.maxTimestampSoFar = times[n-1].Timestamp
		s.ix.offsetOfMaxTsSoFar = times[n-1].Offset
	}
	return true
}

// scan reads the log to find the next offset. With usable indexes it reads
// from the last offset-index entry; otherwise it reads everything, checks
// every CRC and rebuilds both indexes, as Kafka's LogSegment.recover.
func (s *Segment) scan(indexesUsable bool, rd *iosched.Reader) error {
	start := int64(0)
	if indexesUsable && len(s.ix.offsets) > 0 {
		start = int64(s.ix.offsets[len(s.ix.offsets)-1].Pos)
	}
	if !indexesUsable {
		maxOffsets, maxTimes := s.ix.maxOffsets, s.ix.maxTimes
		s.ix = newIndexer(s.base, s.ix.intervalBytes)
		s.ix.maxOffsets, s.ix.maxTimes = maxOffsets, maxTimes
		s.indexDirty = true
		s.abortMarkers = s.abortMarkers[:0]
	}
	it := newBatchIter(rd, s.f, start, s.size)
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
		if !indexesUsable {
			if err := verifyBatchCRC(batch); err != nil {
				// A last batch that fails its CRC is a torn write (its later
				// pages never reached the disk); one followed by more bytes
				// is corruption in the middle.
				torn := int64(pos)+int64(len(batch)) == s.size
				return &record.CorruptionError{Path: s.f.Name(), Pos: int64(pos), Reason: "batch CRC", TornTail: torn, Err: err}
			}
			s.ix.onBatch(&h, pos)
			if h.Attributes.Control() && h.Magic == record.MagicV2 {
				if t, err := controlType(batch); err == nil && t == record.ControlAbort {
					s.abortMarkers = append(s.abortMarkers, h.BaseOffset)
				}
			}
		} else if h.MaxTimestamp > s.ix.maxTimestampSoFar {
			s.ix.maxTimestampSoFar = h.MaxTimestamp
			s.ix.offsetOfMaxTsSoFar = h.LastOffset()
		}
		s.nextOffset = h.NextOffset()
	}
	return nil
}

// header parses the batch header at pos, or the legacy message fields that
// locate it, and checks that its offsets belong in this segment.
func (s *Segment) header(batch []byte, pos FilePos) (record.BatchHeader, error) {
	h, err := record.ParseHeader(batch)
	if errors.Is(err, record.ErrLegacyMagic) {
		// Legacy message sets: take the offset (of the last inner message for a
		// compressed wrapper, as Kafka's shallow iteration gives) for bookkeeping.
		h = record.BatchHeader{BaseOffset: record.Offset(beUint64(batch)), Magic: int8(batch[record.MagicPos]), MaxTimestamp: record.NoTimestamp}
		h.Length = int32(len(batch) - record.LogOverhead)
		err = nil
	}
	if err != nil {
		return h, &record.CorruptionError{Path: s.f.Name(), Pos: int64(pos), Reason: "batch header", Err: err}
	}
	if h.BaseOffset < s.base || h.LastOffset()-s.base > math.MaxInt32 {
		return h, &record.CorruptionError{Path: s.f.Name(), Pos: int64(pos), Reason: fmt.Sprintf("batch offsets [%d, %d] outside segment base %d + int32 range", h.BaseOffset, h.LastOffset(), s.base), Err: record.ErrBadLength}
	}
	return h, nil
}

func beUint64(b []byte) uint64 {
	_ = b[7]
	return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
		uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
}

// append writes whole batches (already validated by the caller) at the end
// of the segment and indexes them.
func (s *Segment) append(batches []byte, headers []record.BatchHeader) error {
	if s.readOnly {
		return fmt.Errorf("engine: %s opened read-only", s.f.Name())
	}
	if _, err := s.f.Write(batches); err != nil {
		return fmt.Errorf("engine: append to %s: %w", s.f.Name(), err)
	}
	pos := FilePos(s.size)
	if s.size == 0 && len(headers) > 0 {
		s.rollTs, s.rollTsKnown = headers[0].MaxTimestamp, true
	}
	for i := range headers {
		s.ix.onBatch(&headers[i], pos)
		pos += FilePos(headers[i].Size())
	}
	s.size += int64(len(batches))
	if n := len(headers); n > 0 {
		s.nextOffset = headers[n-1].NextOffset()
	}
	s.indexDirty = true
	return nil
}

// writeIndexes writes the .index and .timeindex files when they changed
// since they were read: for the active segment, the new entries into the
// preallocated files, fsynced; otherwise both files whole, trimmed to their
// entries.
func (s *Segment) writeIndexes() error {
	if s.readOnly || !s.indexDirty {
		return nil
	}
	if s.oiFile != nil {
		if err := s.writeNewIndexEntries(); err != nil {
			return err
		}
		if err := s.oiFile.Sync(); err != nil {
			return fmt.Errorf("engine: fsync %s: %w", s.oiFile.Name(), err)
		}
		if err := s.tiFile.Sync(); err != nil {
			return fmt.Errorf("engine: fsync %s: %w", s.tiFile.Name(), err)
		}
		s.indexDirty = false
		return nil
	}
	oi, err := s.ix.encodeOffsetIndex(nil)
	if err != nil {
		return err
	}
	ti, err := s.ix.encodeTimeIndex(nil)
	if err != nil {
		return err
	}
	if err := writeWhole(s.fs, s.path(IndexFileSuffix), oi); err != nil {
		return err
	}
	if err := writeWhole(s.fs, s.path(TimeIndexFileSuffix), ti); err != nil {
		return err
	}
	s.indexDirty = false
	return nil
}

// writeWhole writes data to path and fsyncs it (no rename: index files are
// derived data that recovery can rebuild).
func writeWhole(fsys FS, path string, data []byte) error {
	f, err := fsys.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// close writes the indexes (trimmed) and closes the segment's files.
func (s *Segment) close() error {
	var err error
	if s.oiFile != nil {
		err = s.seal()
	} else {
		err = s.writeIndexes()
	}
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// closeFiles closes the segment's open files without writing anything (a
// failed open, or a crash in tests).
func (s *Segment) closeFiles() {
	s.closeIndexFiles()
	s.f.Close()
}

// renameSuffix renames all the segment's files from the current suffix to
// newSuffix. Missing index files are skipped.
func (s *Segment) renameSuffix(newSuffix string) error {
	for _, ext := range []string{LogFileSuffix, IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
		from := s.path(ext)
		to := filepath.Join(s.dir, segmentFileName(s.base, ext)+newSuffix)
		if err := s.fs.Rename(from, to); err != nil {
			if ext != LogFileSuffix && isNotExist(err) {
				continue
			}
			return fmt.Errorf("engine: rename %s: %w", from, err)
		}
	}
	s.suffix = newSuffix
	return nil
}
