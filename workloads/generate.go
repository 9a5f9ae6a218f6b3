package workloads

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// appendChunkBytes is the most bytes Generate hands to one Log.Append call
// (fewer when segment.bytes is smaller): many batches per call, so the
// per-call costs (lock, header checks, write(2)) are paid once per MiB.
const appendChunkBytes = 1 << 20

// partitionLeaderEpoch is the leader epoch stamped on every batch, as a
// broker that has been leader since the partition was created would.
const partitionLeaderEpoch = 0

// Result describes what Generate wrote. Slices are indexed by partition.
type Result struct {
	// Dirs are the partition directories, root/<Topic>-<p>.
	Dirs []string
	// Truth is each partition's ground truth.
	Truth []*GroundTruth
	// Records is the number of records written, all partitions.
	Records int64
	// Tombstones is the number of tombstones written, all partitions.
	Tombstones int64
	// Batches is the number of batches written, all partitions.
	Batches int64
	// Bytes is the total size of the .log files written, in bytes.
	Bytes int64
	// CleanBytes and DirtyBytes are each partition's .log bytes of the clean
	// base and of the dirty head.
	CleanBytes, DirtyBytes []int64
	// FirstDirtyOffsets are the checkpointed first dirty offsets: the offset
	// of each head's first record (= the number of records in the base).
	FirstDirtyOffsets []int64
	// LogEndOffsets are the offsets after each partition's last record.
	LogEndOffsets []int64
	// Transactions and AbortedTransactions count the transactions written
	// and those of them that ended with ABORT, all partitions.
	Transactions, AbortedTransactions int64
	// AbortedRecords counts the records of aborted transactions.
	AbortedRecords int64
	// CheckpointPath is the cleaner-offset-checkpoint file written in root.
	CheckpointPath string
	// LogConfig is the config the logs were written with: Generate's cfg with
	// SegmentBytes set to the spec's. Open and clean the logs with it.
	LogConfig engine.LogConfig
}

// Generate writes the logs spec describes under root (created if missing):
// for each partition p the directory root/<Topic>-<p>, which must not exist
// yet, as a broker would have left a partly-cleaned compacted log:
//
//  1. the clean base: keys in a seeded random order (a Fisher-Yates draw from
//     the partition's PCG), each at most once, offsets contiguous from 0,
//     until its batches reach (1-DirtyRatio) x LogBytes/Partitions bytes;
//  2. a roll, so that the head starts on a segment boundary;
//  3. the dirty head: with transactions on (Txn.Ratio > 0), each batch
//     first draws whether it is transactional and, if so, its producer;
//     then each record's key is drawn by the spec's Distribution, then one
//     draw decides a tombstone (with probability TombstoneRatio), until its
//     batches reach DirtyRatio x LogBytes/Partitions; a transaction's marker
//     (one draw: ABORT with probability Txn.AbortRatio) follows its
//     Txn.BatchesPerTxn-th batch, and the transactions still open when the
//     head reaches its size are ended in producer order;
//  4. a roll, so that the active segment is empty and the whole head cleanable;
//
// then the cleaner-offset-checkpoint in root, with each partition's entry at
// its head's first offset. Batches of RecordsPerBatch records are appended
// about 1 MiB per Log.Append, split where a broker appending them one by one
// would roll a segment, so segments fill exactly as theirs would. With codec
// none each section ends on the first record that reaches its byte target;
// with a compressed codec, on the first whole batch that does (the markers
// that close the last transactions come after it). Key sizes, value sizes
// and value bytes are computed from the seed, not drawn from the PCG, and
// timestamps from the offset (Spec.Timestamp).
//
// cfg gives the log's other topic configs (segment.index.bytes,
// index.interval.bytes, ...); its SegmentBytes is replaced by
// spec.SegmentBytes. progress, if not nil, is called after each Append with
// the bytes written so far and the bytes planned (both over all partitions;
// done never exceeds total, and the last call has done == total).
//
// Errors: an invalid spec or config; a batch larger than cfg's
// max.message.bytes; a clean base that would need more keys than the spec
// has (the error says which key count, dirty ratio or log size would work);
// an existing partition directory; I/O errors. On error the partition
// directories this call created are removed.
func Generate(root string, spec Spec, cfg engine.LogConfig, progress func(done, total int64)) (*Result, error) {
	return GenerateContext(context.Background(), root, spec, cfg, progress)
}

// GenerateContext is Generate stopped by ctx: it checks ctx before each
// append (about 1 MiB) and, once ctx is done, returns an error wrapping
// ctx.Err() with the partition directories it created removed, and root
// too when this call created it (so an interrupted generate leaves nothing).
func GenerateContext(ctx context.Context, root string, spec Spec, cfg engine.LogConfig, progress func(done, total int64)) (res *Result, err error) {
	if _, serr := os.Stat(root); errors.Is(serr, os.ErrNotExist) {
		defer func() {
			if err != nil && ctx.Err() != nil {
				os.RemoveAll(root)
			}
		}()
	}
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	cfg.SegmentBytes = spec.SegmentBytes
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("workloads: log config: %w", err)
	}
	if b := spec.maxBatchBytes(); b > int64(cfg.MaxMessageBytes) {
		// Kafka's max.message.bytes bounds a batch; the cleaner's buffers grow no further.
		return nil, fmt.Errorf("workloads: a batch of %d records takes up to %d bytes, more than max.message.bytes %d: lower records per batch or the key or value size",
			spec.RecordsPerBatch, b, cfg.MaxMessageBytes)
	}
	if err := spec.checkReachable(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("workloads: create %s: %w", root, err)
	}
	// A failed generation leaves root as it found it: the partition
	// directories it made go (below), and so do the log directory's own
	// files (.lock, the checkpoints) that opening the logs created.
	before, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("workloads: read %s: %w", root, err)
	}
	defer func() {
		if err != nil {
			removeNewRootFiles(root, before)
		}
	}()
	res = &Result{LogConfig: cfg}
	for p := 0; p < spec.Partitions; p++ {
		dir := filepath.Join(root, fmt.Sprintf("%s-%d", spec.Topic, p))
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			if err == nil {
				err = os.ErrExist
			}
			return nil, fmt.Errorf("workloads: partition directory %s: %w; generate into a fresh directory", dir, err)
		}
		res.Dirs = append(res.Dirs, dir)
	}

	clean, dirty := spec.partitionTargets()
	g := &generator{
		spec:       &spec,
		cfg:        cfg,
		chunkLimit: int(min(int64(appendChunkBytes), spec.SegmentBytes)),
		keySize:    spec.keySizer(),
		valueSize:  spec.valueSizer(),
		total:      (clean + dirty) * int64(spec.Partitions),
		progress:   progress,
		ctx:        ctx,
	}
	g.key = make([]byte, g.keySize.max)
	g.value = make([]byte, g.valueSize.max)
	g.chunk = make([]byte, 0, g.chunkLimit+int(spec.maxBatchBytes()))
	for p := range spec.Partitions {
		if err := g.partition(res, p, res.Dirs[p], clean, dirty); err != nil {
			for _, dir := range res.Dirs[:p+1] {
				os.RemoveAll(dir)
			}
			return nil, err
		}
	}

	res.CheckpointPath = engine.CheckpointPath(res.Dirs[0])
	entries, err := engine.ReadCheckpoint(nil, res.CheckpointPath)
	if err == nil {
		for p, off := range res.FirstDirtyOffsets {
			entries[engine.TopicPartition{Topic: spec.Topic, Partition: int32(p)}] = record.Offset(off)
		}
		err = engine.WriteCheckpoint(nil, res.CheckpointPath, entries)
	}
	if err != nil {
		for _, dir := range res.Dirs {
			os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("workloads: write checkpoint %s: %w", res.CheckpointPath, err)
	}
	if progress != nil {
		progress(g.total, g.total)
	}
	return res, nil
}

// removeNewRootFiles removes the plain files of root that are not in before
// (root's entries when generation began). Directories are left: the
// partition directories are removed by name where they fail.
func removeNewRootFiles(root string, before []os.DirEntry) {
	had := make(map[string]bool, len(before))
	for _, e := range before {
		had[e.Name()] = true
	}
	after, _ := os.ReadDir(root)
	for _, e := range after {
		if !had[e.Name()] && !e.IsDir() {
			os.Remove(filepath.Join(root, e.Name()))
		}
	}
}

// generator writes partitions one after the other, reusing its buffers.
type generator struct {
	ctx        context.Context
	spec       *Spec
	cfg        engine.LogConfig
	chunkLimit int
	keySize    sizer
	valueSize  sizer

	log     *engine.Log
	rng     *rand.PCG
	vseed   uint64
	truth   *GroundTruth
	builder record.Builder
	key     []byte
	value   []byte
	recs    []byte // encoded records of the open batch
	n       int    // records in the open batch
	base    int64  // base offset of the open batch
	off     int64  // offset of the next record
	chunk   []byte // finished batches not yet appended
	segSize int64  // bytes appended to the active segment since it was rolled

	// Transactions: the producer of the open batch (-1: none) and each
	// producer's state.
	producer  int
	producers []txnProducer
	marker    []byte // scratch for a marker's key and value

	written  int64 // bytes of finished batches of the current section
	batches  int64
	txns     int64
	aborts   int64
	abortRec int64
	done     int64 // bytes appended, all partitions
	total    int64
	progress func(done, total int64)
}

// partition writes partition p into dir.
func (g *generator) partition(res *Result, p int, dir string, cleanTarget, dirtyTarget int64) (err error) {
	s := g.spec
	g.log, err = engine.Open(dir, engine.Options{Config: &g.cfg, Create: true})
	if err != nil {
		return fmt.Errorf("workloads: %w", err)
	}
	defer func() {
		if cerr := g.log.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("workloads: close %s: %w", dir, cerr)
		}
		g.log = nil
	}()
	g.rng = newPartitionRand(s.Seed, p)
	g.vseed = valueSeed(s.Seed, p)
	g.segSize, g.batches, g.txns, g.aborts, g.abortRec = 0, 0, 0, 0, 0
	g.producer = -1
	g.truth = newGroundTruth(s, p)
	truth := g.truth
	kp := uint64(truth.Keys())

	// 1. The clean base: the first records of a Fisher-Yates shuffle of the
	// partition's keys, drawn one by one.
	perm := make([]uint32, kp)
	for i := range perm {
		perm[i] = uint32(i)
	}
	g.written, g.off = 0, 0
	for i := uint64(0); ; i++ {
		if i == kp {
			return errUnreachable("workloads: dirty ratio %v is unreachable with %d keys and codec %v: partition %d's %d keys, each written once, "+
				"compress to %d bytes of clean base, short of the %d bytes wanted; use more keys, a higher dirty ratio or fewer log bytes",
				s.DirtyRatio, s.Keys, s.Codec, p, kp, g.written, cleanTarget)
		}
		k := i + drawBelow(g.rng, kp-i)
		perm[i], perm[k] = perm[k], perm[i]
		j := uint64(perm[i])
		g.add(truth.KeyID(int64(j)), false)
		truth.set(j, g.off, false)
		g.off++
		if done, err := g.sectionDone(cleanTarget); err != nil {
			return err
		} else if done {
			break
		}
	}
	perm = nil
	cleanBytes := g.written

	// 2. Roll: the head starts a segment.
	if err := g.flush(); err != nil {
		return err
	}
	if err := g.log.Roll(); err != nil {
		return fmt.Errorf("workloads: roll %s: %w", dir, err)
	}
	g.segSize = 0
	firstDirty := g.off

	// 3. The dirty head.
	g.written = 0
	g.resetProducers()
	choose := newKeyChooser(s, kp)
	var tombstones int64
	for {
		if g.n == 0 && s.Txn.Ratio > 0 {
			g.producer = -1
			if drawUnit(g.rng) < s.Txn.Ratio {
				g.producer = int(drawBelow(g.rng, uint64(s.Txn.Producers)))
			}
		}
		j := choose.next(g.rng)
		tomb := drawUnit(g.rng) < s.TombstoneRatio
		g.add(truth.KeyID(int64(j)), tomb)
		if g.producer >= 0 {
			pr := &g.producers[g.producer]
			pr.pending = append(pr.pending, pendingWrite{j: j, off: g.off, tomb: tomb})
		} else {
			truth.set(j, g.off, tomb)
		}
		if tomb {
			tombstones++
		}
		g.off++
		if done, err := g.sectionDone(dirtyTarget); err != nil {
			return err
		} else if done {
			break
		}
	}
	if err := g.endOpenTxns(); err != nil {
		return err
	}
	truth.sortAborted()

	// 4. Roll: the active segment is empty, the whole head cleanable.
	if err := g.flush(); err != nil {
		return err
	}
	if err := g.log.Roll(); err != nil {
		return fmt.Errorf("workloads: roll %s: %w", dir, err)
	}

	off := g.off
	truth.FirstDirtyOffset, truth.LogEndOffset = firstDirty, off
	res.Truth = append(res.Truth, truth)
	res.Records += off - g.txns // every offset is a record, but for the markers
	res.Tombstones += tombstones
	res.Batches += g.batches
	res.Transactions += g.txns
	res.AbortedTransactions += g.aborts
	res.AbortedRecords += g.abortRec
	res.Bytes += cleanBytes + g.written
	res.CleanBytes = append(res.CleanBytes, cleanBytes)
	res.DirtyBytes = append(res.DirtyBytes, g.written)
	res.FirstDirtyOffsets = append(res.FirstDirtyOffsets, firstDirty)
	res.LogEndOffsets = append(res.LogEndOffsets, off)
	return nil
}

// add encodes the record at offset g.off with key id into the open batch;
// its timestamp is Spec.Timestamp(g.off), its key and value sizes those
// the seed gives the key id and the offset.
func (g *generator) add(id int64, tombstone bool) {
	if g.n == 0 {
		g.base = g.off
		g.recs = g.recs[:0]
	}
	s := g.spec
	key := g.key[:g.keySize.size(s.Seed, uint64(id))]
	fillKey(key, uint64(id))
	r := record.Record{
		TimestampDelta: s.Timestamp(g.off) - s.Timestamp(g.base),
		OffsetDelta:    int32(g.off - g.base),
		Key:            key,
	}
	if !tombstone {
		r.Value = g.value[:g.valueSize.size(g.vseed, uint64(g.off))]
		fillValue(r.Value, g.vseed, g.off)
	}
	g.recs = record.AppendRecord(g.recs, &r)
	g.n++
}

// sectionDone closes the open batch when it is full, or, with codec none,
// when it takes the section to target bytes; it reports whether the section
// has reached target.
func (g *generator) sectionDone(target int64) (bool, error) {
	switch {
	case g.n == g.spec.RecordsPerBatch:
		if err := g.closeBatch(); err != nil {
			return false, err
		}
		return g.written >= target, nil
	case g.spec.Codec == record.CodecNone && g.written+int64(record.BatchHeaderSize+len(g.recs)) >= target:
		return true, g.closeBatch()
	}
	return false, nil
}

// closeBatch finishes the open batch into the chunk; a transactional one
// may end its transaction with a marker.
func (g *generator) closeBatch() error {
	s := g.spec
	h := record.BatchHeader{
		BaseOffset:           record.Offset(g.base),
		PartitionLeaderEpoch: partitionLeaderEpoch,
		Attributes:           record.Attributes(s.Codec),
		LastOffsetDelta:      int32(g.n - 1),
		BaseTimestamp:        s.Timestamp(g.base),
		MaxTimestamp:         s.Timestamp(g.base + int64(g.n-1)),
		ProducerID:           record.NoProducerID,
		ProducerEpoch:        record.NoProducerEpoch,
		BaseSequence:         record.NoSequence,
	}
	var pr *txnProducer
	if g.producer >= 0 {
		pr = &g.producers[g.producer]
		h.Attributes |= record.AttrTransactional
		h.ProducerID = FirstProducerID + int64(g.producer)
		h.ProducerEpoch = producerEpoch
		h.BaseSequence = pr.seq
		pr.seq = incrementSequence(pr.seq, int32(g.n))
		pr.batches = append(pr.batches, offsetRange{g.base, g.base + int64(g.n-1)})
	}
	g.builder.Reset(h)
	g.builder.AppendRaw(g.recs, int32(g.n))
	g.n = 0
	if err := g.finish(); err != nil {
		return err
	}
	if pr != nil && len(pr.batches) == s.Txn.BatchesPerTxn {
		return g.endTxn(g.producer)
	}
	return nil
}

// finish encodes the builder's batch at the end of the chunk, first
// appending the chunk to the log when the batch would take the active
// segment past segment.bytes (the next Append then rolls, as a broker's
// would) or the chunk past its limit.
func (g *generator) finish() error {
	start := len(g.chunk)
	var err error
	g.chunk, err = g.builder.Finish(g.chunk)
	if err != nil {
		return fmt.Errorf("workloads: encode batch at offset %d: %w", g.builder.Header().BaseOffset, err)
	}
	size := len(g.chunk) - start
	g.written += int64(size)
	g.batches++

	rolls := g.segSize+int64(start)+int64(size) > g.spec.SegmentBytes && g.segSize+int64(start) > 0
	if rolls || (start+size > g.chunkLimit && start > 0) {
		if err := g.appendChunk(g.chunk[:start]); err != nil {
			return err
		}
		if rolls {
			g.segSize = 0
		}
		g.chunk = g.chunk[:copy(g.chunk, g.chunk[start:])]
	}
	return nil
}

// flush appends the chunk to the log.
func (g *generator) flush() error {
	err := g.appendChunk(g.chunk)
	g.chunk = g.chunk[:0]
	return err
}

func (g *generator) appendChunk(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := g.ctx.Err(); err != nil {
		return fmt.Errorf("workloads: generate stopped after %d of %d bytes: %w", g.done, g.total, err)
	}
	if err := g.log.Append(b); err != nil {
		return fmt.Errorf("workloads: %w", err)
	}
	g.segSize += int64(len(b))
	g.done += int64(len(b))
	if g.progress != nil {
		g.progress(min(g.done, g.total), g.total)
	}
	return nil
}
