package engine

import (
	"fmt"
	"sync/atomic"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// outQueue is CleanerConfig.ParallelRecompress: a rebuilt batch of a
// compressed topic is compressed on a goroutine of its own (a job, with a
// record.Builder and compressors of its own) while the cleaner filters the
// next batches, and the copy's output is emitted in the order the
// sequential copy emits it. While any job is in flight, every output event
// (a source batch's start, for Kafka's appends, and an output batch) waits
// in a ring, a batch's bytes copied into its slot's buffer; the head of
// the ring is emitted as soon as it is ready (its job compressed), and at
// the latest when the ring's slots, its byte budget (outRingBytes) or the
// jobs run out, and at the end of each source segment. Its memory: the
// jobs' builders and outputs, and the slots' buffers, each kept up to
// outSlotKeepSize, the batches queued at most outRingBytes. With nothing in flight events go straight through,
// exactly as without the setting. When the cleaner needs a job whose
// goroutine has not started (no core free), it compresses the batch itself
// (as the write-behind Writer does). The bytes, the index entries and the
// counts are the sequential copy's.
type outQueue struct {
	on    bool
	dest  *Segment
	stats *CleanStats
	c     *Cleaner

	ring       [outRingSlots]outEvent
	head, size int
	bytes      int              // of the outBatch events queued
	free       []*recompressJob // jobs not in flight
	jobs       []*recompressJob // all jobs, allocated once
	// beforeJob, when set (tests), is called by each job's goroutine
	// before it claims its job.
	beforeJob func()
}

// Events in flight at most; bytes of batches copied into the ring at most
// (past them the head is emitted, waiting for its job); the largest buffer
// a slot keeps for its next use (a larger one is let go once emitted); and
// jobs (batches compressing at once).
const (
	outRingSlots    = 256
	outRingBytes    = 4 << 20
	outSlotKeepSize = 256 << 10
	outJobs         = 4
)

// outEventKind is what one outEvent emits.
type outEventKind uint8

const (
	outSource outEventKind = iota // cleanedAppends.sourceBatch(pos, size)
	outBatch                      // buf, an output batch
	outJob                        // job's compressed batch
)

// outEvent is one slot of the ring. buf is the slot's own buffer, kept
// across uses.
type outEvent struct {
	kind      outEventKind
	pos, size int64         // outSource; pos is also an outJob's source batch
	maxOffset record.Offset // outBatch, outJob: what filterTo counts
	buf       []byte
	job       *recompressJob
}

// recompressJob is one rebuilt batch compressed on its own goroutine. A
// job is used again and again: gen numbers its uses, so that a goroutine
// of an earlier use that lost its claim to settle, running late, cannot
// claim a later one.
type recompressJob struct {
	b      record.Builder
	out    []byte
	err    error
	inline bool   // compressed by the cleaner itself (settle)
	gen    uint64 // this use (the cleaner's side)
	// state is gen<<1 for a use not claimed yet, gen<<1|1 once claimed;
	// finished is the last use its goroutine compressed, which then sends
	// on done (capacity 1), received by settle.
	state    atomic.Uint64
	finished atomic.Uint64
	done     chan struct{}
}

// reuse readies the job for its next use.
func (j *recompressJob) reuse() {
	if j.done == nil {
		j.done = make(chan struct{}, 1)
	}
	j.gen++
	j.state.Store(j.gen << 1)
	j.inline, j.err = false, nil
}

// run is the goroutine of use gen: it compresses unless the cleaner
// claimed the use first. before (nil: none) is the queue's test hook.
func (j *recompressJob) run(gen uint64, before func()) {
	if before != nil {
		before()
	}
	if j.state.CompareAndSwap(gen<<1, gen<<1|1) {
		j.out, j.err = j.b.Finish(j.out[:0])
		j.finished.Store(gen)
		j.done <- struct{}{}
	}
}

// settle returns once the current use is compressed: by its goroutine,
// waited for, or by the caller at once when the goroutine has not claimed
// it.
func (j *recompressJob) settle() {
	if j.state.CompareAndSwap(j.gen<<1, j.gen<<1|1) {
		j.out, j.err = j.b.Finish(j.out[:0])
		j.inline = true
		return
	}
	<-j.done
}

// ready reports whether the goroutine has compressed the current use,
// without waiting (settle then returns at once).
func (j *recompressJob) ready() bool { return j.finished.Load() == j.gen }

// startSegment begins the copy of one source segment into dest.
func (q *outQueue) startSegment(c *Cleaner, dest *Segment, stats *CleanStats) {
	q.c, q.dest, q.stats, q.on = c, dest, stats, c.cfg.ParallelRecompress
	if q.on && q.jobs == nil {
		for range outJobs {
			q.jobs = append(q.jobs, &recompressJob{})
		}
		q.free = append(q.free[:0], q.jobs...)
	}
}

// builder returns the Builder for a batch rebuilt with header nh, and the
// job it belongs to: a free job's when the setting is on and nh's codec
// compresses (the queue emitting its head until a job is free), else the
// cleaner's own and nil.
func (q *outQueue) builder(nh *record.BatchHeader) (*record.Builder, *recompressJob, error) {
	if !q.on || nh.Attributes.Codec() == record.CodecNone {
		return &q.c.builder, nil, nil
	}
	for len(q.free) == 0 {
		if err := q.emitHead(); err != nil {
			return nil, nil, err
		}
	}
	j := q.free[len(q.free)-1]
	q.free = q.free[:len(q.free)-1]
	j.reuse()
	return &j.b, j, nil
}

// release returns a job that was not started (its batch failed to
// rebuild) to the free ones.
func (q *outQueue) release(j *recompressJob) { q.free = append(q.free, j) }

// source is cleanedAppends.sourceBatch, in order with the output.
func (q *outQueue) source(pos, size int64) error {
	if q.size == 0 {
		q.c.appends.sourceBatch(q.dest, pos, size)
		return nil
	}
	e, err := q.push()
	if err != nil {
		return err
	}
	e.kind, e.pos, e.size = outSource, pos, size
	return nil
}

// batch emits one output batch (parsed header h), in order with the jobs
// in flight: at once when none is, else copied into the ring.
func (q *outQueue) batch(h *record.BatchHeader, b []byte, maxOffset record.Offset) error {
	if q.size == 0 {
		return q.c.emit(q.dest, h, b, maxOffset, q.stats)
	}
	for q.size > 0 && q.bytes+len(b) > outRingBytes {
		if err := q.emitHead(); err != nil {
			return err
		}
	}
	if q.size == 0 {
		return q.c.emit(q.dest, h, b, maxOffset, q.stats)
	}
	e, err := q.push()
	if err != nil {
		return err
	}
	e.kind, e.maxOffset, e.buf = outBatch, maxOffset, append(e.buf[:0], b...)
	q.bytes += len(b)
	return nil
}

// compress starts job (its Builder filled) and queues its output, of the
// source batch at pos.
func (q *outQueue) compress(job *recompressJob, pos int64, maxOffset record.Offset) error {
	e, err := q.push()
	if err != nil {
		return err
	}
	e.kind, e.pos, e.maxOffset, e.job = outJob, pos, maxOffset, job
	go job.run(job.gen, q.beforeJob)
	return nil
}

// push returns a fresh slot at the ring's tail, emitting the head first
// when the ring is full, and whatever is ready at the head.
func (q *outQueue) push() (*outEvent, error) {
	for q.size > 0 && q.headReady() {
		if err := q.emitHead(); err != nil {
			return nil, err
		}
	}
	if q.size == outRingSlots {
		if err := q.emitHead(); err != nil {
			return nil, err
		}
	}
	e := &q.ring[(q.head+q.size)%outRingSlots]
	q.size++
	e.job = nil
	return e, nil
}

// headReady reports whether the head event can be emitted without waiting.
func (q *outQueue) headReady() bool {
	e := &q.ring[q.head]
	return e.kind != outJob || e.job.ready()
}

// emitHead emits the head event, waiting for its job (the callers that
// must not wait made sure it is ready: headReady).
func (q *outQueue) emitHead() error {
	e := &q.ring[q.head]
	q.head = (q.head + 1) % outRingSlots
	q.size--
	switch e.kind {
	case outSource:
		q.c.appends.sourceBatch(q.dest, e.pos, e.size)
		return nil
	case outBatch:
		q.bytes -= len(e.buf)
		buf := e.buf
		if cap(e.buf) > outSlotKeepSize {
			e.buf = nil
		}
		h, err := record.ParseHeader(buf)
		if err != nil {
			return fmt.Errorf("engine: output batch for %s: %w", q.dest.f.Name(), err)
		}
		return q.c.emit(q.dest, &h, buf, e.maxOffset, q.stats)
	}
	j := e.job
	j.settle()
	if j.inline {
		q.stats.IO.RecompressInline++
	}
	q.stats.IO.Recompressed++
	q.free = append(q.free, j)
	e.job = nil
	if j.err != nil {
		return fmt.Errorf("engine: rebuild batch from byte %d for %s: %w", e.pos, q.dest.f.Name(), j.err)
	}
	oh, err := record.ParseHeader(j.out)
	if err != nil {
		return fmt.Errorf("engine: rebuilt batch from byte %d for %s: %w", e.pos, q.dest.f.Name(), err)
	}
	return q.c.emit(q.dest, &oh, j.out, e.maxOffset, q.stats)
}

// drain emits every event in order.
func (q *outQueue) drain() error {
	for q.size > 0 {
		if err := q.emitHead(); err != nil {
			return err
		}
	}
	return nil
}

// abandon drops every event after an error, waiting for the jobs in flight
// so that none still writes its buffers when they are reused.
func (q *outQueue) abandon() {
	q.bytes = 0
	for ; q.size > 0; q.size-- {
		e := &q.ring[q.head]
		q.head = (q.head + 1) % outRingSlots
		if e.kind == outJob {
			e.job.settle()
			q.free = append(q.free, e.job)
			e.job = nil
		}
	}
	q.head = 0
}
