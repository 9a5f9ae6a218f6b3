package engine

import (
	"container/heap"
	"errors"
	"fmt"
	"io"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// IsolationLevel says what a fetch may return, as Kafka's IsolationLevel.
type IsolationLevel int8

const (
	// ReadUncommitted reads up to the high watermark; aborted data and open
	// transactions included.
	ReadUncommitted IsolationLevel = 0
	// ReadCommitted reads up to the last stable offset, with the aborted
	// transactions of the range (from the .txnindex files) so that a
	// consumer can skip their data.
	ReadCommitted IsolationLevel = 1
)

func (i IsolationLevel) String() string {
	switch i {
	case ReadUncommitted:
		return "read_uncommitted"
	case ReadCommitted:
		return "read_committed"
	}
	return fmt.Sprintf("IsolationLevel(%d)", int8(i))
}

// ParseIsolationLevel parses "read_uncommitted" or "read_committed"
// (Kafka's isolation.level values).
func ParseIsolationLevel(s string) (IsolationLevel, error) {
	switch s {
	case "read_uncommitted":
		return ReadUncommitted, nil
	case "read_committed":
		return ReadCommitted, nil
	}
	return 0, fmt.Errorf("engine: isolation level %q: want read_uncommitted or read_committed", s)
}

// FetchResult is what one Fetch returns, as Kafka's FetchDataInfo.
type FetchResult struct {
	// Batches are whole batches back to back, copied from the segments: the
	// one holding the fetch offset and those after it, each wholly below
	// the bound (the high watermark, or the last stable offset for
	// ReadCommitted), up to maxBytes (at least one batch).
	Batches []byte
	// AbortedTxns (ReadCommitted only) are the aborted transactions that
	// overlap [fetch offset, last fetched offset + 1), as Kafka's fetch
	// returns them, read from the same segments as the batches.
	AbortedTxns []AbortedTxn
	// HighWatermark, LastStableOffset and LogStartOffset at the fetch.
	HighWatermark, LastStableOffset, LogStartOffset record.Offset
}

// Fetch reads batches from offset from, as Kafka's UnifiedLog.read for a
// consumer: it returns ErrOffsetOutOfRange below the log start offset or
// past the log end offset. The segments read are held until the read ends,
// so a clean or retention that replaces or deletes them meanwhile does not
// disturb it (their files are closed by the last reader).
func (l *Log) Fetch(from record.Offset, maxBytes int, iso IsolationLevel) (*FetchResult, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, ErrClosed
	}
	active := l.segments[len(l.segments)-1]
	leo := active.nextOffset
	res := &FetchResult{HighWatermark: leo, LogStartOffset: l.logStartOffset}
	if l.highWatermark >= 0 && l.highWatermark < leo {
		res.HighWatermark = l.highWatermark
	}
	res.LastStableOffset = res.HighWatermark
	if err := l.ensureProducerState(); err != nil {
		l.mu.Unlock()
		return nil, err
	}
	if first, ok := l.pstate.firstUnstableOffset(); ok && first < res.LastStableOffset {
		res.LastStableOffset = first
	}
	if from < l.logStartOffset || from > leo {
		l.mu.Unlock()
		return nil, fmt.Errorf("%w: fetch offset %d of %s outside [log start offset %d, log end offset %d]", ErrOffsetOutOfRange, from, l.tp, l.logStartOffset, leo)
	}
	bound := res.HighWatermark
	if iso == ReadCommitted {
		bound = res.LastStableOffset
	}
	type part struct {
		s           *Segment
		start, size int64
	}
	var parts []part
	segs := l.segmentsInRange(from, bound)
	for i, s := range segs {
		p := part{s: s, size: s.size}
		if i == 0 {
			p.start = int64(s.ix.lookup(from))
		}
		parts = append(parts, p)
	}
	var aborted []AbortedTxn
	if iso == ReadCommitted {
		// Collected now, over [from, bound), from the segments read below;
		// cut to the fetched range afterwards (a subset of the same walk).
		aborted = collectAbortedTxns(l.segments, from, bound)
	}
	l.acquire(segs)
	l.mu.Unlock()
	defer l.release(segs)

	if maxBytes < 1 {
		maxBytes = 1
	}
	rd := getScanReader(min(max(maxBytes, 4<<10), 256<<10), max(l.cfg.MaxMessageBytes, 256<<10))
	defer putScanReader(rd)
	var last record.Offset = -1
read:
	for _, p := range parts {
		it := newBatchIter(rd, p.s.f, p.start, p.size)
		for {
			batch, pos, err := it.next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, err
			}
			h, err := p.s.header(batch, pos)
			if err != nil {
				return nil, err
			}
			if h.LastOffset() < from {
				continue
			}
			if h.LastOffset() >= bound || (len(res.Batches) > 0 && len(res.Batches)+len(batch) > maxBytes) {
				break read
			}
			res.Batches = append(res.Batches, batch...)
			last = h.LastOffset()
		}
	}
	if iso == ReadCommitted && last >= 0 {
		for _, a := range aborted {
			if a.FirstOffset <= last {
				res.AbortedTxns = append(res.AbortedTxns, a)
			}
		}
	}
	return res, nil
}

// ConsumerRecord is one record a Consumer delivers. Key, Value and Headers
// alias the fetched bytes and are valid only during the callback.
type ConsumerRecord struct {
	Offset     record.Offset
	Timestamp  int64
	Key, Value []byte // nil: null
	Headers    []byte // the encoded headers
	ProducerID int64
}

// Consumer reads a log from an offset as a Kafka consumer does (the
// Fetcher's CompletedFetch): control records are never delivered, records
// below its position are skipped, and with ReadCommitted the data batches
// of aborted transactions are skipped, by the aborted transactions each
// fetch returns: a transaction becomes aborted for its producer once the
// reader passes its first offset, until the producer's ABORT marker.
type Consumer struct {
	l        *Log
	iso      IsolationLevel
	pos      record.Offset
	maxBytes int
	dec      record.Decoder
}

// NewConsumer returns a consumer of l at offset from (the log start offset
// when from < 0) that fetches up to maxBytes per poll (at least one batch;
// 1 MiB when maxBytes <= 0).
func (l *Log) NewConsumer(from record.Offset, iso IsolationLevel, maxBytes int) *Consumer {
	if from < 0 {
		from = l.LogStartOffset()
	}
	if maxBytes <= 0 {
		maxBytes = 1 << 20
	}
	return &Consumer{l: l, iso: iso, pos: from, maxBytes: maxBytes}
}

// Position is the offset of the next record the consumer will fetch.
func (c *Consumer) Position() record.Offset { return c.pos }

// Poll fetches once and calls fn for every record delivered. It returns the
// number of batches fetched: 0 means the consumer has caught up with the
// bound (high watermark or last stable offset). fn's error stops the poll
// and is returned; the position is then that of the batch being delivered.
func (c *Consumer) Poll(fn func(r *ConsumerRecord) error) (batches int, err error) {
	res, err := c.l.Fetch(c.pos, c.maxBytes, c.iso)
	if err != nil {
		return 0, err
	}
	var pending abortedHeap
	for _, a := range res.AbortedTxns {
		heap.Push(&pending, a)
	}
	abortedProducers := map[int64]bool{}
	buf := res.Batches
	var cr ConsumerRecord
	var r record.Record
	for len(buf) > 0 {
		size, _, err := record.PeekBatch(buf)
		if err != nil {
			return batches, err
		}
		batch := buf[:size]
		buf = buf[size:]
		batches++
		h, it, err := c.dec.Records(batch)
		if err != nil {
			return batches, fmt.Errorf("engine: consume %s at offset %d: %w", c.l.tp, c.pos, err)
		}
		if c.iso == ReadCommitted && h.HasProducerID() {
			for pending.Len() > 0 && pending[0].FirstOffset <= h.LastOffset() {
				abortedProducers[heap.Pop(&pending).(AbortedTxn).ProducerID] = true
			}
			switch {
			case h.Attributes.Control() && isAbortMarker(it):
				delete(abortedProducers, h.ProducerID)
			case h.Attributes.Transactional() && abortedProducers[h.ProducerID]:
				c.pos = h.NextOffset()
				continue
			}
		}
		if h.Attributes.Control() {
			c.pos = h.NextOffset()
			continue
		}
		for {
			ok, err := it.Next(&r)
			if err != nil {
				return batches, fmt.Errorf("engine: consume %s at offset %d: %w", c.l.tp, c.pos, err)
			}
			if !ok {
				break
			}
			off := r.Offset(&h)
			if off < c.pos {
				continue
			}
			cr = ConsumerRecord{Offset: off, Timestamp: r.Timestamp(&h), Key: r.Key, Value: r.Value, Headers: r.Headers, ProducerID: h.ProducerID}
			if err := fn(&cr); err != nil {
				return batches, err
			}
		}
		c.pos = h.NextOffset()
	}
	return batches, nil
}

// isAbortMarker reports whether a control batch's first record is an ABORT
// (a copy of the iterator is used).
func isAbortMarker(it record.RecordIterator) bool {
	var r record.Record
	if ok, err := it.Next(&r); !ok || err != nil {
		return false
	}
	typ, err := record.ParseControlKey(r.Key)
	return err == nil && typ == record.ControlAbort
}

// ReadAll polls until the consumer has caught up, calling fn for every
// record delivered.
func (c *Consumer) ReadAll(fn func(r *ConsumerRecord) error) error {
	for {
		n, err := c.Poll(fn)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
	}
}

// ReadState reads the whole log with isolation level iso from the log start
// offset and returns each key's final state as a consumer sees it: the
// value of the key's last record, or absent when that record is a
// tombstone. Keyless records are ignored.
func (l *Log) ReadState(iso IsolationLevel) (map[string][]byte, error) {
	out := map[string][]byte{}
	c := l.NewConsumer(-1, iso, 0)
	err := c.ReadAll(func(r *ConsumerRecord) error {
		if r.Key == nil {
			return nil
		}
		if r.Value == nil {
			delete(out, string(r.Key))
			return nil
		}
		out[string(r.Key)] = append([]byte(nil), r.Value...)
		return nil
	})
	return out, err
}
