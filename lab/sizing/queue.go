package sizing

import (
	"fmt"
	"math"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// QueuePartition is one compacted partition the cleaner threads serve, as
// the queue model sees it. Bytes are .log bytes.
type QueuePartition struct {
	Name string `json:"name"`
	// CleanBytes is the clean section C, taken as constant (the steady
	// state: a clean leaves one record per live key).
	CleanBytes float64 `json:"clean_bytes"`
	// TriggerDirtyBytes: the partition is eligible once its dirty bytes
	// reach it (its cleanable ratio passes min.cleanable.dirty.ratio, or
	// max.compaction.lag.ms makes it eligible).
	TriggerDirtyBytes float64 `json:"trigger_dirty_bytes"`
	// InitialDirtyBytes at time 0.
	InitialDirtyBytes float64 `json:"initial_dirty_bytes"`
	// WriteBytesPerSecond into the partition, constant.
	WriteBytesPerSecond float64 `json:"write_bytes_per_second"`
	// PassBytes is the most dirty bytes one clean covers (its offset map
	// full); <= 0 or +Inf: all of them.
	PassBytes float64 `json:"pass_bytes"`
	// SegmentBytes is segment.bytes. The active (last) segment is never
	// cleanable (LogCleanerManager.cleanableOffsets stops at its base
	// offset), so the cleanable bytes grow a segment at a time, as the
	// active segment rolls, and a clean covers the dirty bytes below the
	// active segment only: segments are taken as S bytes of writes each,
	// their boundaries at multiples of S of the bytes written since time 0.
	// <= 0: every dirty byte is cleanable at once (a fluid log).
	SegmentBytes float64 `json:"segment_bytes,omitempty"`
	// Phases gives one clean's phases for `covered` dirty bytes with `rest`
	// dirty bytes left after it: unthrottled seconds and throttled bytes.
	Phases func(covered, rest float64) []Phase `json:"-"`
}

// QueueInput is the cleaner the queue model runs.
type QueueInput struct {
	// Threads is log.cleaner.threads (at least 1).
	Threads int
	// BackoffSeconds is log.cleaner.backoff.ms / 1000: how long a thread
	// that finds nothing to clean sleeps.
	BackoffSeconds float64
	// ThrottleBytesPerSecond is log.cleaner.io.max.bytes.per.second, shared
	// by all threads (<= 0 or +Inf: none).
	ThrottleBytesPerSecond float64
	// Speedup gives the aggregate speed of n threads cleaning at once in
	// units of one thread alone (the contention curve; Speedup(1) = 1);
	// nil: n (no contention).
	Speedup func(n int) float64
	// Partitions are the logs.
	Partitions []QueuePartition
	// HorizonSeconds is the simulated time; 0: 40 cycles of the slowest
	// partition's fill time (its trigger rounded up to whole segments:
	// only rolled segments are cleanable) plus backoff and one round of
	// cleans.
	HorizonSeconds float64

	// onClean, when set (tests), sees every clean as it ends.
	onClean func(part int, start, end, dirtyAtStart, covered float64)
}

// QueueResult is what the queue model predicts. Steady figures are taken
// over the second half of the horizon (the first half is the warm-up).
type QueueResult struct {
	// PeakDirtyRatio is the largest cleanable ratio a partition reached
	// (just before a clean ends); MeanDirtyRatio the time average over the
	// partitions.
	PeakDirtyRatio float64 `json:"peak_dirty_ratio"`
	MeanDirtyRatio float64 `json:"mean_dirty_ratio"`
	// MaxCompactionDelaySeconds is the longest a record waited, from its
	// write to the end of the clean that compacted it.
	MaxCompactionDelaySeconds float64 `json:"max_compaction_delay_seconds"`
	// MaxQueueWaitSeconds is the longest a partition waited from becoming
	// eligible to the start of its clean (other partitions' cleans and the
	// threads' backoff).
	MaxQueueWaitSeconds float64 `json:"max_queue_wait_seconds"`
	// ThreadBusy is the share of thread time spent cleaning (throttle
	// sleeps included).
	ThreadBusy float64 `json:"thread_busy"`
	// Cleans counted in the steady window.
	Cleans int `json:"cleans"`
	// FallsBehind: the dirty bytes kept growing (the last quarter's mean
	// dirty bytes over 1.1 times the third quarter's): no steady state.
	FallsBehind      bool    `json:"falls_behind"`
	SimulatedSeconds float64 `json:"simulated_seconds"`
}

type queueJob struct {
	part            int
	phases          []Phase
	idx             int
	left            float64 // fraction of phases[idx] left
	covered         float64
	start, startAge float64 // start time, age of the oldest covered record at start
	// tail is the unthrottled work (seconds) at the clean's end that the
	// throttle never sleeps for: an isolated clean's last period (0 for a
	// clean that follows another within the check interval).
	tail float64
}

// remaining is j's unthrottled work left, seconds.
func (j *queueJob) remaining() float64 {
	r := 0.0
	for i := j.idx; i < len(j.phases); i++ {
		f := 1.0
		if i == j.idx {
			f = j.left
		}
		r += f * j.phases[i].Seconds
	}
	return r
}

// inTail: j is in its unthrottled last period.
func (j *queueJob) inTail() bool { return j.tail > 0 && j.remaining() <= j.tail*(1+1e-12) }

// SimulateQueue runs Kafka's cleaner threads over the partitions on the
// model's clock, deterministically (a fluid, event-driven simulation):
//
//   - every partition's dirty bytes grow at its write rate; its cleanable
//     bytes are those below the active segment (SegmentBytes), and its
//     cleanable ratio cleanable / (clean + cleanable), Kafka's;
//   - a free thread takes the eligible partition not being cleaned with the
//     largest cleanable ratio dirty / (clean + dirty), the first on a tie
//     (LogCleanerManager.grabFilthiestCompactedLog); with none it sleeps
//     BackoffSeconds (LogCleaner.CleanerThread.doWork);
//   - a clean covers min(cleanable at its start, PassBytes) and runs that pass's
//     phases; bytes written meanwhile stay dirty; its dirty bytes leave
//     when it ends (the checkpoint moves then);
//   - n cleans at once each run at Speedup(n)/n of their own speed, and all
//     are slowed in proportion when their phases' bytes per second together
//     pass the throttle (one Throttler for all threads, its sleeps taken
//     under its lock, so every period averages the rate); except an
//     isolated clean's last period: a clean that starts when no clean has
//     run for the 300 ms check interval finds its first check forgiving
//     and is not slept for in its last period, under 300 ms of work
//     (Kafka's Throttler checks at the end of a period only): all of a
//     clean of at most 300 ms, else 150 ms, the mean of where the last
//     check falls.
//
// A record's compaction delay is its dirty age when the clean covering it
// started (oldest dirty bytes / write rate) plus that clean's time. The
// dirty ratio figures are the cleanable ratio's, as steady samples it. Errors:
// no partition, a partition without a phase model or with negative sizes.
func SimulateQueue(in QueueInput) (*QueueResult, error) {
	if len(in.Partitions) == 0 {
		return nil, fmt.Errorf("sizing: queue: no partition")
	}
	threads := max(in.Threads, 1)
	speed := func(n int) float64 {
		if n <= 0 {
			return 0
		}
		if in.Speedup == nil {
			return 1
		}
		if v := in.Speedup(n) / float64(n); v > 0 {
			return v
		}
		return 1e-9
	}
	ps := in.Partitions
	horizon := in.HorizonSeconds
	cycle := in.BackoffSeconds
	for i, p := range ps {
		if p.Phases == nil || p.CleanBytes < 0 || p.TriggerDirtyBytes < 0 || p.WriteBytesPerSecond < 0 || p.InitialDirtyBytes < 0 {
			return nil, fmt.Errorf("sizing: queue: partition %d (%s): want a phase model and sizes >= 0", i, p.Name)
		}
		if p.WriteBytesPerSecond > 0 {
			// A clean waits for its trigger's bytes to be rolled out of
			// the active segment: the fill is a whole number of segments.
			fill := p.TriggerDirtyBytes
			if p.SegmentBytes > 0 {
				fill = p.SegmentBytes * math.Max(1, math.Ceil(fill/p.SegmentBytes-1e-9))
			}
			cycle = math.Max(cycle, fill/p.WriteBytesPerSecond+in.BackoffSeconds)
		}
		s, _ := phaseSums(p.Phases(math.Max(p.TriggerDirtyBytes, 1), 0))
		cycle += s / float64(threads)
	}
	if horizon <= 0 {
		horizon = 40 * math.Max(cycle, 1e-3)
	}
	// Each partition's dirty bytes are linear in time between its cleans'
	// ends: x0[i] at t0[i], growing at its write rate. Its integrals (the
	// ratio's, the quarters' sums) and its peak are taken per piece, when
	// the piece ends (a clean's end, or the horizon).
	x0 := make([]float64, len(ps))
	t0 := make([]float64, len(ps))
	busy := make([]bool, len(ps))
	lastDone := make([]float64, len(ps))
	for i, p := range ps {
		x0[i] = p.InitialDirtyBytes
	}
	dirtyAt := func(i int, t float64) float64 { return x0[i] + ps[i].WriteBytesPerSecond*(t-t0[i]) }
	// Bytes written to partition i by time t (the initial dirty bytes
	// first), and its checkpoint there: written - dirty.
	writtenAt := func(i int, t float64) float64 { return ps[i].InitialDirtyBytes + ps[i].WriteBytesPerSecond*t }
	const eps = 1e-9
	// rolledAt is the active segment's base at t, in bytes written.
	rolledAt := func(i int, t float64) float64 {
		s, w := ps[i].SegmentBytes, writtenAt(i, t)
		return s * math.Floor(w/s+eps)
	}
	cleanableAt := func(i int, t float64) float64 {
		x := dirtyAt(i, t)
		if ps[i].SegmentBytes <= 0 {
			return x
		}
		return math.Max(0, rolledAt(i, t)-(writtenAt(i, t)-x))
	}
	// triggerWrittenAt is the bytes written at which partition i's
	// cleanable bytes reach its trigger, its checkpoint where it is at t.
	triggerWrittenAt := func(i int, t float64) float64 {
		p := ps[i]
		ck := writtenAt(i, t) - dirtyAt(i, t)
		if p.SegmentBytes <= 0 {
			return ck + p.TriggerDirtyBytes
		}
		return p.SegmentBytes * math.Ceil((ck+p.TriggerDirtyBytes)/p.SegmentBytes-eps)
	}
	running := make([]*queueJob, threads)
	wake := make([]float64, threads) // a free thread's next look, seconds
	interval := float64(iosched.KafkaCheckIntervalMs) / 1000
	lastActive := math.Inf(-1) // when a clean last ran (the throttle's last call)
	throttled := in.ThrottleBytesPerSecond > 0 && !math.IsInf(in.ThrottleBytesPerSecond, 1)
	res := &QueueResult{}
	warm := horizon / 2
	q3, q4 := horizon/2, horizon*3/4
	var ratioInt, sumQ3, sumQ4, busyInt float64
	ratioOf := func(i int, x float64) float64 {
		if c := ps[i].CleanBytes + x; c > 0 {
			return x / c
		}
		return 0
	}
	eligibleAt := func(i int, t float64) bool {
		x := cleanableAt(i, t)
		return !busy[i] && x > 0 && x >= ps[i].TriggerDirtyBytes*(1-1e-12)
	}
	// closePiece accounts partition i's piece [t0[i], t) and starts a new
	// one at t holding x.
	closePiece := func(i int, t, x float64) {
		p := ps[i]
		w := p.WriteBytesPerSecond
		if span := overlap(t0[i], t, warm, horizon); span > 0 && p.SegmentBytes > 0 {
			// The cleanable bytes are constant between rolls.
			c := p.CleanBytes
			a, b := math.Max(t0[i], warm), math.Min(t, horizon)
			for a < b {
				next := b
				if w > 0 {
					next = math.Min(b, a+(rolledAt(i, a)+p.SegmentBytes-writtenAt(i, a))/w)
				}
				if next-a < 1e-12 {
					next = math.Min(b, a+1e-9)
				}
				if cx := cleanableAt(i, a); c+cx > 0 {
					ratioInt += (next - a) * cx / (c + cx)
					res.PeakDirtyRatio = math.Max(res.PeakDirtyRatio, cx/(c+cx))
				}
				a = next
			}
		} else if span > 0 {
			// Time average of x / (C + x) with x linear in time.
			c := p.CleanBytes
			a0 := dirtyAt(i, math.Max(t0[i], warm))
			a1 := a0 + w*span
			switch {
			case c+a0 <= 0:
			case w > 0 && a1 > a0:
				ratioInt += span - c/w*math.Log((c+a1)/(c+a0))
			default:
				ratioInt += span * a0 / (c + a0)
			}
			res.PeakDirtyRatio = math.Max(res.PeakDirtyRatio, a1/math.Max(c+a1, 1e-300))
		}
		sumQ3 += overlapSum(t0[i], t-t0[i], x0[i], w, q3, q4)
		sumQ4 += overlapSum(t0[i], t-t0[i], x0[i], w, q4, horizon)
		x0[i], t0[i] = x, t
	}
	t := 0.0
	for steps := 0; t < horizon && steps < 20_000_000; steps++ {
		// Free, awake threads take the filthiest eligible partitions.
		for k := range running {
			if running[k] != nil || wake[k] > t {
				continue
			}
			best, bestRatio := -1, 0.0
			for i := range ps {
				if eligibleAt(i, t) {
					if r := ratioOf(i, cleanableAt(i, t)); best < 0 || r > bestRatio {
						best, bestRatio = i, r
					}
				}
			}
			if best < 0 {
				wake[k] = t + in.BackoffSeconds
				if in.BackoffSeconds <= 0 {
					wake[k] = math.Inf(1) // woken below when a partition becomes eligible
				}
				continue
			}
			p := ps[best]
			x, cl := dirtyAt(best, t), cleanableAt(best, t)
			cov := cl
			if p.PassBytes > 0 && !math.IsInf(p.PassBytes, 1) {
				cov = math.Min(cov, p.PassBytes)
			}
			j := &queueJob{part: best, phases: p.Phases(cov, cl-cov), left: 1, covered: cov, start: t}
			// The first clean(s) of a burst of the throttle's activity: no
			// clean ran for the check interval, and those running started
			// at the same instant.
			alone := true
			for _, o := range running {
				alone = alone && (o == nil || o.start == t)
			}
			if throttled && alone && t-lastActive >= interval {
				if w := j.remaining(); w <= interval {
					j.tail = w
				} else {
					j.tail = interval / 2
				}
			}
			if p.WriteBytesPerSecond > 0 {
				j.startAge = x / p.WriteBytesPerSecond
				// When the cleanable bytes reached the trigger (not before
				// the partition's last clean ended).
				since := math.Max(lastDone[best], t-(writtenAt(best, t)-triggerWrittenAt(best, t))/p.WriteBytesPerSecond)
				if t >= warm {
					res.MaxQueueWaitSeconds = math.Max(res.MaxQueueWaitSeconds, t-since)
				}
			}
			busy[best] = true
			running[k] = j
		}
		// Speeds: contention, then the shared throttle.
		n := 0
		for _, j := range running {
			if j != nil {
				n++
			}
		}
		base := speed(n)
		demand := 0.0
		for _, j := range running {
			if j != nil && j.idx < len(j.phases) && !j.inTail() {
				if ph := j.phases[j.idx]; ph.Seconds > 0 {
					demand += base * ph.Bytes / ph.Seconds
				}
			}
		}
		sThr := base
		if r := in.ThrottleBytesPerSecond; throttled && demand > r {
			sThr *= r / demand
		}
		speedOf := func(j *queueJob) float64 {
			if j.inTail() {
				return base
			}
			return sThr
		}
		// The next event: a phase's end, a thread's wake-up, a partition
		// reaching its trigger while the threads sleep forever (backoff 0),
		// or the horizon.
		dt := horizon - t
		for k, j := range running {
			if j == nil {
				dt = math.Min(dt, wake[k]-t)
				continue
			}
			s := speedOf(j)
			if j.idx < len(j.phases) {
				if ph := j.phases[j.idx]; ph.Seconds > 0 && s > 0 {
					dt = math.Min(dt, j.left*ph.Seconds/s)
				} else {
					dt = 0
				}
				// Its last period begins: the throttle lets go.
				if rem := j.remaining(); !j.inTail() && j.tail > 0 && s > 0 {
					dt = math.Min(dt, (rem-j.tail)/s)
				}
			} else {
				dt = 0
			}
		}
		if in.BackoffSeconds <= 0 {
			for i, p := range ps {
				if !busy[i] && !eligibleAt(i, t) && p.WriteBytesPerSecond > 0 {
					dt = math.Min(dt, (triggerWrittenAt(i, t)-writtenAt(i, t))/p.WriteBytesPerSecond)
				}
			}
		}
		dt = math.Max(dt, 0)
		for _, j := range running {
			if j != nil {
				busyInt += overlap(t, t+dt, warm, horizon)
			}
		}
		for _, j := range running {
			if j == nil || j.idx >= len(j.phases) {
				continue
			}
			if ph, s := j.phases[j.idx], speedOf(j); ph.Seconds > 0 && s > 0 {
				j.left -= dt * s / ph.Seconds
			} else {
				j.left = 0
			}
		}
		t += dt
		// Phases and cleans that ended.
		for k, j := range running {
			if j == nil {
				continue
			}
			for j.idx < len(j.phases) && j.left <= 1e-9 {
				j.idx++
				j.left = 1
			}
			if j.idx < len(j.phases) {
				continue
			}
			i := j.part
			closePiece(i, t, math.Max(0, dirtyAt(i, t)-j.covered))
			busy[i] = false
			lastDone[i] = t
			lastActive = t
			if in.onClean != nil {
				in.onClean(i, j.start, t, j.startAge*ps[i].WriteBytesPerSecond, j.covered)
			}
			if t >= warm && t < horizon {
				res.Cleans++
				res.MaxCompactionDelaySeconds = math.Max(res.MaxCompactionDelaySeconds, j.startAge+t-j.start)
			}
			running[k] = nil
			wake[k] = t
		}
		if in.BackoffSeconds <= 0 {
			for k := range running {
				if running[k] == nil && math.IsInf(wake[k], 1) {
					for i := range ps {
						if eligibleAt(i, t) {
							wake[k] = t
						}
					}
				}
			}
		}
	}
	for i := range ps {
		closePiece(i, math.Min(t, horizon), dirtyAt(i, math.Min(t, horizon)))
	}
	res.SimulatedSeconds = t
	if span := horizon - warm; span > 0 {
		res.MeanDirtyRatio = ratioInt / span / float64(len(ps))
		res.ThreadBusy = busyInt / span / float64(threads)
	}
	res.FallsBehind = sumQ4 > 1.1*sumQ3 && sumQ4 > 0
	return res, nil
}

// overlap is the length of [a, b) within [lo, hi).
func overlap(a, b, lo, hi float64) float64 {
	return math.Max(0, math.Min(b, hi)-math.Max(a, lo))
}

// overlapSum is the integral over [t, t+dt) within [lo, hi) of x0 + w (s - t).
func overlapSum(t, dt, x0, w, lo, hi float64) float64 {
	a, b := math.Max(t, lo), math.Min(t+dt, hi)
	if b <= a {
		return 0
	}
	xa, xb := x0+w*(a-t), x0+w*(b-t)
	return (xa + xb) / 2 * (b - a)
}
