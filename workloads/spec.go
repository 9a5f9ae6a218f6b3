package workloads

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// KeyPrefix starts every generated key; the rest of the key is the key id in
// decimal, zero-padded so that the key is exactly Spec.KeyBytes long
// ("k000000000000042" for id 42 and 16 bytes).
const KeyPrefix = "k"

// DistributionUniform picks every key of a dirty-head write with equal
// probability.
const DistributionUniform = "uniform"

// Distributions lists the Distribution values Validate accepts.
var Distributions = []string{DistributionUniform, DistributionZipfian, DistributionLatest, DistributionSequential, DistributionHotCold}

// DefaultStartTimeMs is the CreateTime of the first record when Spec.StartTimeMs
// is left at its default: 2023-11-14T22:13:20Z, fixed so that the same seed
// gives the same bytes.
const DefaultStartTimeMs int64 = 1_700_000_000_000

// Limits of a Spec, beyond which Validate refuses it.
const (
	// MaxKeys bounds Keys: the ground truth keeps 8 bytes per key, and the
	// generator's key permutation 4 bytes per key (uint32 ids).
	MaxKeys = math.MaxUint32
	// MaxPartitions bounds Partitions.
	MaxPartitions = 1 << 16
	// MaxRecordsPerBatch bounds RecordsPerBatch.
	MaxRecordsPerBatch = 1 << 20
	// MaxProducers bounds Txn.Producers.
	MaxProducers = 1 << 16
	// MaxRecordsPerSecond bounds RecordsPerSecond: a million records per ms.
	MaxRecordsPerSecond = 1_000_000_000
	// maxTopicLength is Kafka's limit on topic names (Topic.MAX_NAME_LENGTH).
	maxTopicLength = 249
)

// Spec describes one workload: the keys, the records, the log's shape and the
// seed. Start from DefaultSpec. Keys are split over partitions as a key-hash
// partitioner would: key id i belongs to partition i mod Partitions; LogBytes
// is shared out evenly, so each partition holds about LogBytes/Partitions
// bytes of the same cleanable ratio.
type Spec struct {
	// Keys is the key cardinality of the topic: key ids 0 .. Keys-1, split
	// over the partitions. Default 2,000,000: the clean base holds each key at
	// most once, and at the default sizes (about 129 bytes per record) 1,000,000
	// keys fill only 123 MiB, short of the 128 MiB base of a 256 MiB log at
	// dirty ratio 0.5; 2,000,000 keys reach dirty ratios down to 0.05.
	Keys int64
	// KeyBytes is the size of every key in bytes (the median when KeySize is
	// lognormal; unused when it is uniform): KeyPrefix followed by the
	// zero-padded decimal key id. Every key must be able to hold its id
	// (len(KeyPrefix) + digits of Keys-1): Validate refuses a smaller fixed
	// size, and drawn sizes below it are raised to it. Default 16.
	KeyBytes int
	// KeySize is how key sizes are drawn: each key id has one size, computed
	// from the seed and the id. Default fixed (KeyBytes).
	KeySize SizeDist
	// ValueBytes is the size of every non-null value in bytes (the median
	// when ValueSize is lognormal; unused when it is uniform); the bytes are
	// pseudo-random (incompressible), computed from the seed, the partition
	// and the record's offset (see GroundTruth.AppendValue). 0 writes empty
	// values, which are not tombstones. Default 100.
	ValueBytes int
	// ValueSize is how value sizes are drawn: computed from the seed, the
	// partition and the record's offset. Default fixed (ValueBytes).
	ValueSize SizeDist
	// TombstoneRatio is the share of dirty-head writes that are tombstones
	// (null values), in [0, 1]. The clean base holds no tombstones. Default 0.
	TombstoneRatio float64
	// DirtyRatio is the cleanable ratio the generated log is to have, in (0, 1):
	// the dirty head takes about DirtyRatio x LogBytes and the clean base the
	// rest. Default 0.5.
	DirtyRatio float64
	// SegmentBytes is the segment.bytes the log is written with, in bytes; it
	// overrides the LogConfig given to Generate. Default 64 MiB.
	SegmentBytes int64
	// LogBytes is the approximate total of the .log files over all
	// partitions, in bytes (index files not counted). Default 256 MiB.
	LogBytes int64
	// RecordsPerBatch is the number of records in each batch (the last batch
	// of the base and of the head may hold fewer). Default 16.
	RecordsPerBatch int
	// Codec compresses every batch. Values are incompressible, so only the
	// keys and record framing shrink. Default record.CodecNone.
	Codec record.Codec
	// Seed drives every random choice (key order of the base, keys,
	// tombstones and transactions of the head), the key and value sizes and
	// the value bytes. Default 1.
	Seed uint64
	// Distribution names how dirty-head writes pick their keys: "uniform",
	// "zipfian" (YCSB's scrambled Zipfian), "latest", "sequential" or
	// "hotcold" (see distribution.go). Default "uniform".
	Distribution string
	// ZipfConstant is the skew of zipfian and latest, in (0, 1): YCSB's
	// zipfian constant, P(rank i) about (i+1)^-ZipfConstant. Default 0.99,
	// YCSB's.
	ZipfConstant float64
	// HotKeyShare is hotcold's share of the keys that are hot, in (0, 1).
	// Default 0.1.
	HotKeyShare float64
	// HotWriteShare is hotcold's share of the writes that go to hot keys, in
	// [0, 1]. Default 0.9.
	HotWriteShare float64
	// StartTimeMs is the CreateTime of offset 0, in ms since the epoch.
	// Default DefaultStartTimeMs (fixed, so that a seed gives fixed bytes).
	StartTimeMs int64
	// RecordsPerSecond is the rate at which timestamps advance: the record
	// at offset o has timestamp StartTimeMs + floor(o x 1000 /
	// RecordsPerSecond), so that min.compaction.lag.ms, segment.ms and the
	// delete horizon see a log written over a known span of time. Default
	// 1000 (1 ms per record).
	RecordsPerSecond int64
	// Txn is the transactional share of the dirty head. Default none.
	Txn TxnSpec
	// Topic names the partition directories (<Topic>-<partition>) and the
	// checkpoint entries. Default "cleanerlab".
	Topic string
	// Partitions is the number of partitions generated. Default 1.
	Partitions int
}

// TxnSpec is the transactional share of the dirty head: producers with
// their own producer ids write some of the head's batches inside
// transactions, each ended by a COMMIT or ABORT control batch (a
// transaction marker) at the next offset after its last batch. Open
// transactions of different producers interleave with each other and with
// the non-transactional batches. Only committed records count in the ground
// truth; aborted ones must never be taken as a key's latest value. The head
// ends with every transaction closed, so the last stable offset is the log
// end offset.
type TxnSpec struct {
	// Ratio is the share of the dirty head's data batches written inside
	// transactions, in [0, 1]. Default 0 (no transactions).
	Ratio float64
	// AbortRatio is the share of transactions that end with ABORT rather
	// than COMMIT, in [0, 1]. Default 0.
	AbortRatio float64
	// Producers is the number of transactional producers, with producer ids
	// FirstProducerID, FirstProducerID+1, ..., epoch 0; each batch of a
	// transaction is drawn from one of them uniformly. Default 4.
	Producers int
	// BatchesPerTxn is the number of data batches a transaction holds before
	// its marker (the transactions still open when the head ends hold
	// fewer). Default 4.
	BatchesPerTxn int
}

// FirstProducerID is the producer id of the first transactional producer.
const FirstProducerID int64 = 1000

// DefaultSpec returns the defaults documented on Spec's fields.
func DefaultSpec() Spec {
	return Spec{
		Keys:             2_000_000,
		KeyBytes:         16,
		KeySize:          SizeDist{Dist: SizeFixed},
		ValueBytes:       100,
		ValueSize:        SizeDist{Dist: SizeFixed},
		TombstoneRatio:   0,
		DirtyRatio:       0.5,
		SegmentBytes:     64 << 20,
		LogBytes:         256 << 20,
		RecordsPerBatch:  16,
		Codec:            record.CodecNone,
		Seed:             1,
		Distribution:     DistributionUniform,
		ZipfConstant:     ycsbZipfConstant,
		HotKeyShare:      0.1,
		HotWriteShare:    0.9,
		StartTimeMs:      DefaultStartTimeMs,
		RecordsPerSecond: 1000,
		Txn:              TxnSpec{Producers: 4, BatchesPerTxn: 4},
		Topic:            "cleanerlab",
		Partitions:       1,
	}
}

// keyDigits is the number of decimal digits of the largest key id.
func (s *Spec) keyDigits() int {
	return len(strconv.FormatInt(max(s.Keys-1, 0), 10))
}

// keyFloor is the smallest key size: KeyPrefix and the digits of the
// largest key id.
func (s *Spec) keyFloor() int { return len(KeyPrefix) + s.keyDigits() }

// Salts that set key sizes and value sizes apart in the size hashes.
const (
	keySizeSalt   = 0x6B65792D73697A65 // "key-size"
	valueSizeSalt = 0x76616C2D73697A65 // "val-size"
)

// keySizer and valueSizer resolve KeySize and ValueSize.
func (s *Spec) keySizer() sizer { return newSizer(s.KeySize, s.KeyBytes, s.keyFloor(), keySizeSalt) }
func (s *Spec) valueSizer() sizer {
	return newSizer(s.ValueSize, s.ValueBytes, 0, valueSizeSalt)
}

// validSize checks a size distribution of the field named what.
func validSize(what string, d SizeDist) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("workloads: %s size %s: "+format, append([]any{what, d}, args...)...)
	}
	const limit = math.MaxInt32 / 4
	switch d.Dist {
	case "", SizeFixed:
		return nil
	case SizeUniform:
		if d.Min < 0 || d.Max < d.Min || d.Max > limit {
			return bad("want 0 <= min <= max <= %d", limit)
		}
	case SizeLogNormal:
		if !(d.Sigma > 0 && d.Sigma <= 10) {
			return bad("sigma %v out of range (0, 10]", d.Sigma)
		}
		if d.Min < 0 || (d.Max != 0 && d.Max < d.Min) || d.Max > limit {
			return bad("want 0 <= min <= max <= %d (max 0: median x e^(4 sigma))", limit)
		}
	default:
		return fmt.Errorf("workloads: %s size distribution %q unknown (valid: fixed, uniform, lognormal)", what, d.Dist)
	}
	return nil
}

// Validate returns an error naming the first field out of range and the range.
func (s *Spec) Validate() error {
	if err := s.validateShape(); err != nil {
		return err
	}
	// The clean base must reach its size with each key at most once.
	return s.checkReachable()
}

// validateShape is Validate without the clean base's reachability, which
// a Stream (no base) does not need.
func (s *Spec) validateShape() error {
	// bad is an *engine.ConfigError of the setting at fault, by its flag
	// name (lab.Settings), so that a caller can say where it was given.
	bad := func(setting, format string, args ...any) error {
		return &engine.ConfigError{Config: setting, Err: fmt.Errorf("workloads: "+format, args...)}
	}
	switch {
	case s.Keys < 1 || s.Keys > MaxKeys:
		return bad("keys", "keys %d out of range [1, %d]", s.Keys, int64(MaxKeys))
	case s.Partitions < 1 || s.Partitions > MaxPartitions:
		return bad("partitions", "partitions %d out of range [1, %d]", s.Partitions, MaxPartitions)
	case s.Keys < int64(s.Partitions):
		return bad("keys", "keys %d is fewer than partitions %d: some partition would have no key", s.Keys, s.Partitions)
	case s.KeySize.IsFixed() && s.KeyBytes < s.keyFloor():
		return bad("key-bytes", "key bytes %d cannot hold %d distinct keys: need %d (prefix %q + %d digits)",
			s.KeyBytes, s.Keys, s.keyFloor(), KeyPrefix, s.keyDigits())
	case s.KeyBytes < 0 || s.KeyBytes > math.MaxInt32/4:
		return bad("key-bytes", "key bytes %d out of range [0, %d]", s.KeyBytes, math.MaxInt32/4)
	case s.ValueBytes < 0 || s.ValueBytes > math.MaxInt32/4:
		return bad("value-bytes", "value bytes %d out of range [0, %d]", s.ValueBytes, math.MaxInt32/4)
	case !(s.TombstoneRatio >= 0 && s.TombstoneRatio <= 1):
		return bad("tombstone-ratio", "tombstone ratio %v out of range [0, 1]", s.TombstoneRatio)
	case !(s.DirtyRatio > 0 && s.DirtyRatio < 1):
		return bad("dirty-ratio", "dirty ratio %v out of range (0, 1)", s.DirtyRatio)
	case s.SegmentBytes < 1 || s.SegmentBytes > math.MaxInt32:
		return bad("segment.bytes", "segment bytes %d out of range [1, %d]", s.SegmentBytes, math.MaxInt32)
	case s.LogBytes < 1:
		return bad("log-bytes", "log bytes %d must be positive", s.LogBytes)
	case s.RecordsPerBatch < 1 || s.RecordsPerBatch > MaxRecordsPerBatch:
		return bad("records-per-batch", "records per batch %d out of range [1, %d]", s.RecordsPerBatch, MaxRecordsPerBatch)
	case s.Codec < record.CodecNone || s.Codec > record.CodecZstd:
		return bad("compression", "codec %v unknown (want none, gzip, snappy, lz4 or zstd)", s.Codec)
	case !slices.Contains(Distributions, s.Distribution):
		return bad("distribution", "unknown distribution %q (valid: %s)", s.Distribution, strings.Join(Distributions, ", "))
	case !(s.ZipfConstant > 0 && s.ZipfConstant < 1):
		return bad("zipf-constant", "zipf constant %v out of range (0, 1)", s.ZipfConstant)
	case !(s.HotKeyShare > 0 && s.HotKeyShare < 1):
		return bad("hot-key-share", "hot key share %v out of range (0, 1)", s.HotKeyShare)
	case !(s.HotWriteShare >= 0 && s.HotWriteShare <= 1):
		return bad("hot-write-share", "hot write share %v out of range [0, 1]", s.HotWriteShare)
	case s.StartTimeMs < 0:
		return bad("start-time-ms", "start time %d ms is negative", s.StartTimeMs)
	case s.RecordsPerSecond < 1 || s.RecordsPerSecond > MaxRecordsPerSecond:
		return bad("records-per-sec", "records per second %d out of range [1, %d]", s.RecordsPerSecond, MaxRecordsPerSecond)
	case !(s.Txn.Ratio >= 0 && s.Txn.Ratio <= 1):
		return bad("txn-ratio", "transaction ratio %v out of range [0, 1]", s.Txn.Ratio)
	case !(s.Txn.AbortRatio >= 0 && s.Txn.AbortRatio <= 1):
		return bad("abort-ratio", "abort ratio %v out of range [0, 1]", s.Txn.AbortRatio)
	case s.Txn.Producers < 1 || s.Txn.Producers > MaxProducers:
		return bad("producers", "producers %d out of range [1, %d]", s.Txn.Producers, MaxProducers)
	case s.Txn.BatchesPerTxn < 1 || s.Txn.BatchesPerTxn > MaxRecordsPerBatch:
		return bad("batches-per-txn", "batches per transaction %d out of range [1, %d]", s.Txn.BatchesPerTxn, MaxRecordsPerBatch)
	}
	if err := validSize("key", s.KeySize); err != nil {
		return &engine.ConfigError{Config: "key-size", Err: err}
	}
	if err := validSize("value", s.ValueSize); err != nil {
		return &engine.ConfigError{Config: "value-size", Err: err}
	}
	if err := validTopic(s.Topic); err != nil {
		return &engine.ConfigError{Config: "workload.Topic", Err: err}
	}
	// A key or value past 2^31 bytes cannot be encoded, and the largest batch
	// must fit a segment: Log.Append refuses anything larger than segment.bytes.
	ks, vs := s.keySizer(), s.valueSizer()
	if int64(ks.max)+int64(vs.max) > math.MaxInt32/2 {
		return bad("value-bytes", "key bytes %d + value bytes %d too large for one record", ks.max, vs.max)
	}
	if b := s.maxBatchBytes(); b > s.SegmentBytes {
		return bad("records-per-batch", "a batch of %d records takes up to %d bytes, more than segment bytes %d: lower records per batch or raise segment bytes",
			s.RecordsPerBatch, b, s.SegmentBytes)
	}
	return nil
}

// Timestamp is the CreateTime of the record at offset o, in ms.
func (s *Spec) Timestamp(o int64) int64 {
	return s.StartTimeMs + timeOffsetMs(o, s.RecordsPerSecond)
}

// timeOffsetMs is floor(o x 1000 / rate), without overflow for any offset.
func timeOffsetMs(o, rate int64) int64 {
	q, r := o/rate, o%rate
	return q*1000 + r*1000/rate
}

// validTopic checks a topic name as Kafka's Topic.validate: 1 to 249
// characters of [a-zA-Z0-9._-], not "." or "..".
func validTopic(t string) error {
	if t == "" || t == "." || t == ".." || len(t) > maxTopicLength {
		return fmt.Errorf("workloads: topic %q is not a valid Kafka topic name (1 to %d characters, not \".\" or \"..\")", t, maxTopicLength)
	}
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("workloads: topic %q has %q at byte %d; Kafka topic names use only [a-zA-Z0-9._-]", t, c, i)
		}
	}
	return nil
}

// maxTimestampDelta bounds the timestamp delta of the record at offset
// delta d of a batch: ceil(d x 1000 / RecordsPerSecond).
func (s *Spec) maxTimestampDelta(d int) int64 {
	r := s.RecordsPerSecond
	return (int64(d)*1000 + r - 1) / r
}

// recordBytes is the encoded size of the record at offsetDelta of a batch,
// with a key of keyBytes and a value of valueBytes or a null one (with the
// largest timestamp delta the record can have; exact at 1000 records/s).
func (s *Spec) recordBytes(offsetDelta, keyBytes, valueBytes int, tombstone bool) int {
	body := 1 + record.SizeofVarlong(s.maxTimestampDelta(offsetDelta)) + record.SizeofVarint(int32(offsetDelta)) +
		record.SizeofVarint(int32(keyBytes)) + keyBytes + 1 // attributes, deltas, key, header count 0
	if tombstone {
		body += record.SizeofVarint(-1)
	} else {
		body += record.SizeofVarint(int32(valueBytes)) + valueBytes
	}
	return record.SizeofVarint(int32(body)) + body
}

// uncompressedBatchBytes is the size of a codec-none batch of n records
// with keys of keyBytes and values of valueBytes.
func (s *Spec) uncompressedBatchBytes(n, keyBytes, valueBytes int) int64 {
	b := int64(record.BatchHeaderSize)
	for d := 0; d < n; d++ {
		b += int64(s.recordBytes(d, keyBytes, valueBytes, false))
	}
	return b
}

// maxBatchBytes bounds the size of any batch the generator writes: a full
// batch with the largest keys and values, plus, for compressed codecs, the
// worst expansion of incompressible data (a generous 1/8 + 1 KiB over every
// codec's framing). Transaction markers are far smaller.
func (s *Spec) maxBatchBytes() int64 {
	ks, vs := s.keySizer(), s.valueSizer()
	b := s.uncompressedBatchBytes(s.RecordsPerBatch, ks.max, vs.max)
	if s.Codec != record.CodecNone {
		b += b/8 + 1024
	}
	return b
}

// maxBaseBytes is the size, uncompressed, of a clean base holding each of
// keys keys once, in full batches of RecordsPerBatch plus one last batch.
// With drawn sizes it takes the largest ones: an optimistic figure, so that
// checkReachable never refuses a spec the generator could write (the
// generator then checks exactly).
func (s *Spec) maxBaseBytes(keys int64) int64 {
	ks, vs := s.keySizer(), s.valueSizer()
	rpb := int64(s.RecordsPerBatch)
	full, rest := keys/rpb, keys%rpb
	b := full * s.uncompressedBatchBytes(s.RecordsPerBatch, ks.max, vs.max)
	if rest > 0 {
		b += s.uncompressedBatchBytes(int(rest), ks.max, vs.max)
	}
	return b
}

// partitionKeys is the number of key ids i in [0, Keys) with i mod
// Partitions == p.
func (s *Spec) partitionKeys(p int) int64 {
	P := int64(s.Partitions)
	return (s.Keys - int64(p) + P - 1) / P
}

// partitionTargets returns the clean-base and dirty-head byte targets of
// each partition: (1-DirtyRatio) and DirtyRatio of LogBytes/Partitions.
func (s *Spec) partitionTargets() (clean, dirty int64) {
	per := float64(s.LogBytes) / float64(s.Partitions)
	clean = max(int64(math.Round((1-s.DirtyRatio)*per)), 1)
	dirty = max(int64(math.Round(s.DirtyRatio*per)), 1)
	return clean, dirty
}

// ErrDirtyRatioUnreachable is wrapped by the error Validate and Generate
// return when a partition's clean base cannot reach its byte target with
// each of its keys written once (too few keys for the dirty ratio and log
// bytes asked, or a codec that compresses the keys' records below it).
// Callers that shrink the log and try again test for it with errors.Is.
var ErrDirtyRatioUnreachable = errors.New("dirty ratio is unreachable")

// unreachableError is an error whose text says what would work; errors.Is
// matches it to ErrDirtyRatioUnreachable.
type unreachableError struct{ msg string }

func (e *unreachableError) Error() string { return e.msg }

// Is reports whether target is ErrDirtyRatioUnreachable.
func (e *unreachableError) Is(target error) bool { return target == ErrDirtyRatioUnreachable }

// errUnreachable formats an unreachableError.
func errUnreachable(format string, args ...any) error {
	return &unreachableError{msg: fmt.Sprintf(format, args...)}
}

// checkReachable returns an error wrapping ErrDirtyRatioUnreachable when some partition's clean base cannot
// reach its byte target with each of its keys written once, saying what
// would work instead.
func (s *Spec) checkReachable() error {
	clean, _ := s.partitionTargets()
	// The partition with the fewest keys is the last one.
	p := s.Partitions - 1
	kp := s.partitionKeys(p)
	have := s.maxBaseBytes(kp)
	if have >= clean {
		return nil
	}
	// Smallest per-partition key count whose base reaches the target.
	lo, hi := kp, 2*kp
	for s.maxBaseBytes(hi) < clean {
		lo, hi = hi, 2*hi
	}
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if s.maxBaseBytes(mid) >= clean {
			hi = mid
		} else {
			lo = mid
		}
	}
	needKeys := hi * int64(s.Partitions)
	per := float64(s.LogBytes) / float64(s.Partitions)
	minRatio := math.Ceil((1-float64(have)/per)*1000) / 1000
	maxLogBytes := int64(float64(have)/(1-s.DirtyRatio)) * int64(s.Partitions)
	ratioFix := ""
	if minRatio < 1 { // the ratio must stay below 1: offer it only when one works
		ratioFix = fmt.Sprintf(", or dirty ratio >= %.3f", minRatio)
	}
	return errUnreachable("workloads: dirty ratio %v is unreachable with %d keys: the clean base holds each key at most once, "+
		"so partition %d (%d keys) has at most %d bytes of clean base, but (1 - %v) x %d bytes = %d bytes are needed; "+
		"use keys >= %d%s, or log bytes <= %d",
		s.DirtyRatio, s.Keys, p, kp, have, s.DirtyRatio, int64(per), clean, needKeys, ratioFix, maxLogBytes)
}
