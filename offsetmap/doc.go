// Package offsetmap holds the cleaner's dedupe map (Kafka's "offset map"): a
// fixed-size table from the digest of a record key to the offset of that key's
// latest record, built over the dirty section of a log before the copy loop.
//
// The package defines the [Map] interface, the Kafka-compatible [Skimpy] map
// (the same slot layout, probe sequence and statistics as Kafka's
// org.apache.kafka.storage.internals.log.SkimpyOffsetMap), and interchangeable
// [Hasher]s (md5 as Kafka, sha1, sha256, xxh3-64, xxh3-128, metro-64,
// metro-128, murmur3-128, fnv1a-64).
//
// Denser layouts trade a stated risk of fingerprint collisions (see
// [CollisionProbability] and [LayoutInfo]) for more keys per MiB and an O(1)
// Clear: [Dense] (16- or 12-byte entries, flat) and [Bucket] (16-byte entries
// in 64-byte cache lines, with the batched [Batcher] API). [New] builds any
// of them by name; [Describe] states each one's density and risk.
//
// A map is not safe for concurrent use: each cleaner thread owns one, as each
// Kafka cleaner thread owns its SkimpyOffsetMap.
//
// It imports nothing else of cleanerlab.
package offsetmap
