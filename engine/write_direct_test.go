package engine

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/offsetmap"
)

// TestWriteDirectOnFixtures: on every real Kafka partition, Kafka's
// cleaner with O_DIRECT output in 8 KiB writes (so most segments take
// several writes and end in a partial block) writes exactly the files it
// writes through the page cache, in the clean that stamps delete horizons
// and in the one that drops the tombstones; the output went direct.
func TestWriteDirectOnFixtures(t *testing.T) {
	var direct, fallbacks int64
	eachFixturePartition(t, "", func(t *testing.T, src string) {
		st := cleanCompared(t, src, fixtureNowMs, "cleans with O_DIRECT output and with write(2)",
			func(t *testing.T, now int64, i int) *Cleaner {
				return fastPathCleaner(t, now, offsetmap.LayoutSkimpy, func(cfg *CleanerConfig) {
					if i == 0 {
						cfg.WriteDirectBytes = 8 << 10
					}
				})
			})
		if st.IO.WriteDirectBytes != 8<<10 {
			t.Errorf("IOStats.WriteDirectBytes %d, want 8192", st.IO.WriteDirectBytes)
		}
		direct += st.IO.DirectWrittenBytes
		fallbacks += st.IO.WriteFallbacks
		if st.IO.DirectWrittenBytes > st.BytesWritten {
			t.Errorf("%d bytes written direct of %d written", st.IO.DirectWrittenBytes, st.BytesWritten)
		}
	})
	if direct == 0 || fallbacks != 0 {
		t.Errorf("%d bytes written direct, %d fallbacks: the O_DIRECT path is not exercised", direct, fallbacks)
	}
}

// TestDirectWriteBytesRule: WriteDirectMinRecordBytes by hand-worked
// means. 1,000 records in 512,000 bytes average 512 bytes: direct under a
// minimum of 512; one byte fewer (511.999) is not; no record read is not
// under a minimum; without a minimum, or without WriteDirectBytes, the
// size is WriteDirectBytes whatever was read. Means of 2^40: 2^49 bytes in
// 2^9 records is exactly one, one byte less is not, and 2^62 bytes in 2^30
// records (2^32) is not, with no overflow of 2^40 x 2^30.
func TestDirectWriteBytesRule(t *testing.T) {
	cfg := DefaultCleanerConfig()
	cfg.WriteDirectBytes = 1 << 20
	for _, c := range []struct {
		min, bytes, records int64
		want                int
	}{
		{0, 0, 0, 1 << 20},
		{0, 100, 1, 1 << 20},
		{512, 512_000, 1000, 1 << 20},
		{512, 511_999, 1000, 0},
		{512, 0, 0, 0},
		{100, 1_200_000, 10_000, 1 << 20},
		{1 << 40, 1 << 49, 1 << 9, 1 << 20},
		{1 << 40, 1<<49 - 1, 1 << 9, 0},
		{1 << 40, 1 << 62, 1 << 30, 0},
	} {
		cfg.WriteDirectMinRecordBytes = c.min
		if got, _ := directWriteBytes(cfg, c.bytes, c.records, 0); got != c.want {
			t.Errorf("min %d, %d bytes in %d records: %d, want %d", c.min, c.bytes, c.records, got, c.want)
		}
	}
	cfg.WriteDirectBytes, cfg.WriteDirectMinRecordBytes = 0, 0
	if got, _ := directWriteBytes(cfg, 1<<20, 1, 1<<40); got != 0 {
		t.Errorf("WriteDirectBytes 0: %d, want 0", got)
	}
	cfg.WriteDirectMinRecordBytes = -1
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "WriteDirectMinRecordBytes") {
		t.Errorf("negative minimum: %v", err)
	}
}

// TestWriteDirectMinRecordBytesOnFixtures: on every real Kafka partition,
// O_DIRECT output in 8 KiB writes under a minimum record size no record
// reaches (1 GiB) writes through the page cache, and under a minimum of 1
// byte (every record's) writes direct; both write exactly the files of
// Kafka's cleaner through the page cache.
func TestWriteDirectMinRecordBytesOnFixtures(t *testing.T) {
	for _, c := range []struct {
		min        int64
		wantDirect bool
	}{{1 << 30, false}, {1, true}} {
		var direct int64
		eachFixturePartition(t, fmt.Sprintf("min=%d", c.min), func(t *testing.T, src string) {
			st := cleanCompared(t, src, fixtureNowMs, "cleans with O_DIRECT output by record size and with write(2)",
				func(t *testing.T, now int64, i int) *Cleaner {
					return fastPathCleaner(t, now, offsetmap.LayoutSkimpy, func(cfg *CleanerConfig) {
						if i == 0 {
							cfg.WriteDirectBytes, cfg.WriteDirectMinRecordBytes = 8<<10, c.min
						}
					})
				})
			if (st.IO.WriteDirectBytes != 0) != c.wantDirect {
				t.Errorf("minimum %d: IOStats.WriteDirectBytes %d", c.min, st.IO.WriteDirectBytes)
			}
			direct += st.IO.DirectWrittenBytes
		})
		if (direct > 0) != c.wantDirect {
			t.Errorf("minimum %d: %d bytes written direct", c.min, direct)
		}
	}
}

// TestDirectWriteCleanBytesRule: WriteDirectMinCleanBytes by hand. With
// a minimum of 1 GiB (2^30) and no record minimum, a round whose source
// segments hold 2^30 - 1 bytes writes through the page cache and one of
// 2^30 bytes writes direct, by the clean-bytes rule. With both minimums
// (256 B records, 1 GiB cleans) either one chooses O_DIRECT: records of
// 100 B (100,000 bytes in 1,000) under 1 GiB go through the cache, the
// same at 1 GiB go direct by clean-bytes; records of 300 B (300,000 in
// 1,000) under 1 GiB go direct by record-bytes, at 1 GiB by both. No
// minimum at all: always. WriteDirectBytes 0: never, whatever the sizes.
func TestDirectWriteCleanBytesRule(t *testing.T) {
	cfg := DefaultCleanerConfig()
	cfg.WriteDirectBytes = 1 << 20
	for _, c := range []struct {
		minRecord, minClean, bytes, records, clean int64
		want                                       int
		rule                                       string
	}{
		{0, 1 << 30, 100_000, 1000, 1<<30 - 1, 0, ""},
		{0, 1 << 30, 100_000, 1000, 1 << 30, 1 << 20, WriteDirectRuleCleanBytes},
		{0, 1 << 30, 0, 0, 1 << 30, 1 << 20, WriteDirectRuleCleanBytes},
		{256, 1 << 30, 100_000, 1000, 1<<30 - 1, 0, ""},
		{256, 1 << 30, 100_000, 1000, 1 << 30, 1 << 20, WriteDirectRuleCleanBytes},
		{256, 1 << 30, 300_000, 1000, 1<<30 - 1, 1 << 20, WriteDirectRuleRecordBytes},
		{256, 1 << 30, 300_000, 1000, 1 << 30, 1 << 20, WriteDirectRuleRecordBytes + "+" + WriteDirectRuleCleanBytes},
		{256, 0, 100_000, 1000, 1 << 40, 0, ""},
		{256, 0, 256_000, 1000, 0, 1 << 20, WriteDirectRuleRecordBytes},
		{0, 0, 100_000, 1000, 0, 1 << 20, WriteDirectRuleAlways},
	} {
		cfg.WriteDirectMinRecordBytes, cfg.WriteDirectMinCleanBytes = c.minRecord, c.minClean
		got, rule := directWriteBytes(cfg, c.bytes, c.records, c.clean)
		if got != c.want || rule != c.rule {
			t.Errorf("minimums %d B a record, %d B a clean; %d bytes in %d records, %d bytes cleaned: %d by %q, want %d by %q",
				c.minRecord, c.minClean, c.bytes, c.records, c.clean, got, rule, c.want, c.rule)
		}
	}
	cfg.WriteDirectBytes, cfg.WriteDirectMinRecordBytes, cfg.WriteDirectMinCleanBytes = 0, 0, 1
	if got, rule := directWriteBytes(cfg, 1<<20, 1, 1<<40); got != 0 || rule != "" {
		t.Errorf("WriteDirectBytes 0: %d by %q, want 0", got, rule)
	}
	cfg.WriteDirectMinCleanBytes = -1
	var ce *ConfigError
	if err := cfg.Validate(); !errors.As(err, &ce) || ce.Config != "write-direct-min-clean-bytes" || !strings.Contains(err.Error(), "WriteDirectMinCleanBytes") {
		t.Errorf("negative clean minimum: %v, want a ConfigError of write-direct-min-clean-bytes", err)
	}
}

// sumFileSizes is the total size of files, read from the file system.
func sumFileSizes(t *testing.T, files []string) int64 {
	t.Helper()
	var n int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		n += fi.Size()
	}
	return n
}

// TestWriteDirectMinCleanBytesOnFixtures: on every real Kafka partition,
// rolled so that its first clean rewrites every segment file, O_DIRECT
// output in 8 KiB writes under a record minimum no record reaches (1 GiB)
// and a clean minimum of exactly the partition's .log bytes (summed from
// the file system) writes direct, by the clean-bytes rule; one byte more
// writes through the page cache. Both write exactly the files of Kafka's
// cleaner through the page cache.
func TestWriteDirectMinCleanBytesOnFixtures(t *testing.T) {
	for _, c := range []struct {
		name       string
		over       int64
		wantDirect bool
	}{{"at", 0, true}, {"under", 1, false}} {
		var direct int64
		eachFixturePartition(t, c.name, func(t *testing.T, src string) {
			logBytes := sumFileSizes(t, logFiles(t, src))
			st := cleanCompared(t, src, fixtureNowMs, "cleans with O_DIRECT output by clean size and with write(2)",
				func(t *testing.T, now int64, i int) *Cleaner {
					return fastPathCleaner(t, now, offsetmap.LayoutSkimpy, func(cfg *CleanerConfig) {
						if i == 0 {
							cfg.WriteDirectBytes, cfg.WriteDirectMinRecordBytes = 8<<10, 1<<30
							cfg.WriteDirectMinCleanBytes = logBytes + c.over
						}
					})
				})
			if st.IO.SourceSegmentBytes != logBytes {
				t.Errorf("IOStats.SourceSegmentBytes %d, want the partition's %d .log bytes", st.IO.SourceSegmentBytes, logBytes)
			}
			if (st.IO.WriteDirectBytes != 0) != c.wantDirect {
				t.Errorf("minimum %d B (the log's %d + %d): IOStats.WriteDirectBytes %d", logBytes+c.over, logBytes, c.over, st.IO.WriteDirectBytes)
			}
			wantRule := ""
			if c.wantDirect {
				wantRule = WriteDirectRuleCleanBytes
			}
			if st.IO.WriteDirectRule != wantRule {
				t.Errorf("IOStats.WriteDirectRule %q, want %q", st.IO.WriteDirectRule, wantRule)
			}
			direct += st.IO.DirectWrittenBytes
		})
		if (direct > 0) != c.wantDirect {
			t.Errorf("%s: %d bytes written direct", c.name, direct)
		}
	}
}
