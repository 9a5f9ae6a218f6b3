package replication

import (
	"errors"
	"fmt"

	"github.com/cleanerlab/cleanerlab/engine"
)

// Mode is how the replicas' cleaners decide what they may remove.
type Mode int8

const (
	// Independent: each broker's cleaner removes tombstones and transaction
	// markers by its own delete horizon alone, as Kafka.
	Independent Mode = iota
	// Coordinated: tombstones are removed only below MTRO and markers only
	// below MXRO, the minimum over all replicas of their MCCO and MXFO, as
	// Redpanda's compaction coordinator (docs/replication-model.md §7).
	Coordinated
)

func (m Mode) String() string {
	if m == Coordinated {
		return "coordinated"
	}
	return "independent"
}

// ParseMode reads "independent" or "coordinated".
func ParseMode(s string) (Mode, error) {
	switch s {
	case "independent":
		return Independent, nil
	case "coordinated":
		return Coordinated, nil
	}
	return 0, fmt.Errorf("replication: mode %q: want independent or coordinated", s)
}

// Truncation is how a replica that becomes follower finds where its log
// stops agreeing with the leader's.
type Truncation int8

const (
	// TruncateByEpoch asks the leader for the end offset of the follower's
	// latest leader epoch (KIP-101, KIP-320), as Kafka since 0.11.
	TruncateByEpoch Truncation = iota
	// TruncateToHW truncates to the follower's own high watermark, as Kafka
	// before KIP-101; it loses acknowledged data and lets replicas diverge
	// (docs/replication-model.md §4).
	TruncateToHW
)

func (t Truncation) String() string {
	if t == TruncateToHW {
		return "hw"
	}
	return "epoch"
}

// Config is one cluster: its replicas, the partition's topic config and the
// replication configs, all with Kafka's names.
type Config struct {
	// Root is the directory under which each broker gets broker-N/. Required.
	Root string
	// Topic of the single partition (partition 0). Default "t".
	Topic string
	// Replicas is the replication factor: brokers 1..Replicas, which is also
	// the assignment order. Default 3.
	Replicas int
	// Log is every broker's topic config unless BrokerLog overrides it.
	// Default: engine.DefaultLogConfig() with segment.bytes 100 (one batch of
	// one small record per segment), min.cleanable.dirty.ratio 0,
	// delete.retention.ms 60000 and file.delete.delay.ms 0.
	Log engine.LogConfig
	// BrokerLog overrides Log for single brokers (each broker's own config).
	BrokerLog map[int]engine.LogConfig
	// Cleaner is each broker's cleaner config. The zero config:
	// DefaultCleanerConfig() (engine.DefaultCleanerConfig() with a 64 KiB
	// dedupe buffer and a 64 KiB I/O buffer, for small logs); any other
	// must be valid (0 threads is an error naming log.cleaner.threads).
	Cleaner engine.CleanerConfig
	// MinInsyncReplicas is min.insync.replicas. Default 1, as Kafka.
	MinInsyncReplicas int
	// ReplicaLagTimeMaxMs is replica.lag.time.max.ms. Default 30000, as Kafka.
	ReplicaLagTimeMaxMs int64
	// UncleanLeaderElection is unclean.leader.election.enable. Default false.
	UncleanLeaderElection bool
	// Mode is the cleaning mode. Default Independent.
	Mode Mode
	// CoordinationIntervalMs is how often the leader polls MCCO and MXFO in
	// Coordinated mode. Default delete.retention.ms / 24, as Redpanda's
	// compaction_coordinator (without its jitter, so runs replay exactly).
	CoordinationIntervalMs int64
	// Truncation is how a new follower truncates. Default TruncateByEpoch.
	Truncation Truncation
	// FS is every broker's file system. Default NoSyncFS (fsync skipped:
	// the lab's faults are process crashes, which keep the page cache).
	FS engine.FS
	// FetchMaxBytes bounds one fetch response (at least one batch). Default
	// 1 MiB, as Kafka's replica.fetch.max.bytes.
	FetchMaxBytes int
	// PowerFailures gives every broker a model of what a power failure
	// keeps (vfstest.CrashFS over its directory, without the operating
	// system's fsyncs): a file's bytes as of its last fsync, a name as of
	// its directory's. Cluster.PowerFail needs it; FS is then unused.
	PowerFailures bool
	// FlushMessages is flush.messages: a broker fsyncs its log once this
	// many messages were appended since its last flush. 0: never (Kafka's
	// default, Long.MAX_VALUE). A roll always flushes what is below the
	// new segment, as Kafka's UnifiedLog.roll.
	FlushMessages int64
	// ControllerSocketTimeoutMs is controller.socket.timeout.ms: the
	// request timeout of the broker-to-controller channel, after which a
	// lost AlterPartition request (or one whose response was lost) is sent
	// again. Default 30000, as Kafka.
	ControllerSocketTimeoutMs int64
	// FlushMs is flush.ms: a broker fsyncs its log when this long passed
	// since its last flush with messages unflushed (checked as the clock
	// advances). 0: never (Kafka's default).
	FlushMs int64
}

// DefaultLogConfig is the topic config of a cluster unless set: Kafka's
// defaults with cleanup.policy=compact, except segment.bytes 100 (so a
// scenario's batches each get a segment and only the last is active),
// segment.index.bytes 4096, min.cleanable.dirty.ratio 0, delete.retention.ms 60000 and
// file.delete.delay.ms 0.
func DefaultLogConfig() engine.LogConfig {
	c := engine.DefaultLogConfig()
	c.SegmentBytes = 100
	c.SegmentIndexBytes = 4096
	c.MinCleanableDirtyRatio = 0
	c.DeleteRetentionMs = 60000
	c.FileDeleteDelayMs = 0
	return c
}

// DefaultCleanerConfig is each broker's cleaner config unless set.
func DefaultCleanerConfig() engine.CleanerConfig {
	c := engine.DefaultCleanerConfig()
	c.DedupeBufferBytes = 64 << 10
	c.IOBufferBytes = 64 << 10
	return c
}

// withDefaults fills zero fields and validates.
func (c Config) withDefaults() (Config, error) {
	if c.Root == "" {
		return c, errors.New("replication: Config.Root is required")
	}
	if c.Topic == "" {
		c.Topic = "t"
	}
	if c.Replicas == 0 {
		c.Replicas = 3
	}
	if c.Log.SegmentBytes == 0 {
		c.Log = DefaultLogConfig()
	}
	if c.Cleaner == (engine.CleanerConfig{}) {
		c.Cleaner = DefaultCleanerConfig()
	}
	if c.MinInsyncReplicas == 0 {
		c.MinInsyncReplicas = 1
	}
	if c.ReplicaLagTimeMaxMs == 0 {
		c.ReplicaLagTimeMaxMs = 30000
	}
	if c.CoordinationIntervalMs == 0 {
		c.CoordinationIntervalMs = max(c.Log.DeleteRetentionMs/24, 1)
	}
	if c.FS == nil {
		c.FS = NoSyncFS{}
	}
	if c.ControllerSocketTimeoutMs == 0 {
		c.ControllerSocketTimeoutMs = 30000
	}
	if c.FetchMaxBytes == 0 {
		c.FetchMaxBytes = 1 << 20
	}
	switch {
	case c.Replicas < 1 || c.Replicas > 64:
		return c, fmt.Errorf("replication: replicas %d out of range [1, 64]", c.Replicas)
	case c.MinInsyncReplicas < 1:
		return c, fmt.Errorf("replication: min.insync.replicas %d must be at least 1", c.MinInsyncReplicas)
	case c.ReplicaLagTimeMaxMs < 1:
		return c, fmt.Errorf("replication: replica.lag.time.max.ms %d must be at least 1", c.ReplicaLagTimeMaxMs)
	case c.ControllerSocketTimeoutMs < 1:
		return c, fmt.Errorf("replication: controller.socket.timeout.ms %d must be at least 1", c.ControllerSocketTimeoutMs)
	case c.CoordinationIntervalMs < 1:
		return c, fmt.Errorf("replication: coordination interval %d ms must be at least 1", c.CoordinationIntervalMs)
	}
	if err := c.Log.Validate(); err != nil {
		return c, err
	}
	for id, lc := range c.BrokerLog {
		if id < 1 || id > c.Replicas {
			return c, fmt.Errorf("replication: config for broker %d: brokers are 1..%d", id, c.Replicas)
		}
		if err := lc.Validate(); err != nil {
			return c, fmt.Errorf("replication: broker %d: %w", id, err)
		}
	}
	return c, c.Cleaner.Validate()
}

// logConfig is broker id's topic config.
func (c *Config) logConfig(id int) engine.LogConfig {
	if lc, ok := c.BrokerLog[id]; ok {
		return lc
	}
	return c.Log
}

// Errors a broker returns, named as Kafka's error codes. The scenario output
// shows them as an impossible event's result.
var (
	ErrNotLeaderOrFollower = errors.New("NOT_LEADER_OR_FOLLOWER")
	ErrNotEnoughReplicas   = errors.New("NOT_ENOUGH_REPLICAS")
	ErrFencedLeaderEpoch   = errors.New("FENCED_LEADER_EPOCH")
	ErrUnknownLeaderEpoch  = errors.New("UNKNOWN_LEADER_EPOCH")
	ErrOffsetOutOfRange    = errors.New("OFFSET_OUT_OF_RANGE")
	ErrInvalidTxnState     = errors.New("INVALID_TXN_STATE")
	// ErrConcurrentTransactions: the producer's previous transaction is
	// still being completed (its markers not all written).
	ErrConcurrentTransactions = errors.New("CONCURRENT_TRANSACTIONS")
	// ErrRecordListTooLarge: a produced batch is larger than the leader's
	// segment.bytes (UnifiedLog.append's RecordBatchTooLargeException,
	// error code RECORD_LIST_TOO_LARGE).
	ErrRecordListTooLarge = errors.New("RECORD_LIST_TOO_LARGE")
	// ErrBrokerDown: the broker's process is not running (a request to it
	// gets no answer; a client sees a network error).
	ErrBrokerDown = errors.New("BROKER_NOT_AVAILABLE")
	// ErrIneligibleReplica: an election was asked for a replica the
	// controller may not choose (Kafka's ELECTION_NOT_NEEDED /
	// INELIGIBLE_REPLICA family), or a proposed ISR holds a broker that is
	// fenced, shutting down or registered with another broker epoch
	// (AlterPartition's INELIGIBLE_REPLICA).
	ErrIneligibleReplica = errors.New("INELIGIBLE_REPLICA")
	// ErrPartitionFailed: the follower's fetcher marked the partition
	// failed after an append it could not do (AbstractFetcherThread's
	// markPartitionFailed) and fetches it no more. Not a Kafka error code:
	// Kafka logs it and counts the partition in FailedPartitionsCount.
	ErrPartitionFailed = errors.New("partition failed")
)
