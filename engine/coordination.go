package engine

import (
	"fmt"
	"math"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// NoBound is the RemovalBounds value that bounds nothing: every offset is
// below it (Kafka's independent cleaning).
const NoBound record.Offset = math.MaxInt64

// RemovalBounds bound what a clean may remove, for cleaning coordinated
// across replicas (Redpanda's MTRO and MXRO, docs/replication-model.md §7).
// The delete horizons still apply on top of them. The zero value is not
// meaningful; use NoRemovalBounds() for Kafka's behaviour.
type RemovalBounds struct {
	// Tombstones: a tombstone (a keyed record with a null value) at an
	// offset >= Tombstones is kept even when its batch's delete horizon has
	// passed (Redpanda's max tombstone remove offset, MTRO). Values that a
	// later record of the same key shadows are still removed. NoBound: none.
	Tombstones record.Offset
	// TxnMarkers: a control batch (COMMIT/ABORT marker, or a control batch an
	// earlier clean emptied) whose last offset is >= TxnMarkers is never
	// removed and keeps its record even when its transaction's data is gone
	// and its delete horizon has passed (Redpanda's max transaction remove
	// offset, MXRO); an emptied one is kept as its 61-byte header. The data
	// of aborted transactions is still removed (a replica lacking it while
	// holding the marker reads the same, see coordination.go). NoBound: none.
	TxnMarkers record.Offset
}

// NoRemovalBounds is the default: nothing bounded, output byte-identical to
// Kafka's cleaner.
func NoRemovalBounds() RemovalBounds {
	return RemovalBounds{Tombstones: NoBound, TxnMarkers: NoBound}
}

// IsNone reports whether b bounds nothing.
func (b RemovalBounds) IsNone() bool { return b.Tombstones == NoBound && b.TxnMarkers == NoBound }

func (b RemovalBounds) String() string {
	f := func(o record.Offset) string {
		if o == NoBound {
			return "none"
		}
		return fmt.Sprint(int64(o))
	}
	return fmt.Sprintf("tombstones<%s markers<%s", f(b.Tombstones), f(b.TxnMarkers))
}

// SetRemovalBounds sets the bounds every later clean of this log applies
// (unless CleanOptions.Bounds overrides them), as a Redpanda replica applies
// the MTRO and MXRO its leader broadcast. They live in memory only: an
// Open starts with NoRemovalBounds(), so a coordinated replica must set
// them again after every open before its cleaner runs. Negative offsets
// are an error.
func (l *Log) SetRemovalBounds(b RemovalBounds) error {
	if b.Tombstones < 0 || b.TxnMarkers < 0 {
		return fmt.Errorf("engine: removal bounds of %s: %v, want offsets >= 0", l.tp, b)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bounds = b
	return nil
}

// RemovalBounds returns the bounds set by SetRemovalBounds.
func (l *Log) RemovalBounds() RemovalBounds {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.bounds
}

// MaxCleanlyCompactedOffset is the replica's MCCO (Redpanda's max cleanly
// compacted offset): in [log start offset, MCCO) the log holds at most one
// record (value or tombstone) per key — up to offset-map hash collisions,
// which Kafka's cleaner also treats as equal keys. What makes it true:
//   - at Open it is the cleaner checkpoint's entry for the partition (the
//     first dirty offset), clamped to [log start offset, log end offset);
//     no entry: the log start offset. Every clean that starts at the
//     checkpoint or the log start offset deduplicates [0, its end offset)
//     given [0, first dirty) was, so the checkpoint is such a bound as long
//     as no clean was run from an overridden first dirty offset above it;
//   - a clean whose first dirty offset is <= the MCCO raises it to the
//     clean's end offset (endOffset, < first uncleanable <= HW <= LEO);
//   - truncation lowers it to the new log end offset (a full truncation
//     sets it to the new start), and MaybeIncrementLogStartOffset raises it
//     to the new log start offset;
//   - RaiseMaxCleanlyCompactedOffset raises it to a received MTRO.
//
// It is always <= the log end offset: a replica never vouches for offsets
// it does not hold, which is what makes MTRO = min MCCO safe for removing
// a tombstone: every replica already holds it. Nothing new is persisted.
func (l *Log) MaxCleanlyCompactedOffset() record.Offset {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.clampMCCO()
}

// clampMCCO is mcco within [log start offset, log end offset].
// REQUIRES: l.mu held.
func (l *Log) clampMCCO() record.Offset {
	leo := l.segments[len(l.segments)-1].nextOffset
	return min(max(l.mcco, l.logStartOffset), leo)
}

// RaiseMaxCleanlyCompactedOffset raises the MCCO to mtro (clamped to the log
// end offset), as a Redpanda follower raises its own MCCO to the MTRO its
// leader broadcasts, and returns the new MCCO. Safety: MTRO is the minimum
// of the MCCOs all replicas reported, this one's included, so it is at most
// what this replica itself vouched for — unless this replica truncated
// below it since it reported. After such a truncation the raise claims a
// deduplication this replica has not done (the batches it fetched again may
// repeat a key it still holds below). The claim stays harmless for
// tombstone removal because the MCCO never passes the log end offset: a
// tombstone below the resulting MTRO is held by every replica (it lies
// below each one's log end offset, on logs that epochs keep equal at equal
// offsets), so no replica can miss it; and each replica's own cleaner
// still removes the values a tombstone shadows in the same pass that sees
// the tombstone. A caller wanting the strict meaning calls it only when
// mtro <= the MCCO it last reported and no truncation happened since.
func (l *Log) RaiseMaxCleanlyCompactedOffset(mtro record.Offset) record.Offset {
	l.mu.Lock()
	defer l.mu.Unlock()
	leo := l.segments[len(l.segments)-1].nextOffset
	if v := min(mtro, leo); v > l.mcco {
		l.mcco = v
	}
	return l.clampMCCO()
}

// MaxTxFreeOffset is the replica's MXFO (Redpanda's max transaction free
// offset), in the form Kafka's format allows: the last stable offset,
// min(first offset of the earliest open transaction, high watermark).
// Below it every transaction this replica holds data of is complete on
// this replica: its COMMIT or ABORT marker lies below it too, so no
// transaction fence is missing and no transactional data is undecided.
// Redpanda's own definition ("no transaction fence batches and no
// transactional data below it") counts on its compaction rewriting
// committed transactional batches as plain ones; Kafka's cleaner keeps a
// committed batch's transactional flag for as long as a record of it is
// the latest of its key, so that definition would stop at the first such
// record forever. This one gives the guarantee that MXRO = min MXFO needs:
// a marker at offset m < MXRO is held by every replica (m < each one's
// high watermark <= log end offset) and no replica holds data of m's
// transaction without m. The error is that of loading the producer state
// (as LastStableOffset), returned with the high watermark.
func (l *Log) MaxTxFreeOffset() (record.Offset, error) {
	return l.LastStableOffset()
}

// cleanerBounds returns the bounds a clean applies: opts' override, else the log's.
func (l *Log) cleanerBounds(opts *CleanOptions) RemovalBounds {
	if opts.Bounds != nil {
		return *opts.Bounds
	}
	return l.RemovalBounds()
}

// finishClean ends a clean of [firstDirty, endOffset) begun at truncation
// count gen: unless a truncation overtook it (then ErrCleaningAborted and
// nothing is written), the checkpoint at ckptPath moves to endOffset (when
// write) and the MCCO rises to endOffset if the clean started at or below it.
func (l *Log) finishClean(firstDirty, endOffset record.Offset, gen uint64, ckptPath string, write bool) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if gen != l.truncations {
		return fmt.Errorf("%w: %s was truncated while it was cleaned", ErrCleaningAborted, l.dir)
	}
	if write {
		if err := UpdateCheckpoint(l.fs, ckptPath, l.tp, endOffset); err != nil {
			return fmt.Errorf("engine: write checkpoint %s: %w", ckptPath, err)
		}
	}
	if firstDirty <= l.clampMCCO() && endOffset > l.mcco {
		l.mcco = endOffset
	}
	return nil
}

// initMCCO sets the MCCO at open: the cleaner checkpoint's entry clamped to
// [log start offset, log end offset], or the log start offset without one.
// REQUIRES: l.mu held or l not yet shared.
func (l *Log) initMCCO() error {
	l.mcco = l.logStartOffset
	// A checkpoint file that cannot be read vouches for nothing: the MCCO
	// stays at the log start offset (the cleaner reports the bad file).
	off, ok, err := checkpointEntry(l.fs, CheckpointPath(l.dir), l.tp)
	if err == nil && ok {
		l.mcco = min(max(off, l.logStartOffset), l.segments[len(l.segments)-1].nextOffset)
	}
	return nil
}
