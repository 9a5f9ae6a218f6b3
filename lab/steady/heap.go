package steady

import (
	"runtime"
	"runtime/debug"
)

// HeapHeadroomBytes is the garbage a steady run lets the Go heap gather
// above its live bytes before a collection. The dedupe buffer lives in the
// heap and is pointer-free (cheap to mark), so Go's default (GOGC 100: a
// collection when the heap doubles) would let a 128 MiB buffer's run grow
// its RSS by another 128 MiB of garbage, at ~40 MiB a minute at the default
// write rate: a growth that looks like a leak in the rss_bytes samples.
// With 16 MiB, a run with a 128 MiB buffer collects about every 40 s at
// the default write rate, each collection marking little (the buffer has
// no pointers to follow).
const HeapHeadroomBytes = 16 << 20

// gcPercentFor is the GOGC that puts the next collection headroom bytes
// above a live heap of live bytes: 100 x headroom / live, at most Go's
// default 100 and at least 10 (a collection at every 10% of growth).
func gcPercentFor(live, headroom int64) int {
	if live <= 0 {
		return 100
	}
	return int(max(10, min(100, headroom*100/live)))
}

// holdHeapHeadroom collects, measures the live heap and sets GOGC so the
// heap grows at most HeapHeadroomBytes above it (the dedupe buffers and
// logs allocated by then); restore sets the GOGC that was in force.
func holdHeapHeadroom() (restore func()) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	old := debug.SetGCPercent(gcPercentFor(int64(m.HeapAlloc), HeapHeadroomBytes))
	return func() { debug.SetGCPercent(old) }
}
