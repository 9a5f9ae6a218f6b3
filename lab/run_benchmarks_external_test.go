package lab

import (
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestRunBenchmarksLeaveOutOurReadsForAnExternalCleaner: storage-read-B/op
// is this process's /proc/self/io read_bytes during the clean; a run
// cleaned by an external cleaner (cleaned_by kafka-jvm: Kafka's cleaner in
// a JVM, another process) read nothing of it in this process, so the
// metric is left out, not written as 0 beside our cleaner's figures (a
// sweep of --profile kafka,kafka-jvm puts both in one summary.csv); our
// own run keeps it.
func TestRunBenchmarksLeaveOutOurReadsForAnExternalCleaner(t *testing.T) {
	d := results.CounterDelta{ProcReadBytes: 0}
	stats := []*engine.CleanStats{{MessagesRead: 100}}
	tp := Throughput{Wall: time.Second}
	for _, c := range []struct {
		cleanedBy string
		want      bool
	}{{"", true}, {"kafka-jvm", false}} {
		e := DefaultExperiment()
		e.CleanedBy = c.cleanedBy
		b := RunBenchmarks(&e, stats, tp, d, nil)
		got := false
		for _, m := range b[0].Metrics {
			got = got || m.Unit == results.UnitStorageReadBPerOp
		}
		if got != c.want {
			t.Errorf("cleaned_by %q: %s in %v: %v, want %v", c.cleanedBy, results.UnitStorageReadBPerOp, b[0].Metrics, got, c.want)
		}
	}
}
