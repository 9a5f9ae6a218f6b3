// Package inspect prints and checks the files of a Kafka log directory
// read-only, in the shape of Kafka's kafka-dump-log tool: segment .log files
// (record batches v2, magic 0/1 messages, the records inside them), .index,
// .timeindex and .txnindex files, the offset checkpoint files of a log
// directory root (cleaner-offset-checkpoint, recovery-point-offset-checkpoint,
// log-start-offset-checkpoint), a partition's leader-epoch-checkpoint and the
// clean-shutdown marker.
//
// Dump takes one file, a partition directory (topic-partition) or a whole
// log directory root (the parent of the partition directories) and prints
// every file in it in order; Verify runs engine.Verify over a partition or
// over every partition of a root. Nothing on disk is changed and no lock is
// taken.
//
// The index and checkpoint formats are decoded here from the format spec
// (engine/FORMAT.md: big-endian 8-byte .index entries, 12-byte .timeindex
// entries, 34-byte .txnindex entries, the text checkpoint files), so that
// the engine exports no codec internals for dump. Segment file names are
// read with engine.ParseSegmentFileName, the engine's one parser of them.
//
// Bad bytes end a dump with a *record.CorruptionError naming the file, the
// byte position and what was expected.
package inspect
