package lab

import (
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestKafkaLineScope: the line after Kafka's message gives the lab's
// throughput of that one clean over the clean's own elapsed time, and says
// so: it is not the table's throughput row (over the clean phase's wall
// time, which also holds the work around the cleans), so it must not be
// described by the row's words. 3 MiB of map reads and 5 MiB of copy reads
// in 2 s are 4.0 MiB/s.
func TestKafkaLineScope(t *testing.T) {
	start := time.Unix(1000, 0)
	st := &engine.CleanStats{
		MapBytesRead:    3 << 20,
		BytesRead:       5 << 20,
		StartTime:       start,
		MapCompleteTime: start.Add(500 * time.Millisecond),
		EndTime:         start.Add(2 * time.Second),
	}
	line := KafkaLine(st)
	last := line[strings.LastIndex(strings.TrimSuffix(line, "\n"), "\n")+1:]
	want := "\t(Kafka's arithmetic above: copy read / whole clean time; the lab's throughput of this clean, (map read + copy read) / its own elapsed time of 2.0 s, is 4.0 MiB/s)\n"
	if last != want {
		t.Errorf("last line\n%q, want\n%q", last, want)
	}
	if strings.Contains(last, ThroughputMeaning) {
		t.Errorf("the per-clean line uses the table row's definition words %q", ThroughputMeaning)
	}
}
