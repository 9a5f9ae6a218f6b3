package engine

import (
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// prefetchNext is the copy loop's look-ahead (CleanerConfig.LookAhead):
// before batch k is filtered, it walks the records of batch k+1 when that
// batch is already whole in the read buffer, and hands the keys that will
// need a map lookup (keyed records at or below the map's latest offset) to
// the map's Prefetch, so that their cache misses overlap batch k's work
// instead of stalling batch k+1's lookups. Only plain v2 data batches are
// walked (a compressed one would need decompressing twice; control
// records are never looked up). It is a hint: results are unchanged, and a
// batch it cannot walk (corrupt, legacy) is left for the filter to report.
func (c *Cleaner) prefetchNext(it *batchIter) {
	p, ok := c.offsetMap.(offsetmap.Prefetcher)
	if !ok || !c.cfg.LookAhead {
		return
	}
	next := it.peek()
	if len(next) < record.BatchHeaderSize || next[record.MagicPos] != record.MagicV2 {
		return
	}
	h, err := record.ParseHeader(next)
	latest := record.Offset(c.offsetMap.LatestOffset())
	if err != nil || h.Attributes.Codec() != record.CodecNone || h.Attributes.Control() || h.BaseOffset > latest || h.Size() != len(next) {
		return
	}
	keys := c.lookAheadKeys[:0]
	recs := record.NewRecordIterator(next[record.RecordsPos:], h.RecordCount)
	var r record.Record
	for {
		ok, err := recs.Next(&r)
		if err != nil || !ok {
			break
		}
		if r.Key != nil && r.Offset(&h) <= latest {
			keys = append(keys, r.Key)
		}
	}
	p.Prefetch(keys)
	c.lookAheadKeys = keys[:0]
}
