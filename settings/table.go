package settings

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// The settings of the engine's configs and of the workload, each declared
// once: Kafka's log.cleaner.* broker configs and the lab's own cleaner
// settings (Cleaner), Kafka's topic configs (Log), the generated workload
// (Workload). lab.Settings lifts them into the experiment's settings; a
// new field of engine.CleanerConfig, engine.LogConfig or workloads.Spec
// gets one line here (lab's TestEveryFieldIsASetting names a missing one).

// Cleaner are engine.CleanerConfig's settings (paths relative to
// it).
var Cleaner = []Setting[engine.CleanerConfig]{
	{Name: "log.cleaner.dedupe.buffer.size", Kafka: true, Flag: "log.cleaner.dedupe.buffer.size", Path: "DedupeBufferBytes",
		Doc: "log.cleaner.dedupe.buffer.size: offset map memory shared by all cleaner threads (bytes)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.DedupeBufferBytes) }},
	{Name: "log.cleaner.io.buffer.size", Kafka: true, Flag: "log.cleaner.io.buffer.size", Path: "IOBufferBytes",
		Doc: "log.cleaner.io.buffer.size: I/O buffer memory shared by all threads; each gets a read and a write buffer of size/threads/2 (bytes)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.IOBufferBytes) }},
	{Name: "log.cleaner.io.buffer.load.factor", Kafka: true, Flag: "log.cleaner.io.buffer.load.factor", Path: "LoadFactor",
		Doc: "log.cleaner.io.buffer.load.factor: share of the offset map's slots a clean may fill",
		Var: func(c *engine.CleanerConfig) Value { return Ratio(&c.LoadFactor) }},
	{Name: "log.cleaner.threads", Kafka: true, Flag: "log.cleaner.threads", Aliases: []string{"threads"}, Path: "Threads",
		Doc: "log.cleaner.threads: cleaner threads (partitions are cleaned in parallel; memory is divided among them)",
		Var: func(c *engine.CleanerConfig) Value { return Count(&c.Threads) }},
	{Name: "hasher", Flag: "hasher", Path: "Hasher",
		Doc: "offset map key hash: " + strings.Join(offsetmap.HasherNames(), ", ") + " (md5 is Kafka's; see cleanerlab hashers)",
		Var: func(c *engine.CleanerConfig) Value { return Enum(&c.Hasher, "hasher") }},
	{Name: "offset-map", Flag: "offset-map", Path: "OffsetMap",
		Doc: "offset map layout: " + strings.Join(offsetmap.LayoutNames(), ", ") +
			" (skimpy is Kafka's; the others hold more keys per MiB at a stated collision risk, see cleanerlab hashers)",
		Var: func(c *engine.CleanerConfig) Value { return Enum(&c.OffsetMap, "layout") }},
	{Name: "cleaner.VerifyCRC", Path: "VerifyCRC",
		Doc: "re-check the CRC of every batch read while cleaning, so that corruption is reported rather than copied (experiment files only)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.VerifyCRC) }},
	{Name: "io", Flag: "io", Path: "IOPath",
		Doc: "how segments are read: pread (into a reusable buffer, Kafka's way), mmap (with madvise) or direct (O_DIRECT; a file system that refuses it is read with pread, and the report says so)",
		Var: func(c *engine.CleanerConfig) Value { return Enum(&c.IOPath, "path") }},
	{Name: "readahead", Flag: "readahead", Path: "Readahead",
		Doc: "fadvise hint of the pread path per segment: none, sequential (a larger readahead window) or willneed (ask for the next buffer while this one is processed)",
		Var: func(c *engine.CleanerConfig) Value { return Enum(&c.Readahead, "hint") }},
	{Name: "readahead-bytes", Flag: "readahead-bytes", Path: "ReadaheadBytes",
		Doc: "read-ahead of the pread path: a helper goroutine keeps this many bytes past the cleaner's read position read into the page cache, so a cold clean's disk reads overlap its processing (bytes, suffixes KiB, MiB, GiB; 0: off, the kernel's readahead only, as Kafka; Linux only)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.ReadaheadBytes) }},
	{Name: "log.cleaner.io.max.bytes.per.second", Kafka: true, Flag: "log.cleaner.io.max.bytes.per.second", Aliases: []string{"throttle"}, Path: "MaxIOBytesPerSecond",
		Doc: "log.cleaner.io.max.bytes.per.second: cap on the cleaner's read + written bytes per second, all threads together (bytes/s, suffixes KiB, MiB, GiB; 0: no limit, the lab's meaning: Kafka's default is Double.MAX_VALUE, and in a broker's server.properties 0 is refused, as Kafka's Throttler then stops cleaning)",
		Var: func(c *engine.CleanerConfig) Value { return Rate(&c.MaxIOBytesPerSecond) },
		// Kafka's default, Double.MaxValue, is "no limit": 0 here. Kafka's
		// CleanerConfig has no validator for it, and its
		// Throttler.maybeThrottle sleeps Math.round(observed / (rate /
		// 1000) - elapsed ms) ms at a check: a negative rate gives a
		// negative sleep (never sleeps: no limit), a rate of 0 gives
		// Long.MAX_VALUE ms, taken holding the lock all cleaner threads
		// throttle through, so 0 stops cleaning; it is refused rather than
		// read as the lab's "no limit".
		FromKafka: func(s string) (string, error) {
			f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			switch {
			case err != nil:
				return s, nil // Set names the parse error
			case f >= math.MaxFloat64/2 || f < 0:
				return "0", nil
			case f == 0:
				return s, errors.New("Kafka accepts 0 but its Throttler then sleeps forever (Long.MAX_VALUE ms) at its first check, holding the lock every cleaner thread throttles through: a broker with this file stops cleaning; leave the key out for no limit, or give a rate in bytes per second")
			}
			return s, nil
		}},
	{Name: "throttler", Flag: "throttler", Path: "Throttler",
		Doc: "throttle algorithm: kafka (Kafka's Throttler: checks every 300 ms, one compensating sleep) or token-bucket (golang.org/x/time/rate)",
		Var: func(c *engine.CleanerConfig) Value { return Enum(&c.Throttler, "throttler") }},
	{Name: "cache-friendly", Flag: "cache-friendly", Path: "CacheFriendly",
		Doc: "drop the pages of copied segments and of written output from the page cache behind the copy (fadvise DONTNEED), to measure what that saves other users of the cache",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.CacheFriendly) }},
	{Name: "write-behind", Flag: "write-behind", Path: "WriteBehind",
		Doc: "write each full write buffer of cleaned output on a second core while the next one fills (same bytes and syncs; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.WriteBehind) }},
	{Name: "sync-behind", Flag: "sync-behind", Path: "SyncBehind",
		Doc: "fsync each cleaned segment, write its indexes and swap it in on a second goroutine while the next group is copied (the swaps keep their order and each still follows its fsync; same files; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.SyncBehind) }},
	{Name: "write-direct-bytes", Flag: "write-direct-bytes", Path: "WriteDirectBytes",
		Doc: "write cleaned segments with O_DIRECT, in writes of this many bytes (rounded up to 4 KiB; the write buffers become this size): whole blocks go from the buffer to the device with no copy into the page cache (bytes, suffixes KiB, MiB, GiB; 0: off, as Kafka; the last partial block of a file goes through the cache; the fsync policy is kept; same bytes; the cleaned segments are then not cached; a file system that refuses O_DIRECT is written with write(2), and the report says so; Linux only; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.WriteDirectBytes) }},
	{Name: "write-direct-min-record-bytes", Flag: "write-direct-min-record-bytes", Path: "WriteDirectMinRecordBytes",
		Doc: "with --write-direct-bytes, write a clean's output with O_DIRECT only when the records its map build read average at least this many bytes (batch headers included), through the page cache otherwise: the copy into the cache costs most where records are large, the wait for the device most where they are small (bytes; 0: no record-size rule, so every clean unless --write-direct-min-clean-bytes is set; with it, either minimum reached chooses O_DIRECT; decided per round; the report's direct write row says what was used; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.WriteDirectMinRecordBytes) }},
	{Name: "write-direct-min-clean-bytes", Flag: "write-direct-min-clean-bytes", Path: "WriteDirectMinCleanBytes",
		Doc: "with --write-direct-bytes, also write a round's output with O_DIRECT when the segments it rewrites (every segment below its end offset, .log bytes summed) hold at least this many bytes: a large clean's output lands in page-cache pages long unused, which cost system CPU to fill; a small one reuses recent pages (bytes, suffixes KiB, MiB, GiB; 0: no clean-size rule; with --write-direct-min-record-bytes, either minimum reached chooses O_DIRECT; decided per round, before the copy; the report's direct write rule row says which rule chose it; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.WriteDirectMinCleanBytes) }},
	{Name: "writeback-bytes", Flag: "writeback-bytes", Path: "WritebackBytes",
		Doc: "under the segment or fdatasync fsync policy (run's --fsync; clean always fsyncs each cleaned segment), start the write-back of cleaned output every this many bytes written (sync_file_range WRITE, no wait), so the sync before the swap, which still happens, is short (bytes; 0: off, as Kafka; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.WritebackBytes) }},
	{Name: "look-ahead", Flag: "look-ahead", Path: "LookAhead",
		Doc: "hand the next batch's keys to the offset map before filtering the current one, so their cache misses overlap (bucket16; same results; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.LookAhead) }},
	{Name: "skip-dirty-lookups", Flag: "skip-dirty-lookups", Path: "SkipDirtyLookups",
		Doc: "decide the dirty section's records in the copy phase from what the map build saw (offsets put, and overwritten by a later put of the key) instead of looking their keys up again (same results; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.SkipDirtyLookups) }},
	{Name: "map-huge-pages", Flag: "map-huge-pages", Path: "MapHugePages",
		Doc: "ask for transparent huge pages for the offset maps when they are pre-faulted (madvise MADV_HUGEPAGE; fewer TLB misses; not a Kafka feature: Kafka's JVM heap gets them only with THP always or -XX:+UseTransparentHugePages; on in the best profile, off in Kafka's)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.MapHugePages) }},
	{Name: "map-sort-buffer-bytes", Flag: "map-sort-buffer-bytes", Path: "MapSortBufferBytes",
		Doc: "memory, shared by all cleaner threads, in which each offset map holds the map build's puts (32 bytes each) to write them sorted by their place in the table, nearly in address order instead of one cache miss each (same results; bucket16 only; taken out of the dedupe buffer, not added: the table gets the rest, so a map holds bytes/16 fewer keys; at most a quarter of each thread's share, and none where that leaves under 4096 puts (a share under 512 KiB), as fewer are not sorted; bytes, suffixes KiB, MiB, GiB; 0: off, as in the kafka profile; 32 MiB in best; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bytes(&c.MapSortBufferBytes) }},
	{Name: "parallel-lookups", Flag: "parallel-lookups", Path: "ParallelLookups",
		Doc: "look the copy phase's keys up on a second core: a goroutine reads each segment ahead of the filter (a second read, mostly from the page cache) and hands it the map's answers (bucket16; same results; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.ParallelLookups) }},
	{Name: "parallel-map-build", Flag: "parallel-map-build", Path: "ParallelMapBuild",
		Doc: "build the offset map on two cores: a goroutine reads the dirty segments, checks CRCs, decodes records and hashes keys, the cleaner thread only puts them (bucket16; not under a throttle; same results; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.ParallelMapBuild) }},
	{Name: "parallel-copy", Flag: "parallel-copy", Path: "ParallelCopy",
		Doc: "copy the copy phase's groups two at a time: a copy worker with buffers of its own copies the next group on another core while the cleaner copies one, both reading the offset map; swapped in in order; a group copied from a transaction state the group before changed is copied again by the cleaner (bucket16; not under a throttle; same files; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.ParallelCopy) }},
	{Name: "verify-crc-once", Flag: "verify-crc-once", Path: "VerifyCRCOnce",
		Doc: "check each batch's CRC once per clean: a dirty batch whose CRC the map build checked is not checked again when the copy reads it back from the same, unchanged segment file (the clean section's batches are still checked by the copy; same results; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.VerifyCRCOnce) }},
	{Name: "parallel-recompress", Flag: "parallel-recompress", Path: "ParallelRecompress",
		Doc: "compress the batches the copy rebuilds for a compressed topic on other goroutines (up to 4 at once, each with its own compressor) while the cleaner filters the next ones, written in order (same bytes; any map; not a Kafka feature)",
		Var: func(c *engine.CleanerConfig) Value { return Bool(&c.ParallelRecompress) }},
	{Name: "cleaned-index", Flag: "cleaned-index", Path: "CleanedIndex",
		Doc: "how cleaned segments are indexed: per-append (one entry at most per write buffer appended, as Kafka through 4.0.0) or per-batch (as Kafka since KAFKA-806, 4.0.1/4.1); the .log is the same (default per-append)",
		Var: func(c *engine.CleanerConfig) Value {
			return NameOrEmpty(&c.CleanedIndex, "rule", engine.CleanedIndexRules)
		}},
	{Name: "key-scan", Flag: "key-scan", Path: "KeyScan", Doc: "walk records for their keys, offsets and timestamps only, in the map build and the copy's filter, stepping over values and headers by length (rejects what the full decoder rejects, with its errors; same bytes; not a Kafka feature)", Var: func(c *engine.CleanerConfig) Value { return Bool(&c.KeyScan) }},
}

// Log are engine.LogConfig's settings: Kafka's topic configs.
var Log = []Setting[engine.LogConfig]{
	{Name: "segment.bytes", Kafka: true, Flag: "segment.bytes", Path: "SegmentBytes",
		Doc: "segment.bytes: roll the active segment past this size (bytes; suffixes KiB, MiB, GiB)",
		Var: func(c *engine.LogConfig) Value { return Bytes(&c.SegmentBytes) }},
	{Name: "segment.index.bytes", Kafka: true, Flag: "segment.index.bytes", Path: "SegmentIndexBytes",
		Doc: "segment.index.bytes: cap of each offset/time index (bytes)",
		Var: func(c *engine.LogConfig) Value { return Bytes(&c.SegmentIndexBytes) }},
	{Name: "index.interval.bytes", Kafka: true, Flag: "index.interval.bytes", Path: "IndexIntervalBytes",
		Doc: "index.interval.bytes: bytes between offset index entries",
		Var: func(c *engine.LogConfig) Value { return Bytes(&c.IndexIntervalBytes) }},
	{Name: "delete.retention.ms", Kafka: true, Flag: "delete.retention.ms", Path: "DeleteRetentionMs",
		Doc: "delete.retention.ms: how long tombstones survive after the clean that stamps their delete horizon (ms)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.DeleteRetentionMs) }},
	{Name: "min.compaction.lag.ms", Kafka: true, Flag: "min.compaction.lag.ms", Path: "MinCompactionLagMs",
		Doc: "min.compaction.lag.ms: segments with records newer than this are not cleaned (ms)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.MinCompactionLagMs) }},
	{Name: "max.compaction.lag.ms", Kafka: true, Flag: "max.compaction.lag.ms", Path: "MaxCompactionLagMs",
		Doc: "max.compaction.lag.ms: a log whose oldest dirty segment is older than this is cleaned whatever its ratio (ms)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.MaxCompactionLagMs) }},
	{Name: "min.cleanable.dirty.ratio", Kafka: true, Flag: "min.cleanable.dirty.ratio", Path: "MinCleanableDirtyRatio",
		Doc: "min.cleanable.dirty.ratio: clean only when the cleanable ratio is above this",
		Var: func(c *engine.LogConfig) Value { return Ratio(&c.MinCleanableDirtyRatio) }},
	{Name: "max.message.bytes", Kafka: true, Flag: "max.message.bytes", Path: "MaxMessageBytes",
		Doc: "max.message.bytes: the largest batch the cleaner's buffers grow to (bytes)",
		Var: func(c *engine.LogConfig) Value { return Bytes(&c.MaxMessageBytes) }},
	{Name: "file.delete.delay.ms", Kafka: true, Flag: "file.delete.delay.ms", Path: "FileDeleteDelayMs",
		Doc: "file.delete.delay.ms: how long replaced or deleted segments stay as .deleted (ms)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.FileDeleteDelayMs) }},
	{Name: "producer.id.expiration.ms", Kafka: true, Flag: "producer.id.expiration.ms", Path: "ProducerIDExpirationMs",
		Doc: "producer.id.expiration.ms: after this long without a batch a producer expires and the cleaner stops keeping its last batch (ms)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.ProducerIDExpirationMs) }},
	{Name: "cleanup.policy", Kafka: true, Flag: "cleanup.policy",
		Doc: "cleanup.policy: compact, delete, or compact,delete",
		Var: func(c *engine.LogConfig) Value {
			return Func("policy", UnitEnum, func() string { return CleanupPolicyName(*c) }, func(s string) error {
				compact, del := false, false
				for _, part := range strings.Split(s, ",") {
					switch strings.TrimSpace(part) {
					case "compact":
						compact = true
					case "delete":
						del = true
					default:
						return fmt.Errorf("%q: cleanup.policy is a list of compact and delete", s)
					}
				}
				c.Compact, c.Delete = compact, del
				return nil
			})
		}},
	{Name: "log.Compact", Path: "Compact",
		Doc: "cleanup.policy contains compact (experiment files; the flag is --cleanup.policy)",
		Var: func(c *engine.LogConfig) Value { return Bool(&c.Compact) }},
	{Name: "log.Delete", Path: "Delete",
		Doc: "cleanup.policy contains delete (experiment files; the flag is --cleanup.policy)",
		Var: func(c *engine.LogConfig) Value { return Bool(&c.Delete) }},
	{Name: "segment.ms", Kafka: true, Flag: "segment.ms", Path: "SegmentMs",
		Doc: "segment.ms: roll the active segment once its batches' timestamps span this long (ms)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.SegmentMs) }},
	{Name: "segment.jitter.ms", Kafka: true, Flag: "segment.jitter.ms", Path: "SegmentJitterMs",
		Doc: "segment.jitter.ms: each segment rolls for time up to this much before segment.ms (ms)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.SegmentJitterMs) }},
	{Name: "retention.ms", Kafka: true, Flag: "retention.ms", Path: "RetentionMs",
		Doc: "retention.ms: with cleanup.policy delete, delete segments whose newest record is older (ms; -1: no limit)",
		Var: func(c *engine.LogConfig) Value { return Millis(&c.RetentionMs) }},
	{Name: "retention.bytes", Kafka: true, Flag: "retention.bytes", Path: "RetentionBytes",
		Doc: "retention.bytes: with cleanup.policy delete, delete the oldest segments while the log stays at least this large (bytes; -1: no limit)",
		Var: func(c *engine.LogConfig) Value { return BytesOrNone(&c.RetentionBytes) }},
}

// Workload are workloads.Spec's
var Workload = []Setting[workloads.Spec]{
	{Name: "keys", Flag: "keys", Path: "Keys",
		Doc: "key cardinality: distinct keys the workload writes (an integer; 1e6 is accepted)",
		Var: func(w *workloads.Spec) Value { return Count(&w.Keys) }},
	{Name: "key-bytes", Flag: "key-bytes", Path: "KeyBytes",
		Doc: "bytes per key (the median with --key-size lognormal)",
		Var: func(w *workloads.Spec) Value { return Bytes(&w.KeyBytes) }},
	{Name: "key-size", Flag: "key-size", Path: "KeySize",
		Doc: "key size distribution: fixed (--key-bytes), uniform:MIN-MAX, lognormal:SIGMA[:MIN-MAX] (median --key-bytes)",
		Var: func(w *workloads.Spec) Value { return sizeDist(&w.KeySize) }},
	{Name: "value-bytes", Flag: "value-bytes", Path: "ValueBytes",
		Doc: "bytes per value (the median with --value-size lognormal)",
		Var: func(w *workloads.Spec) Value { return Bytes(&w.ValueBytes) }},
	{Name: "value-size", Flag: "value-size", Path: "ValueSize",
		Doc: "value size distribution: fixed (--value-bytes), uniform:MIN-MAX, lognormal:SIGMA[:MIN-MAX] (median --value-bytes)",
		Var: func(w *workloads.Spec) Value { return sizeDist(&w.ValueSize) }},
	{Name: "tombstone-ratio", Flag: "tombstone-ratio", Path: "TombstoneRatio",
		Doc: "share of dirty writes that are tombstones (null values)",
		Var: func(w *workloads.Spec) Value { return Ratio(&w.TombstoneRatio) }},
	{Name: "dirty-ratio", Flag: "dirty-ratio", Path: "DirtyRatio",
		Doc: "target cleanable ratio: dirty bytes / log bytes",
		Var: func(w *workloads.Spec) Value { return Ratio(&w.DirtyRatio) }},
	{Name: "workload.SegmentBytes", Path: "SegmentBytes",
		Doc: "segment size the generator writes (bytes; the same setting as segment.bytes, which sets both)",
		Var: func(w *workloads.Spec) Value { return Bytes(&w.SegmentBytes) }},
	{Name: "log-bytes", Flag: "log-bytes", Path: "LogBytes",
		Doc: "approximate .log bytes of all partitions together (suffixes KiB, MiB, GiB)",
		Var: func(w *workloads.Spec) Value { return Bytes(&w.LogBytes) }},
	{Name: "records-per-batch", Flag: "records-per-batch", Path: "RecordsPerBatch",
		Doc: "records per batch written by the generator",
		Var: func(w *workloads.Spec) Value { return Count(&w.RecordsPerBatch) }},
	{Name: "compression", Flag: "compression", Path: "Codec",
		Doc: "codec of generated batches: none, gzip, snappy, lz4, zstd",
		Var: func(w *workloads.Spec) Value {
			return Func("codec", UnitEnum, func() string { return w.Codec.String() }, func(s string) error {
				c, err := record.ParseCodec(s)
				if err == nil {
					w.Codec = c
				}
				return err
			})
		}},
	{Name: "seed", Flag: "seed", Path: "Seed",
		Doc: "seed of the workload: same seed, same bytes",
		Var: func(w *workloads.Spec) Value { return Unsigned(&w.Seed) }},
	{Name: "distribution", Flag: "distribution", Path: "Distribution",
		Doc: "key choice of the dirty head: " + strings.Join(workloads.Distributions, ", ") + " (YCSB's generators)",
		Var: func(w *workloads.Spec) Value {
			return Name(&w.Distribution, "distribution", func() []string { return workloads.Distributions })
		}},
	{Name: "zipf-constant", Flag: "zipf-constant", Path: "ZipfConstant",
		Doc: "skew of zipfian and latest, in (0, 1) (YCSB's zipfian constant)",
		Var: func(w *workloads.Spec) Value { return Ratio(&w.ZipfConstant) }},
	{Name: "hot-key-share", Flag: "hot-key-share", Path: "HotKeyShare",
		Doc: "hotcold: share of the keys that are hot",
		Var: func(w *workloads.Spec) Value { return Ratio(&w.HotKeyShare) }},
	{Name: "hot-write-share", Flag: "hot-write-share", Path: "HotWriteShare",
		Doc: "hotcold: share of the writes that go to hot keys",
		Var: func(w *workloads.Spec) Value { return Ratio(&w.HotWriteShare) }},
	{Name: "start-time-ms", Flag: "start-time-ms", Path: "StartTimeMs",
		Doc: "CreateTime of offset 0 (ms since the epoch)",
		Var: func(w *workloads.Spec) Value { return Count(&w.StartTimeMs) }},
	{Name: "records-per-sec", Flag: "records-per-sec", Path: "RecordsPerSecond",
		Doc: "rate at which record timestamps advance (records per second of CreateTime)",
		Var: func(w *workloads.Spec) Value { return Count(&w.RecordsPerSecond) }},
	{Name: "txn-ratio", Flag: "txn-ratio", Path: "Txn.Ratio",
		Doc: "share of dirty-head batches written inside transactions",
		Var: func(w *workloads.Spec) Value { return Ratio(&w.Txn.Ratio) }},
	{Name: "abort-ratio", Flag: "abort-ratio", Path: "Txn.AbortRatio",
		Doc: "share of transactions that end with ABORT",
		Var: func(w *workloads.Spec) Value { return Ratio(&w.Txn.AbortRatio) }},
	{Name: "producers", Flag: "producers", Path: "Txn.Producers",
		Doc: "transactional producers, whose transactions interleave",
		Var: func(w *workloads.Spec) Value { return Count(&w.Txn.Producers) }},
	{Name: "batches-per-txn", Flag: "batches-per-txn", Path: "Txn.BatchesPerTxn",
		Doc: "data batches in each transaction",
		Var: func(w *workloads.Spec) Value { return Count(&w.Txn.BatchesPerTxn) }},
	{Name: "workload.Topic", Path: "Topic",
		Doc: "topic name of the generated partitions (experiment files only)",
		Var: func(w *workloads.Spec) Value {
			return Func("topic", UnitText, func() string { return w.Topic }, func(s string) error { w.Topic = s; return nil })
		}},
	{Name: "partitions", Flag: "partitions", Path: "Partitions",
		Doc: "partitions (logs) to generate and clean",
		Var: func(w *workloads.Spec) Value { return Count(&w.Partitions) }},
}

// sizeDist binds a workloads.SizeDist by its text form (uniform:20-200).
func sizeDist(d *workloads.SizeDist) Value {
	return Func("dist", UnitText, d.String, func(s string) error {
		v, err := workloads.ParseSizeDist(s)
		if err == nil {
			*d = v
		}
		return err
	})
}

// CleanupPolicyName is cleanup.policy of c: "compact", "delete",
// "compact,delete" or "".
func CleanupPolicyName(c engine.LogConfig) string {
	var parts []string
	if c.Compact {
		parts = append(parts, "compact")
	}
	if c.Delete {
		parts = append(parts, "delete")
	}
	return strings.Join(parts, ",")
}

var (
	// CleanerRegistry is Cleaner with Kafka's defaults
	// (engine.DefaultCleanerConfig), for the commands that size or run a
	// cleaner on logs of their own (plan, advise, clean).
	CleanerRegistry = MustRegistry(engine.DefaultCleanerConfig, Cleaner)
	// LogRegistry is Log with Kafka's defaults (engine.DefaultLogConfig).
	LogRegistry = MustRegistry(engine.DefaultLogConfig, Log)
	// WorkloadRegistry is Workload with the default workload.
	WorkloadRegistry = MustRegistry(workloads.DefaultSpec, Workload)
)
