package main

import (
	"encoding"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
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
	fs.Int64Var(&cfg.MaxCompactionLagMs, "max.compaction.lag.ms", cfg.MaxCompactionLagMs, "max.compaction.lag.ms: a log whose oldest dirty segment is older than this is cleaned whatever its ratio (ms)")
	fs.Float64Var(&cfg.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio", cfg.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio: clean only when the cleanable ratio is above this")
	fs.IntVar(&cfg.MaxMessageBytes, "max.message.bytes", cfg.MaxMessageBytes, "max.message.bytes: the largest batch the cleaner's buffers grow to (bytes)")
	fs.Int64Var(&cfg.ProducerIDExpirationMs, "producer.id.expiration.ms", cfg.ProducerIDExpirationMs, "producer.id.expiration.ms: after this long without a batch a producer expires and the cleaner stops keeping its last batch (ms)")
	fs.Int64Var(&cfg.FileDeleteDelayMs, "file.delete.delay.ms", cfg.FileDeleteDelayMs, "file.delete.delay.ms: how long replaced or deleted segments stay as .deleted (ms)")
	fs.Int64Var(&cfg.SegmentMs, "segment.ms", cfg.SegmentMs, "segment.ms: roll the active segment once its batches' timestamps span this long (ms)")
	fs.Int64Var(&cfg.RetentionMs, "retention.ms", cfg.RetentionMs, "retention.ms: with cleanup.policy delete, delete segments whose newest record is older (ms; -1: no limit)")
	fs.Int64Var(&cfg.RetentionBytes, "retention.bytes", cfg.RetentionBytes, "retention.bytes: with cleanup.policy delete, delete the oldest segments while the log stays at least this large (bytes; -1: no limit)")
	fs.Var((*cleanupPolicy)(cfg), "cleanup.policy", "cleanup.policy: compact, delete, or compact,delete")
}

// cleanupPolicy is cleanup.policy as a flag: a comma-separated list of
// compact and delete.
type cleanupPolicy engine.LogConfig

func (p *cleanupPolicy) String() string {
	var parts []string
	if p.Compact {
		parts = append(parts, "compact")
	}
	if p.Delete {
		parts = append(parts, "delete")
	}
	return strings.Join(parts, ",")
}

func (p *cleanupPolicy) Type() string { return "policy" }

func (p *cleanupPolicy) Set(s string) error {
	compact, del := false, false
	for _, part := range strings.Split(s, ",") {
		switch strings.TrimSpace(part) {
		case "compact":
			compact = true
		case "delete":
			del = true
		default:
			return fmt.Errorf("%q: cleanup.policy is a list of compact and delete", s)
		}
	}
	p.Compact, p.Delete = compact, del
	return nil
}

// cleanerConfigFlags binds the broker's log.cleaner.* configs as flags named after them.
func cleanerConfigFlags(fs *pflag.FlagSet, cfg *engine.CleanerConfig) {
	fs.Var((*byteSize)(&cfg.DedupeBufferBytes), "log.cleaner.dedupe.buffer.size", "log.cleaner.dedupe.buffer.size: offset map memory shared by all cleaner threads (bytes)")
	fs.Var((*byteSize)(&cfg.IOBufferBytes), "log.cleaner.io.buffer.size", "log.cleaner.io.buffer.size: I/O buffer memory shared by all threads; each gets a read and a write buffer of size/threads/2 (bytes)")
	fs.Float64Var(&cfg.LoadFactor, "log.cleaner.io.buffer.load.factor", cfg.LoadFactor, "log.cleaner.io.buffer.load.factor: share of the offset map's slots a clean may fill")
	fs.IntVar(&cfg.Threads, "log.cleaner.threads", cfg.Threads, "log.cleaner.threads: cleaner threads (partitions are cleaned in parallel; memory is divided among them)")
	fs.IntVar(&cfg.Threads, "threads", cfg.Threads, "the same as --log.cleaner.threads")
	fs.StringVar(&cfg.Hasher, "hasher", cfg.Hasher, "offset map key hash: "+strings.Join(offsetmap.HasherNames(), ", ")+" (md5 is Kafka's; see cleanerlab hashers)")
	fs.StringVar(&cfg.OffsetMap, "offset-map", cfg.OffsetMap, "offset map layout: "+strings.Join(offsetmap.LayoutNames(), ", ")+
		" (skimpy is Kafka's; the others hold more keys per MiB at a stated collision risk, see cleanerlab hashers)")
	fs.StringVar(&cfg.IOPath, "io", cfg.IOPath, "how segments are read: pread (into a reusable buffer, Kafka's way), mmap (with madvise) or direct (O_DIRECT; a file system that refuses it is read with pread, and the report says so)")
	fs.StringVar(&cfg.Readahead, "readahead", cfg.Readahead, "fadvise hint of the pread path per segment: none, sequential (a larger readahead window) or willneed (ask for the next buffer while this one is processed)")
	fs.Var((*byteRate)(&cfg.MaxIOBytesPerSecond), "throttle", "cap on the cleaner's read + written bytes per second, all threads together (bytes/s, suffixes KiB, MiB, GiB; 0: no limit); Kafka's log.cleaner.io.max.bytes.per.second")
	fs.Var((*byteRate)(&cfg.MaxIOBytesPerSecond), "log.cleaner.io.max.bytes.per.second", "the same as --throttle, by Kafka's name")
	fs.StringVar(&cfg.Throttler, "throttler", cfg.Throttler, "throttle algorithm: kafka (Kafka's Throttler: checks every 300 ms, one compensating sleep) or token-bucket (golang.org/x/time/rate)")
	fs.BoolVar(&cfg.CacheFriendly, "cache-friendly", cfg.CacheFriendly, "drop the pages of copied segments and of written output from the page cache behind the copy (fadvise DONTNEED), to measure what that saves other users of the cache")
}

// byteRate is a flag value in bytes per second that accepts the suffixes of
// byteSize and an optional "/s": 50MiB, 50MiB/s, 1048576.
type byteRate float64

func (b *byteRate) String() string { return strconv.FormatFloat(float64(*b), 'f', -1, 64) }
func (b *byteRate) Type() string   { return "bytes/s" }

func (b *byteRate) Set(s string) error {
	v, err := parseByteSize(strings.TrimSuffix(strings.TrimSpace(s), "/s"))
	if err != nil {
		return err
	}
	*b = byteRate(v)
	return nil
}

// countValue is an int64 flag that also takes whole numbers written as
// 1e6, as sweep lists and experiment files do.
type countValue int64

func (c *countValue) String() string { return strconv.FormatInt(int64(*c), 10) }
func (c *countValue) Type() string   { return "count" }

func (c *countValue) Set(s string) error {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		*c = countValue(v)
		return nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < math.MinInt64 || f > math.MaxInt64 {
		return fmt.Errorf("%q is not a whole number (e.g. 1000000 or 1e6)", s)
	}
	*c = countValue(f)
	return nil
}

// textSetting is a typed setting that parses itself (lab.CacheState,
// iosched.FsyncPolicy, ...): parsed once, where the flag is set.
type textSetting interface {
	encoding.TextUnmarshaler
	String() string
}

// textValue makes a textSetting a flag value of type typ.
type textValue struct {
	v   textSetting
	typ string
}

func (t textValue) String() string {
	if t.v == nil {
		return ""
	}
	return t.v.String()
}
func (t textValue) Set(s string) error { return t.v.UnmarshalText([]byte(s)) }
func (t textValue) Type() string       { return t.typ }

func textVar(v textSetting, typ string) pflag.Value { return textValue{v: v, typ: typ} }
