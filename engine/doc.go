// Package engine is a segment store and log cleaner that read and write
// Apache Kafka's on-disk log byte for byte and follow the rules of Kafka's
// LogCleaner. Its output .log files are byte-identical to what Kafka's own
// cleaner writes from the same input.
//
// # The store
//
// A partition directory (named topic-partition, Kafka's layout) holds
// segments: a .log of record batches (package engine/record), an .index
// (offset -> byte position), a .timeindex and, when a transaction was
// aborted, a .txnindex, each named by its base offset in 20 digits
// (ParseSegmentFileName). Its log directory root holds the
// cleaner-offset-checkpoint, recovery-point-offset-checkpoint and
// log-start-offset-checkpoint files and the .kafka_cleanshutdown marker.
// engine/FORMAT.md draws every byte of them.
//
// Open loads a partition as Kafka's LogLoader does: the swap rules for
// .cleaned, .swap and .deleted leftovers, indexes rebuilt when missing or
// corrupt, and, without the clean-shutdown marker, recovery from the
// recovery point (a torn tail cut; corruption in the middle is an error and
// nothing changes). A Log appends batches (Append, Roll, Flush, Close, as
// Kafka's UnifiedLog and LogSegment), answers fetches (Fetch, NewConsumer,
// read_uncommitted up to the high watermark or read_committed up to the
// last stable offset), and runs retention (DeleteOldSegments,
// DeleteRecords). Options.ReadOnly opens without changing anything on disk;
// OpenLogDir and PartitionDirs work on a whole root.
//
// # A replica
//
// For the replication lab a Log is also one replica of a partition, as
// Kafka's UnifiedLog: AppendAsLeader assigns offsets and stamps the leader
// epoch, AppendAsFollower keeps the leader's bytes, the leader epoch cache
// (LeaderEpochs, EndOffsetForEpoch; leader-epoch-checkpoint) follows both,
// TruncateTo and TruncateFullyAndStartAt undo a diverged suffix (crash
// safe; the high watermark, checkpoints, producer state and cache follow),
// and MaybeIncrementLogStartOffset takes the leader's log start offset.
// For cleaning coordinated across replicas (Redpanda's MTRO and MXRO) a
// Log reports MaxCleanlyCompactedOffset and MaxTxFreeOffset and its cleans
// honour SetRemovalBounds; the default bounds nothing (Kafka's cleaner).
//
// # The cleaner
//
// A Cleaner is one of Kafka's cleaner threads: NewCleaner allocates its
// offset map (package offsetmap; log.cleaner.dedupe.buffer.size / threads)
// and its read and write buffers once; Cleaner.Clean cleans one log from the
// first dirty offset (CleanableOffsets: the checkpoint, the active segment,
// the last stable offset, min.compaction.lag.ms) as Kafka's Cleaner.doClean:
// build the map over the dirty section (stopping when it is full), group
// segments by size, recopy each group into a .cleaned segment with Kafka's
// retain and discard rules (tombstones and their delete horizon,
// transactions, empty batches kept for producer state, unchanged batches
// copied verbatim), swap it in and move the checkpoint. A CleanerManager
// runs Kafka's LogCleanerManager over many logs and roots: the filthiest
// log first, pause/abort/resume, uncleanable partitions, offline roots.
// The doc comment of each rule names the Kafka code it follows.
//
// # Checking
//
// Verify checks a partition read-only (CRCs, offsets, indexes, the txn
// index against the markers, no key twice below the checkpoint, what
// recovery would cut) and lists every problem with its file and byte
// position. ScanFile walks the batches of one .log.
//
// # Seams and errors
//
// All file access goes through FS (DefaultFS is the OS), so tests can log,
// fault or crash every operation; clocks are injected (Options.Now,
// CleanerOptions.Now). Bad bytes are a *record.CorruptionError naming the
// file and byte position; the sentinel errors are listed by phase in
// errors.go.
package engine
