package iosched

import (
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Throttler limits the cleaner's I/O rate. The cleaner calls MaybeThrottle
// where Kafka's cleaner calls Throttler.maybeThrottle: after each read chunk
// with the bytes read, and after each chunk's writes with the bytes written,
// in both the offset-map build and the copy. It sleeps when the rate is over
// and returns how long this call slept. Safe for concurrent use: one
// Throttler is shared by all cleaner threads, as in Kafka.
type Throttler interface {
	MaybeThrottle(bytes int64) time.Duration
	// Stats returns the counts since the Throttler was made, all callers
	// together.
	Stats() ThrottleStats
	// Kind names the throttler: ThrottlerKafka or ThrottlerTokenBucket.
	Kind() string
}

// ThrottleStats counts what a Throttler saw and did.
type ThrottleStats struct {
	Bytes  int64         // bytes passed to MaybeThrottle
	Calls  int64         // MaybeThrottle calls
	Sleeps int64         // calls that slept
	Slept  time.Duration // time slept, all callers together
}

// Throttler kinds.
const (
	// ThrottlerKafka is Kafka's kafka.utils.Throttler: rate checks every
	// 300 ms, then one sleep long enough to bring the period's average down
	// to the desired rate.
	ThrottlerKafka = "kafka"
	// ThrottlerTokenBucket is a token bucket (golang.org/x/time/rate) of
	// 300 ms of bytes: every call past the bucket waits for its bytes.
	ThrottlerTokenBucket = "token-bucket"
)

// ParseThrottlerKind parses "kafka" or "token-bucket"; "" gives ThrottlerKafka.
func ParseThrottlerKind(s string) (string, error) {
	switch s {
	case "", ThrottlerKafka:
		return ThrottlerKafka, nil
	case ThrottlerTokenBucket:
		return s, nil
	}
	return "", fmt.Errorf("iosched: unknown throttler %q (want kafka or token-bucket)", s)
}

// Clock is the time a Throttler reads and the sleep it takes; tests inject
// a fake one. A nil Now is time.Now; a nil Sleep is time.Sleep.
type Clock struct {
	Now   func() time.Time
	Sleep func(time.Duration)
}

func (c Clock) withDefaults() Clock {
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = time.Sleep
	}
	return c
}

// NewThrottler returns a throttler of kind (ParseThrottlerKind) holding I/O
// to bytesPerSecond (Kafka's log.cleaner.io.max.bytes.per.second, counting
// read and written bytes together). bytesPerSecond must be positive and
// finite: an unthrottled cleaner has no Throttler.
func NewThrottler(kind string, bytesPerSecond float64, clock Clock) (Throttler, error) {
	k, err := ParseThrottlerKind(kind)
	if err != nil {
		return nil, err
	}
	if !(bytesPerSecond > 0) || math.IsInf(bytesPerSecond, 1) {
		return nil, fmt.Errorf("iosched: throttle rate %v bytes/s: want a positive, finite rate", bytesPerSecond)
	}
	if k == ThrottlerTokenBucket {
		return NewTokenBucket(bytesPerSecond, 0, clock), nil
	}
	return NewKafkaThrottler(bytesPerSecond, clock), nil
}

// KafkaCheckIntervalMs is the check interval of the cleaner's throttler in
// Kafka's LogCleaner (checkIntervalMs = 300).
const KafkaCheckIntervalMs = 300

// KafkaThrottler is Kafka's Throttler (docs/kafka-rules.md §5), with its
// throttleDown = true:
//
//	maybeThrottle(observed): under the lock, observedSoFar += observed;
//	elapsedNs = now - periodStartNs; if elapsedNs > checkIntervalNs and
//	observedSoFar > 0: rate = observedSoFar / elapsed seconds; if rate >
//	desired: sleep round(observedSoFar / (desired / 1000) - elapsedMs) ms
//	when positive (elapsedMs is elapsedNs truncated to ms; round is Java's
//	Math.round, half up); then periodStartNs = now (read again, after the
//	sleep) and observedSoFar = 0.
//
// The sleep is taken holding the lock, as Kafka's synchronized block does:
// every thread's next call waits behind it.
type KafkaThrottler struct {
	desiredPerSec float64
	checkInterval time.Duration
	clock         Clock

	mu          sync.Mutex
	periodStart time.Time
	observed    float64 // bytes since periodStart
	stats       ThrottleStats
}

// NewKafkaThrottler returns Kafka's throttler at bytesPerSecond with the
// 300 ms check interval; its first period starts now (clock.Now).
func NewKafkaThrottler(bytesPerSecond float64, clock Clock) *KafkaThrottler {
	c := clock.withDefaults()
	return &KafkaThrottler{desiredPerSec: bytesPerSecond, checkInterval: KafkaCheckIntervalMs * time.Millisecond,
		clock: c, periodStart: c.Now()}
}

// MaybeThrottle records bytes and sleeps when the period's rate is over.
func (t *KafkaThrottler) MaybeThrottle(bytes int64) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stats.Calls++
	t.stats.Bytes += bytes
	t.observed += float64(bytes)
	elapsed := t.clock.Now().Sub(t.periodStart)
	if elapsed <= t.checkInterval || t.observed <= 0 {
		return 0
	}
	var slept time.Duration
	if rate := t.observed * 1e9 / float64(elapsed.Nanoseconds()); rate > t.desiredPerSec {
		desiredPerMs := t.desiredPerSec / 1000
		elapsedMs := elapsed.Milliseconds()
		if ms := int64(math.Floor(t.observed/desiredPerMs - float64(elapsedMs) + 0.5)); ms > 0 {
			slept = time.Duration(ms) * time.Millisecond
			t.clock.Sleep(slept)
			t.stats.Sleeps++
			t.stats.Slept += slept
		}
	}
	t.periodStart = t.clock.Now()
	t.observed = 0
	return slept
}

// Stats returns the counts since NewKafkaThrottler.
func (t *KafkaThrottler) Stats() ThrottleStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// Kind is ThrottlerKafka.
func (t *KafkaThrottler) Kind() string { return ThrottlerKafka }

// TokenBucket is a token-bucket throttler on golang.org/x/time/rate: a
// bucket of burstBytes tokens, full at first, refilled at bytesPerSecond.
// Each call takes its bytes, burstBytes at a time, and sleeps until the
// bucket could pay for them. Unlike Kafka's, it smooths within 300 ms and
// callers sleep concurrently, each for its own bytes.
type TokenBucket struct {
	lim   *rate.Limiter
	burst int64
	clock Clock

	mu    sync.Mutex // guards stats
	stats ThrottleStats
}

// NewTokenBucket returns a token bucket at bytesPerSecond holding burstBytes
// (< 1: 300 ms of bytes, Kafka's check interval, at least 1 byte).
func NewTokenBucket(bytesPerSecond float64, burstBytes int64, clock Clock) *TokenBucket {
	if burstBytes < 1 {
		burstBytes = max(1, int64(bytesPerSecond*KafkaCheckIntervalMs/1000))
	}
	burstBytes = min(burstBytes, math.MaxInt32)
	return &TokenBucket{lim: rate.NewLimiter(rate.Limit(bytesPerSecond), int(burstBytes)), burst: burstBytes, clock: clock.withDefaults()}
}

// MaybeThrottle takes bytes from the bucket, sleeping for any it lacks.
func (t *TokenBucket) MaybeThrottle(bytes int64) time.Duration {
	var slept time.Duration
	sleeps := int64(0)
	for left := bytes; left > 0; {
		n := min(left, t.burst)
		now := t.clock.Now()
		if d := t.lim.ReserveN(now, int(n)).DelayFrom(now); d > 0 {
			t.clock.Sleep(d)
			slept += d
			sleeps++
		}
		left -= n
	}
	t.mu.Lock()
	t.stats.Calls++
	t.stats.Bytes += bytes
	t.stats.Sleeps += sleeps
	t.stats.Slept += slept
	t.mu.Unlock()
	return slept
}

// Stats returns the counts since NewTokenBucket.
func (t *TokenBucket) Stats() ThrottleStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// Kind is ThrottlerTokenBucket.
func (t *TokenBucket) Kind() string { return ThrottlerTokenBucket }
