// Package shard splits a cleanerlab sweep over many machines and merges the
// pieces back into one record.
//
// A sweep's runs are its points (the cross product of its axes) times its
// repetitions, carried out in an order shuffled by the sweep's seed. Split
// deals that order out to N shards, round robin: shard i of N (i counts from
// 0, as Kubernetes' JOB_COMPLETION_INDEX) takes the runs at positions i,
// i+N, i+2N, ... The same seed gives the same order and so the same split on
// every machine, with no coordination between them.
//
// Each shard writes a normal sweep record (sweep.json and the rest) and,
// beside it, a Manifest (shard.json): the sweep's identity (the SHA-256 of
// its Definition: the experiment file's bytes, the parameters, the count,
// the seed and every point's resolved configuration), the shard i/N, the
// runs it was given, its status and the host's results.Environment.
//
// Merge takes the shards' records, refuses a shard of another sweep and a
// shard given twice, and says which runs are missing (a shard that failed,
// stopped, or never reported) and which were reported twice (shards of
// different N overlap). It keeps the figures of each host class (CPU model,
// disk model, file system, kernel) in a sweep record of their own, so that
// figures of different machines are never averaged together;
// CompareClasses sets the classes side by side with benchstat's statistics.
package shard
