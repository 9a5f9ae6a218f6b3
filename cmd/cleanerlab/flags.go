package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
)

// byteSize is a flag value in bytes that also accepts binary suffixes:
// 512KiB, 64MiB, 1GiB (and K, M, G as the same binary units).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "bytes" }

func (b *byteSize) Set(s string) error {
	v, err := parseByteSize(s)
	if err != nil {
		return err
	}
	*b = byteSize(v)
	return nil
}

func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t = strings.TrimSuffix(t, u.suffix)
			mult = u.mult
			break
		}
	}
	v, err := strconv.ParseInt(strings.TrimSpace(t), 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("%q is not a byte count (e.g. 1048576, 512KiB, 64MiB, 1GiB)", s)
	}
	if v > (1<<62)/mult {
		return 0, fmt.Errorf("%q is too large", s)
	}
	return v * mult, nil
}

// logConfigFlags binds Kafka's topic configs as flags named after them.
func logConfigFlags(fs *pflag.FlagSet, cfg *engine.LogConfig) {
	fs.Var((*byteSize)(&cfg.SegmentBytes), "segment.bytes", "segment.bytes: roll the active segment past this size (bytes; suffixes KiB, MiB, GiB)")
	fs.Var((*byteSize)(&cfg.SegmentIndexBytes), "segment.index.bytes", "segment.index.bytes: cap of each offset/time index (bytes)")
	fs.Int64Var(&cfg.IndexIntervalBytes, "index.interval.bytes", cfg.IndexIntervalBytes, "index.interval.bytes: bytes between offset index entries")
	fs.Int64Var(&cfg.DeleteRetentionMs, "delete.retention.ms", cfg.DeleteRetentionMs, "delete.retention.ms: how long tombstones survive after the clean that stamps their delete horizon (ms)")
	fs.Int64Var(&cfg.MinCompactionLagMs, "min.compaction.lag.ms", cfg.MinCompactionLagMs, "min.compaction.lag.ms: segments with records newer than this are not cleaned (ms)")
	fs.Float64Var(&cfg.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio", cfg.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio: clean only when the cleanable ratio is above this")
	fs.IntVar(&cfg.MaxMessageBytes, "max.message.bytes", cfg.MaxMessageBytes, "max.message.bytes: the largest batch the cleaner's buffers grow to (bytes)")
	fs.Int64Var(&cfg.ProducerIDExpirationMs, "producer.id.expiration.ms", cfg.ProducerIDExpirationMs, "producer.id.expiration.ms: after this long without a batch a producer expires and the cleaner stops keeping its last batch (ms)")
	fs.Int64Var(&cfg.FileDeleteDelayMs, "file.delete.delay.ms", cfg.FileDeleteDelayMs, "file.delete.delay.ms: how long replaced segments stay as .deleted (ms)")
}

// cleanerConfigFlags binds the broker's log.cleaner.* configs as flags named after them.
func cleanerConfigFlags(fs *pflag.FlagSet, cfg *engine.CleanerConfig) {
	fs.Var((*byteSize)(&cfg.DedupeBufferBytes), "log.cleaner.dedupe.buffer.size", "log.cleaner.dedupe.buffer.size: offset map memory shared by all cleaner threads (bytes)")
	fs.Var((*byteSize)(&cfg.IOBufferBytes), "log.cleaner.io.buffer.size", "log.cleaner.io.buffer.size: I/O buffer memory shared by all threads; each gets a read and a write buffer of size/threads/2 (bytes)")
	fs.Float64Var(&cfg.LoadFactor, "log.cleaner.io.buffer.load.factor", cfg.LoadFactor, "log.cleaner.io.buffer.load.factor: share of the offset map's slots a clean may fill")
	fs.IntVar(&cfg.Threads, "log.cleaner.threads", cfg.Threads, "log.cleaner.threads: cleaner threads (partitions are cleaned in parallel; memory is divided among them)")
	fs.StringVar(&cfg.Hasher, "hasher", cfg.Hasher, "offset map key hash: md5 (Kafka's) or xxh3-128")
}
