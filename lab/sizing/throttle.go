package sizing

import (
	"math"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// Phase is one stretch of a clean as the model sees it: Seconds of
// unthrottled (CPU- or disk-bound) time during which the cleaner passes
// Bytes to the throttle at a constant rate. Name is for display ("clear",
// "map", "copy", "overhead").
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Bytes   float64 `json:"bytes"`
}

// throttleSim is Kafka's Throttler (org.apache.kafka.storage.internals.
// utils.Throttler, as LogCleaner makes it: checkIntervalMs 300,
// throttleDown) driven by the model's phases instead of a clock. Kafka's
// maybeThrottle(observed) adds observed to the period's count; at the first
// call more than checkIntervalMs after the period began, when the period's
// rate observedSoFar / elapsed is above the desired rate, it sleeps
// round(observedSoFar / (desired / 1000) - elapsedMs) ms, so that the
// period, its sleep included, averages the desired rate; then a new period
// begins. The cleaner calls it after every read chunk (bytes read) and
// after every chunk's writes (bytes written), in the map build and the copy
// (Cleaner.buildOffsetMapForSegment and Cleaner.cleanInto).
//
// The model takes calls as continuous (a check exactly at the interval;
// chunks of 256 KiB take about a millisecond) and the sleep unrounded. Two
// consequences of Kafka's rule it keeps: bytes of the last period, less
// than checkIntervalMs of unthrottled work, are not slept for until the
// next call, which after an idle thread's backoff finds a low rate and
// forgives them; and a period mixing slow and fast phases averages them.
type throttleSim struct {
	rate     float64 // desired bytes per second; <= 0: no throttle
	interval float64 // check interval, seconds
	elapsed  float64 // seconds since the period began (work, sleeps and idle)
	observed float64 // bytes since the period began
}

func newThrottleSim(bytesPerSecond float64) *throttleSim {
	return &throttleSim{rate: bytesPerSecond, interval: iosched.KafkaCheckIntervalMs / 1000.0}
}

// run passes one phase through the throttle and returns its wall time:
// its seconds plus the sleeps taken during it.
func (t *throttleSim) run(p Phase) float64 {
	secs, bytes := p.Seconds, p.Bytes
	if t.rate <= 0 || math.IsInf(t.rate, 1) {
		return secs
	}
	wall := 0.0
	if t.elapsed > t.interval && secs > 0 {
		// The first call after an idle stretch longer than the interval.
		wall += t.check()
	}
	for secs > 0 {
		need := t.interval - t.elapsed
		if secs <= need {
			t.elapsed += secs
			t.observed += bytes
			return wall + secs
		}
		f := need / secs
		t.observed += bytes * f
		t.elapsed = t.interval
		wall += need
		secs -= need
		bytes -= bytes * f
		wall += t.check()
	}
	t.observed += bytes // a phase of no duration: counted at the next check
	return wall
}

// idle is time with no call (a thread's backoff, or no clean running).
func (t *throttleSim) idle(secs float64) { t.elapsed += secs }

// check is maybeThrottle's test at the end of a period: the sleep it takes
// (seconds), and a new period.
func (t *throttleSim) check() float64 {
	sleep := 0.0
	if t.observed > 0 && t.elapsed > 0 && t.observed/t.elapsed > t.rate {
		sleep = math.Max(0, t.observed/t.rate-t.elapsed)
	}
	t.elapsed, t.observed = 0, 0
	return sleep
}

// KafkaThrottledSeconds is the wall time of phases run back to back by one
// thread through Kafka's cleaner throttle at bytesPerSecond
// (log.cleaner.io.max.bytes.per.second; <= 0 or +Inf: none), the throttle's
// period beginning with the first phase (an isolated clean: the thread, or
// the whole cleaner, had been idle longer than the 300 ms check interval).
// A model prediction (throttleSim says how the throttle is modelled). Over
// whole periods it is max(phase seconds, phase bytes / rate), phase by
// phase; the last period, under 300 ms of unthrottled work, is not slept
// for, so a clean whose bytes fit one period is not slowed at all.
func KafkaThrottledSeconds(phases []Phase, bytesPerSecond float64) float64 {
	t := newThrottleSim(bytesPerSecond)
	total := 0.0
	for _, p := range phases {
		total += t.run(p)
	}
	return total
}

// throttleSpread is how far ExpectedKafkaThrottledSeconds scales the
// phases' unthrottled seconds each way: the calibration's default spread
// bound (DefaultSpreadBound), how far a clean's own speed moves from run
// to run.
const throttleSpread = 0.10

// ExpectedKafkaThrottledSeconds is KafkaThrottledSeconds averaged over the
// phases' unthrottled seconds scaled by 0.90, 0.925, ..., 1.10 (nine
// points, the calibration's spread bound each way), bytes unchanged. Where
// the last 300 ms check falls decides whether up to a period's bytes are
// slept for (an isolated clean's last period is not), so a clean a few
// percent faster or slower can take a whole period's sleep more or less:
// the measured figure jumps with the run's own speed, and the prediction
// is its mean over that speed's spread. A model prediction.
func ExpectedKafkaThrottledSeconds(phases []Phase, bytesPerSecond float64) float64 {
	return expectedOverSpread(func(scale float64) float64 {
		t := newThrottleSim(bytesPerSecond)
		total := 0.0
		for _, p := range phases {
			p.Seconds *= scale
			total += t.run(p)
		}
		return total
	})
}

// expectedOverSpread is the mean of f over nine scales evenly spaced in
// [1 - throttleSpread, 1 + throttleSpread].
func expectedOverSpread(f func(scale float64) float64) float64 {
	const n = 9
	sum := 0.0
	for i := 0; i < n; i++ {
		sum += f(1 - throttleSpread + 2*throttleSpread*float64(i)/(n-1))
	}
	return sum / n
}

// SteadyThrottledSeconds is the same phases' wall time when the throttle
// is never idle (cleans back to back): every period averages the rate, so
// the clean takes max(seconds, bytes / rate) over each stretch of 300 ms;
// the model sums max(phase seconds, phase bytes / rate) over the phases (a
// lower bound of the period-by-period figure when phases shorter than the
// interval share a period). <= 0 or +Inf: no throttle.
func SteadyThrottledSeconds(phases []Phase, bytesPerSecond float64) float64 {
	total := 0.0
	for _, p := range phases {
		if bytesPerSecond > 0 && !math.IsInf(bytesPerSecond, 1) {
			total += math.Max(p.Seconds, p.Bytes/bytesPerSecond)
		} else {
			total += p.Seconds
		}
	}
	return total
}

func phaseSums(phases []Phase) (secs, bytes float64) {
	for _, p := range phases {
		secs += p.Seconds
		bytes += p.Bytes
	}
	return secs, bytes
}
