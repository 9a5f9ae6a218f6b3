package engine

import (
	"sync/atomic"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// lookupAhead is CleanerConfig.ParallelLookups: while the copy loop filters
// a segment, a goroutine reads the same segment ahead of it through a
// reader of its own and looks up in the offset map (GetConcurrent) the keys
// the filter will ask for: those of each uncompressed data batch's keyed
// records at or below the map's latest offset that the map build did not
// decide (dirtyVerdicts). It hands the answers over in blocks, in file
// order, and the filter takes a batch's answers instead of looking its keys
// up (take); a batch the goroutine skipped (compressed, control, beyond the
// map, or one it could not walk) the filter looks up itself. It also checks
// each batch's CRC (under VerifyCRC), so that the filter need not: a batch
// whose CRC did not match the filter checks again and reports. The filter
// still decides everything: the answers are only Get's, computed early on
// another core. The filter never waits for the goroutine: a batch whose
// answers have not arrived it checks and looks up itself, and the
// goroutine, finding itself behind the filter (its core busy with other
// work), jumps to the filter's position; so with no core to spare the
// setting costs the goroutine's wasted reads, not the filter's time. The goroutine's reads are counted in the copy phase's
// AheadReadBytes, not in its reads (nor by the throttle).
type lookupAhead struct {
	blockPipe[lookupBlock]
	cur   *lookupBlock // the block take reads; nil before the first
	next  int          // cur's next batch
	ended bool         // the goroutine sent its last block
	// filterPos is the file position of the batch the filter is at (take
	// stores it; the goroutine reads it to skip what is behind).
	filterPos atomic.Int64
	// wait makes take wait for the goroutine's answers instead of looking
	// up itself (Cleaner.aheadWait: tests, so that the path is taken).
	wait bool
	// beforeBatch is Cleaner.aheadBeforeBatch (tests).
	beforeBatch func(a *lookupAhead, pos int64)
}

// lookupBlock is what the goroutine learnt of a run of batches, in file
// order: batch i at file position pos[i] has a CRC that matched when
// crcOK[i] (checked only under CleanerConfig.VerifyCRC), and, when
// looked[i], the answers found[first[i]:first[i+1]], one per key the
// filter will look up, in record order.
type lookupBlock struct {
	pos    []int64
	crcOK  []bool
	looked []bool
	first  []int32
	found  []int64
	keys   [][]byte // the goroutine's scratch
	last   bool     // no block follows
}

// reset empties b for reuse.
func (b *lookupBlock) reset() {
	b.pos, b.crcOK, b.looked = b.pos[:0], b.crcOK[:0], b.looked[:0]
	b.first, b.found, b.last = append(b.first[:0], 0), b.found[:0], false
}

// aheadBatch is what take found of one batch.
type aheadBatch struct {
	crcOK  bool
	looked bool
	found  []int64 // valid until the next take
}

// Blocks in flight between the goroutine and the filter: enough for the
// goroutine to run a few read buffers ahead, few enough to bound memory.
const (
	lookupBlockBatches = 16
	lookupBlocks       = 16
)

// aheadState is what a Cleaner keeps across cleans for ParallelLookups: the
// goroutine's reader and its blocks, allocated once.
type aheadState struct {
	reader   iosched.SegmentReader
	blocks   []*lookupBlock
	oversize []byte
	// readBytes is what the goroutine's reader returned in this clean.
	readBytes int64
}

// startLookupAhead starts the goroutine over segment s, or returns nil when
// ParallelLookups is off or the map cannot be read concurrently.
func (c *Cleaner) startLookupAhead(s *Segment) (*lookupAhead, error) {
	g, ok := c.offsetMap.(offsetmap.ConcurrentGetter)
	if !c.cfg.ParallelLookups || !ok {
		return nil, nil
	}
	st := &c.ahead
	// No read-ahead helper of its own: the filter's reader has one over
	// the same segment.
	if err := c.ownReader(&st.reader, 0); err != nil {
		return nil, err
	}
	a := &lookupAhead{blockPipe: newBlockPipe(&st.blocks, lookupBlocks), wait: c.aheadWait, beforeBatch: c.aheadBeforeBatch}
	// The map was flushed (Size) when the map phase ended; the copy phase
	// only reads it.
	latest := c.offsetMap.LatestOffset()
	readBefore := st.reader.Stats().Bytes
	go func() {
		defer close(a.done)
		defer func() { st.readBytes += st.reader.Stats().Bytes - readBefore }()
		defer st.reader.Restore()
		a.run(s, st, g, latest, &c.verdicts, c.cfg.VerifyCRC)
	}()
	return a, nil
}

// run is the goroutine: it walks s's batches, checks each v2 batch's CRC
// (under verifyCRC) and looks up the keys of those whose CRC matched, and
// sends blocks of what it learnt until the end of the file, a batch it
// cannot frame (the filter will report it), or stop.
func (a *lookupAhead) run(s *Segment, st *aheadState, g offsetmap.ConcurrentGetter, latest int64, v *dirtyVerdicts, verifyCRC bool) {
	it := newBatchIter(st.reader, s.f, 0, s.size)
	it.oversize = &st.oversize
	var b *lookupBlock
	send := func(last bool) bool {
		b.last = last
		if !a.send(b) {
			return false
		}
		b = nil
		return true
	}
	for {
		select {
		case <-a.stop:
			return
		default:
		}
		if b == nil {
			if b = a.get(); b == nil {
				return
			}
			b.reset()
		}
		if a.beforeBatch != nil {
			a.beforeBatch(a, it.pos)
		}
		if fp := a.filterPos.Load(); it.pos < fp {
			// Behind the filter: what is gathered is of no use, and the
			// walk goes on from the filter's batch (a batch boundary),
			// taken from the bytes already read when they hold it: a new
			// read there for each batch the filter passed read the
			// segment's buffers again and again (1.5 GB for a 256 MiB
			// copy phase).
			b.reset()
			it.skipTo(fp)
		}
		batch, pos, err := it.next()
		if err != nil { // io.EOF, or a batch the filter will report
			send(true)
			return
		}
		if len(batch) < record.BatchHeaderSize || batch[record.MagicPos] != record.MagicV2 {
			continue // the filter reports a legacy batch
		}
		crcOK := verifyCRC && record.VerifyCRC(batch) == nil
		b.pos = append(b.pos, int64(pos))
		b.crcOK = append(b.crcOK, crcOK)
		b.looked = append(b.looked, (crcOK || !verifyCRC) && a.lookUp(b, batch, g, latest, v))
		b.first = append(b.first, int32(len(b.found)))
		if len(b.pos) == lookupBlockBatches && !send(false) {
			return
		}
	}
}

// lookUp adds batch's answers to b.found, and reports whether it did
// (false: the filter looks this batch up itself). It selects the keys the
// filter's pass 1 (filterBatch) queues for lookup, in the same order; if
// the two ever disagree on a batch, the filter sees a different count and
// looks that batch up itself.
func (a *lookupAhead) lookUp(b *lookupBlock, batch []byte, g offsetmap.ConcurrentGetter, latest int64, v *dirtyVerdicts) bool {
	h, err := record.ParseHeader(batch)
	if err != nil || h.Size() != len(batch) || h.Attributes.Control() || h.Attributes.Codec() != record.CodecNone || int64(h.BaseOffset) > latest {
		return false
	}
	keys := b.keys[:0]
	recs := record.NewRecordIterator(batch[record.RecordsPos:], h.RecordCount)
	var r record.Record
	for {
		ok, err := recs.Next(&r)
		if err != nil {
			return false
		}
		if !ok {
			break
		}
		off := int64(r.Offset(&h))
		if r.Key == nil || off > latest {
			continue
		}
		if known, _ := v.decided(off); known {
			continue
		}
		keys = append(keys, r.Key)
	}
	b.keys = keys
	n := len(b.found)
	b.found = append(b.found, make([]int64, len(keys))...)
	g.GetConcurrent(keys, b.found[n:])
	return true
}

// take returns what the goroutine learnt of the batch at pos, and ok false
// when it has nothing on that batch: it skipped it, or has not sent it yet
// (take does not wait, unless a.wait).
func (a *lookupAhead) take(pos int64) (ab aheadBatch, ok bool) {
	a.filterPos.Store(pos)
	for {
		if a.cur != nil {
			for a.next < len(a.cur.pos) && a.cur.pos[a.next] < pos {
				a.next++
			}
			if a.next < len(a.cur.pos) {
				i := a.next
				if a.cur.pos[i] != pos {
					return aheadBatch{}, false // skipped by the goroutine
				}
				a.next++
				return aheadBatch{crcOK: a.cur.crcOK[i], looked: a.cur.looked[i], found: a.cur.found[a.cur.first[i]:a.cur.first[i+1]]}, true
			}
			if a.cur.last {
				return aheadBatch{}, false
			}
			a.free <- a.cur
			a.cur = nil
		}
		if a.ended {
			return aheadBatch{}, false
		}
		if a.wait {
			a.cur = <-a.results
		} else {
			select {
			case a.cur = <-a.results:
			default:
				return aheadBatch{}, false // not there yet: the filter does it
			}
		}
		a.next, a.ended = 0, a.cur.last
	}
}

// close stops the goroutine and waits for it.
func (a *lookupAhead) close() {
	if a != nil {
		a.blockPipe.close()
	}
}
