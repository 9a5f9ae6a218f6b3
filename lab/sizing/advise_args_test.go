package sizing

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestAdviseRefusesBadWorkloadBeforeCalibrating: a described workload out
// of range (--keys -1) is refused before anything is measured, naming the
// flag, and no calibration is written. The context is cancelled, so a
// calibration started first would answer with the cancellation instead
// (a new user's advise --keys -1 calibrated for 40 s first, and cached
// the calibration).
func TestAdviseRefusesBadWorkloadBeforeCalibrating(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name string
		set  func(o *AdviseCommandOptions)
		want string
	}{
		{"--keys -1", func(o *AdviseCommandOptions) { o.Workload.Keys = -1 }, "--keys -1"},
		{"--thread-curve-cache hot", func(o *AdviseCommandOptions) { o.CurveCache = "hot" }, "--thread-curve-cache"},
		{"--log.cleaner.backoff.ms 0", func(o *AdviseCommandOptions) { o.BackoffMs = 0 }, "--log.cleaner.backoff.ms"},
	} {
		o := DefaultAdviseCommandOptions()
		out := t.TempDir()
		o.Calibration.Out, o.Calibration.Dir = out, t.TempDir()
		c.set(&o)
		err := AdviseCommand(ctx, o, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.want)
		}
		if ents, _ := os.ReadDir(out); len(ents) != 0 {
			t.Errorf("%s: %d files written to the calibration's directory, want none", c.name, len(ents))
		}
	}
}
