package engine

import (
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// cleanedAppends turns the cleaner's output batches into the appends
// Kafka's cleaner makes to the cleaned segment, so that its .index and
// .timeindex get Kafka's entries (CleanerConfig.CleanedIndex). The .log
// bytes do not depend on it. Kafka's Cleaner.cleanInto, per source
// segment: read the read buffer (capacity ioBufBytes = log.cleaner.io.buffer
// .size / threads / 2) from the start of the first batch not yet done;
// filter the whole batches in it into the write buffer (of the same
// capacity; MemoryRecords.filterTo stops after the batch that made it grow
// past its capacity); append what was retained in one LogSegment.append
// (largest offset: the largest of each retained batch's last offset, or
// for a rebuilt batch its last retained record's; largest timestamp and its
// offset: the first retained batch with the largest max timestamp, and its
// last offset); when no whole batch fits the read buffer, double both
// buffers up to max.message.bytes (Kafka's growBuffersOrFail), which stay
// grown to the segment's end (restoreBuffers). The appends' index entries
// are then onAppend's.
//
// Under CleanedIndexPerBatch every output batch is its own append (onBatch).
type cleanedAppends struct {
	perBatch        bool
	ioBufBytes      int64 // the read and write buffers' capacity, restored per segment
	maxMessageBytes int64

	// Per source segment: the read buffer's capacity and where its chunk
	// starts; the output of the chunk so far; closed once that output grew
	// past the capacity (filterTo returns early).
	capacity   int64
	chunkStart int64
	chunkOut   int64
	closed     bool

	// The append being gathered (pending): where it starts in the cleaned
	// segment, its bytes, largest offset, largest timestamp and its offset.
	pending  bool
	pos      FilePos
	size     int64
	maxOff   record.Offset
	maxTs    int64
	maxTsOff record.Offset
}

func newCleanedAppends(cfg CleanerConfig, ioBufBytes int) cleanedAppends {
	return cleanedAppends{perBatch: cfg.CleanedIndex == CleanedIndexPerBatch, ioBufBytes: int64(ioBufBytes)}
}

// startSegment begins the copy of one source segment into dest, whose
// max.message.bytes bounds the buffers' growth.
func (a *cleanedAppends) startSegment(maxMessageBytes int) {
	a.capacity, a.chunkStart, a.chunkOut, a.closed, a.pending = a.ioBufBytes, 0, 0, false, false
	a.maxMessageBytes = int64(maxMessageBytes)
}

// sourceBatch is called before the source batch at pos (size bytes) is
// filtered, kept or not: when it does not lie whole in the current read
// buffer's chunk (or the chunk's output overflowed), the chunk's append is
// made and a new chunk starts at pos, the buffers grown until it fits.
func (a *cleanedAppends) sourceBatch(dest *Segment, pos, size int64) {
	if a.perBatch || (!a.closed && pos+size <= a.chunkStart+a.capacity) {
		return
	}
	a.flush(dest)
	a.chunkStart, a.chunkOut, a.closed = pos, 0, false
	for size > a.capacity {
		// growBuffersOrFail: to max.message.bytes, or past it to the batch.
		limit := max(a.maxMessageBytes, size)
		if a.capacity < a.maxMessageBytes {
			limit = a.maxMessageBytes
		}
		next := min(2*a.capacity, limit)
		if next <= a.capacity {
			// Kafka fails here ("larger than maximum allowable size"); the
			// engine reads such a batch whole (Cleaner.oversize).
			next = size
		}
		a.capacity = next
	}
}

// output records one output batch of n bytes about to be written at the
// end of dest; maxOffset is what Kafka's filterTo counts for it (the last
// offset, or the last retained record's offset of a rebuilt batch).
func (a *cleanedAppends) output(dest *Segment, h *record.BatchHeader, n int64, maxOffset record.Offset) {
	if a.perBatch {
		dest.ix.onBatch(h, FilePos(dest.size))
		return
	}
	if !a.pending {
		a.pending, a.pos, a.size, a.maxOff, a.maxTs, a.maxTsOff = true, FilePos(dest.size), 0, -1, record.NoTimestamp, -1
	}
	a.size += n
	a.maxOff = max(a.maxOff, maxOffset)
	if h.MaxTimestamp > a.maxTs {
		a.maxTs, a.maxTsOff = h.MaxTimestamp, h.LastOffset()
	}
	if a.chunkOut += n; a.chunkOut > a.capacity {
		a.closed = true
	}
}

// flush makes the pending append, if any (at a chunk's end, and at the
// source segment's end).
func (a *cleanedAppends) flush(dest *Segment) {
	if !a.pending {
		return
	}
	dest.ix.onAppend(a.maxOff, a.maxTs, a.maxTsOff, a.pos, a.size)
	a.pending = false
}
