package engine

import (
	"fmt"
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
		if got := directWriteBytes(cfg, c.bytes, c.records); got != c.want {
			t.Errorf("min %d, %d bytes in %d records: %d, want %d", c.min, c.bytes, c.records, got, c.want)
		}
	}
	cfg.WriteDirectBytes, cfg.WriteDirectMinRecordBytes = 0, 0
	if got := directWriteBytes(cfg, 1<<20, 1); got != 0 {
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
