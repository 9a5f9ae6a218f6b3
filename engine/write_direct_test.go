package engine

import (
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
