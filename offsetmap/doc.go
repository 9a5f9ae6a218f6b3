// Package offsetmap holds the cleaner's dedupe map (Kafka's "offset map"): a
// fixed-size table from the digest of a record key to the offset of that key's
// latest record, built over the dirty section of a log before the copy loop.
//
// The package defines the [Map] interface, the Kafka-compatible [Skimpy] map
// (the same slot layout, probe sequence and statistics as Kafka's
// org.apache.kafka.storage.internals.log.SkimpyOffsetMap), and interchangeable
// [Hasher]s (md5 as Kafka, sha1, sha256, xxh3-64, xxh3-128).
//
// A map is not safe for concurrent use: each cleaner thread owns one, as each
// Kafka cleaner thread owns its SkimpyOffsetMap.
//
// It imports nothing else of cleanerlab.
package offsetmap
