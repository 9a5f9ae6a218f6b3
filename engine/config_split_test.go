package engine

import "testing"

// TestPerThreadSplit: Kafka's split of the shared buffers among cleaner
// threads (LogCleaner: dedupeBufferSize / numThreads for each map,
// ioBufferSize / numThreads / 2 for each of the read and write buffers),
// worked by hand: 128 MiB / 3 = 44,739,242 (rounded down); 512 KiB / 3 =
// 174,762, / 2 = 87,381.
func TestPerThreadSplit(t *testing.T) {
	for _, c := range []struct {
		dedupe, io int64
		threads    int
		map1, io1  int64
	}{
		{128 << 20, 512 << 10, 1, 128 << 20, 256 << 10},
		{128 << 20, 512 << 10, 3, 44739242, 87381},
		{128 << 20, 512 << 10, 0, 0, 0}, // invalid: no split, no panic
	} {
		cfg := CleanerConfig{DedupeBufferBytes: c.dedupe, IOBufferBytes: c.io, Threads: c.threads}
		if got := cfg.PerThreadMapBytes(); got != c.map1 {
			t.Errorf("threads %d: PerThreadMapBytes %d, want %d", c.threads, got, c.map1)
		}
		if got := cfg.PerThreadIOBufferBytes(); got != c.io1 {
			t.Errorf("threads %d: PerThreadIOBufferBytes %d, want %d", c.threads, got, c.io1)
		}
	}
}
