package engine

import (
	"fmt"
	"math"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestSegmentFileNameMatchesKafka: the name is the base offset in 20
// digits, zero-padded, then the extension, as Kafka's
// LogFileUtils.filenamePrefixFromOffset (a NumberFormat of 20 minimum
// digits); fmt's %020d is the oracle.
func TestSegmentFileNameMatchesKafka(t *testing.T) {
	if got := segmentFileName(1234, ".log"); got != "00000000000000001234.log" {
		t.Errorf("segmentFileName(1234) = %q", got)
	}
	for _, base := range []int64{0, 1, 9, 10, 99999, 1 << 40, math.MaxInt64, -1} {
		for _, ext := range []string{".log", ".index", ".timeindex", ".txnindex", ""} {
			if got, want := segmentFileName(record.Offset(base), ext), fmt.Sprintf("%020d%s", base, ext); got != want {
				t.Errorf("segmentFileName(%d, %q) = %q, want %q", base, ext, got, want)
			}
		}
	}
}
