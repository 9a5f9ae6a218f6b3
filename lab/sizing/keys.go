package sizing

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/axiomhq/hyperloglog"
	"github.com/zeebo/xxh3"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// hllPrecision is the HyperLogLog precision once the exact count gives up:
// 2^16 registers, a standard error of 1.04/sqrt(2^16) = 0.41%.
const hllPrecision = 16

// HLLStandardError is the relative standard error of the distinct-key
// estimate (Flajolet et al.: 1.04 / sqrt(registers)).
var HLLStandardError = 1.04 / math.Sqrt(float64(uint64(1)<<hllPrecision))

// bytesPerExactKey is what one key of an exact set costs in memory, counted
// conservatively for a Go map[uint64]struct{} (8-byte key, control bytes,
// load factor and the doubling on growth).
const bytesPerExactKey = 32

// dirtyScan is what a read of the dirty section found.
type dirtyScan struct {
	Records, KeyedRecords, KeylessRecords, Tombstones, ControlRecords int64
	AbortedRecords                                                    int64
	Bytes, MaxBatchBytes                                              int64
	// Keys: distinct keys (exact, or a HyperLogLog estimate when Estimate).
	Keys     int64
	Estimate bool
	// Chunks are the passes Kafka's buildOffsetMap would make with a map of
	// maxKeys entries (each ends where the map is full), with the bytes of
	// the batches starting in each and its keys; nil when the chunk set
	// outgrew the memory bound (then PassesEstimate).
	Chunks []chunk
}

type chunk struct {
	Bytes int64
	Keys  int64
}

// keyCounter counts distinct 64-bit key hashes exactly up to a bound, then
// with a HyperLogLog. xxh3-64 of the key: two distinct keys collide with
// probability about n^2/2^65 (5e-7 at 4M keys), so "exact" is exact up to that.
type keyCounter struct {
	limit int
	exact map[uint64]struct{}
	hll   *hyperloglog.Sketch
}

func newKeyCounter(limit int) *keyCounter {
	return &keyCounter{limit: limit, exact: map[uint64]struct{}{}}
}

func (k *keyCounter) add(h uint64) {
	if k.hll != nil {
		k.hll.InsertHash(h)
		return
	}
	k.exact[h] = struct{}{}
	if len(k.exact) > k.limit {
		k.hll, _ = hyperloglog.NewSketch(hllPrecision, true)
		for x := range k.exact {
			k.hll.InsertHash(x)
		}
		k.exact = nil
	}
}

func (k *keyCounter) count() (int64, bool) {
	if k.hll != nil {
		return int64(k.hll.Estimate()), true
	}
	return int64(len(k.exact)), false
}

// passSim follows Kafka's buildOffsetMap rule: before each put, a map that
// already holds maxKeys entries is full, and the pass ends there (whatever
// the key); the next pass starts at that record.
type passSim struct {
	maxKeys int
	limit   int
	cur     map[uint64]struct{}
	chunks  []chunk
	gaveUp  bool
}

func newPassSim(maxKeys, limit int) *passSim {
	return &passSim{maxKeys: maxKeys, limit: limit, cur: map[uint64]struct{}{}, chunks: []chunk{{}}}
}

func (p *passSim) addBatchBytes(n int64) {
	if !p.gaveUp {
		p.chunks[len(p.chunks)-1].Bytes += n
	}
}

func (p *passSim) add(h uint64) {
	if p.gaveUp {
		return
	}
	if len(p.cur) >= p.maxKeys {
		p.chunks[len(p.chunks)-1].Keys = int64(len(p.cur))
		p.chunks = append(p.chunks, chunk{})
		clear(p.cur)
	}
	p.cur[h] = struct{}{}
	if len(p.cur) > p.limit {
		p.gaveUp, p.cur, p.chunks = true, nil, nil
	}
}

func (p *passSim) finish() []chunk {
	if p.gaveUp {
		return nil
	}
	p.chunks[len(p.chunks)-1].Keys = int64(len(p.cur))
	return p.chunks
}

var errStop = errors.New("sizing: stop")

// scanDirty reads [from, to) of l: every batch starting before to, the
// records with offsets in the range. Data of aborted transactions (from the
// .txnindex files, as Kafka's buildOffsetMap) is counted apart and not
// keyed; control records count as control. Legacy (magic 0/1) messages
// count as records, their keys too. memLimit bounds each exact key set.
// Without countKeys, only the record counts are filled (no key set, no
// chunks).
func scanDirty(ctx context.Context, l *engine.Log, from, to record.Offset, maxKeys int, memLimit int64, countKeys bool) (dirtyScan, error) {
	var s dirtyScan
	if to <= from {
		return s, nil
	}
	limit := int(max(memLimit/bytesPerExactKey, 1))
	keys := newKeyCounter(limit)
	sim := newPassSim(max(maxKeys, 1), limit)
	aborted := l.CollectAbortedTxns(from, to)
	sort.Slice(aborted, func(i, j int) bool { return aborted[i].FirstOffset < aborted[j].FirstOffset })
	ongoing := map[int64]bool{} // producers inside an aborted transaction
	var d record.Decoder
	var legacy []record.LegacyMessage
	var r record.Record
	err := l.ReadBatches(from, func(seg *engine.Segment, pos engine.FilePos, batch []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, magic, err := record.PeekBatch(batch)
		if err != nil {
			return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
		}
		if magic < 2 {
			msgs, err := d.LegacyRecords(batch, legacy[:0])
			if err != nil {
				return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
			}
			legacy = msgs
			if len(msgs) > 0 && msgs[0].Offset >= to {
				return errStop
			}
			sim.addBatchBytes(int64(len(batch)))
			s.Bytes += int64(len(batch))
			s.MaxBatchBytes = max(s.MaxBatchBytes, int64(len(batch)))
			for _, m := range msgs {
				if m.Offset < from || m.Offset >= to {
					continue
				}
				s.Records++
				if m.Key == nil {
					s.KeylessRecords++
					continue
				}
				s.KeyedRecords++
				if m.Value == nil {
					s.Tombstones++
				}
				if countKeys {
					h := xxh3.Hash(m.Key)
					keys.add(h)
					sim.add(h)
				}
			}
			return nil
		}
		if err := record.VerifyCRC(batch); err != nil {
			return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
		}
		h, it, err := d.Records(batch)
		if err != nil {
			return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
		}
		if h.BaseOffset >= to {
			return errStop
		}
		sim.addBatchBytes(int64(len(batch)))
		s.Bytes += int64(len(batch))
		s.MaxBatchBytes = max(s.MaxBatchBytes, int64(len(batch)))
		for len(aborted) > 0 && aborted[0].FirstOffset <= h.BaseOffset {
			ongoing[aborted[0].ProducerID] = true
			aborted = aborted[1:]
		}
		isAborted := h.Attributes.Transactional() && !h.Attributes.Control() && ongoing[h.ProducerID]
		for {
			ok, err := it.Next(&r)
			if err != nil {
				return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
			}
			if !ok {
				break
			}
			off := r.Offset(&h)
			if off < from || off >= to {
				continue
			}
			s.Records++
			switch {
			case h.Attributes.Control():
				s.ControlRecords++
				if t, err := record.ParseControlKey(r.Key); err == nil && t == record.ControlAbort {
					delete(ongoing, h.ProducerID)
				}
			case isAborted:
				s.AbortedRecords++
			case r.Key == nil:
				s.KeylessRecords++
			default:
				s.KeyedRecords++
				if r.IsTombstone() {
					s.Tombstones++
				}
				if countKeys {
					hk := xxh3.Hash(r.Key)
					keys.add(hk)
					sim.add(hk)
				}
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return s, err
	}
	if countKeys {
		s.Keys, s.Estimate = keys.count()
		s.Chunks = sim.finish()
	}
	return s, nil
}

// verifyCleanSection checks the CRC of every v2 batch of l below firstDirty
// (the part a clean recopies without building the map over it).
func verifyCleanSection(ctx context.Context, l *engine.Log, firstDirty record.Offset) error {
	err := l.ReadBatches(l.LogStartOffset(), func(seg *engine.Segment, pos engine.FilePos, batch []byte) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		_, magic, err := record.PeekBatch(batch)
		if err != nil {
			return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
		}
		if magic < 2 {
			if err := record.VerifyLegacyCRC(batch); err != nil {
				return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
			}
			return nil
		}
		h, err := record.ParseHeader(batch)
		if err != nil {
			return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
		}
		if h.BaseOffset >= firstDirty {
			return errStop
		}
		if err := record.VerifyCRC(batch); err != nil {
			return fmt.Errorf("%s at byte %d: %w", seg.LogPath(), pos, err)
		}
		return nil
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}
