package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// LogConfig holds the per-log (topic) configs the store and cleaner use,
// named after Kafka's topic configs. The zero value is not valid; start from
// DefaultLogConfig.
type LogConfig struct {
	// SegmentBytes rolls the active segment when the next batch would take it
	// past this many bytes. Default 1 GiB, as Kafka's segment.bytes.
	SegmentBytes int64
	// SegmentIndexBytes caps a segment's offset and time index files, in bytes.
	// Default 10 MiB, as Kafka's segment.index.bytes.
	SegmentIndexBytes int64
	// IndexIntervalBytes: an offset-index entry is added when more than this
	// many bytes were appended since the last one. Default 4096, as Kafka's
	// index.interval.bytes.
	IndexIntervalBytes int64
	// DeleteRetentionMs: how long a tombstone survives after the clean that
	// first retained it (its delete horizon = that clean's time + this).
	// Default 86400000 (1 day), as Kafka's delete.retention.ms.
	DeleteRetentionMs int64
	// MinCompactionLagMs: a segment whose largest timestamp is newer than
	// now - this is not cleaned. Default 0, as Kafka's min.compaction.lag.ms.
	MinCompactionLagMs int64
	// MinCleanableDirtyRatio: a log is eligible when its cleanable ratio is
	// strictly greater. Default 0.5, as Kafka's min.cleanable.dirty.ratio.
	MinCleanableDirtyRatio float64
	// MaxMessageBytes: the largest batch, in bytes, the cleaner's buffers grow
	// to. Default 1048588, as Kafka's max.message.bytes.
	MaxMessageBytes int
	// FileDeleteDelayMs: how long the files of a replaced segment stay as
	// .deleted before they are removed. Default 60000, as Kafka's
	// file.delete.delay.ms (log.segment.delete.delay.ms). 0 removes them at once.
	FileDeleteDelayMs int64
	// MaxCompactionLagMs: a log whose oldest dirty (non-active) segment's
	// first batch is older than now - this is cleaned whatever its cleanable
	// ratio. Default math.MaxInt64 (never), as Kafka's max.compaction.lag.ms.
	MaxCompactionLagMs int64
	// ProducerIDExpirationMs: a producer whose last batch is older than this
	// (and has no open transaction) is expired: the cleaner no longer keeps its
	// last batch. Default 86400000 (1 day), as Kafka's producer.id.expiration.ms.
	ProducerIDExpirationMs int64
	// Compact: cleanup.policy contains "compact". Default true here (this lab
	// cleans compacted logs); Kafka's default cleanup.policy is delete.
	Compact bool
	// Delete: cleanup.policy contains "delete", so retention.ms and
	// retention.bytes apply. Default false here (cleanup.policy=compact);
	// segments below the log start offset are deleted whatever the policy.
	Delete bool
	// SegmentMs rolls the active segment once this many ms separate the new
	// batch's largest timestamp from the first batch's (or, without
	// timestamps, once the segment is this old). Default 604800000 (7 days),
	// as Kafka's segment.ms.
	SegmentMs int64
	// SegmentJitterMs: each segment rolls for time segment.ms minus a jitter
	// drawn when it is created, uniform in [0, min(SegmentJitterMs,
	// SegmentMs)), so that many partitions do not roll at once. Default 0,
	// as Kafka's segment.jitter.ms (LogConfig.randomSegmentJitter).
	// Omitted from JSON when 0, so the configs (and config hashes) of
	// records written before it existed do not change.
	SegmentJitterMs int64 `json:",omitempty"`
	// RetentionMs: with Delete, a segment whose largest timestamp is more
	// than this many ms old is deleted. -1: no limit. Default 604800000 (7
	// days), as Kafka's retention.ms.
	RetentionMs int64
	// RetentionBytes: with Delete, the oldest segments are deleted while the
	// log stays at least this many bytes without them. -1: no limit. Default
	// -1, as Kafka's retention.bytes.
	RetentionBytes int64
}

// DefaultLogConfig returns Kafka's defaults, with cleanup.policy=compact.
func DefaultLogConfig() LogConfig {
	return LogConfig{
		SegmentBytes:           1 << 30,
		SegmentIndexBytes:      10 << 20,
		IndexIntervalBytes:     4096,
		DeleteRetentionMs:      86_400_000,
		MinCompactionLagMs:     0,
		MaxCompactionLagMs:     math.MaxInt64,
		MinCleanableDirtyRatio: 0.5,
		MaxMessageBytes:        1_048_588,
		FileDeleteDelayMs:      60_000,
		ProducerIDExpirationMs: 86_400_000,
		Compact:                true,
		SegmentMs:              604_800_000,
		RetentionMs:            604_800_000,
		RetentionBytes:         -1,
	}
}

// Validate returns a *ConfigError naming the first config out of range.
func (c *LogConfig) Validate() error {
	switch {
	case c.SegmentBytes < 14 || c.SegmentBytes > math.MaxInt32:
		return configError("segment.bytes", "engine: segment.bytes %d out of range [14, %d]", c.SegmentBytes, math.MaxInt32)
	case c.SegmentIndexBytes < 4*timeIndexEntrySize:
		return configError("segment.index.bytes", "engine: segment.index.bytes %d below %d", c.SegmentIndexBytes, 4*timeIndexEntrySize)
	case c.IndexIntervalBytes < 0:
		return configError("index.interval.bytes", "engine: index.interval.bytes %d is negative", c.IndexIntervalBytes)
	case c.DeleteRetentionMs < 0:
		return configError("delete.retention.ms", "engine: delete.retention.ms %d is negative", c.DeleteRetentionMs)
	case c.MinCompactionLagMs < 0:
		return configError("min.compaction.lag.ms", "engine: min.compaction.lag.ms %d is negative", c.MinCompactionLagMs)
	case c.MaxCompactionLagMs < 1:
		return configError("max.compaction.lag.ms", "engine: max.compaction.lag.ms %d must be at least 1", c.MaxCompactionLagMs)
	case c.MaxCompactionLagMs < c.MinCompactionLagMs:
		return configError("max.compaction.lag.ms", "engine: max.compaction.lag.ms %d is below min.compaction.lag.ms %d", c.MaxCompactionLagMs, c.MinCompactionLagMs)
	case c.MinCleanableDirtyRatio < 0 || c.MinCleanableDirtyRatio > 1:
		return configError("min.cleanable.dirty.ratio", "engine: min.cleanable.dirty.ratio %v out of range [0, 1]", c.MinCleanableDirtyRatio)
	case c.FileDeleteDelayMs < 0:
		return configError("file.delete.delay.ms", "engine: file.delete.delay.ms %d is negative", c.FileDeleteDelayMs)
	case c.ProducerIDExpirationMs < 0:
		return configError("producer.id.expiration.ms", "engine: producer.id.expiration.ms %d is negative", c.ProducerIDExpirationMs)
	case c.MaxMessageBytes < 0:
		return configError("max.message.bytes", "engine: max.message.bytes %d is negative", c.MaxMessageBytes)
	case c.SegmentMs < 1:
		return configError("segment.ms", "engine: segment.ms %d must be at least 1", c.SegmentMs)
	case c.SegmentJitterMs < 0:
		return configError("segment.jitter.ms", "engine: segment.jitter.ms %d is negative", c.SegmentJitterMs)
	case c.RetentionMs < -1:
		return configError("retention.ms", "engine: retention.ms %d is below -1", c.RetentionMs)
	case c.RetentionBytes < -1:
		return configError("retention.bytes", "engine: retention.bytes %d is below -1", c.RetentionBytes)
	}
	return nil
}

// CleanerConfig holds the broker-wide log.cleaner.* configs of one cleaner.
type CleanerConfig struct {
	// DedupeBufferBytes is the offset map memory shared by all cleaner
	// threads; each thread gets DedupeBufferBytes / Threads
	// (PerThreadMapBytes). Default 128 MiB, as Kafka's
	// log.cleaner.dedupe.buffer.size.
	DedupeBufferBytes int64
	// IOBufferBytes is the I/O buffer memory shared by all threads; each thread
	// gets a read and a write buffer of IOBufferBytes / Threads / 2
	// (PerThreadIOBufferBytes). Default 512 KiB, as Kafka's
	// log.cleaner.io.buffer.size.
	IOBufferBytes int64
	// LoadFactor caps the offset map at this share of its slots. Default 0.9,
	// as Kafka's log.cleaner.io.buffer.load.factor.
	LoadFactor float64
	// Threads is the number of cleaner threads. Default 1, as Kafka's
	// log.cleaner.threads.
	Threads int
	// Hasher names the offset map's key hash, one of offsetmap.HasherNames:
	// "md5" (Kafka's), "sha1", "sha256", "xxh3-64", "xxh3-128", "metro-64",
	// "metro-128", "murmur3-128", "fnv1a-64". Default "md5".
	Hasher offsetmap.HasherName
	// OffsetMap names the offset map's layout, one of offsetmap.LayoutNames:
	// "skimpy" (Kafka's SkimpyOffsetMap: digest + 8-byte offset per entry,
	// 24 bytes with md5), "dense16" or "bucket16" (16 bytes: 96-bit
	// fingerprint + 32-bit relative offset), "dense12" (12 bytes: 64-bit
	// fingerprint). The denser layouts hold more keys per pass at a stated
	// risk of fingerprint collisions (offsetmap.LayoutInfo). Default "skimpy";
	// empty means "skimpy". Not a Kafka config.
	OffsetMap offsetmap.LayoutName
	// VerifyCRC re-checks the CRC of every batch read while cleaning, so that
	// corruption is reported rather than copied. Default true.
	VerifyCRC bool
	// VerifyCRCOnce, with VerifyCRC, checks each batch's CRC once per
	// clean: a batch of the dirty section whose CRC the map build checked
	// is not checked again when the copy phase reads it back from the same
	// segment file, which nothing writes while it is cleaned (the active
	// segment is never cleaned; a truncation aborts the clean). The batches
	// below the first dirty offset are checked by the copy as before. It
	// gives up the second check's defence against bytes that change
	// between the two reads (a page evicted and read back wrong from the
	// device). Same results on any log whose files do not change under the
	// cleaner. Default false: every read is checked. Not a Kafka config.
	VerifyCRCOnce bool `json:",omitempty"`
	// IOPath is how the cleaner reads segments (iosched.ReadPaths): "pread"
	// into a reusable buffer (Kafka's way), "mmap" with madvise, or "direct"
	// (O_DIRECT; a segment whose file system refuses it is read with pread,
	// and CleanStats.IO says so). Default "pread"; empty means pread. Not a
	// Kafka config.
	IOPath iosched.ReadPath
	// Readahead is the pread path's posix_fadvise hint per segment: "none",
	// "sequential" or "willneed" (iosched.ReadaheadHint). Default "none";
	// empty means none. Not a Kafka config.
	Readahead iosched.ReadaheadHint
	// ReadaheadBytes is how many bytes past its read position the pread
	// path keeps a segment being read into the page cache: a helper
	// goroutine preads ahead of the cleaner, its target moved in steps of
	// at least half the distance (iosched.ReaderOptions.ReadaheadBytes), so
	// that on a cold page cache the disk reads while the cleaner processes
	// what it read, and the cleaner's preads find the pages there. It costs
	// a 1 MiB scratch buffer per thread and up to ReadaheadBytes read past
	// where a clean stops early (a full map). The throttle
	// (MaxIOBytesPerSecond) does not count the helper's reads: they are the
	// bytes the cleaner reads next, at most ReadaheadBytes early. Default 0:
	// off, the kernel's readahead only, as Kafka; ProfileBest sets 32 MiB.
	// Linux only; the mmap and direct paths ignore it. Not a Kafka config.
	ReadaheadBytes int64 `json:",omitempty"`
	// MaxIOBytesPerSecond caps the cleaner's read plus written bytes per
	// second, all threads together, as Kafka's
	// log.cleaner.io.max.bytes.per.second. Default 0: no limit (Kafka's
	// default, Double.MaxValue, never sleeps either).
	MaxIOBytesPerSecond float64
	// Throttler is the throttle's algorithm when MaxIOBytesPerSecond is set:
	// "kafka" (Kafka's Throttler: 300 ms checks, one compensating sleep) or
	// "token-bucket". Default "kafka"; empty means kafka. Not a Kafka config.
	Throttler iosched.ThrottlerKind
	// CacheFriendly drops the pages of segments already copied, and of the
	// cleaned output already written, from the page cache behind the copy
	// (posix_fadvise DONTNEED; the output's write-back is started and waited
	// for so its pages can go). Default false, as Kafka. Not a Kafka config.
	CacheFriendly bool
	// WriteBehind writes each full write buffer of cleaned output on a
	// second goroutine while the cleaner fills another buffer of the same
	// size (iosched.Writer.SetWriteBehind), so filtering and write(2) run on
	// two cores at once. The output bytes and syncs are the same. Default
	// false, as Kafka (whose cleaner thread writes each buffer itself). Not
	// a Kafka config.
	WriteBehind bool `json:",omitempty"`
	// SyncBehind syncs each cleaned segment, writes its index files and
	// swaps it in on a goroutine while the cleaner copies the next group,
	// instead of before it: the fsync's wait for the device (the journal
	// commit and the device's cache flush, tens of ms a segment on a
	// virtio disk) overlaps the next group's reading and filtering. The
	// order is kept: a group's swap still follows its segment's sync, the
	// swaps follow one another in the groups' order (the next group's
	// cleaned segment waits for the previous swap before its own), and the
	// round ends, and writes its checkpoint, only after the last swap. So
	// the files and every state a crash can leave are those of Kafka's
	// order, but for the next group's .cleaned files, which recovery
	// removes. CleanOptions.CheckDone is called before the sync starts
	// rather than just before the swap. Default false, as Kafka (whose
	// cleaner thread flushes and swaps each group before the next). Not a
	// Kafka config.
	SyncBehind bool `json:",omitempty"`
	// WriteDirectBytes writes cleaned segments with O_DIRECT, in writes of
	// this many bytes (iosched.Writer.SetDirect; rounded up to a multiple
	// of 4 KiB; its write buffers, two with WriteBehind, are this size
	// instead of IOBufferBytes/2): whole 4 KiB blocks go from the buffer
	// to the device with no copy into the page cache; the file's last
	// partial block goes through the page cache, and the fsync policy is
	// kept. Same bytes and files (the index rule counts the cleaner's
	// appends, not these writes). Each direct write waits for the device,
	// so the size decides how busy it is kept: on the lab's machine 1 MiB
	// writes kept a virtio disk at 856 MB/s where 256 KiB ones reached 326. It costs the cleaned
	// segments' pages in the cache (a later read of them, such as the next
	// pass of a clean, comes from storage); early write-back and the
	// cache-friendly mode have nothing to do for the direct blocks. A file
	// system that refuses O_DIRECT falls back to write(2) and IOStats says
	// so. Bytes; default 0: off, as Kafka (which writes through the page
	// cache). Linux only. Not a Kafka config.
	WriteDirectBytes int64 `json:",omitempty"`
	// WriteDirectMinRecordBytes, with WriteDirectBytes set, writes a
	// clean's output with O_DIRECT only when the records its map build
	// read average at least this many bytes (CleanStats.MapBytesRead /
	// MapMessagesRead, batch headers included), and through the page cache
	// otherwise (and when the map build read no record): O_DIRECT spares
	// the copy into the page cache, most of a clean's CPU time when records
	// are large, but each direct write waits for the device, which costs
	// more than the copy when records are small and the filter's work per
	// byte is high (bench/'s row=write-direct measured both). Decided per
	// round, before the copy phase; IOStats.WriteDirectBytes says what was
	// used. Bytes; default 0: no record-size rule (O_DIRECT whenever
	// WriteDirectBytes is set, unless WriteDirectMinCleanBytes is set:
	// then either minimum reached chooses it). Not a Kafka config.
	WriteDirectMinRecordBytes int64 `json:",omitempty"`
	// WriteDirectMinCleanBytes, with WriteDirectBytes set, also writes a
	// round's output with O_DIRECT when the bytes the round rewrites reach
	// this many: the summed sizes of its source segments' .log files (every
	// segment below the round's end offset, which the copy phase reads and
	// replaces; IOStats.CleanBytes), known after the map build, before the
	// copy phase. A large clean's output lands in page-cache pages the
	// kernel has not used for a while, whose first touch costs system CPU
	// (on the lab's VM, which gives idle memory back to its host, most of
	// the growth of CPU per byte from 128 MiB to 4 GiB), and O_DIRECT
	// spares that copy; a small clean reuses recent pages, and there each
	// direct write's wait for the device costs more wall time than it saves.
	// The two minimums are alternatives: with either set, a round writes
	// direct when it reaches a minimum that is set (records or clean), and
	// through the page cache otherwise; with neither, whenever
	// WriteDirectBytes is set. IOStats.WriteDirectRule says which rule
	// chose O_DIRECT. Bytes; default 0: no clean-size rule. Not a Kafka
	// config.
	WriteDirectMinCleanBytes int64 `json:",omitempty"`
	// WritebackBytes starts the write-back of a cleaned segment's bytes
	// early, under the fsync policies segment and fdatasync: every this
	// many bytes written, sync_file_range(SYNC_FILE_RANGE_WRITE) over the
	// bytes written since the last start (iosched.Writer.SetWritebackBytes),
	// so the disk writes while the cleaner copies and the fsync before the
	// swap, which still happens, has less left to wait for. Bytes; default
	// 0: off, as Kafka (which writes the segment, then flushes it). The
	// policies none and bytes=N ignore it. Not a Kafka config.
	WritebackBytes int64 `json:",omitempty"`
	// LookAhead has the copy loop hand the next batch's keys to the offset
	// map before it filters the current one (offsetmap.Prefetcher: the map
	// prefetches their table memory), when that batch is already in the read
	// buffer, so the two batches' cache misses overlap. It costs a second
	// walk of that batch's records; results are unchanged. Maps that cannot
	// prefetch (skimpy, dense) ignore it. Default false, and off in
	// ProfileBest: bench's BenchmarkSpeed/row=look-ahead measured it slower
	// on the lab's machine. Not a Kafka config.
	LookAhead bool `json:",omitempty"`
	// SkipDirtyLookups decides the copy phase's records of the dirty
	// section from what the map build saw instead of looking their keys up
	// again: while it builds the map the cleaner notes each offset it puts,
	// and the map notes each offset a later Put of the same key overwrote
	// (offsetmap.SupersedeRecorder); in the copy phase a record noted put
	// is obsolete when noted overwritten and the latest for its key
	// otherwise, exactly what a lookup would answer. Records below the
	// first dirty offset are looked up as before. It costs two bits per
	// offset of the dirty section, for at most 4 x MaxMapEntries offsets
	// (records past them are looked up); it is used only when the pass's
	// Puts have strictly increasing offsets (always, but in a corrupt log).
	// Same results. Default false, as Kafka (which looks every record up).
	// Not a Kafka config.
	SkipDirtyLookups bool `json:",omitempty"`
	// MapHugePages asks the kernel for transparent huge pages for the
	// offset maps when they are pre-faulted (offsetmap.Prefaulter's
	// PrefaultHugePages: madvise MADV_HUGEPAGE, then MADV_COLLAPSE), so
	// that a map's random probes miss the TLB less. Not a Kafka feature:
	// Kafka's JVM allocates its dedupe buffer on the heap, which gets huge
	// pages only where THP is set to always or with
	// -XX:+UseTransparentHugePages. Default false, as Kafka's default JVM
	// (the Kafka profile too); on in the best profile (bench/'s
	// row=map-huge-pages measured 1.14x less CPU per byte for the whole
	// clean on the lab's machine; docs/speed.md). It acts where the map
	// is prefaulted (run, steady, bench), not on a map faulted in by the
	// clean itself.
	MapHugePages bool `json:",omitempty"`
	// MapSortBufferBytes gives each cleaner thread's offset map a buffer
	// of MapSortBufferBytes / Threads bytes in which the map build's Puts
	// wait, 32 bytes a Put, to be written sorted by their place in the
	// table (offsetmap.SortBufferer: a stable radix sort of each full
	// buffer, then the writes in bucket order), so that they go up through
	// the table nearly in address order instead of one cache miss each at
	// a random place. The buffer is taken out of the thread's share of the
	// dedupe buffer, not added to it: the table gets the rest
	// (PerThreadMapTableBytes), so DedupeBufferBytes stays the maps' whole
	// memory, and the map's slots, MaxMapEntries and the keys one round
	// holds drop by the buffer's bytes / 16. A buffer takes at most a
	// quarter of the share (PerThreadMapBytes / 128 Puts;
	// PerThreadMapSortPuts), so the table keeps three quarters at least. The map answers as if each Put were written
	// at once, in order (every key's latest offset, Size, the superseded
	// offsets); only where an entry sits within its probe run, and so the
	// probe counts, may differ. The cleaner's full-map rule is unchanged:
	// before a batch that could pass MaxEntries it asks the map's exact
	// Size, which writes the buffer first. Prefaulted with the map.
	// Needs bucket16; other layouts ignore it and keep the whole share.
	// Default 0 (off), as Kafka; see ProfileBest for the best profile's.
	// Not a Kafka config.
	MapSortBufferBytes int64 `json:",omitempty"`
	// ParallelLookups has a second goroutine read each segment the copy
	// phase recopies, ahead of the filter, through a reader of its own,
	// and look its records' keys up in the offset map, so that the
	// lookups' cache misses are spent on another core while the filter
	// rebuilds and writes; the filter takes the answers instead of looking
	// up (a batch the goroutine skipped, such as a compressed one, it looks
	// up itself); it also checks each batch's CRC, which the filter then
	// skips. Every segment is read twice: on the pread and mmap paths the
	// second read mostly hits the page cache the first warmed, on the direct
	// path both go to the device. The goroutine's reads are counted apart
	// (PhaseStats.AheadReadBytes) and not throttled.
	// Needs a map that answers concurrent lookups
	// (offsetmap.ConcurrentGetter: bucket16); others ignore it. Same
	// results. Default false, as Kafka (one thread per clean). Not a
	// Kafka config.
	ParallelLookups bool `json:",omitempty"`
	// ParallelMapBuild has a second goroutine read the dirty segments
	// while the offset map is built, through a reader of its own (with
	// ReadaheadBytes' helper), check each batch's CRC, decompress it (a
	// Decoder of its own), walk its records and hash its keys, so that the
	// cleaner's thread only puts them: the map build's decoding and
	// hashing move to another core, its cache misses stay on the
	// cleaner's. The dirty section is read once, by the goroutine. The
	// cleaner reads and maps itself a control batch, or one whose CRC,
	// decompression or records do not check out (a second read of that
	// batch, counted), and, should the goroutine stop at a batch it cannot
	// frame or at a read error, the rest from there, so errors are those
	// of the sequential build. Both readers count in the map phase's
	// reads, and its thread counters (from storage, major faults) add the
	// goroutine's thread to the cleaner's (PhaseCounters.Scope "threads").
	// Needs a map that takes fingerprints (offsetmap.FingerprintPutter:
	// bucket16); others ignore it, and so does a throttled cleaner
	// (log.cleaner.io.max.bytes.per.second meters the cleaner's own
	// reads). Same results. Default false, as Kafka. Not a Kafka config.
	ParallelMapBuild bool `json:",omitempty"`
	// ParallelRecompress compresses the batches the copy rebuilds for a
	// compressed topic on goroutines of their own (up to 4 at once, each
	// with its own compressor), while the cleaner filters the next
	// batches; the output goes to the cleaned segment in the order the
	// sequential copy writes it, and the cleaner compresses a batch itself
	// when its turn comes and its goroutine has not started. Compression
	// dominates such a copy (zstd, lz4, gzip at Kafka's default levels),
	// and it runs on the cleaner's thread otherwise. Same bytes. Default
	// false, as Kafka. Not a Kafka config.
	ParallelRecompress bool `json:",omitempty"`
	// ParallelCopy copies the copy phase's groups two at a time: the
	// cleaner copies one while a copy worker (a second set of the
	// cleaner's buffers: a read buffer and the write buffers, IOBufferBytes
	// / Threads more, on a goroutine of its own, with its own write-behind
	// and look-ahead goroutines when those are on) copies the next, both
	// reading the offset map, which the copy phase does not change; the
	// groups are swapped in in their order. The worker copies a group from
	// the transaction state the group before it starts from: when that
	// group changes the state (a transactional batch, a marker, an aborted
	// transaction reached), the worker's copy is thrown away and the
	// cleaner copies the group again, so the output is always the
	// sequential copy's, byte for byte, and a transactional log may cost
	// wasted copies (CleanStats.GroupsRecopied). The worker's thread is not
	// in the copy phase's kernel counters (PhaseStats.OS). Needs a map that
	// answers concurrent lookups (offsetmap.ConcurrentGetter: bucket16);
	// others ignore it, and so does a throttled cleaner. Default false, as
	// Kafka (one thread per clean). Not a Kafka config.
	ParallelCopy bool `json:",omitempty"`
	// KeyScan walks the records of each batch, in the map build and in
	// the copy's filter, reading only what the cleaner decides by: each
	// record's length, offset and timestamp deltas, key, and whether its
	// value is null (record.RecordIterator.NextKey); value bytes and
	// headers are stepped over by their lengths. It accepts and rejects
	// exactly the records the full decoder does (a record it cannot take
	// goes to the full decoder, whose error is returned), and kept records
	// are copied from their source bytes either way, so the output is the
	// same, byte for byte. Any map. Default false, as Kafka (whose cleaner
	// decodes every field of every record). Not a Kafka config.
	KeyScan bool `json:",omitempty"`
	// CleanedIndex is how a cleaned segment's .index and .timeindex get
	// their entries, one of CleanedIndexRules: CleanedIndexPerAppend (the
	// default, written empty: a run record without the field keeps its
	// config hash), as Kafka through 4.0.0, or CleanedIndexPerBatch, as
	// Kafka since KAFKA-806 (4.0.1, 4.1). The .log is the same either way.
	// Not a Kafka config: a Kafka version's rule.
	CleanedIndex string `json:",omitempty"`
}

// The rules of CleanerConfig.CleanedIndex (cleanedAppends).
const (
	// CleanedIndexPerAppend: Kafka's cleaner appends the retained batches
	// of each read buffer to the cleaned segment in one LogSegment.append
	// (Cleaner.cleanInto), and LogSegment.append through Kafka 4.0.0 adds
	// at most one offset-index entry per append (the append's largest
	// offset -> its start position) and one time-index entry, when more
	// than index.interval.bytes were appended since the last entry.
	CleanedIndexPerAppend = "per-append"
	// CleanedIndexPerBatch: LogSegment.append checks every batch it
	// appends (KAFKA-806, Kafka 4.0.1 and 4.1 on), so a cleaned segment is
	// indexed as appended segments are.
	CleanedIndexPerBatch = "per-batch"
)

// CleanedIndexRules are the valid values of CleanerConfig.CleanedIndex.
func CleanedIndexRules() []string { return []string{CleanedIndexPerAppend, CleanedIndexPerBatch} }

// DefaultCleanerConfig returns Kafka's defaults.
func DefaultCleanerConfig() CleanerConfig {
	return CleanerConfig{
		DedupeBufferBytes: 128 << 20,
		IOBufferBytes:     512 << 10,
		LoadFactor:        0.9,
		Threads:           1,
		Hasher:            "md5",
		OffsetMap:         "skimpy",
		VerifyCRC:         true,
		IOPath:            iosched.ReadPread,
		Readahead:         iosched.HintNone,
		Throttler:         iosched.ThrottlerKafka,
	}
}

// Cleaner profiles: named groups of the settings that decide the cleaner's
// speed, for ApplyProfile (and the lab's --profile).
const (
	// ProfileKafka is Kafka's cleaner: md5, SkimpyOffsetMap, pread, each
	// buffer written by the cleaner thread itself (the defaults).
	ProfileKafka = "kafka"
	// ProfileBest is the fastest configuration the lab has measured:
	// bucket16 with xxh3-128 (write-behind Puts, batched lookups), pread
	// with 32 MiB of read-ahead (ReadaheadBytes: a helper keeps the disk
	// reading ahead of a cold clean), write-behind output (a second core
	// writes each full buffer), the dirty section's records decided from
	// the map build (SkipDirtyLookups), the copy phase's groups copied two
	// at a time (ParallelCopy), each dirty batch's CRC checked once
	// (VerifyCRCOnce), records walked for their keys and offsets only
	// (KeyScan), the map build's
	// reading, decoding and hashing on the second core (ParallelMapBuild), the output's
	// write-back started every BestWritebackBytes (WritebackBytes), so the
	// fsync before each swap is short, and that fsync and the swap run
	// behind the next group's copy (SyncBehind), and the output of a log
	// whose records average BestWriteDirectMinRecordBytes or more written
	// with O_DIRECT in writes of BestWriteDirectBytes (WriteDirectBytes,
	// WriteDirectMinRecordBytes): no copy into the page cache, most of
	// the CPU time of a clean of large records.
	// LookAhead stays off: bench/ measured it slower (the second walk of
	// the next batch costs more than the cache misses it hides).
	// ParallelLookups stays off: its goroutine reads and decodes every
	// copied segment a second time to spare the filter its lookups;
	// ParallelCopy puts the second core to work without redoing any
	// (docs/speed.md has the measurements).
	// The dedupe buffer, the I/O buffer, load factor and fsync policy are
	// left as they are, so it compares with ProfileKafka at Kafka's sizes;
	// only when its output goes O_DIRECT are the write buffers
	// BestWriteDirectBytes each (lab.RSSGoal counts them).
	ProfileBest = "best"
)

// BestWritebackBytes is ProfileBest's WritebackBytes: 1 MiB. On the lab's
// machine (ext4 on a virtio disk, 2 shared vCPUs), 256 MiB warm cleans of
// the best profile took 0.102 s in the fsyncs of their cleaned segments
// with 1 MiB, 0.109 s with 4 and 16 MiB, 0.151 s without (medians of 6),
// and ran 1.095x, 1.083x and 1.024x as fast as without (medians of 35
// interleaved pairs); docs/speed.md has the commands. What an
// fsync still takes (20-30 ms a segment there) is the journal commit and
// the device's cache flush, which no early start shortens.
const BestWritebackBytes = 1 << 20

// BestWriteDirectBytes and BestWriteDirectMinRecordBytes are ProfileBest's
// WriteDirectBytes and WriteDirectMinRecordBytes: O_DIRECT output in 1 MiB
// writes for logs whose records average 256 bytes or more. On the lab's
// machine (ext4 on a virtio disk, 2 shared vCPUs), 256 MiB warm cleans of
// the best profile with O_DIRECT output against without, 5-9 interleaved
// pairs a run, ran 1.11-1.49x as fast with 1.5-1.9x less CPU at 1 KiB
// values (5 runs), 0.93-1.46x as fast with 1.15-1.61x less CPU at 300 B
// (3 runs), 1.44x / 1.37x at 600 B, 1.06x / 1.40x at 200 B, and 0.90x,
// 1.00x, 1.15x and 1.26x as fast (1.1-1.5x less CPU) at 100 B, where each
// direct write's wait for the device costs about what it saves;
// docs/speed.md has the runs and the command.
const (
	BestWriteDirectBytes          = 1 << 20
	BestWriteDirectMinRecordBytes = 256
)

// BestWriteDirectMinCleanBytes is ProfileBest's WriteDirectMinCleanBytes:
// rounds that rewrite 512 MiB or more write O_DIRECT whatever their record
// size. bench/'s row=write-direct-size (best profile, 100-B values, page
// cache against O_DIRECT output, interleaved, on the lab's 2-core VM, load
// 2.4-6) measured O_DIRECT/page-cache CPU and wall per byte of 1.03/1.06
// at 128 MiB (10 pairs), 1.06/1.22 at 256 MiB (7), 0.88/0.87 at 512 MiB
// (7), 0.73/0.84 at 1 GiB (7) and 0.64/0.69 at 4 GiB (3): the crossover
// lies between 256 and 512 MiB.
const BestWriteDirectMinCleanBytes = 512 << 20

// MapSortBufferOnBytes is ProfileBest's MapSortBufferBytes, and the one
// bench/'s row=map-sort-buffer measures: 32 MiB, 1M Puts with one cleaner
// thread, a quarter of the default 128 MiB dedupe buffer, out of which it
// is taken (a 96 MiB table: 5,662,310 keys a round at load factor 0.9
// instead of 7,549,747). On the lab's machine (bucket16, xxh3-128, 5M
// keys into 128 MiB, huge pages) a buffer of 1M Puts took the map build
// from 77 to 40 CPU ns per key (PutBatch) and from 46 to 30
// (PutFingerprints, the parallel map build's)
// (offsetmap.BenchmarkBucketSortedPut). Whole cleans of the best profile
// without and with it, taken out of the same dedupe buffer (2026-12-06,
// interleaved pairs, load 2-11, medians of runs): 1.06x less CPU per byte
// at 128 MiB (7 runs), 1.11x at 1 GiB (5 runs), wall 0.99x at both
// (within the noise); peak RSS unchanged (169.7 MiB, 0.87 of
// lab.RSSGoal, 256 MiB log); docs/speed-map-locality.md.
const MapSortBufferOnBytes = 32 << 20

// BestReadaheadBytes is ProfileBest's ReadaheadBytes: on the lab's machine
// 32 MiB brought a cold clean's time inside the cleaner's preads to within
// 10-25 ms per phase of a warm one's, where 8 MiB left 20-30 ms more, and
// 64 MiB was no faster (docs/results/2026-12-speed.md, "Cold cleans").
const BestReadaheadBytes = 32 << 20

// ProfileNames lists the names ApplyProfile accepts.
func ProfileNames() []string { return []string{ProfileKafka, ProfileBest} }

// ApplyProfile sets Hasher, OffsetMap, IOPath, Readahead, ReadaheadBytes,
// WriteBehind, SyncBehind, WriteDirectBytes, WriteDirectMinRecordBytes
// and WriteDirectMinCleanBytes (off in kafka; in best, O_DIRECT output
// for logs of large records and for large cleans),
// WritebackBytes, LookAhead,
// SkipDirtyLookups, ParallelLookups, ParallelMapBuild, ParallelCopy,
// VerifyCRCOnce, KeyScan, MapSortBufferBytes (MapSortBufferOnBytes in
// best, taken out of the dedupe buffer; off in kafka), ParallelRecompress
// (off in both: measured slower on the lab's machine) and MapHugePages (on
// in best only) to those of the named profile (ProfileKafka,
// ProfileBest) and leaves every other field alone. Error: an unknown name.
func (c *CleanerConfig) ApplyProfile(name string) error {
	switch name {
	case ProfileKafka:
		c.Hasher, c.OffsetMap, c.WriteBehind, c.LookAhead = offsetmap.HasherMD5, offsetmap.LayoutSkimpy, false, false
		c.SkipDirtyLookups, c.ParallelLookups, c.WritebackBytes, c.ReadaheadBytes = false, false, 0, 0
		c.SyncBehind, c.ParallelMapBuild, c.ParallelCopy, c.VerifyCRCOnce = false, false, false, false
		c.KeyScan, c.MapSortBufferBytes = false, 0
		c.WriteDirectBytes, c.WriteDirectMinRecordBytes, c.WriteDirectMinCleanBytes = 0, 0, 0
	case ProfileBest:
		c.Hasher, c.OffsetMap, c.WriteBehind, c.LookAhead = offsetmap.HasherXXH3_128, offsetmap.LayoutBucket16, true, false
		c.SkipDirtyLookups, c.ParallelLookups, c.WritebackBytes, c.ReadaheadBytes = true, false, BestWritebackBytes, BestReadaheadBytes
		c.SyncBehind, c.ParallelMapBuild, c.ParallelCopy, c.VerifyCRCOnce = true, true, true, true
		c.KeyScan, c.MapSortBufferBytes = true, MapSortBufferOnBytes
		c.WriteDirectBytes, c.WriteDirectMinRecordBytes = BestWriteDirectBytes, BestWriteDirectMinRecordBytes
		c.WriteDirectMinCleanBytes = BestWriteDirectMinCleanBytes
	default:
		return fmt.Errorf("engine: unknown cleaner profile %q (valid: %s)", name, strings.Join(ProfileNames(), ", "))
	}
	c.IOPath, c.Readahead, c.ParallelRecompress = iosched.ReadPread, iosched.HintNone, false
	c.MapHugePages = name == ProfileBest
	return nil
}

// IgnoredSettings says which of the speed settings turned on in c the
// clean cannot use, each as a sentence naming its flag, among those given
// says were given (by the lab's setting name, which is the flag's:
// "write-direct-min-record-bytes", "parallel-copy"; nil: every one was):
// a setting a profile or a default turned on is the caller's to leave
// out, so that a warning names only what the user set. LookAhead needs
// an offsetmap.Prefetcher, ParallelLookups and ParallelCopy an
// offsetmap.ConcurrentGetter, ParallelMapBuild an
// offsetmap.FingerprintPutter (bucket16 is all three); ParallelCopy and
// ParallelMapBuild run on the cleaner thread under a throttle;
// WriteDirectMinRecordBytes and WriteDirectMinCleanBytes choose nothing
// without WriteDirectBytes. The
// clean runs without them, with the same results; the CLI prints the
// sentences as warnings.
func (c *CleanerConfig) IgnoredSettings(given func(setting string) bool) []string {
	var notes []string
	note := func(setting, sentence string) {
		if given == nil || given(setting) {
			notes = append(notes, sentence)
		}
	}
	if c.WriteDirectMinRecordBytes > 0 && c.WriteDirectBytes <= 0 {
		note("write-direct-min-record-bytes", "--write-direct-min-record-bytes is ignored: it chooses when to write with O_DIRECT, and --write-direct-bytes is 0 (off)")
	}
	if c.WriteDirectMinCleanBytes > 0 && c.WriteDirectBytes <= 0 {
		note("write-direct-min-clean-bytes", "--write-direct-min-clean-bytes is ignored: it chooses when to write with O_DIRECT, and --write-direct-bytes is 0 (off)")
	}
	if c.ParallelCopy && c.MaxIOBytesPerSecond > 0 {
		note("parallel-copy", "--parallel-copy is ignored: log.cleaner.io.max.bytes.per.second throttles the cleaner thread's own reads, so the copy runs on that thread")
	}
	if c.ParallelMapBuild && c.MaxIOBytesPerSecond > 0 {
		note("parallel-map-build", "--parallel-map-build is ignored: log.cleaner.io.max.bytes.per.second throttles the cleaner thread's own reads, so the map build reads on that thread")
	}
	layout := c.OffsetMap
	if layout == "" {
		layout = offsetmap.LayoutSkimpy
	}
	if layout == offsetmap.LayoutBucket16 {
		return notes
	}
	if c.LookAhead {
		note("look-ahead", fmt.Sprintf("--look-ahead is ignored: the %s offset map cannot prefetch (bucket16 can)", layout))
	}
	if c.ParallelLookups {
		note("parallel-lookups", fmt.Sprintf("--parallel-lookups is ignored: the %s offset map cannot answer lookups from two goroutines (bucket16 can)", layout))
	}
	if c.ParallelCopy {
		note("parallel-copy", fmt.Sprintf("--parallel-copy is ignored: the %s offset map cannot answer lookups from two goroutines (bucket16 can)", layout))
	}
	if c.ParallelMapBuild {
		note("parallel-map-build", fmt.Sprintf("--parallel-map-build is ignored: the %s offset map cannot put keys hashed on another goroutine (bucket16 can)", layout))
	}
	if c.MapSortBufferBytes > 0 {
		note("map-sort-buffer-bytes", fmt.Sprintf("--map-sort-buffer-bytes is ignored: the %s offset map cannot hold its puts in a sort buffer (bucket16 can)", layout))
	}
	return notes
}

// PerThreadMapBytes is the offset map memory of each cleaner thread:
// DedupeBufferBytes / Threads, in bytes, as Kafka's LogCleaner gives each
// CleanerThread a SkimpyOffsetMap of
// math.min(config.dedupeBufferSize / config.numThreads, Int.MaxValue)
// (core/src/main/scala/kafka/log/LogCleaner.scala). Kafka caps the share
// at Int.MaxValue and warns; Validate refuses a share over 2 GiB instead,
// so for a valid config the two agree and the share is not capped here.
// 0 when Threads < 1. Every split of the dedupe buffer among threads uses
// it.
func (c CleanerConfig) PerThreadMapBytes() int64 {
	if c.Threads < 1 {
		return 0
	}
	return c.DedupeBufferBytes / int64(c.Threads)
}

// PerThreadMapSortPuts is the size in Puts of each cleaner thread's map
// sort buffer (MapSortBufferBytes), at most slots (the map's Slots): the
// Puts PerThreadMapSortBytes is made of. 0 when off, when Threads < 1 or
// when OffsetMap is not bucket16 (the only layout with a sort buffer).
func (c CleanerConfig) PerThreadMapSortPuts(slots int) int {
	return int(min(c.perThreadMapSortPuts(), int64(max(slots, 0))))
}

// perThreadMapSortPuts is PerThreadMapSortPuts before the cap at the
// map's slots: MapSortBufferBytes / Threads / 32 (offsetmap.SortBufferBytes:
// 32 bytes a Put), at most offsetmap.MaxCarvedSortPuts of the thread's
// share of the dedupe buffer (PerThreadMapBytes / 128: a quarter of the
// share, so the table keeps three quarters at least).
func (c CleanerConfig) perThreadMapSortPuts() int64 {
	return min(c.askedMapSortPuts(), offsetmap.MaxCarvedSortPuts(c.PerThreadMapBytes()))
}

// askedMapSortPuts is each thread's sort buffer as MapSortBufferBytes asks
// it, before any cap: MapSortBufferBytes / Threads / 32 Puts
// (offsetmap.SortBufferBytes: 32 bytes a Put); 0 when off, when Threads < 1
// or when OffsetMap is not bucket16.
func (c CleanerConfig) askedMapSortPuts() int64 {
	if c.Threads < 1 || c.MapSortBufferBytes <= 0 || !strings.EqualFold(string(c.OffsetMap), offsetmap.LayoutBucket16) {
		return 0
	}
	return c.MapSortBufferBytes / int64(c.Threads) / offsetmap.SortBufferBytes(1)
}

// PerThreadMapSortBytes is the part of each cleaner thread's share of the
// dedupe buffer (PerThreadMapBytes) that its map's sort buffer takes:
// offsetmap.SortBufferBytes of its Puts (32 bytes a Put; see
// PerThreadMapSortPuts), in bytes. 0 when the sort buffer is off.
func (c CleanerConfig) PerThreadMapSortBytes() int64 {
	return offsetmap.SortBufferBytes(int(c.perThreadMapSortPuts()))
}

// PerThreadMapTableBytes is the size in bytes of each cleaner thread's
// offset map table: its share of the dedupe buffer (PerThreadMapBytes)
// less its sort buffer (PerThreadMapSortBytes), so that
// log.cleaner.dedupe.buffer.size stays the whole memory of the maps, as
// Kafka's budget is; without a sort buffer (the Kafka profile), the whole
// share, as Kafka's SkimpyOffsetMap. The map's slots, MaxMapEntries and
// the keys a round holds come from this size. 0 when Threads < 1.
func (c CleanerConfig) PerThreadMapTableBytes() int64 {
	return c.PerThreadMapBytes() - c.PerThreadMapSortBytes()
}

// DedupeBufferBytesForTable is the log.cleaner.dedupe.buffer.size that
// gives each of c.Threads threads an offset map table
// (PerThreadMapTableBytes) of tableBytes besides c's map sort buffer:
// (tableBytes + 32 x min(MapSortBufferBytes / Threads / 32, tableBytes /
// 96), each rounded down) x Threads, in bytes; tableBytes x Threads
// (Kafka's split) without a sort buffer or with a layout other than
// bucket16. The sort buffer is the one asked while it is at most a third
// of tableBytes; a larger one is cut to a third of tableBytes, what the
// cap of PerThreadMapSortPuts (a quarter of the share) leaves it beside a
// table of tableBytes, so that the share holds the table asked and no
// more (tableBytes + the whole buffer asked would give the table three
// quarters of that, more than tableBytes). 0 when Threads < 1. The
// sizing code (lab/sizing) gives the dedupe buffer of a map that must hold
// a number of keys through it.
func (c CleanerConfig) DedupeBufferBytesForTable(tableBytes int64) int64 {
	if c.Threads < 1 {
		return 0
	}
	tableBytes = max(tableBytes, 0)
	puts := min(c.askedMapSortPuts(), tableBytes/(3*offsetmap.SortBufferBytes(1)))
	return (tableBytes + offsetmap.SortBufferBytes(int(puts))) * int64(c.Threads)
}

// PerThreadIOBufferBytes is the size of each of a cleaner thread's two I/O
// buffers (one read, one write): IOBufferBytes / Threads / 2, in bytes, as
// Kafka's LogCleaner builds each Cleaner with ioBufferSize =
// config.ioBufferSize / config.numThreads / 2
// (core/src/main/scala/kafka/log/LogCleaner.scala). 0 when Threads < 1.
func (c CleanerConfig) PerThreadIOBufferBytes() int64 {
	if c.Threads < 1 {
		return 0
	}
	return c.IOBufferBytes / int64(c.Threads) / 2
}

// Validate returns a *ConfigError naming the first config out of range.
func (c *CleanerConfig) Validate() error {
	switch {
	case c.Threads < 1:
		return configError("log.cleaner.threads", "engine: log.cleaner.threads %d must be at least 1", c.Threads)
	case c.PerThreadMapBytes() < 24:
		return configError("log.cleaner.dedupe.buffer.size", "engine: log.cleaner.dedupe.buffer.size %d gives each of %d threads less than one 24-byte map entry", c.DedupeBufferBytes, c.Threads)
	case c.PerThreadMapBytes() > math.MaxInt32:
		// Kafka's limit: the per-thread map is one ByteBuffer.
		return configError("log.cleaner.dedupe.buffer.size", "engine: log.cleaner.dedupe.buffer.size %d per thread exceeds 2 GiB", c.PerThreadMapBytes())
	case c.PerThreadIOBufferBytes() < record.BatchHeaderSize:
		// Kafka accepts any size and grows the buffers to the first batch;
		// below one batch header nothing useful is read.
		return configError("log.cleaner.io.buffer.size", "engine: log.cleaner.io.buffer.size %d gives each of %d threads buffers under %d bytes (one batch header)", c.IOBufferBytes, c.Threads, record.BatchHeaderSize)
	case c.LoadFactor <= 0 || c.LoadFactor > 1:
		return configError("log.cleaner.io.buffer.load.factor", "engine: log.cleaner.io.buffer.load.factor %v out of range (0, 1]", c.LoadFactor)
	case c.ReadaheadBytes < 0:
		return configError("readahead-bytes", "engine: readahead bytes %d is negative (0: off)", c.ReadaheadBytes)
	case !(c.MaxIOBytesPerSecond >= 0) || math.IsInf(c.MaxIOBytesPerSecond, 1):
		return configError("log.cleaner.io.max.bytes.per.second", "engine: log.cleaner.io.max.bytes.per.second %v: want a finite rate >= 0 (0: no limit)", c.MaxIOBytesPerSecond)
	case c.MapSortBufferBytes < 0 || c.MapSortBufferBytes > 1<<36:
		return configError("map-sort-buffer-bytes", "engine: MapSortBufferBytes %d: want 0 (off) to 64 GiB", c.MapSortBufferBytes)
	case c.WritebackBytes < 0:
		return configError("writeback-bytes", "engine: WritebackBytes %d is negative (0: off)", c.WritebackBytes)
	case c.WriteDirectBytes < 0 || c.WriteDirectBytes > 1<<30:
		return configError("write-direct-bytes", "engine: WriteDirectBytes %d: want 0 (off) to 1 GiB", c.WriteDirectBytes)
	case c.WriteDirectMinRecordBytes < 0:
		return configError("write-direct-min-record-bytes", "engine: WriteDirectMinRecordBytes %d is negative (0: no record-size rule)", c.WriteDirectMinRecordBytes)
	case c.WriteDirectMinCleanBytes < 0:
		return configError("write-direct-min-clean-bytes", "engine: WriteDirectMinCleanBytes %d is negative (0: no clean-size rule)", c.WriteDirectMinCleanBytes)
	}
	if _, err := iosched.ParseReadPath(string(c.IOPath)); err != nil {
		return configError("io", "engine: io path: %w", err)
	}
	if _, err := iosched.ParseReadaheadHint(string(c.Readahead)); err != nil {
		return configError("readahead", "engine: readahead: %w", err)
	}
	if _, err := iosched.ParseThrottlerKind(string(c.Throttler)); err != nil {
		return configError("throttler", "engine: throttler: %w", err)
	}
	// Names are checked here, not only when the cleaner allocates its map,
	// so that a caller learns of a typo before generating or reading a log.
	// An empty Hasher is left to NewCleaner, which needs it only when no map
	// is given in CleanerOptions.
	if c.Hasher != "" {
		if _, err := offsetmap.NewHasher(c.Hasher); err != nil {
			return configError("hasher", "engine: hasher: %w", err)
		}
	}
	if c.CleanedIndex != "" && !slices.Contains(CleanedIndexRules(), c.CleanedIndex) {
		return configError("cleaned-index", "engine: cleaned index rule %q unknown (valid: %s)", c.CleanedIndex, strings.Join(CleanedIndexRules(), ", "))
	}
	if !slices.Contains(offsetmap.LayoutNames(), strings.ToLower(string(c.OffsetMap))) && c.OffsetMap != "" {
		return configError("offset-map", "engine: offset map %q unknown (valid: %s)", c.OffsetMap, strings.Join(offsetmap.LayoutNames(), ", "))
	}
	return nil
}

// ConfigError is a config out of its range, or a name that names nothing:
// Config is the setting at fault, by Kafka's name where Kafka has one
// (log.cleaner.dedupe.buffer.size), else by the lab's flag name
// (writeback-bytes); so that a caller can say where the value came from
// (a line of server.properties, of an experiment file, a flag) without
// reading the message.
type ConfigError struct {
	Config string
	Err    error
}

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// configError is a *ConfigError of config with fmt.Errorf's message.
func configError(config, format string, args ...any) error {
	return &ConfigError{Config: config, Err: fmt.Errorf(format, args...)}
}
