package engine

import (
	"errors"
	"fmt"
	"io"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// mapAhead is CleanerConfig.ParallelMapBuild: while the cleaner puts keys
// into the offset map, a goroutine reads the dirty segments ahead of it
// through a reader of its own, checks each batch's CRC (under VerifyCRC),
// walks its records and hashes the keys the build will put
// (offsetmap.FingerprintPutter.FingerprintKeys), and hands the cleaner, in
// file order, what it learnt of each batch: its position and size, its
// header, how many records it walked, and the offsets, fingerprints and
// record numbers of its keys at or after the pass's start. The cleaner does
// the rest exactly as the build that reads itself (mapSegmentFrom):
// the transactions, the map-full rule, the latest offset, the counts. The
// goroutine decompresses compressed batches with a Decoder of its own. A
// batch it does not take (control, not v2, a CRC, a decompression or a
// record that does not check out) the cleaner reads and maps itself; where
// the goroutine cannot frame a batch or its reader fails, it stops, and the
// cleaner reads on by itself from there, so every error is the one the
// sequential build reports. The cleaner waits for the goroutine: its own
// core has nothing else to do in the map phase.
type mapAhead struct {
	blockPipe[mapBlock]
	cur  *mapBlock // the block take reads; nil before the first
	next int       // cur's next entry
}

// mapEntryKind is what the goroutine did with one entry of a mapBlock.
type mapEntryKind uint8

const (
	// mapHashed: a data batch the goroutine walked and hashed.
	mapHashed mapEntryKind = iota
	// mapRead: a batch the cleaner reads and maps itself.
	mapRead
	// mapSegmentEnd: the segment's last batch is behind.
	mapSegmentEnd
	// mapStopped: the goroutine stopped at pos (a batch it could not
	// frame, or its reader's error); the cleaner goes on by itself.
	mapStopped
)

// mapBlock is what the goroutine learnt of a run of entries, in file order:
// entry i is of kind[i], in dirty segment seg[i], at file position pos[i],
// size[i] bytes; a mapHashed entry also has its header hdr[i], the number
// of records walked records[i], and its keys [first[i], first[i+1]) of
// fps, offsets and keyRecord.
type mapBlock struct {
	kind      []mapEntryKind
	seg       []int32
	pos       []int64
	size      []int32
	hdr       []record.BatchHeader
	records   []int32
	first     []int32
	fps       []offsetmap.Fingerprint
	offsets   []int64
	keyRecord []int32
	keys      [][]byte // the goroutine's scratch
	last      bool     // no block follows
}

// reset empties b for reuse.
func (b *mapBlock) reset() {
	b.kind, b.seg, b.pos, b.size = b.kind[:0], b.seg[:0], b.pos[:0], b.size[:0]
	b.hdr, b.records, b.first = b.hdr[:0], b.records[:0], append(b.first[:0], 0)
	b.fps, b.offsets, b.keyRecord, b.last = b.fps[:0], b.offsets[:0], b.keyRecord[:0], false
}

// add appends an entry with no keys.
func (b *mapBlock) add(kind mapEntryKind, seg int, pos int64, size int) {
	b.kind = append(b.kind, kind)
	b.seg = append(b.seg, int32(seg))
	b.pos = append(b.pos, pos)
	b.size = append(b.size, int32(size))
	b.hdr = append(b.hdr, record.BatchHeader{})
	b.records = append(b.records, 0)
	b.first = append(b.first, int32(len(b.fps)))
}

// mapEntry is one entry of a mapBlock, as take returns it; its slices are
// valid until the next take.
type mapEntry struct {
	kind      mapEntryKind
	seg       int
	pos       int64
	size      int
	hdr       record.BatchHeader
	records   int32
	fps       []offsetmap.Fingerprint
	offsets   []int64
	keyRecord []int32
}

// Entries per block and blocks in flight: a few read buffers of batches
// ahead, bounded memory.
const (
	mapBlockEntries = 16
	mapBlocks       = 16
)

// mapAheadState is what a Cleaner keeps across cleans for
// ParallelMapBuild: the goroutine's reader and blocks, allocated once.
type mapAheadState struct {
	reader   iosched.SegmentReader
	dec      record.Decoder
	blocks   []*mapBlock
	oversize []byte
	// os is what the clean's PhaseProbe measured of the goroutine's own
	// OS thread in the last build (haveOS), for the map phase's counters
	// (takeOS).
	os     iosched.PhaseCounters
	haveOS bool
}

// takeOS returns the goroutine's thread counters of the last build, once.
func (st *mapAheadState) takeOS() (iosched.PhaseCounters, bool) {
	pc, ok := st.os, st.haveOS
	st.haveOS = false
	return pc, ok
}

// startMapAhead starts the goroutine over the dirty segments, each from
// byte from[i], putting keys at offsets >= start; it returns nil when
// ParallelMapBuild is off, the map cannot take fingerprints, or the
// cleaner is throttled (the throttle meters the cleaner's own reads).
func (c *Cleaner) startMapAhead(dirty []*Segment, from []int64, start record.Offset) (*mapAhead, error) {
	fp, ok := c.offsetMap.(offsetmap.FingerprintPutter)
	if !c.cfg.ParallelMapBuild || !ok || c.throttler != nil || len(dirty) == 0 {
		return nil, nil
	}
	st := &c.mapAheadSt
	// The goroutine is the map build's only reader: the read-ahead helper
	// goes with it.
	if err := c.ownReader(&st.reader, c.cfg.ReadaheadBytes); err != nil {
		return nil, err
	}
	a := &mapAhead{blockPipe: newBlockPipe(&st.blocks, mapBlocks)}
	st.haveOS = false
	probe := c.probe
	go func() {
		defer close(a.done)
		if probe != nil {
			// The goroutine's reads miss the page cache on its own thread:
			// measured there, they join the map phase's (startPhase).
			end := probe(PhaseMap, nil)
			defer func() { st.os, st.haveOS = end(), true }()
		}
		a.run(dirty, from, int64(start), st, fp, c.cfg.VerifyCRC, c.cfg.KeyScan)
	}()
	return a, nil
}

// run is the goroutine: it walks the segments' batches and sends blocks of
// entries until the last segment ends, it stops at a batch it cannot
// frame, or it is stopped.
func (a *mapAhead) run(dirty []*Segment, from []int64, start int64, st *mapAheadState, fp offsetmap.FingerprintPutter, verifyCRC, keyScan bool) {
	var b *mapBlock
	// ensure gets a free block into b, unless it is stopped first.
	ensure := func() bool {
		if b == nil {
			if b = a.get(); b == nil {
				return false
			}
			b.reset()
		}
		return true
	}
	send := func(last bool) bool {
		b.last = last
		if !a.send(b) {
			return false
		}
		b = nil
		return true
	}
	defer st.reader.Restore()
	for i, s := range dirty {
		it := newBatchIter(st.reader, s.f, from[i], s.size)
		it.oversize = &st.oversize
		for {
			if !ensure() {
				return
			}
			batch, pos, err := it.next()
			switch {
			case errors.Is(err, io.EOF):
				b.add(mapSegmentEnd, i, int64(pos), 0)
			case err != nil:
				b.add(mapStopped, i, int64(pos), 0)
				send(true)
				return
			case !b.walk(batch, start, &st.dec, fp, verifyCRC, keyScan):
				b.add(mapRead, i, int64(pos), len(batch))
			default:
				b.seg[len(b.seg)-1], b.pos[len(b.pos)-1] = int32(i), int64(pos)
			}
			if len(b.kind) == mapBlockEntries && !send(false) {
				return
			}
			if err != nil {
				break
			}
		}
		st.reader.Restore()
	}
	if ensure() {
		send(true) // may be empty: it says that no block follows
	}
}

// walk adds batch as a mapHashed entry (its segment and position left for
// the caller to set) and reports true, or adds nothing and reports false
// when the cleaner is to map it itself: it is not v2, its CRC does not
// match (checked under verifyCRC), its header does not parse or give its
// size, it does not decompress, it is a control batch, or a record does
// not decode. It decodes as the cleaner's decode does (dec.Records, the
// goroutine's own Decoder, decompressing a compressed batch). The keys it
// hashes are those the cleaner's own walk puts: non-null keys at offsets
// >= start. Under keyScan (CleanerConfig.KeyScan) it reads the records with
// the key scan, as the cleaner's walk does.
func (b *mapBlock) walk(batch []byte, start int64, dec *record.Decoder, fp offsetmap.FingerprintPutter, verifyCRC, keyScan bool) bool {
	if len(batch) < record.BatchHeaderSize || batch[record.MagicPos] != record.MagicV2 {
		return false
	}
	if verifyCRC && record.VerifyCRC(batch) != nil {
		return false
	}
	h, recs, err := dec.Records(batch)
	if err != nil || h.Attributes.Control() {
		return false
	}
	n0 := len(b.offsets)
	keys := b.keys[:0]
	var full record.Record
	var r record.KeyRecord
	records := int32(0)
	for {
		ok, err := nextKey(keyScan, &recs, &full, &r)
		if err != nil {
			b.offsets, b.keyRecord = b.offsets[:n0], b.keyRecord[:n0]
			return false
		}
		if !ok {
			break
		}
		if off := int64(r.Offset(&h)); r.Key != nil && off >= start {
			keys = append(keys, r.Key)
			b.offsets = append(b.offsets, off)
			b.keyRecord = append(b.keyRecord, records)
		}
		records++
	}
	b.keys = keys
	b.fps = append(b.fps, make([]offsetmap.Fingerprint, len(keys))...)
	fp.FingerprintKeys(keys, b.fps[n0:])
	b.kind = append(b.kind, mapHashed)
	b.seg = append(b.seg, 0)
	b.pos = append(b.pos, 0)
	b.size = append(b.size, int32(len(batch)))
	b.hdr = append(b.hdr, h)
	b.records = append(b.records, records)
	b.first = append(b.first, int32(len(b.fps)))
	return true
}

// take returns the next entry, waiting for the goroutine; before each new
// block it calls check (the clean's CheckDone; nil: none), whose error it
// returns.
func (a *mapAhead) take(check func() error) (mapEntry, error) {
	for a.cur == nil || a.next == len(a.cur.kind) {
		if a.cur != nil {
			if a.cur.last {
				return mapEntry{}, errors.New("engine: the map build's reader ended before the last dirty segment did")
			}
			a.free <- a.cur
			a.cur = nil
		}
		if check != nil {
			if err := check(); err != nil {
				return mapEntry{}, err
			}
		}
		a.cur, a.next = <-a.results, 0
	}
	b, i := a.cur, a.next
	a.next++
	e := mapEntry{kind: b.kind[i], seg: int(b.seg[i]), pos: b.pos[i], size: int(b.size[i])}
	if e.kind == mapHashed {
		k0, k1 := b.first[i], b.first[i+1]
		e.hdr, e.records = b.hdr[i], b.records[i]
		e.fps, e.offsets, e.keyRecord = b.fps[k0:k1], b.offsets[k0:k1], b.keyRecord[k0:k1]
	}
	return e, nil
}

// close stops the goroutine and waits for it.
func (a *mapAhead) close() {
	if a != nil {
		a.blockPipe.close()
	}
}

// blockPipe carries reusable blocks of B from a goroutine ahead of the
// cleaner to the cleaner: filled blocks in order on results, emptied ones
// back on free. The goroutine returns when stop is closed, and closes
// done when it has.
type blockPipe[B any] struct {
	results chan *B
	free    chan *B
	stop    chan struct{}
	done    chan struct{}
}

// newBlockPipe returns a pipe whose free channel holds the n blocks of
// *blocks, allocated there on the first call (a Cleaner keeps them across
// cleans).
func newBlockPipe[B any](blocks *[]*B, n int) blockPipe[B] {
	for len(*blocks) < n {
		*blocks = append(*blocks, new(B))
	}
	p := blockPipe[B]{results: make(chan *B, n), free: make(chan *B, n), stop: make(chan struct{}), done: make(chan struct{})}
	for _, b := range (*blocks)[:n] {
		p.free <- b
	}
	return p
}

// get takes an emptied block for the goroutine to fill, or nil once stop
// is closed.
func (p *blockPipe[B]) get() *B {
	select {
	case b := <-p.free:
		return b
	case <-p.stop:
		return nil
	}
}

// send hands the cleaner a filled block, and says false (the block not
// sent) once stop is closed.
func (p *blockPipe[B]) send(b *B) bool {
	select {
	case p.results <- b:
		return true
	case <-p.stop:
		return false
	}
}

// close stops the goroutine and waits for it.
func (p *blockPipe[B]) close() {
	close(p.stop)
	<-p.done
}

// ownReader (re)makes *r, the reader of a goroutine reading ahead of the
// cleaner, when it is nil or its buffer cannot grow as far as the
// cleaner's (max.message.bytes): the cleaner's read path and hint, and a
// read-ahead helper reading readaheadBytes ahead (0: none).
func (c *Cleaner) ownReader(r *iosched.SegmentReader, readaheadBytes int64) error {
	if *r != nil && (*r).MaxBufferBytes() >= c.reader.MaxBufferBytes() {
		return nil
	}
	nr, err := iosched.NewSegmentReader(iosched.ReaderOptions{
		Path: iosched.ReadPath(c.cfg.IOPath), BufferBytes: c.ioBufBytes, MaxBufferBytes: c.reader.MaxBufferBytes(),
		Readahead: iosched.ReadaheadHint(c.cfg.Readahead), ReadaheadBytes: readaheadBytes,
		DirectFallback: true,
	})
	if err != nil {
		return err
	}
	*r = nr
	return nil
}

// mapSegmentAhead maps dirty segment seg (s) from the goroutine's entries,
// as mapSegmentFrom maps it by reading: next is the following segment's
// base offset (the dirty end for the last). stopped reports that the
// goroutine stopped in s, and the rest of s was mapped by reading; the
// cleaner then reads the remaining segments itself.
func (c *Cleaner) mapSegmentAhead(a *mapAhead, seg int, s *Segment, start, next record.Offset, txns *cleanedTxnMetadata, stats *CleanStats) (full, stopped bool, err error) {
	defer c.reader.Restore()
	var it *batchIter
	for {
		e, err := a.take(c.checkDone)
		if err != nil {
			return false, false, err
		}
		if e.seg != seg {
			return false, false, fmt.Errorf("engine: the map build's reader is in dirty segment %d, the cleaner in %d (%s)", e.seg, seg, s.f.Name())
		}
		switch e.kind {
		case mapSegmentEnd:
			// Offsets gaps: the whole segment is mapped, so its end is covered.
			c.offsetMap.UpdateLatestOffset(int64(next - 1))
			return false, false, nil
		case mapStopped:
			full, err := c.mapSegmentFrom(s, e.pos, start, next, txns, stats)
			return full, true, err
		case mapRead:
			if it == nil || it.pos != e.pos {
				i := c.iter(s, e.pos)
				it = &i
			}
			batch, pos, err := it.next()
			if errors.Is(err, io.EOF) {
				err = fmt.Errorf("engine: %s byte %d: the batch the map build's reader framed is gone (%w)", s.f.Name(), e.pos, io.ErrUnexpectedEOF)
			}
			if err != nil {
				return false, false, err
			}
			if full, err = c.mapBatch(s, batch, pos, start, txns, stats); err != nil || full {
				return full, false, err
			}
		default:
			// The goroutine checked its CRC (under VerifyCRC).
			c.crcChecked.note(s, e.pos, int64(e.size))
			if c.mapHashedBatch(&e, start, txns, stats) {
				return true, false, nil
			}
		}
	}
}

// mapHashedBatch maps one batch the goroutine walked and hashed, as
// mapBatch maps a data batch it decoded, and reports whether the map
// became full.
func (c *Cleaner) mapHashedBatch(e *mapEntry, start record.Offset, txns *cleanedTxnMetadata, stats *CleanStats) (full bool) {
	c.countMapRead(e.size, stats)
	stats.MapBatchesAhead++
	h := &e.hdr
	if txns.onBatchRead(h) {
		// Aborted data: not put in the map (docs/kafka-rules.md §3).
		stats.MapMessagesRead += int64(h.RecordCount)
	} else if c.putKeys(nil, e.fps, e.offsets, e.keyRecord, e.records, stats) {
		return true
	}
	c.mappedThrough(h, start)
	return false
}
