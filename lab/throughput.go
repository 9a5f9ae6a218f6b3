package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
)

// Throughput is the lab's one throughput definition, used by run, clean,
// sweep and the bench suites: the bytes the cleaner read, the map phase's
// (dirty segments read to build the offset map) and the copy phase's
// (segments read while recopying) counted apart and summed, over the wall
// time of the clean (all partitions; for one clean, its whole elapsed time).
// Kafka's own log line divides only the copy phase's bytes by the whole
// clean time (KafkaLine says so).
type Throughput struct {
	// MapBytes and CopyBytes are the bytes read by the two phases.
	MapBytes, CopyBytes int64
	// Wall is the wall time of the clean.
	Wall time.Duration
}

// ThroughputOf sums the phases' bytes over stats, against wall.
func ThroughputOf(stats []*engine.CleanStats, wall time.Duration) Throughput {
	t := Throughput{Wall: wall}
	for _, st := range stats {
		t.MapBytes += st.MapBytesRead
		t.CopyBytes += st.BytesRead
	}
	return t
}

// ThroughputOfClean is the throughput of one clean over its own elapsed
// time (CleanStats.ElapsedTime).
func ThroughputOfClean(st *engine.CleanStats) Throughput {
	return ThroughputOf([]*engine.CleanStats{st}, st.ElapsedTime())
}

// Bytes is MapBytes + CopyBytes.
func (t Throughput) Bytes() int64 { return t.MapBytes + t.CopyBytes }

// BytesPerSecond is Bytes / Wall; 0 when Wall is not positive.
func (t Throughput) BytesPerSecond() float64 {
	if t.Wall <= 0 {
		return 0
	}
	return float64(t.Bytes()) / t.Wall.Seconds()
}

// MiBps renders BytesPerSecond in MiB/s with one decimal, "n/a" when the
// wall time is not positive.
func (t Throughput) MiBps() string {
	if t.Wall <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", t.BytesPerSecond()/(1<<20))
}

// ThroughputMeaning is the throughput row's meaning, the definition in words.
const ThroughputMeaning = "(map read + copy read) / wall time of the clean: every byte the cleaner read, both phases"

// KafkaLine is Kafka's log line for one clean (engine.CleanStats.KafkaMessage,
// Kafka's arithmetic: MB = 2^20 bytes, "MB/sec" = copy-phase bytes / whole
// clean time), followed by a line with the lab's throughput of this one
// clean, over its own elapsed time (ThroughputOfClean).
func KafkaLine(st *engine.CleanStats) string {
	var b strings.Builder
	b.WriteString(st.KafkaMessage(st.Thread))
	// Over this clean's own elapsed time, not the phase wall time of the
	// table's throughput row, so the two differ by the work around the
	// cleans; the words say which.
	fmt.Fprintf(&b, "\t(Kafka's arithmetic above: copy read / whole clean time; the lab's throughput of this clean, (map read + copy read) / its own elapsed time of %.1f s, is %s MiB/s)\n", st.ElapsedTime().Seconds(), ThroughputOfClean(st).MiBps())
	return b.String()
}
