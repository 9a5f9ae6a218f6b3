package main

import (
	"encoding"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/lab/kafkajvm"
	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// Flag values. Every byte count of every command is parsed by lab.ParseBytes
// (1048576, 1e9, 64MiB), every other whole number by lab.ParseCount (1e6),
// every typed setting by its UnmarshalText: once, where the flag is set.

// byteSize is an int64 flag in bytes.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Type() string   { return "bytes" }
func (b *byteSize) Set(s string) error {
	v, err := lab.ParseBytes(s)
	*b = byteSize(v)
	return err
}

// parseByteSize is lab.ParseBytes, under the name baseline.go uses.
func parseByteSize(s string) (int64, error) { return lab.ParseBytes(s) }

// number is a whole-number flag of type T parsed by parse (lab.ParseBytes
// or lab.ParseCount), refusing values T cannot hold.
type number[T int | int64] struct {
	p     *T
	parse func(string) (int64, error)
	typ   string
}

func (n number[T]) String() string {
	if n.p == nil {
		return "0"
	}
	return fmt.Sprint(*n.p)
}
func (n number[T]) Type() string  { return n.typ }
func (n number[T]) addr() uintptr { return reflect.ValueOf(n.p).Pointer() }
func (n number[T]) Set(s string) error {
	v, err := n.parse(s)
	if err != nil {
		return err
	}
	if int64(T(v)) != v {
		return fmt.Errorf("%q is out of range", s)
	}
	*n.p = T(v)
	return nil
}

// bytesOf and countOf are number flags of byte sizes and counts.
func bytesOf[T int | int64](p *T) pflag.Value { return number[T]{p, lab.ParseBytes, "bytes"} }
func countOf[T int | int64](p *T) pflag.Value { return number[T]{p, lab.ParseCount, "count"} }

// uintCount is a uint64 flag (a seed) that takes 1e6 too.
type uintCount uint64

func (c *uintCount) String() string { return strconv.FormatUint(uint64(*c), 10) }
func (c *uintCount) Type() string   { return "count" }
func (c *uintCount) Set(s string) error {
	if v, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64); err == nil {
		*c = uintCount(v)
		return nil
	}
	v, err := lab.ParseCount(s)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not an unsigned whole number", s)
	}
	*c = uintCount(v)
	return nil
}

// byteRate is a float64 flag in bytes per second (lab.ParseByteRate:
// 50MiB, 50MiB/s, 1048576).
type byteRate float64

func (b *byteRate) String() string { return strconv.FormatFloat(float64(*b), 'f', -1, 64) }
func (b *byteRate) Type() string   { return "bytes/s" }
func (b *byteRate) Set(s string) error {
	v, err := lab.ParseByteRate(s)
	*b = byteRate(v)
	return err
}

// textSetting is a typed setting that parses itself (lab.CacheState,
// iosched.FsyncPolicy, ...).
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
	if t.v == nil || reflect.ValueOf(t.v).IsNil() {
		return ""
	}
	return t.v.String()
}
func (t textValue) Set(s string) error { return t.v.UnmarshalText([]byte(s)) }
func (t textValue) Type() string       { return t.typ }

func textVar(v textSetting, typ string) pflag.Value { return textValue{v: v, typ: typ} }

// codecValue is a record.Codec flag by name.
type codecValue record.Codec

func (c *codecValue) String() string { return record.Codec(*c).String() }
func (c *codecValue) Type() string   { return "codec" }
func (c *codecValue) Set(s string) error {
	v, err := record.ParseCodec(s)
	*c = codecValue(v)
	return err
}

// segmentBytes is segment.bytes of a run: the log config's and the
// workload's, one setting.
type segmentBytes struct{ log, workload *int64 }

func (s segmentBytes) String() string {
	if s.log == nil {
		return "0"
	}
	return strconv.FormatInt(*s.log, 10)
}
func (s segmentBytes) Type() string { return "bytes" }
func (s segmentBytes) Set(v string) error {
	n, err := lab.ParseBytes(v)
	if err != nil {
		return err
	}
	*s.log = n
	if s.workload != nil {
		*s.workload = n
	}
	return nil
}

// logConfigFlags binds Kafka's topic configs as flags named after them;
// workloadSegment, when not nil, is set with segment.bytes too.
func logConfigFlags(fs *pflag.FlagSet, cfg *engine.LogConfig, workloadSegment *int64) {
	fs.Var(segmentBytes{&cfg.SegmentBytes, workloadSegment}, "segment.bytes", "segment.bytes: roll the active segment past this size (bytes; suffixes KiB, MiB, GiB)")
	fs.Var(bytesOf(&cfg.SegmentIndexBytes), "segment.index.bytes", "segment.index.bytes: cap of each offset/time index (bytes)")
	fs.Var(bytesOf(&cfg.IndexIntervalBytes), "index.interval.bytes", "index.interval.bytes: bytes between offset index entries")
	fs.Var(countOf(&cfg.DeleteRetentionMs), "delete.retention.ms", "delete.retention.ms: how long tombstones survive after the clean that stamps their delete horizon (ms)")
	fs.Var(countOf(&cfg.MinCompactionLagMs), "min.compaction.lag.ms", "min.compaction.lag.ms: segments with records newer than this are not cleaned (ms)")
	fs.Var(countOf(&cfg.MaxCompactionLagMs), "max.compaction.lag.ms", "max.compaction.lag.ms: a log whose oldest dirty segment is older than this is cleaned whatever its ratio (ms)")
	fs.Float64Var(&cfg.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio", cfg.MinCleanableDirtyRatio, "min.cleanable.dirty.ratio: clean only when the cleanable ratio is above this")
	fs.Var(bytesOf(&cfg.MaxMessageBytes), "max.message.bytes", "max.message.bytes: the largest batch the cleaner's buffers grow to (bytes)")
	fs.Var(countOf(&cfg.ProducerIDExpirationMs), "producer.id.expiration.ms", "producer.id.expiration.ms: after this long without a batch a producer expires and the cleaner stops keeping its last batch (ms)")
	fs.Var(countOf(&cfg.FileDeleteDelayMs), "file.delete.delay.ms", "file.delete.delay.ms: how long replaced or deleted segments stay as .deleted (ms)")
	fs.Var(countOf(&cfg.SegmentMs), "segment.ms", "segment.ms: roll the active segment once its batches' timestamps span this long (ms)")
	fs.Var(countOf(&cfg.RetentionMs), "retention.ms", "retention.ms: with cleanup.policy delete, delete segments whose newest record is older (ms; -1: no limit)")
	fs.Var((*byteSizeOrNone)(&cfg.RetentionBytes), "retention.bytes", "retention.bytes: with cleanup.policy delete, delete the oldest segments while the log stays at least this large (bytes; -1: no limit)")
	fs.Var((*cleanupPolicy)(cfg), "cleanup.policy", "cleanup.policy: compact, delete, or compact,delete")
}

// byteSizeOrNone is a byte size where -1 means "no limit".
type byteSizeOrNone int64

func (b *byteSizeOrNone) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSizeOrNone) Type() string   { return "bytes" }
func (b *byteSizeOrNone) Set(s string) error {
	if strings.TrimSpace(s) == "-1" {
		*b = -1
		return nil
	}
	v, err := lab.ParseBytes(s)
	*b = byteSizeOrNone(v)
	return err
}

// cleanupPolicy is cleanup.policy as a flag: a comma-separated list of
// compact and delete.
type cleanupPolicy engine.LogConfig

func (p *cleanupPolicy) String() string { return lab.CleanupPolicyName(engine.LogConfig(*p)) }

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
	fs.Var(bytesOf(&cfg.DedupeBufferBytes), "log.cleaner.dedupe.buffer.size", "log.cleaner.dedupe.buffer.size: offset map memory shared by all cleaner threads (bytes)")
	fs.Var(bytesOf(&cfg.IOBufferBytes), "log.cleaner.io.buffer.size", "log.cleaner.io.buffer.size: I/O buffer memory shared by all threads; each gets a read and a write buffer of size/threads/2 (bytes)")
	fs.Float64Var(&cfg.LoadFactor, "log.cleaner.io.buffer.load.factor", cfg.LoadFactor, "log.cleaner.io.buffer.load.factor: share of the offset map's slots a clean may fill")
	fs.Var(countOf(&cfg.Threads), "log.cleaner.threads", "log.cleaner.threads: cleaner threads (partitions are cleaned in parallel; memory is divided among them)")
	fs.Var(countOf(&cfg.Threads), "threads", "the same as --log.cleaner.threads")
	fs.Var(textVar(&cfg.Hasher, "hasher"), "hasher", "offset map key hash: "+strings.Join(offsetmap.HasherNames(), ", ")+" (md5 is Kafka's; see cleanerlab hashers)")
	fs.Var(textVar(&cfg.OffsetMap, "layout"), "offset-map", "offset map layout: "+strings.Join(offsetmap.LayoutNames(), ", ")+
		" (skimpy is Kafka's; the others hold more keys per MiB at a stated collision risk, see cleanerlab hashers)")
	fs.Var(textVar(&cfg.IOPath, "path"), "io", "how segments are read: pread (into a reusable buffer, Kafka's way), mmap (with madvise) or direct (O_DIRECT; a file system that refuses it is read with pread, and the report says so)")
	fs.Var(textVar(&cfg.Readahead, "hint"), "readahead", "fadvise hint of the pread path per segment: none, sequential (a larger readahead window) or willneed (ask for the next buffer while this one is processed)")
	fs.Var(bytesOf(&cfg.ReadaheadBytes), "readahead-bytes", "read-ahead of the pread path: a helper goroutine keeps this many bytes past the cleaner's read position read into the page cache, so a cold clean's disk reads overlap its processing (bytes, suffixes KiB, MiB, GiB; 0: off, the kernel's readahead only, as Kafka; Linux only)")
	fs.Var((*byteRate)(&cfg.MaxIOBytesPerSecond), "throttle", "cap on the cleaner's read + written bytes per second, all threads together (bytes/s, suffixes KiB, MiB, GiB; 0: no limit); Kafka's log.cleaner.io.max.bytes.per.second")
	fs.Var((*byteRate)(&cfg.MaxIOBytesPerSecond), "log.cleaner.io.max.bytes.per.second", "the same as --throttle, by Kafka's name")
	fs.Var(textVar(&cfg.Throttler, "throttler"), "throttler", "throttle algorithm: kafka (Kafka's Throttler: checks every 300 ms, one compensating sleep) or token-bucket (golang.org/x/time/rate)")
	fs.BoolVar(&cfg.CacheFriendly, "cache-friendly", cfg.CacheFriendly, "drop the pages of copied segments and of written output from the page cache behind the copy (fadvise DONTNEED), to measure what that saves other users of the cache")
	fs.Var(&cleanerProfile{cfg: cfg}, "profile", "set the speed-deciding cleaner settings at once: kafka (md5, skimpy, pread without read-ahead, no write-behind, no sync-behind, no early write-back, no parallel copy, every CRC checked on every read, no O_DIRECT output, no parallel recompression) or best (xxh3-128, bucket16, pread with "+strconv.FormatInt(engine.BestReadaheadBytes>>20, 10)+"MiB of read-ahead, write-behind, sync-behind, skip-dirty-lookups, parallel-copy, verify-crc-once, parallel-map-build, no parallel-lookups, writeback-bytes "+strconv.FormatInt(engine.BestWritebackBytes>>20, 10)+"MiB, no O_DIRECT output, no parallel recompression); flags after it override its settings")
	fs.BoolVar(&cfg.LookAhead, "look-ahead", cfg.LookAhead, "hand the next batch's keys to the offset map before filtering the current one, so their cache misses overlap (bucket16; same results; not a Kafka feature)")
	fs.BoolVar(&cfg.MapHugePages, "map-huge-pages", cfg.MapHugePages, "ask for transparent huge pages for the offset maps when they are pre-faulted (madvise MADV_HUGEPAGE; fewer TLB misses; not a Kafka feature: Kafka's JVM heap gets them only with THP always or -XX:+UseTransparentHugePages; off in both profiles)")
	fs.BoolVar(&cfg.SkipDirtyLookups, "skip-dirty-lookups", cfg.SkipDirtyLookups, "decide the dirty section's records in the copy phase from what the map build saw (offsets put, and overwritten by a later put of the key) instead of looking their keys up again (same results; not a Kafka feature)")
	fs.BoolVar(&cfg.ParallelLookups, "parallel-lookups", cfg.ParallelLookups, "look the copy phase's keys up on a second core: a goroutine reads each segment ahead of the filter (a second read, mostly from the page cache) and hands it the map's answers (bucket16; same results; not a Kafka feature)")
	fs.BoolVar(&cfg.ParallelMapBuild, "parallel-map-build", cfg.ParallelMapBuild, "build the offset map on two cores: a goroutine reads the dirty segments, checks CRCs, decodes records and hashes keys, the cleaner thread only puts them (bucket16; not under a throttle; same results; not a Kafka feature)")
	fs.BoolVar(&cfg.ParallelCopy, "parallel-copy", cfg.ParallelCopy, "copy the copy phase's groups two at a time: a copy worker with buffers of its own copies the next group on another core while the cleaner copies one, both reading the offset map; swapped in in order; a group copied from a transaction state the group before changed is copied again by the cleaner (bucket16; not under a throttle; same files; not a Kafka feature)")
	fs.BoolVar(&cfg.VerifyCRCOnce, "verify-crc-once", cfg.VerifyCRCOnce, "check each batch's CRC once per clean: a dirty batch whose CRC the map build checked is not checked again when the copy reads it back from the same, unchanged segment file (the clean section's batches are still checked by the copy; same results; not a Kafka feature)")
	fs.BoolVar(&cfg.ParallelRecompress, "parallel-recompress", cfg.ParallelRecompress, "compress the batches the copy rebuilds for a compressed topic on other goroutines (up to 4 at once, each with its own compressor) while the cleaner filters the next ones, written in order (same bytes; any map; not a Kafka feature)")
	fs.BoolVar(&cfg.WriteBehind, "write-behind", cfg.WriteBehind, "write each full write buffer of cleaned output on a second core while the next one fills (same bytes and syncs; not a Kafka feature)")
	fs.BoolVar(&cfg.SyncBehind, "sync-behind", cfg.SyncBehind, "fsync each cleaned segment, write its indexes and swap it in on a second goroutine while the next group is copied (the swaps keep their order and each still follows its fsync; same files; not a Kafka feature)")
	fs.Var(bytesOf(&cfg.WriteDirectBytes), "write-direct-bytes", "write cleaned segments with O_DIRECT, in writes of this many bytes (rounded up to 4 KiB; the write buffers become this size): whole blocks go from the buffer to the device with no copy into the page cache (bytes, suffixes KiB, MiB, GiB; 0: off, as Kafka; the last partial block of a file goes through the cache; the fsync policy is kept; same bytes; the cleaned segments are then not cached; a file system that refuses O_DIRECT is written with write(2), and the report says so; Linux only; not a Kafka feature)")
	fs.Var(bytesOf(&cfg.WritebackBytes), "writeback-bytes", "under the segment or fdatasync fsync policy (run's --fsync; clean always fsyncs each cleaned segment), start the write-back of cleaned output every this many bytes written (sync_file_range WRITE, no wait), so the sync before the swap, which still happens, is short (bytes; 0: off, as Kafka; not a Kafka feature)")
	fs.Var(nameValue{&cfg.CleanedIndex, checkCleanedIndex, "rule"}, "cleaned-index", "how cleaned segments are indexed: per-append (one entry at most per write buffer appended, as Kafka through 4.0.0) or per-batch (as Kafka since KAFKA-806, 4.0.1/4.1); the .log is the same (default per-append)")
}

// cleanerProfile is the --profile flag: engine.CleanerConfig.ApplyProfile
// of the name given.
type cleanerProfile struct {
	cfg  *engine.CleanerConfig
	name string
	// jvmOK: the command runs kafkajvm.ProfileName (Kafka's own cleaner;
	// its settings here are the kafka profile's, for our side of a
	// comparison).
	jvmOK bool
}

func (p *cleanerProfile) String() string { return p.name }
func (p *cleanerProfile) Type() string   { return "profile" }

func (p *cleanerProfile) Set(s string) error {
	if s == kafkajvm.ProfileName {
		if !p.jvmOK {
			return fmt.Errorf("profile %s (Kafka's own cleaner) is run by clean only", s)
		}
		s = engine.ProfileKafka
		defer func() { p.name = kafkajvm.ProfileName }()
	}
	if err := p.cfg.ApplyProfile(s); err != nil {
		return err
	}
	p.name = s
	return nil
}

// checkCleanedIndex refuses a --cleaned-index that is not one of
// engine.CleanedIndexRules, listing them.
func checkCleanedIndex(s string) error {
	if slices.Contains(engine.CleanedIndexRules(), s) {
		return nil
	}
	return fmt.Errorf("unknown cleaned-index rule %q (valid: %s)", s, strings.Join(engine.CleanedIndexRules(), ", "))
}

// nameValue is a string flag naming something, checked when set (a typo
// is an error at the flag, not when the clean starts).
type nameValue struct {
	p     *string
	check func(string) error
	typ   string
}

func (n nameValue) String() string {
	if n.p == nil {
		return ""
	}
	return *n.p
}
func (n nameValue) Type() string { return n.typ }
func (n nameValue) Set(s string) error {
	if err := n.check(s); err != nil {
		return err
	}
	*n.p = s
	return nil
}

// existingDir makes --dir absolute (so "." names its topic-partition) and
// refuses one that does not exist, naming the command and the flag.
func existingDir(command, dir string) (string, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s: --dir %s: no such directory", command, dir)
	}
	return dir, nil
}
