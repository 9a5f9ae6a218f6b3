// Package workloads describes benchmark workloads (Spec), writes the logs they
// describe into a data directory (Generate) and keeps, for each partition, the
// state the cleaner must leave behind (GroundTruth), which Verify checks a log
// against by reading it independently of the cleaner.
//
// A generated partition looks as a broker would have left a partly-cleaned
// compacted log: a clean, already-compacted base (every key at most once, in
// a seeded random order, offsets contiguous from 0), then, starting on a
// segment boundary, a dirty head of random overwrites and tombstones, then an
// empty active segment, with the cleaner-offset-checkpoint at the head's first
// offset. The byte sizes of base and head are chosen so that the log's
// cleanable ratio (engine.CleanableOffsets) is the spec's DirtyRatio.
//
// The head's keys follow one of YCSB's key choices (distribution.go:
// uniform, scrambled zipfian, latest, sequential, hot/cold); key and value
// sizes may be drawn (sizes.go: fixed, uniform, log-normal); a share of its
// batches may be written in transactions of several producers, committed or
// aborted (txn.go), and only committed records count in the ground truth;
// timestamps advance at Spec.RecordsPerSecond.
//
// Everything is deterministic: the same Spec (and segment configuration)
// gives the same bytes in every file. Random choices come from math/rand/v2's
// PCG, whose output sequence is fixed by its definition; bounded draws use
// this package's own reductions so that they do not depend on the standard
// library's algorithms either.
package workloads
