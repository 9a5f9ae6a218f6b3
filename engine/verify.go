package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// VerifyOptions are the knobs of Verify.
type VerifyOptions struct {
	// FS is the file system seam. Default DefaultFS.
	FS FS
	// Config is the log config the partition is opened with (only
	// max.message.bytes and index.interval.bytes matter). Default
	// DefaultLogConfig().
	Config *LogConfig
	// Checkpoint, when > 0, is the offset below which no key may appear twice,
	// in place of the partition's entry in the cleaner checkpoint file.
	// Default 0: read the checkpoint file.
	Checkpoint record.Offset
	// CheckpointPath is the cleaner-offset-checkpoint file to read.
	// Default CheckpointPath(dir).
	CheckpointPath string
	// IgnoreCheckpoint skips the compaction check (no key twice below the
	// checkpoint) whatever the checkpoint says.
	IgnoreCheckpoint bool
	// KafkaRecoveryTruncation opens the log as Options.KafkaRecoveryTruncation
	// does: a bad segment tail with data after it is reported as a torn tail
	// that a read-write open would cut (with the segments after it deleted),
	// rather than as corruption in the middle.
	KafkaRecoveryTruncation bool
}

// Names of the checks a VerifyProblem can come from.
const (
	CheckOpen       = "open"       // the partition could not be opened
	CheckFraming    = "framing"    // a batch size field is bad or runs past the file
	CheckHeader     = "header"     // a batch header does not parse
	CheckCRC        = "crc"        // a stored CRC differs from the computed one
	CheckDecode     = "decode"     // the records of a batch do not decode
	CheckOffsets    = "offsets"    // offsets not strictly increasing, or outside the segment
	CheckIndex      = "index"      // a .index entry disagrees with the log
	CheckTimeIndex  = "timeindex"  // a .timeindex entry disagrees with the log
	CheckCompaction = "compaction" // a key appears twice below the cleaner checkpoint
	CheckCheckpoint = "checkpoint" // the checkpoint file cannot be read
	CheckTxnIndex   = "txnindex"   // a .txnindex entry disagrees with the log
	CheckRecovery   = "recovery"   // a segment a read-write open would delete (after a torn tail), or unreadable swap files
)

// VerifyProblem is one inconsistency Verify found.
type VerifyProblem struct {
	Check string // one of the Check* names
	Path  string // the file holding the bad bytes
	// Pos is the byte position in Path: of the batch for log problems, of the
	// entry for index problems; -1 when the problem concerns the whole file.
	Pos      int64
	Expected string // what a consistent log would hold there
	Found    string // what is there
	// Err is the underlying error (record.ErrCRCMismatch, ...), nil if none.
	Err error
}

func (p VerifyProblem) String() string {
	where := fmt.Sprintf("%s at byte %d", p.Path, p.Pos)
	if p.Pos < 0 { // the problem concerns the whole file
		where = p.Path
	}
	msg := fmt.Sprintf("%s: %s: expected %s, found %s", p.Check, where, p.Expected, p.Found)
	if p.Err == nil {
		return msg
	}
	// The cause, less what the problem already says: a corruption of this
	// file names its path (and byte, and reason) again.
	cause := p.Err.Error()
	var ce *record.CorruptionError
	if errors.As(p.Err, &ce) && ce.Path == p.Path {
		var parts []string
		if ce.TornTail {
			parts = append(parts, "torn tail")
		}
		if ce.Pos != p.Pos {
			parts = append(parts, fmt.Sprintf("at byte %d", ce.Pos))
		}
		if ce.Reason != "" && ce.Reason != p.Found {
			parts = append(parts, ce.Reason)
		}
		if ce.Err != nil {
			parts = append(parts, ce.Err.Error())
		}
		cause = strings.Join(parts, ": ")
	}
	if cause != "" && cause != p.Found {
		msg += " (" + cause + ")"
	}
	return msg
}

// VerifyNote is something worth knowing that is not an inconsistency, such as
// a missing index file (Open rebuilds it) or legacy message sets.
type VerifyNote struct {
	Path    string
	Message string
}

func (n VerifyNote) String() string { return n.Path + ": " + n.Message }

// VerifyReport is what Verify found in one partition directory.
type VerifyReport struct {
	Dir            string
	TopicPartition TopicPartition
	LogStartOffset record.Offset
	LogEndOffset   record.Offset
	// CheckpointOffset is the offset the compaction check used; -1 when none.
	CheckpointOffset record.Offset

	Segments       int   // .log files
	Bytes          int64 // bytes of the .log files
	Batches        int   // v2 batches, control and empty ones included
	ControlBatches int
	EmptyBatches   int // v2 batches holding no record
	LegacyBatches  int // magic 0/1 messages (shallow: a compressed wrapper counts once)
	Records        int // records of v2 batches, control records included
	Tombstones     int // data records with a null value
	KeylessRecords int // data records with a null key
	Keys           int // distinct keys of data records

	OffsetIndexEntries int // entries read from .index files
	TimeIndexEntries   int // entries read from .timeindex files
	TxnIndexEntries    int // entries read from .txnindex files

	Problems []VerifyProblem
	Notes    []VerifyNote
	// RecoveryPending lists, in order, what a read-write open would change
	// before the log is whole: leftover .cleaned, .swap and .deleted files
	// of an interrupted clean or swap (removed, or renamed into place), a
	// torn tail (cut) and the segments after it (deleted). Verify checks
	// the log as a read-only open reads it, which is not the log a
	// read-write open leaves while anything is pending.
	RecoveryPending []RecoveryAction
}

// OK reports whether no problem was found and no recovery is pending.
func (r *VerifyReport) OK() bool { return len(r.Problems) == 0 && len(r.RecoveryPending) == 0 }

// Err returns nil when OK. With problems it is a *record.CorruptionError
// naming the first problem's file and byte position and the number of
// problems; it wraps ErrVerifyFailed and the problem's own error. With
// recovery pending only, it wraps ErrRecoveryPending and names the first
// file concerned.
func (r *VerifyReport) Err() error {
	if len(r.Problems) == 0 {
		if n := len(r.RecoveryPending); n > 0 {
			return fmt.Errorf("%w: %s: %d change(s) a read-write open makes, the first: %s", ErrRecoveryPending, r.Dir, n, r.RecoveryPending[0])
		}
		return nil
	}
	p := r.Problems[0]
	reason := fmt.Sprintf("%s check: expected %s, found %s", p.Check, p.Expected, p.Found)
	if n := len(r.Problems); n > 1 {
		reason += fmt.Sprintf(" (and %d more problems)", n-1)
	}
	err := ErrVerifyFailed
	if p.Err != nil {
		err = fmt.Errorf("%w: %w", ErrVerifyFailed, p.Err)
	}
	return &record.CorruptionError{Path: p.Path, Pos: p.Pos, Reason: reason, Err: err}
}

func (r *VerifyReport) problem(check, path string, pos int64, err error, expected, foundFormat string, args ...any) {
	r.Problems = append(r.Problems, VerifyProblem{Check: check, Path: path, Pos: pos, Expected: expected, Found: fmt.Sprintf(foundFormat, args...), Err: err})
}

func (r *VerifyReport) note(path, format string, args ...any) {
	r.Notes = append(r.Notes, VerifyNote{Path: path, Message: fmt.Sprintf(format, args...)})
}

// Verify opens the partition directory dir read-only (nothing on disk
// changes) and checks it whole, collecting every problem rather than
// stopping at the first:
//   - every batch's CRC (CRC-32C for v2, CRC-32 IEEE for magic 0/1) and that
//     its records decode (v2: and their count is the header's; magic 0/1:
//     the inner messages of compressed wrappers, with their own CRCs);
//   - offsets strictly increasing across batches, records and segments, and
//     every batch inside its segment's [base offset, next segment's base);
//   - each .index file on disk: entries increasing, each pointing at a batch
//     start whose base offset is <= the entry's offset, the batch before it
//     ending below that offset;
//   - each .timeindex file on disk: timestamps increasing, offsets within
//     the segment, no timestamp above the segment's largest batch timestamp;
//   - each .txnindex against the segment's ABORT markers (checkTxnIndex);
//   - when the cleaner checkpoint (or opts.Checkpoint) has an entry, no key
//     appears twice among the data records from the log start offset up to
//     it (tombstones count; control records do not; records below the log
//     start offset are logically deleted and not checked);
//   - what a read-write open would change before the log is whole is
//     RecoveryPending, never OK: the leftover .cleaned, .swap and .deleted
//     files of an interrupted clean or swap (what swap recovery would
//     remove or rename, as planSwapRecovery plans it), a torn tail it
//     would cut and the segments after it it would delete (Open's
//     recovery, without the clean-shutdown marker, from the recovery point).
//
// Missing index files, legacy batches and orphan indexes are notes, not
// problems. The report is never nil. The error is nil when the report is
// OK; otherwise it is report.Err() (a *record.CorruptionError naming the
// file and byte position, or ErrRecoveryPending), or the error of Open when
// the partition cannot be opened at all (then the report holds it as its
// one problem when it names a file).
func Verify(dir string, opts VerifyOptions) (*VerifyReport, error) {
	rep := &VerifyReport{Dir: dir, CheckpointOffset: NoCheckpoint}
	fsys := opts.FS
	if fsys == nil {
		fsys = DefaultFS
	}
	l, err := Open(dir, Options{Config: opts.Config, FS: fsys, ReadOnly: true, KafkaRecoveryTruncation: opts.KafkaRecoveryTruncation})
	if err != nil {
		var ce *record.CorruptionError
		if errors.As(err, &ce) {
			rep.problem(CheckOpen, ce.Path, ce.Pos, err, "a partition that opens", "%s", ce.Reason)
		}
		return rep, err
	}
	defer l.Close()
	rep.TopicPartition = l.TopicPartition()
	rep.LogStartOffset = l.LogStartOffset()
	rep.LogEndOffset = l.LogEndOffset()
	rep.CheckpointOffset = verifyCheckpoint(rep, fsys, l, &opts)
	cfg := l.Config()
	if plan, err := planSwapRecovery(fsys, l.Dir(), &cfg, iosched.NewReader(iosched.DefaultReadBufferBytes, max(cfg.MaxMessageBytes, iosched.DefaultReadBufferBytes))); err != nil {
		rep.problem(CheckRecovery, l.Dir(), -1, err, "temporary files a read-write open can recover", "%v", err)
	} else if partitionOpenHere(l.Dir()) {
		// The partition is open read-write in this process: its temporary
		// files are a clean or a delayed delete of that Log in progress,
		// not leftovers of an interrupted one.
		for _, a := range plan.actions() {
			rep.note(a.Path, "temporary file of the log open read-write in this process (a clean or a delayed delete in progress)")
		}
	} else {
		rep.RecoveryPending = append(rep.RecoveryPending, plan.actions()...)
	}
	noteRecovery(rep, l.Recovery())

	v := verifier{
		rep:     rep,
		rd:      iosched.NewReader(iosched.DefaultReadBufferBytes, math.MaxInt32),
		keys:    map[string]record.Offset{},
		last:    -1,
		txnOpen: map[int64]record.Offset{},
	}
	segs := l.Segments()
	for i, s := range segs {
		next := record.Offset(math.MaxInt64)
		if i+1 < len(segs) {
			next = segs[i+1].base
		}
		v.segment(fsys, s, next)
	}
	rep.Keys = len(v.keys)
	return rep, rep.Err()
}

// verifyCheckpoint returns the offset below which keys must be unique, or
// NoCheckpoint when the compaction check does not apply.
func verifyCheckpoint(rep *VerifyReport, fsys FS, l *Log, opts *VerifyOptions) record.Offset {
	if opts.IgnoreCheckpoint {
		return NoCheckpoint
	}
	if opts.Checkpoint > 0 {
		return opts.Checkpoint
	}
	path := opts.CheckpointPath
	if path == "" {
		path = CheckpointPath(l.Dir())
	}
	entries, err := ReadCheckpoint(fsys, path)
	if err != nil {
		rep.problem(CheckCheckpoint, path, -1, err, "a checkpoint file in Kafka's text format", "%v", err)
		return NoCheckpoint
	}
	off, ok := entries[l.TopicPartition()]
	if !ok {
		return NoCheckpoint
	}
	if leo := l.LogEndOffset(); off > leo {
		// Kafka's cleaner does not trust it (LogCleanerManager.cleanableOffsets
		// restarts from the log start offset), so the compaction check,
		// which would flag every key written twice below it, does not
		// either: one problem names the entry.
		// A note, not a problem: a crash in the middle of a truncation can
		// leave it (the log cut before the entry was lowered), and Kafka
		// resets it with a warning.
		rep.note(path, "cleaner checkpoint entry %d of %s is past the log end offset %d (the log lost its head, a truncation was interrupted, or the entry is wrong): "+
			"Kafka's cleaner resets it to the log start offset %d with a warning, so the compaction check (no key twice below the checkpoint) is skipped",
			off, l.TopicPartition(), leo, l.LogStartOffset())
		return NoCheckpoint
	}
	return off
}

// noteRecovery turns what a read-write open would change into problems and
// pending recovery (a torn tail to cut, segments after it to delete: both,
// as the bytes on disk are damaged and the open would change them) and
// notes (orphan indexes, the recovery itself).
func noteRecovery(rep *VerifyReport, r *RecoveryReport) {
	if r == nil {
		return
	}
	if !r.CleanShutdown && len(r.RecoveredSegments) > 0 {
		rep.Notes = append(rep.Notes, VerifyNote{Path: rep.Dir, Message: fmt.Sprintf("no clean-shutdown marker (%s): segments from the recovery point %d on re-checked, as Open recovers them", CleanShutdownFile, r.RecoveryPoint)})
	}
	for _, t := range r.Truncations {
		rep.problem(CheckFraming, t.Path, t.Pos, t.Err, "a whole batch (torn tail)", "%s: a read-write open cuts the last %d bytes", t.Err.Reason, t.BytesCut)
		rep.RecoveryPending = append(rep.RecoveryPending, RecoveryAction{Path: t.Path,
			Action: fmt.Sprintf("torn tail at byte %d (%s): a read-write open cuts the last %d bytes", t.Pos, t.Err.Reason, t.BytesCut)})
	}
	for _, p := range r.DeletedSegments {
		rep.problem(CheckRecovery, p, -1, nil, "no segment after a torn tail", "a segment a read-write open deletes")
		rep.RecoveryPending = append(rep.RecoveryPending, RecoveryAction{Path: p, Action: "deleted by a read-write open: a segment after a torn tail"})
	}
	for _, p := range r.RemovedOrphans {
		rep.note(p, "orphan index (no .log of its base offset): a read-write open deletes it")
	}
	if r.EpochCheckpoint != "" {
		rep.note(r.EpochCheckpoint, "leader epochs past the log end or below its start: a read-write open truncates them and rewrites the file")
	}
}

// verifier carries the state of one Verify across segments.
type verifier struct {
	rep    *VerifyReport
	rd     *iosched.Reader
	dec    record.Decoder
	keys   map[string]record.Offset // key -> first offset below the checkpoint, or -1 if only seen at or above it
	legacy []record.LegacyMessage   // scratch for decoded magic 0/1 messages
	last   record.Offset            // last offset of the previous batch (or record) in the log, -1 at the start
	// txnOpen maps each producer with an open transaction to the offset of
	// its first batch; aborts are the ABORT markers of the current segment.
	txnOpen map[int64]record.Offset
	aborts  []abortSeen
}

// batchSpan is what the index checks need of one batch.
type batchSpan struct {
	pos        FilePos
	base, last record.Offset
}

// segment checks one segment: its batches, then its index files.
func (v *verifier) segment(fsys FS, s *Segment, nextBase record.Offset) {
	rep := v.rep
	logPath := s.LogPath()
	rep.Segments++
	rep.Bytes += s.Size()

	offIdxPath, timeIdxPath := s.path(IndexFileSuffix), s.path(TimeIndexFileSuffix)
	offIdx, offIdxOK := v.readOffsetIndex(fsys, offIdxPath, s.base)
	rep.OffsetIndexEntries += len(offIdx)
	j := 0 // next offset-index entry to match against a batch start

	var (
		prev        *batchSpan // previous batch of this segment
		maxTs       = record.NoTimestamp
		legacy      int
		segLast     = record.Offset(-1)
		stoppedAt   = int64(-1) // position where the walk stopped early, -1 if it did not
		spanScratch batchSpan
	)
	v.aborts = v.aborts[:0]
	it := newBatchIter(v.rd, s.f, 0, s.size)
	defer v.rd.Restore()
	for {
		batch, pos, err := it.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			var ce *record.CorruptionError
			if errors.As(err, &ce) {
				kind := "a whole batch"
				if ce.TornTail {
					kind = "a whole batch (torn tail)"
				}
				rep.problem(CheckFraming, logPath, ce.Pos, err, kind, "%s", ce.Reason)
				stoppedAt = ce.Pos
			} else {
				rep.problem(CheckFraming, logPath, int64(pos), err, "readable bytes", "%v", err)
				stoppedAt = int64(pos)
			}
			break
		}
		// Offset-index entries whose position falls inside the previous batch.
		for ; offIdxOK && j < len(offIdx) && offIdx[j].Pos < pos; j++ {
			rep.problem(CheckIndex, offIdxPath, int64(j)*offsetIndexEntrySize, nil,
				"an entry pointing at a batch start", "offset %d at position %d, inside the batch before position %d", offIdx[j].Offset, offIdx[j].Pos, pos)
		}

		span, ok := v.batch(logPath, s, batch, pos, nextBase, &maxTs, &legacy)
		if !ok {
			stoppedAt = int64(pos)
			break
		}
		for ; offIdxOK && j < len(offIdx) && offIdx[j].Pos == pos; j++ {
			e := offIdx[j]
			if span.base > e.Offset {
				rep.problem(CheckIndex, offIdxPath, int64(j)*offsetIndexEntrySize, nil,
					fmt.Sprintf("the batch at position %d to start at or below offset %d", pos, e.Offset), "it starts at offset %d", span.base)
			}
			if prev != nil && prev.last >= e.Offset {
				rep.problem(CheckIndex, offIdxPath, int64(j)*offsetIndexEntrySize, nil,
					fmt.Sprintf("the batch before position %d to end below offset %d", pos, e.Offset), "it ends at offset %d", prev.last)
			}
		}
		spanScratch = span
		prev = &spanScratch
		segLast = span.last
	}
	if legacy > 0 {
		rep.note(logPath, "%d magic 0/1 message(s) (compressed wrappers decoded): the cleaner stops at the first one (%v)", legacy, ErrLegacyFormat)
	}
	if stoppedAt >= 0 {
		rep.note(logPath, "walk stopped at byte %d: later batches and index entries of this segment are not checked", stoppedAt)
		return
	}
	for ; offIdxOK && j < len(offIdx); j++ {
		rep.problem(CheckIndex, offIdxPath, int64(j)*offsetIndexEntrySize, nil,
			fmt.Sprintf("an entry pointing at a batch start below the log size %d", s.size), "offset %d at position %d", offIdx[j].Offset, offIdx[j].Pos)
	}
	if offIdxOK {
		for i, e := range offIdx {
			if e.Offset > segLast {
				rep.problem(CheckIndex, offIdxPath, int64(i)*offsetIndexEntrySize, nil,
					fmt.Sprintf("an offset at most the segment's last offset %d", segLast), "offset %d", e.Offset)
			}
		}
	}
	v.checkTimeIndex(fsys, timeIdxPath, s, segLast, maxTs)
	v.checkTxnIndex(fsys, s, nextBase)
}

// batch checks one batch or legacy message at pos and returns its span;
// ok is false when the walk of the segment cannot go on (its framing is lost).
func (v *verifier) batch(logPath string, s *Segment, batch []byte, pos FilePos, nextBase record.Offset, maxTs *int64, legacy *int) (span batchSpan, ok bool) {
	rep := v.rep
	span.pos = pos
	magic := int8(batch[record.MagicPos])
	if magic == 0 || magic == 1 {
		*legacy++
		rep.LegacyBatches++
		span.base = record.Offset(binary.BigEndian.Uint64(batch))
		span.last = span.base
		if err := record.VerifyLegacyCRC(batch); err != nil {
			rep.problem(CheckCRC, logPath, int64(pos), err, "a CRC-32 matching the message", "%v", err)
			v.checkOffsets(logPath, s, pos, span, nextBase)
			return span, true
		}
		// Deep: a compressed wrapper's inner messages, with absolute offsets.
		recs, err := v.dec.LegacyRecords(batch, v.legacy[:0])
		v.legacy = recs[:0]
		if err != nil {
			rep.problem(CheckDecode, logPath, int64(pos), err, "decodable magic 0/1 messages", "%v", err)
			v.checkOffsets(logPath, s, pos, span, nextBase)
			return span, true
		}
		span.base = recs[0].Offset
		v.checkOffsets(logPath, s, pos, span, nextBase)
		for i := range recs {
			r := &recs[i]
			rep.Records++
			if r.Value == nil {
				rep.Tombstones++
			}
			if r.Key == nil {
				rep.KeylessRecords++
				continue
			}
			v.key(logPath, pos, r.Key, r.Offset)
		}
		*maxTs = max(*maxTs, recs[len(recs)-1].Timestamp)
		return span, true
	}
	h, err := record.ParseHeader(batch)
	if err != nil {
		rep.problem(CheckHeader, logPath, int64(pos), err, "a v2 batch header", "%v", err)
		return span, false
	}
	rep.Batches++
	span.base, span.last = h.BaseOffset, h.LastOffset()
	v.checkOffsets(logPath, s, pos, span, nextBase)
	*maxTs = max(*maxTs, h.MaxTimestamp)
	if h.Attributes.Control() {
		rep.ControlBatches++
	}
	if h.RecordCount == 0 {
		rep.EmptyBatches++
	}
	if err := record.VerifyCRC(batch); err != nil {
		rep.problem(CheckCRC, logPath, int64(pos), err, "a CRC-32C matching the batch", "%v", err)
		return span, true // the size field is outside the CRC: the framing may still hold
	}
	_, recs, err := v.dec.Records(batch)
	if err != nil {
		rep.problem(CheckDecode, logPath, int64(pos), err, fmt.Sprintf("%d decodable records", h.RecordCount), "%v", err)
		return span, true
	}
	var (
		r       record.Record
		n       int32
		prevOff = record.Offset(-1)
	)
	for {
		more, err := recs.Next(&r)
		if err != nil {
			rep.problem(CheckDecode, logPath, int64(pos), err, fmt.Sprintf("%d decodable records", h.RecordCount), "%v", err)
			return span, true
		}
		if !more {
			break
		}
		n++
		off := r.Offset(&h)
		if off < h.BaseOffset || off > h.LastOffset() || off <= prevOff {
			rep.problem(CheckOffsets, logPath, int64(pos), nil,
				fmt.Sprintf("record offsets increasing within [%d, %d]", h.BaseOffset, h.LastOffset()), "record %d at offset %d after offset %d", n-1, off, prevOff)
		}
		prevOff = off
		rep.Records++
		if h.Attributes.Control() {
			typ, err := record.ParseControlKey(r.Key)
			if err != nil {
				rep.problem(CheckDecode, logPath, int64(pos), err, "a 4-byte control record key", "%v", err)
			} else if h.Attributes.Transactional() && typ.IsTxnMarker() {
				v.txnMarker(&h, typ)
			}
			continue
		}
		if r.Value == nil {
			rep.Tombstones++
		}
		if r.Key == nil {
			rep.KeylessRecords++
			continue
		}
		v.key(logPath, pos, r.Key, off)
	}
	if n != h.RecordCount {
		rep.problem(CheckDecode, logPath, int64(pos), nil, fmt.Sprintf("%d records (the header's count)", h.RecordCount), "%d", n)
	}
	if h.Attributes.Transactional() && !h.Attributes.Control() && h.HasProducerID() {
		if _, open := v.txnOpen[h.ProducerID]; !open {
			v.txnOpen[h.ProducerID] = h.BaseOffset
		}
	}
	return span, true
}

// abortSeen is an ABORT marker Verify met in the current segment.
type abortSeen struct {
	offset    record.Offset
	pid       int64
	firstData record.Offset // first data batch of the transaction seen in the log, -1 if none
}

// txnMarker ends the producer's open transaction at a COMMIT or ABORT marker.
func (v *verifier) txnMarker(h *record.BatchHeader, typ record.ControlType) {
	first, open := v.txnOpen[h.ProducerID]
	if !open {
		first = -1
	}
	delete(v.txnOpen, h.ProducerID)
	if typ == record.ControlAbort {
		v.aborts = append(v.aborts, abortSeen{offset: h.BaseOffset, pid: h.ProducerID, firstData: first})
	}
}

// checkTxnIndex checks a segment's .txnindex (a missing file holds no
// entry) against the ABORT markers of the segment:
//   - every entry is well formed (version 0, last offsets strictly
//     increasing and in the segment, first offset <= last offset, last
//     stable offset <= last offset + 1);
//   - every entry's last offset is an ABORT marker of its producer in the
//     segment, and its first offset is at or below the first data batch of
//     that transaction found in the log;
//   - every ABORT marker whose transaction has a data batch in the log has
//     an entry. (A marker without data needs none: Kafka's cleaner writes
//     entries only for transactions it saw batches of.)
func (v *verifier) checkTxnIndex(fsys FS, s *Segment, nextBase record.Offset) {
	path := s.path(TxnIndexFileSuffix)
	rep := v.rep
	var data []byte
	f, err := fsys.Open(path)
	switch {
	case isNotExist(err):
	case err != nil:
		rep.problem(CheckTxnIndex, path, -1, err, "a readable .txnindex", "%v", err)
		return
	default:
		data, err = readAll(f)
		f.Close()
		if err != nil {
			rep.problem(CheckTxnIndex, path, -1, err, "a readable .txnindex", "%v", err)
			return
		}
	}
	if len(data)%txnIndexEntrySize != 0 {
		rep.problem(CheckTxnIndex, path, int64(len(data)-len(data)%txnIndexEntrySize), ErrCorruptIndex,
			fmt.Sprintf("a size that is a multiple of %d bytes", txnIndexEntrySize), "%d bytes", len(data))
		return
	}
	markers := map[record.Offset]abortSeen{}
	for _, a := range v.aborts {
		markers[a.offset] = a
	}
	indexed := map[record.Offset]bool{}
	last := record.Offset(-1)
	for i := 0; i < len(data); i += txnIndexEntrySize {
		e, err := decodeTxnIndex(data[i:i+txnIndexEntrySize], s.base)
		if err != nil {
			rep.problem(CheckTxnIndex, path, int64(i), err, "a well-formed entry", "%v", err)
			continue
		}
		a := e[0]
		rep.TxnIndexEntries++
		if a.LastOffset <= last {
			rep.problem(CheckTxnIndex, path, int64(i), ErrCorruptIndex, fmt.Sprintf("a last offset above %d (entries increasing)", last), "%d", a.LastOffset)
		}
		last = max(last, a.LastOffset)
		if a.LastOffset >= nextBase {
			rep.problem(CheckTxnIndex, path, int64(i), nil, fmt.Sprintf("a last offset below the next segment's base %d", nextBase), "%d", a.LastOffset)
		}
		if a.LastStableOffset > a.LastOffset+1 {
			rep.problem(CheckTxnIndex, path, int64(i), nil, fmt.Sprintf("a last stable offset at most last offset + 1 = %d", a.LastOffset+1), "%d", a.LastStableOffset)
		}
		m, ok := markers[a.LastOffset]
		switch {
		case !ok:
			rep.problem(CheckTxnIndex, path, int64(i), nil, fmt.Sprintf("an ABORT marker of producer %d at offset %d in %s", a.ProducerID, a.LastOffset, s.LogPath()), "none (%s)", a)
		case m.pid != a.ProducerID:
			rep.problem(CheckTxnIndex, path, int64(i), nil, fmt.Sprintf("producer %d, whose ABORT marker is at offset %d", m.pid, a.LastOffset), "producer %d", a.ProducerID)
		case m.firstData >= 0 && a.FirstOffset > m.firstData:
			rep.problem(CheckTxnIndex, path, int64(i), nil, fmt.Sprintf("a first offset at most %d, the transaction's first batch", m.firstData), "%d", a.FirstOffset)
		}
		indexed[a.LastOffset] = true
	}
	for _, m := range v.aborts {
		if m.firstData >= 0 && !indexed[m.offset] {
			rep.problem(CheckTxnIndex, path, -1, nil, fmt.Sprintf("an entry for producer %d's transaction aborted at offset %d (first batch at %d)", m.pid, m.offset, m.firstData), "none")
		}
	}
}

// checkOffsets checks that the batch follows the previous one and lies in
// its segment, and advances the log's last offset.
func (v *verifier) checkOffsets(logPath string, s *Segment, pos FilePos, span batchSpan, nextBase record.Offset) {
	rep := v.rep
	if span.base <= v.last {
		rep.problem(CheckOffsets, logPath, int64(pos), nil, fmt.Sprintf("a base offset above %d, the last offset before it", v.last), "base offset %d", span.base)
	}
	if span.base < s.base || span.last >= nextBase {
		want := fmt.Sprintf("offsets within [%d, %d)", s.base, nextBase)
		if nextBase == math.MaxInt64 {
			want = fmt.Sprintf("offsets from %d on", s.base)
		}
		rep.problem(CheckOffsets, logPath, int64(pos), nil, want, "offsets [%d, %d]", span.base, span.last)
	}
	if span.last-s.base > math.MaxInt32 {
		rep.problem(CheckOffsets, logPath, int64(pos), nil, fmt.Sprintf("a last offset within 2^31-1 of the base offset %d", s.base), "last offset %d", span.last)
	}
	v.last = max(v.last, span.last)
}

// key applies the compaction check to one keyed data record and counts it.
// A record below the log start offset is logically deleted: it is counted
// but takes no part in the check (Kafka's cleaner recopies such records
// when their key is not in the offset map, so one key can stay twice down
// there).
func (v *verifier) key(logPath string, pos FilePos, key []byte, off record.Offset) {
	ckpt := v.rep.CheckpointOffset
	first, seen := v.keys[string(key)]
	if off < v.rep.LogStartOffset {
		if !seen {
			v.keys[string(key)] = -1
		}
		return
	}
	if ckpt > 0 && off < ckpt {
		if seen && first >= 0 {
			v.rep.problem(CheckCompaction, logPath, int64(pos), nil,
				fmt.Sprintf("key %s once below the cleaner checkpoint %d", quoteKey(key), ckpt), "it again at offset %d (first at offset %d)", off, first)
			return
		}
		v.keys[string(key)] = off
		return
	}
	if !seen {
		v.keys[string(key)] = -1
	}
}

func quoteKey(k []byte) string {
	const maxShown = 64
	if len(k) > maxShown {
		return fmt.Sprintf("%q...", k[:maxShown])
	}
	return fmt.Sprintf("%q", k)
}

// readOffsetIndex reads a .index file as it is on disk. ok is false when it
// is missing (a note) or unreadable (a problem).
func (v *verifier) readOffsetIndex(fsys FS, path string, base record.Offset) (entries []OffsetIndexEntry, ok bool) {
	data, ok := v.readIndexFile(fsys, path, CheckIndex, offsetIndexEntrySize)
	if !ok {
		return nil, false
	}
	zeroTail := zeroEntries(data, offsetIndexEntrySize)
	for i := 0; i < len(data)-zeroTail*offsetIndexEntrySize; i += offsetIndexEntrySize {
		rel, pos := offsetIndexEntryAt(data, i)
		if rel > math.MaxInt32 || pos > math.MaxInt32 {
			v.rep.problem(CheckIndex, path, int64(i), nil, "a relative offset and a position in [0, 2^31-1]", "relative offset %d, position %d", rel, pos)
			continue
		}
		e := OffsetIndexEntry{Offset: base + record.Offset(rel), Pos: FilePos(pos)}
		if n := len(entries); n > 0 && (e.Offset <= entries[n-1].Offset || e.Pos <= entries[n-1].Pos) {
			v.rep.problem(CheckIndex, path, int64(i), nil,
				fmt.Sprintf("an offset above %d and a position above %d (entries increasing)", entries[n-1].Offset, entries[n-1].Pos), "offset %d, position %d", e.Offset, e.Pos)
			continue
		}
		entries = append(entries, e)
	}
	if zeroTail > 0 {
		v.rep.note(path, "%d zero-filled entries at the end (a preallocated, untrimmed index)", zeroTail)
	}
	return entries, true
}

// checkTimeIndex checks a .timeindex file against its segment's last offset
// and largest batch timestamp.
func (v *verifier) checkTimeIndex(fsys FS, path string, s *Segment, segLast record.Offset, maxTs int64) {
	data, ok := v.readIndexFile(fsys, path, CheckTimeIndex, timeIndexEntrySize)
	if !ok {
		return
	}
	rep := v.rep
	lastTs, lastOff := int64(math.MinInt64), record.Offset(-1)
	zeroTail := zeroEntries(data, timeIndexEntrySize)
	for i := 0; i < len(data)-zeroTail*timeIndexEntrySize; i += timeIndexEntrySize {
		ts, rel := timeIndexEntryAt(data, i)
		rep.TimeIndexEntries++
		off := s.base + record.Offset(rel)
		switch {
		case rel > math.MaxInt32:
			rep.problem(CheckTimeIndex, path, int64(i), nil, "a relative offset in [0, 2^31-1]", "%d", rel)
		case segLast < s.base:
			rep.problem(CheckTimeIndex, path, int64(i), nil, "no entry in the index of an empty segment", "timestamp %d at offset %d", ts, off)
		case off > segLast:
			rep.problem(CheckTimeIndex, path, int64(i), nil, fmt.Sprintf("an offset within the segment [%d, %d]", s.base, segLast), "offset %d", off)
		}
		if ts <= lastTs {
			rep.problem(CheckTimeIndex, path, int64(i), nil, fmt.Sprintf("a timestamp above %d (entries increasing)", lastTs), "timestamp %d", ts)
		}
		if off < lastOff {
			rep.problem(CheckTimeIndex, path, int64(i), nil, fmt.Sprintf("an offset at or above %d (entries increasing)", lastOff), "offset %d", off)
		}
		if ts > maxTs {
			rep.problem(CheckTimeIndex, path, int64(i), nil, fmt.Sprintf("a timestamp at most %d, the segment's largest batch timestamp", maxTs), "timestamp %d", ts)
		}
		lastTs, lastOff = ts, off
	}
	if zeroTail > 0 {
		rep.note(path, "%d zero-filled entries at the end (a preallocated, untrimmed index)", zeroTail)
	}
}

// readIndexFile reads a whole index file; a missing file is a note, an
// unreadable one or one of a size that is not a whole number of entries a
// problem.
func (v *verifier) readIndexFile(fsys FS, path, check string, entrySize int) ([]byte, bool) {
	f, err := fsys.Open(path)
	if isNotExist(err) {
		v.rep.note(path, "missing: Open rebuilds it from the log")
		return nil, false
	}
	if err != nil {
		v.rep.problem(check, path, -1, err, "a readable index file", "%v", err)
		return nil, false
	}
	data, err := readAll(f)
	f.Close()
	if err != nil {
		v.rep.problem(check, path, -1, err, "a readable index file", "%v", err)
		return nil, false
	}
	if len(data)%entrySize != 0 {
		v.rep.problem(check, path, int64(len(data)-len(data)%entrySize), ErrCorruptIndex,
			fmt.Sprintf("a size that is a multiple of %d bytes", entrySize), "%d bytes", len(data))
		return nil, false
	}
	return data, true
}

// verifyBatchCRC checks the CRC of one v2 batch or legacy message.
func verifyBatchCRC(batch []byte) error {
	if len(batch) > record.MagicPos && (batch[record.MagicPos] == 0 || batch[record.MagicPos] == 1) {
		return record.VerifyLegacyCRC(batch)
	}
	return record.VerifyCRC(batch)
}
