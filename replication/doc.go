// Package replication runs several replicas of one partition, each on its own
// broker with its own log directory on disk (<root>/broker-N/<topic>-0, an
// engine.Log), under a controller and a virtual clock, to see which data a
// failover keeps and how independent log cleaning makes replicas diverge.
//
// The rules are Kafka's (docs/replication-model.md): the leader's high
// watermark as Partition.maybeIncrementLeaderHW, follower fetch state as
// Replica.updateFetchStateOrThrow, ISR shrink by replica.lag.time.max.ms and
// expansion by the two bounds of Partition.isFollowerInSync, proposed to the
// controller by AlterPartition and pending until it answers (the
// asynchronous ISR with partition and broker epochs: isr.go,
// docs/replication-isr.md), leader epochs and
// truncation as AbstractFetcherThread, clean elections from the ISR in
// assignment order as PartitionChangeBuilder, min.insync.replicas for
// acks=all. Transactional producers' COMMIT and ABORT markers are written by a
// coordinator through the leader. Each broker cleans its own log with its own
// engine.Cleaner, either independently (Kafka) or coordinated (Redpanda's
// MCCO -> MTRO and MXFO -> MXRO: tombstones removed only below MTRO, markers
// only below MXRO).
//
// Everything runs on one goroutine in event order, with time taken from a
// virtual Clock, so a scenario or a seeded campaign replays byte for byte.
//
// Files: cluster.go (controller, brokers, elections, ISR), isr.go (pending
// ISR changes, AlterPartition, broker epochs), fetch.go (leader fetch
// handling and followers), produce.go (producers, transactions, acks),
// coord.go (coordinated cleaning), check.go (the divergence checker),
// scenario.go (the scenario language), campaign.go (random schedules and
// shrinking), cost.go (bytes held and removal delay).
package replication
