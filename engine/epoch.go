package engine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// LeaderEpochCheckpointFile is the name of a partition directory's leader
// epoch cache file, as Kafka's LeaderEpochCheckpointFile: a version line
// "0", a count line, then one "epoch startOffset" line per entry, oldest
// first. Part of Kafka's on-disk layout; must not change.
const LeaderEpochCheckpointFile = "leader-epoch-checkpoint"

// UndefinedEpoch and UndefinedEpochOffset are Kafka's UNDEFINED_EPOCH and
// UNDEFINED_EPOCH_OFFSET: what EndOffsetForEpoch answers when it knows no
// end offset.
const (
	UndefinedEpoch       int32         = -1
	UndefinedEpochOffset record.Offset = -1
)

// EpochEntry is one entry of the leader epoch cache: the first offset
// written in leader epoch Epoch, as Kafka's EpochEntry.
type EpochEntry struct {
	Epoch       int32
	StartOffset record.Offset
}

func (e EpochEntry) String() string { return fmt.Sprintf("%d@%d", e.Epoch, e.StartOffset) }

// epochCache is the leader epoch cache, as Kafka's LeaderEpochFileCache:
// entries with strictly increasing epochs and start offsets. It is kept in
// memory and written whole (atomically) on every change.
type epochCache struct {
	entries []EpochEntry
}

// assign adds (epoch, start) when it is needed, as Kafka's
// LeaderEpochFileCache.assign: when the cache is empty, the epoch differs
// from the latest one, or the start offset is below the latest entry's.
// Entries that the new one would make non-monotonic (epoch >= its epoch or
// start offset >= its start offset) are removed from the end first. It
// reports whether the cache changed. Negative values are never assigned
// (Kafka throws on them).
func (c *epochCache) assign(epoch int32, start record.Offset) bool {
	if epoch < 0 || start < 0 {
		return false
	}
	if n := len(c.entries); n > 0 {
		last := c.entries[n-1]
		if epoch == last.Epoch && start >= last.StartOffset {
			return false
		}
	}
	n := len(c.entries)
	for n > 0 && (c.entries[n-1].Epoch >= epoch || c.entries[n-1].StartOffset >= start) {
		n--
	}
	c.entries = append(c.entries[:n], EpochEntry{Epoch: epoch, StartOffset: start})
	return true
}

// latest is the latest entry, if any.
func (c *epochCache) latest() (EpochEntry, bool) {
	if len(c.entries) == 0 {
		return EpochEntry{}, false
	}
	return c.entries[len(c.entries)-1], true
}

// endOffsetFor is Kafka's LeaderEpochFileCache.endOffsetFor: for the
// undefined epoch, (-1, -1); for the latest epoch, (it, leo); otherwise,
// when no epoch is above the requested one, (-1, -1); when none is at or
// below it, (requested, the start offset of the first entry); else (the
// largest epoch <= requested, the start offset of the first epoch above).
func (c *epochCache) endOffsetFor(requested int32, leo record.Offset) (int32, record.Offset) {
	if requested == UndefinedEpoch {
		return UndefinedEpoch, UndefinedEpochOffset
	}
	if last, ok := c.latest(); ok && last.Epoch == requested {
		return requested, leo
	}
	higher := -1
	for i, e := range c.entries {
		if e.Epoch > requested {
			higher = i
			break
		}
	}
	if higher < 0 {
		return UndefinedEpoch, UndefinedEpochOffset
	}
	if higher == 0 {
		return requested, c.entries[0].StartOffset
	}
	return c.entries[higher-1].Epoch, c.entries[higher].StartOffset
}

// truncateFromEnd removes the entries whose start offset is >= end, as
// Kafka's LeaderEpochFileCache.truncateFromEnd (nothing for end < 0).
func (c *epochCache) truncateFromEnd(end record.Offset) bool {
	if end < 0 {
		return false
	}
	n := len(c.entries)
	for n > 0 && c.entries[n-1].StartOffset >= end {
		n--
	}
	if n == len(c.entries) {
		return false
	}
	c.entries = c.entries[:n]
	return true
}

// truncateFromStart removes the entries whose start offset is <= start and
// puts the last of them back with start offset start, as Kafka's
// LeaderEpochFileCache.truncateFromStart: the epoch of the data at the new
// log start offset stays known.
func (c *epochCache) truncateFromStart(start record.Offset) bool {
	if start < 0 {
		return false
	}
	n := 0
	for n < len(c.entries) && c.entries[n].StartOffset <= start {
		n++
	}
	if n == 0 {
		return false
	}
	last := c.entries[n-1]
	if n == 1 && last.StartOffset == start {
		return false
	}
	rest := append([]EpochEntry{{Epoch: last.Epoch, StartOffset: start}}, c.entries[n:]...)
	c.entries = rest
	return true
}

// EncodeLeaderEpochCheckpoint returns the bytes of a leader-epoch-checkpoint
// file holding entries, in Kafka's format.
func EncodeLeaderEpochCheckpoint(entries []EpochEntry) []byte {
	var b bytes.Buffer
	encodeCheckpointHeader(&b, len(entries))
	for _, e := range entries {
		fmt.Fprintf(&b, "%d %d\n", e.Epoch, int64(e.StartOffset))
	}
	return b.Bytes()
}

// DecodeLeaderEpochCheckpoint parses the bytes of a leader-epoch-checkpoint
// file (path names it in errors): version line "0", a count line, then
// count lines of two whitespace-separated integers, epoch (int32) and start
// offset (int64), both >= 0. Errors are *CheckpointError (wrapping
// ErrBadCheckpoint; the line and its byte position). The entries are returned as written; Kafka's cache then assigns
// them in order, which drops non-monotonic ones (the Log does the same).
func DecodeLeaderEpochCheckpoint(path string, data []byte) ([]EpochEntry, error) {
	out := []EpochEntry{}
	err := decodeCheckpointText(path, data, 2, "epoch startOffset", "bad epoch or start offset in %q (want two non-negative integers)", func(fields []string, _ int, _ int64) bool {
		epoch, err1 := strconv.ParseInt(fields[0], 10, 32)
		off, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil || epoch < 0 || off < 0 {
			return false
		}
		out = append(out, EpochEntry{Epoch: int32(epoch), StartOffset: record.Offset(off)})
		return true
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// epochCheckpointPath is the leader-epoch-checkpoint of the log.
func (l *Log) epochCheckpointPath() string { return filepath.Join(l.dir, LeaderEpochCheckpointFile) }

// readEpochCheckpoint reads the leader-epoch-checkpoint at path: nil when
// the file is missing (an empty cache), else its entries as written
// (DecodeLeaderEpochCheckpoint). Open reads it before it changes anything,
// so that a bad file refuses the open with the root as it was.
func readEpochCheckpoint(fsys FS, path string) ([]EpochEntry, error) {
	f, err := fsys.Open(path)
	if isNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("engine: open %s: %w", path, err)
	}
	data, err := readAll(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("engine: read %s: %w", path, err)
	}
	return DecodeLeaderEpochCheckpoint(path, data)
}

// loadEpochCache assigns the entries read from leader-epoch-checkpoint
// (readEpochCheckpoint; nil: an empty cache) in order as Kafka's
// LeaderEpochFileCache constructor, then truncates the cache to
// [log start offset, log end offset) as Kafka's LogLoader does after
// recovery (truncateFromEnd(LEO), then truncateFromStart(log start
// offset)). It reports whether the cache now differs from the file, which
// a read-write open then rewrites.
// REQUIRES: l.mu held or l not yet shared.
func (l *Log) loadEpochCache(entries []EpochEntry) (changed bool) {
	var c epochCache
	for _, e := range entries {
		c.assign(e.Epoch, e.StartOffset)
	}
	changed = len(c.entries) != len(entries)
	if c.truncateFromEnd(l.segments[len(l.segments)-1].nextOffset) {
		changed = true
	}
	if c.truncateFromStart(l.logStartOffset) {
		changed = true
	}
	l.epochs = c
	return changed
}

// writeEpochCache replaces leader-epoch-checkpoint with the cache, atomically.
// REQUIRES: l.mu held.
func (l *Log) writeEpochCache() error {
	if err := writeFileAtomic(l.fs, l.epochCheckpointPath(), EncodeLeaderEpochCheckpoint(l.epochs.entries)); err != nil {
		return fmt.Errorf("engine: write %s: %w", l.epochCheckpointPath(), err)
	}
	return nil
}

// removeStaleEpochTemp removes the leader-epoch-checkpoint.tmp a crash in
// the middle of writeEpochCache left: it holds no state.
func removeStaleEpochTemp(fsys FS, dir string) error {
	tmp := filepath.Join(dir, LeaderEpochCheckpointFile+".tmp")
	if _, err := fsys.Stat(tmp); err != nil {
		return nil
	}
	if err := fsys.Remove(tmp); err != nil && !isNotExist(err) {
		return fmt.Errorf("engine: remove stale %s: %w", tmp, err)
	}
	return nil
}

// LeaderEpochs returns a copy of the leader epoch cache, oldest first: the
// start offset of every leader epoch whose data the log holds, as Kafka's
// LeaderEpochFileCache.epochEntries.
func (l *Log) LeaderEpochs() []EpochEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]EpochEntry(nil), l.epochs.entries...)
}

// LatestEpoch is the latest leader epoch of the cache, and false when the
// cache is empty (Kafka's LeaderEpochFileCache.latestEpoch).
func (l *Log) LatestEpoch() (int32, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.epochs.latest()
	return e.Epoch, ok
}

// EndOffsetForEpoch answers an OffsetsForLeaderEpoch request for epoch, as
// Kafka's LeaderEpochFileCache.endOffsetFor with the log end offset:
//   - epoch -1 (UndefinedEpoch): (-1, -1);
//   - the latest epoch of the cache: (epoch, log end offset);
//   - an epoch above every cached one (or an empty cache): (-1, -1);
//   - an epoch below every cached one: (epoch, start offset of the first
//     cached epoch) — the data of the epochs in between is gone;
//   - otherwise (largest cached epoch <= epoch, start offset of the
//     smallest cached epoch > epoch).
func (l *Log) EndOffsetForEpoch(epoch int32) (foundEpoch int32, endOffset record.Offset) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epochs.endOffsetFor(epoch, l.segments[len(l.segments)-1].nextOffset)
}

// assignEpoch adds (epoch, start) to the cache when needed and writes the
// file when the cache changed. It runs before the batches are written, as
// Kafka's maybeAssignEpochStartOffset: a crash after it leaves an entry at
// or past the log end offset, which the next open's truncateFromEnd drops.
// REQUIRES: l.mu held.
func (l *Log) assignEpoch(epoch int32, start record.Offset) error {
	before := append([]EpochEntry(nil), l.epochs.entries...)
	if !l.epochs.assign(epoch, start) {
		return nil
	}
	if err := l.writeEpochCache(); err != nil {
		l.epochs.entries = before
		return err
	}
	return nil
}

// AppendAsLeader appends whole v2 batches as the partition's leader in
// leaderEpoch, as Kafka's UnifiedLog.appendAsLeader: each batch's base
// offset is rewritten so the batches take consecutive offsets from the log
// end offset (each keeping its LastOffsetDelta), and its
// PartitionLeaderEpoch is set to leaderEpoch. Both fields lie outside the
// v2 CRC (which covers Attributes to the end), so the CRC stays valid. The
// epoch gets a cache entry at the log end offset when it is new (written
// to leader-epoch-checkpoint before the batches). The caller's buffer is
// not changed. It returns the first and last offsets assigned. Errors: as
// Append, and a leaderEpoch < 0, or a batch that is not v2.
func (l *Log) AppendAsLeader(batches []byte, leaderEpoch int32) (first, last record.Offset, err error) {
	if leaderEpoch < 0 {
		return -1, -1, fmt.Errorf("engine: append as leader to %s: leader epoch %d, want >= 0", l.dir, leaderEpoch)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("append to"); err != nil {
		return -1, -1, err
	}
	if len(batches) == 0 {
		return -1, -1, fmt.Errorf("engine: append as leader to %s: no batch", l.dir)
	}
	buf := append([]byte(nil), batches...)
	next := l.segments[len(l.segments)-1].nextOffset
	first = next
	for pos := 0; pos < len(buf); {
		h, err := record.ParseHeader(buf[pos:])
		if err != nil {
			return -1, -1, fmt.Errorf("engine: append as leader to %s: batch at byte %d of the input: %w", l.dir, pos, err)
		}
		if pos+h.Size() > len(buf) {
			return -1, -1, fmt.Errorf("engine: append as leader to %s: batch at byte %d of the input: %w: %d bytes, %d left", l.dir, pos, record.ErrTruncated, h.Size(), len(buf)-pos)
		}
		h.BaseOffset = next
		h.PartitionLeaderEpoch = leaderEpoch
		putBaseOffsetAndEpoch(buf[pos:], next, leaderEpoch)
		next = h.NextOffset()
		pos += h.Size()
	}
	if _, err := l.validateBatches(buf); err != nil {
		return -1, -1, err
	}
	before := append([]EpochEntry(nil), l.epochs.entries...)
	if err := l.assignEpoch(leaderEpoch, first); err != nil {
		l.epochs.entries = before
		return -1, -1, err
	}
	if err := l.appendLocked(buf); err != nil {
		l.epochs.entries = before
		return -1, -1, err
	}
	return first, next - 1, nil
}

// putBaseOffsetAndEpoch writes a batch's BaseOffset and PartitionLeaderEpoch
// fields (both outside the CRC).
func putBaseOffsetAndEpoch(batch []byte, base record.Offset, epoch int32) {
	v := uint64(base)
	for i := 0; i < 8; i++ {
		batch[record.BaseOffsetPos+i] = byte(v >> (56 - 8*i))
	}
	e := uint32(epoch)
	for i := 0; i < 4; i++ {
		batch[record.PartitionLeaderEpochPos+i] = byte(e >> (24 - 8*i))
	}
}

// AppendAsFollower appends whole v2 batches fetched from the leader, bytes
// as they are (offsets, producer fields and PartitionLeaderEpoch kept), as
// Kafka's UnifiedLog.appendAsFollower: before the batches are written, every
// batch whose PartitionLeaderEpoch is >= 0 assigns (that epoch, its base
// offset) to the leader epoch cache when needed (maybeAssignEpochStartOffset;
// a new epoch, or a start offset below the latest entry's). Errors: as Append.
func (l *Log) AppendAsFollower(batches []byte) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("append to"); err != nil {
		return err
	}
	if len(batches) == 0 {
		return nil
	}
	if _, err := l.validateBatches(batches); err != nil {
		return err
	}
	before := append([]EpochEntry(nil), l.epochs.entries...)
	changed := false
	for pos := 0; pos < len(batches); {
		h, _ := record.ParseHeader(batches[pos:])
		if h.PartitionLeaderEpoch >= 0 && l.epochs.assign(h.PartitionLeaderEpoch, h.BaseOffset) {
			changed = true
		}
		pos += h.Size()
	}
	if changed {
		if err := l.writeEpochCache(); err != nil {
			l.epochs.entries = before
			return err
		}
	}
	if err := l.appendLocked(batches); err != nil {
		// In memory the cache is as before; the file may keep the new
		// entries (at or past the log end offset) until its next write, and
		// the next open drops them (truncateFromEnd at load).
		l.epochs.entries = before
		return err
	}
	return nil
}

// AssignLeaderEpoch gives epoch the start offset of the log end offset when
// it is new, as Kafka's Partition.makeLeader does through
// UnifiedLog.maybeAssignEpochStartOffset: a new leader's epoch starts at its
// log end offset before it appends anything, so that EndOffsetForEpoch of
// the previous epoch answers that offset and a follower's ISR check can use
// the start of the leader's current epoch. Kafka's assign rules apply (see
// LeaderEpochs); epoch < 0 is an error. An entry at the log end offset with
// no data after it is dropped by the next open, as Kafka's load does.
func (l *Log) AssignLeaderEpoch(epoch int32) error {
	if epoch < 0 {
		return fmt.Errorf("engine: assign leader epoch %d to %s: want >= 0", epoch, l.tp)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.writableLocked("assign a leader epoch to"); err != nil {
		return err
	}
	return l.assignEpoch(epoch, l.segments[len(l.segments)-1].nextOffset)
}
