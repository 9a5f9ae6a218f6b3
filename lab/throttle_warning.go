package lab

import (
	"fmt"
	"math"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results"
)

// SlowThrottleSeconds is the predicted clean time, in seconds, above which
// run and sweep warn of their throttle before anything runs
// (ThrottleWarning): 60 s.
const SlowThrottleSeconds = 60

// ThrottleMinSeconds is the predicted wall time, in seconds, of the clean
// of e under its throttle: the workload's .log bytes (LogBytes, all
// partitions) over log.cleaner.io.max.bytes.per.second
// (MaxIOBytesPerSecond, shared by all cleaner threads). The clean reads
// every byte below the active segment at least once (the copy phase) and
// the throttle counts every byte read and written. Under a token bucket
// (--throttler token-bucket) that is a least time. Under Kafka's Throttler
// (--throttler kafka, the default) it is about the most: it sleeps only at
// its checks, 300 ms apart, for the bytes of the period checked, and never
// for a clean's last period, so a clean whose own work takes a few periods
// is slowed far less; and its first period begins when the cleaner is
// made, so its first check may come at the clean's first read
// (docs/io.md, Throttle). A prediction, not a measurement; 0 when there is
// no throttle (0 or negative: no limit).
func ThrottleMinSeconds(e Experiment) float64 {
	rate := e.Cleaner.MaxIOBytesPerSecond
	if rate <= 0 || math.IsInf(rate, 1) || e.Workload.LogBytes <= 0 {
		return 0
	}
	return float64(e.Workload.LogBytes) / rate
}

// ThrottleWarning is the warning run and sweep print before a run whose
// throttle is predicted (ThrottleMinSeconds) to hold its clean for more
// than SlowThrottleSeconds, "" otherwise. It names --throttle, the
// prediction and how it is worked out, and, under Kafka's throttler, that
// the debt is slept in one piece that a stop (SIGINT) waits for.
func ThrottleWarning(e Experiment) string {
	secs := ThrottleMinSeconds(e)
	if secs <= SlowThrottleSeconds {
		return ""
	}
	rate := e.Cleaner.MaxIOBytesPerSecond
	kafka := e.Cleaner.Throttler == "" || e.Cleaner.Throttler == iosched.ThrottlerKafka
	bound := "predicted minimum clean time"
	if kafka {
		bound = "predicted clean time up to about"
	}
	w := fmt.Sprintf("--throttle %s/s (log.cleaner.io.max.bytes.per.second) is far below the log's size: %s %.0f s "+
		"(a prediction, not a measurement: --log-bytes %s / --throttle %s/s, as the clean reads every byte of the log at least once and the throttle counts each byte read and written)",
		results.FormatBytes(int64(rate)), bound, secs, results.FormatBytes(e.Workload.LogBytes), results.FormatBytes(int64(rate)))
	if kafka {
		w += "; Kafka's throttler (--throttler kafka) sleeps only at its checks, 300 ms apart, and not for a clean's last period, so a clean whose own work is short is slowed far less " +
			"(its first period begins when the cleaner is made, so its first check may come at the clean's first read); " +
			"it sleeps off a whole period's bytes in one sleep, which a stop (SIGINT) waits for"
	}
	return w
}
