package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
)

// RecoveryReport says what Open found and did, as Kafka's LogLoader logs
// it. For a read-only open nothing is changed on disk (Applied is false):
// the report then says what a read-write open would do, and the Log reads
// the log as that open would leave it.
type RecoveryReport struct {
	// Applied is true when the changes below were made on disk.
	Applied bool
	// CleanShutdown: the log directory root held CleanShutdownFile, so no
	// segment was recovered.
	CleanShutdown bool
	// RecoveryPoint is the partition's entry of
	// recovery-point-offset-checkpoint (0 when it has none); segments from
	// the one holding it on were recovered. -1 after a clean shutdown.
	RecoveryPoint record.Offset
	// RecoveredSegments are the base offsets of the segments recovered:
	// every batch re-read, its CRC checked, the indexes rebuilt.
	RecoveredSegments []record.Offset
	// RebuiltIndexes are the index files rebuilt from the log (missing,
	// corrupt, or of a recovered segment).
	RebuiltIndexes []string
	// Truncations are the torn tails cut (at most one: the segments after
	// it are deleted).
	Truncations []Truncation
	// DeletedSegments are the .log files of the segments after a torn tail,
	// deleted with their indexes.
	DeletedSegments []string
	// RemovedOrphans are index files without a .log file, deleted.
	RemovedOrphans []string
	// EpochCheckpoint is the partition's leader-epoch-checkpoint when the
	// open rewrote it (or, read-only, would): entries past the log end
	// offset or below the log start offset truncated, or entries that did
	// not increase dropped, as Kafka's LogLoader; empty when unchanged.
	EpochCheckpoint string
}

// Truncation is a torn tail cut from a segment at open.
type Truncation struct {
	Path     string
	Pos      int64 // the file's new size: where the torn batch started
	BytesCut int64 // bytes removed
	// Err is the torn tail as a read found it (TornTail set).
	Err *record.CorruptionError
}

func (t Truncation) String() string {
	return fmt.Sprintf("%s: torn tail of %d bytes cut at byte %d (%s)", t.Path, t.BytesCut, t.Pos, t.Err.Reason)
}

// Changed reports whether the open changed (or, read-only, would change)
// anything on disk apart from the indexes it rebuilt.
func (r *RecoveryReport) Changed() bool {
	return len(r.Truncations) > 0 || len(r.DeletedSegments) > 0 || len(r.RemovedOrphans) > 0 || r.EpochCheckpoint != ""
}

// Open opens the partition directory dir (named topic-partition), as
// Kafka's LogLoader:
//  1. an interrupted swap is finished or undone (recoverSwap; read-write only);
//  2. index files without their .log are deleted (orphans);
//  3. the *.log files with a 20-digit base offset name are loaded in
//     order; a missing or corrupt .index/.timeindex is rebuilt from the log,
//     a corrupt .txnindex from the log's transaction markers;
//  4. unless the log directory root holds CleanShutdownFile, the segments
//     from the one holding the partition's recovery point
//     (recovery-point-offset-checkpoint; 0 when absent) on are recovered:
//     every CRC re-checked and the indexes rebuilt. A torn tail (an
//     incomplete or CRC-failing last batch, or a zero-filled tail) is cut
//     off and the segments after it deleted; the report says how many
//     bytes were cut. This truncation is the one change to existing data
//     Open makes. Corruption in the middle of a file is an error, and
//     nothing is changed;
//  5. the log start offset is the partition's entry of
//     log-start-offset-checkpoint or the first segment's base offset,
//     whichever is larger;
//  6. leader-epoch-checkpoint is read into the leader epoch cache, which is
//     truncated from the end (log end offset) and the start (log start
//     offset) as Kafka's LogLoader does, and rewritten when that changed it.
//
// Other files (snapshots, partition.metadata) are left alone. A directory
// without segments gets an empty active segment at the partition's
// log-start-offset-checkpoint entry (0 without one) with opts.Create, as
// Kafka's LogLoader; otherwise it is an error (ErrNotLogDir). The removal
// bounds start as NoRemovalBounds(), the MCCO at the cleaner checkpoint's
// entry (see MaxCleanlyCompactedOffset). A read-write open removes
// CleanShutdownFile; Close writes it back once the last Log of the
// root is closed. A read-only open changes nothing on disk: a torn tail is
// reported in Recovery() and left out of what the Log reads. Errors name the
// file and byte position of bad input.
func Open(dir string, opts Options) (_ *Log, err error) {
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
		if isNotExist(err) && opts.Create && !opts.ReadOnly {
			if err := fsys.MkdirAll(dir); err != nil {
				return nil, fmt.Errorf("engine: create %s: %w", dir, err)
			}
		} else {
			return nil, fmt.Errorf("engine: open log %s: %w", dir, err)
		}
	}
	l := &Log{fs: fsys, dir: dir, root: filepath.Dir(dir), tp: tp, cfg: cfg, readOnly: opts.ReadOnly, highWatermark: -1,
		reader: iosched.NewReader(256<<10, max(cfg.MaxMessageBytes, 256<<10)), now: opts.Now}
	if l.now == nil {
		l.now = time.Now
	}
	// One undo path: a failed open closes what it opened and lets go of
	// the root. Until applyRecovery begins, nothing of the partition has
	// been changed (swap recovery is complete or not at every step) and
	// the release is neutral; after, it leaves the root unclean, so no
	// clean-shutdown marker is written for it.
	changing := false
	if !opts.ReadOnly {
		r, err := acquireRoot(fsys, l.root, dir)
		if err != nil {
			return nil, err
		}
		l.rootHold = r
	}
	defer func() {
		if err == nil {
			return
		}
		l.closeSegments()
		l.segments = nil
		if l.rootHold != nil {
			how := releaseNeutral
			if changing {
				how = releaseUnclean
			}
			l.rootHold.release(fsys, dir, how)
			l.rootHold = nil
		}
	}()
	rep := &RecoveryReport{Applied: !opts.ReadOnly, RecoveryPoint: -1}
	l.recovery = rep
	if _, err := fsys.Stat(filepath.Join(l.root, CleanShutdownFile)); err == nil {
		rep.CleanShutdown = true
	}
	// Every checkpoint file the log reads or later rewrites is read before
	// anything changes: a bad one refuses the open with the root exactly
	// as it was (marker included), rather than after the marker is gone
	// or at the close, which would leave a root that does not open again.
	recoveryPoint, hasRecoveryPoint, err := checkpointEntry(fsys, filepath.Join(l.root, RecoveryPointCheckpointFile), tp)
	if err != nil {
		return nil, err
	}
	startOffset, hasStartOffset, err := checkpointEntry(fsys, filepath.Join(l.root, LogStartOffsetCheckpointFile), tp)
	if err != nil {
		return nil, err
	}
	epochEntries, err := readEpochCheckpoint(fsys, l.epochCheckpointPath())
	if err != nil {
		return nil, err
	}
	if !opts.ReadOnly {
		if err := recoverSwap(fsys, dir, &cfg, l.reader); err != nil {
			return nil, err
		}
		if err := removeStaleCheckpointTemps(fsys, l.root); err != nil {
			return nil, err
		}
		if err := removeStaleEpochTemp(fsys, dir); err != nil {
			return nil, err
		}
	}
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("engine: list %s: %w", dir, err)
	}
	var bases []record.Offset
	hasLog := map[record.Offset]bool{}
	for _, e := range entries {
		if base, ok := ParseSegmentFileName(e.Name(), LogFileSuffix); ok && !e.IsDir() {
			bases = append(bases, base)
			hasLog[base] = true
		}
	}
	for _, e := range entries {
		name := e.Name()
		for _, ext := range []string{IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
			if base, ok := ParseSegmentFileName(name, ext); ok && !hasLog[base] && !e.IsDir() {
				rep.RemovedOrphans = append(rep.RemovedOrphans, filepath.Join(dir, name))
			}
		}
	}
	sort.Slice(bases, func(i, j int) bool { return bases[i] < bases[j] })

	if !rep.CleanShutdown {
		rep.RecoveryPoint = 0
		if hasRecoveryPoint && recoveryPoint > 0 {
			rep.RecoveryPoint = recoveryPoint
		}
	}
	var torn *Truncation
	recovered := map[record.Offset]bool{}
	for i, base := range bases {
		recover := !rep.CleanShutdown && (i == len(bases)-1 || bases[i+1] > rep.RecoveryPoint)
		recovered[base] = recover
		s, err := openSegment(fsys, dir, base, &cfg, l.reader, opts.ReadOnly, recover)
		if err != nil && s == nil {
			return nil, err
		}
		if n := len(l.segments); n > 0 && l.segments[n-1].nextOffset > base {
			s.closeFiles()
			return nil, fmt.Errorf("engine: %s: segment %s overlaps the previous one, which ends at offset %d", dir, segmentFileName(base, LogFileSuffix), l.segments[n-1].nextOffset)
		}
		l.segments = append(l.segments, s)
		if recover {
			rep.RecoveredSegments = append(rep.RecoveredSegments, base)
		}
		if s.indexDirty {
			rep.RebuiltIndexes = append(rep.RebuiltIndexes, s.path(IndexFileSuffix), s.path(TimeIndexFileSuffix))
		}
		if err != nil {
			var ce *record.CorruptionError
			errors.As(err, &ce)
			// A bad tail with data after it in a later segment is corruption
			// in the middle of the log, not a torn write: Kafka's recovery
			// truncates there and deletes every later segment, which would
			// lose data still on disk, so that takes an explicit opt-in.
			if later := firstNonEmpty(fsys, dir, bases[i+1:]); later != "" && !opts.KafkaRecoveryTruncation {
				bad := *ce
				bad.TornTail = false
				bad.Reason += fmt.Sprintf("; %s holds data after it, so this is corruption in the middle of the log, not a torn tail "+
					"(Kafka's recovery would cut here and delete every later segment: opt in with KafkaRecoveryTruncation / --kafka-recovery-truncation)", filepath.Base(later))
				return nil, &bad
			}
			torn = &Truncation{Path: s.LogPath(), Pos: ce.Pos, BytesCut: s.size - ce.Pos, Err: ce}
			rep.Truncations = append(rep.Truncations, *torn)
			s.size = ce.Pos
			s.dropTxnsFrom(s.nextOffset)
			for _, later := range bases[i+1:] {
				rep.DeletedSegments = append(rep.DeletedSegments, filepath.Join(dir, segmentFileName(later, LogFileSuffix)))
			}
			break
		}
	}
	// A segment that is not the last whose indexes prove its .log lost
	// data: refused before anything is changed, unless asked to go on.
	// A segment recovered here (unclean shutdown, above the recovery point)
	// was never flushed: its .log and indexes reached the disk in any
	// order, so an index ahead of the .log is what a power failure leaves,
	// and its indexes are rebuilt from the .log, as Kafka's
	// LogLoader.recoverSegment does.
	if !opts.ReadOnly && !opts.AcceptTruncatedSegments {
		for i := 0; i+1 < len(l.segments); i++ {
			s := l.segments[i]
			if recovered[s.base] {
				continue
			}
			if why := truncationEvidence(fsys, s, l.segments[i+1].base); why != "" {
				return nil, fmt.Errorf("%w: %s: %s: the .log is shorter than its indexes prove it was "+
					"(verify lists every such entry; to open it as it is, the lost data gone, opt in with AcceptTruncatedSegments / --accept-truncated-segments)",
					ErrTruncatedSegment, s.LogPath(), why)
			}
		}
	}
	// Checked before anything is changed: a directory that is not a
	// partition gets no recovery, and the root's marker stays.
	if len(l.segments) == 0 && (opts.ReadOnly || !opts.Create) {
		return nil, fmt.Errorf("%w: %s holds no segment (*.log with a 20-digit base offset)", ErrNotLogDir, dir)
	}
	if !opts.ReadOnly {
		changing = true
		if err := l.applyRecovery(torn); err != nil {
			return nil, err
		}
	}
	if len(l.segments) == 0 {
		// Kafka's LogLoader starts an empty log at its log start offset
		// (a crash in TruncateFullyAndStartAt can leave no segment).
		base := record.Offset(0)
		if hasStartOffset && startOffset > 0 {
			base = startOffset
		}
		s, err := createSegment(fsys, dir, base, "", &cfg)
		if err != nil {
			return nil, err
		}
		l.segments = append(l.segments, s)
	}
	// A rebuilt or recovered segment's .txnindex must hold every ABORT marker
	// it has; a corrupt one is rebuilt whatever the shutdown.
	rebuilt, err := l.rebuildTxnIndexes(func(s *Segment) bool {
		return s.txnCorrupt || (recovered[s.base] && txnIndexLacksMarkers(s))
	})
	rep.RebuiltIndexes = append(rep.RebuiltIndexes, rebuilt...)
	if err != nil {
		return nil, err
	}

	l.logStartOffset = l.segments[0].base
	if hasStartOffset && startOffset > l.logStartOffset {
		l.logStartOffset = min(startOffset, l.segments[len(l.segments)-1].nextOffset)
	}
	l.bounds = NoRemovalBounds()
	if l.loadEpochCache(epochEntries) {
		rep.EpochCheckpoint = l.epochCheckpointPath()
		if !opts.ReadOnly {
			if err := l.writeEpochCache(); err != nil {
				return nil, err
			}
		}
	}
	if err := l.initMCCO(); err != nil {
		return nil, err
	}
	now := l.nowMs()
	for _, s := range l.segments {
		s.created = now
		s.rollJitterMs = l.randomSegmentJitter()
	}
	if !opts.ReadOnly {
		if err := l.segments[len(l.segments)-1].activate(); err != nil {
			return nil, err
		}
	}
	return l, nil
}

// applyRecovery makes the changes loading decided on: the clean-shutdown
// marker removed first (a crash from here on is an unclean shutdown), then
// the torn tail cut, the segments after it and the orphan indexes deleted.
// On error Open's undo leaves the root unclean.
func (l *Log) applyRecovery(torn *Truncation) error {
	rep := l.recovery
	if rep.CleanShutdown {
		if err := l.rootHold.removeCleanShutdown(l.fs); err != nil {
			return err
		}
	}
	if torn != nil {
		s := l.segments[len(l.segments)-1]
		if err := s.f.Truncate(torn.Pos); err != nil {
			return fmt.Errorf("engine: truncate %s to %d bytes: %w", torn.Path, torn.Pos, err)
		}
		if err := s.f.Sync(); err != nil {
			return fmt.Errorf("engine: fsync %s: %w", torn.Path, err)
		}
		if len(s.txns) > 0 || s.hadTxnIndex {
			if err := s.writeTxnIndex(); err != nil {
				return err
			}
		}
		for _, p := range rep.DeletedSegments {
			base := strings.TrimSuffix(filepath.Base(p), LogFileSuffix)
			for _, ext := range []string{LogFileSuffix, IndexFileSuffix, TimeIndexFileSuffix, TxnIndexFileSuffix} {
				if err := l.fs.Remove(filepath.Join(l.dir, base+ext)); err != nil && !isNotExist(err) {
					return fmt.Errorf("engine: remove %s: %w", base+ext, err)
				}
			}
		}
	}
	for _, p := range rep.RemovedOrphans {
		if err := l.fs.Remove(p); err != nil && !isNotExist(err) {
			return fmt.Errorf("engine: remove orphan index %s: %w", p, err)
		}
	}
	if torn != nil || len(rep.RemovedOrphans) > 0 {
		if err := l.fs.SyncDir(l.dir); err != nil {
			return fmt.Errorf("engine: fsync %s: %w", l.dir, err)
		}
	}
	return nil
}

// abandon closes every file and forgets the log, writing nothing (a failed
// open; a crash in tests).
func (l *Log) abandon() {
	defer l.waitClosing()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closeSegments()
	l.segments = nil
	l.pendingDeletes = nil
	l.closed = true
	if l.rootHold != nil {
		l.rootHold.release(l.fs, l.dir, releaseUnclean)
		l.rootHold = nil
	}
}

// dropTxnsFrom drops the aborted transactions whose marker is at or after
// off (a truncation), as Kafka's TransactionIndex.truncateTo.
func (s *Segment) dropTxnsFrom(off record.Offset) {
	n := 0
	for _, a := range s.txns {
		if a.LastOffset < off {
			s.txns[n] = a
			n++
		}
	}
	if n != len(s.txns) {
		s.txns = s.txns[:n]
	}
	kept := s.abortMarkers[:0]
	for _, m := range s.abortMarkers {
		if m < off {
			kept = append(kept, m)
		}
	}
	s.abortMarkers = kept
}

// Recovery returns what Open found and did.
func (l *Log) Recovery() *RecoveryReport { return l.recovery }

// removeStaleCheckpointTemps removes the .tmp files a crash in the middle
// of writing a checkpoint of root left (writeFileAtomic writes path.tmp,
// then renames it over path): they hold no state. Each is removed under
// its checkpoint's lock, so a write in progress in this process is never
// disturbed.
func removeStaleCheckpointTemps(fsys FS, root string) error {
	for _, name := range []string{CleanerCheckpointFile, RecoveryPointCheckpointFile, LogStartOffsetCheckpointFile} {
		path := filepath.Join(root, name)
		unlock := lockCheckpoint(path)
		_, err := fsys.Stat(path + ".tmp")
		if err == nil {
			err = fsys.Remove(path + ".tmp")
		}
		unlock()
		if err != nil && !isNotExist(err) {
			return fmt.Errorf("engine: remove stale %s.tmp: %w", path, err)
		}
	}
	return nil
}

// firstNonEmpty returns the path of the first of the segments at bases whose
// .log file holds bytes, or "" when all are empty or unreadable.
func firstNonEmpty(fsys FS, dir string, bases []record.Offset) string {
	for _, b := range bases {
		p := filepath.Join(dir, segmentFileName(b, LogFileSuffix))
		if st, err := fsys.Stat(p); err == nil && st.Size() > 0 {
			return p
		}
	}
	return ""
}
