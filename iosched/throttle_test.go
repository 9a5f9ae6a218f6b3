package iosched

import (
	"strings"
	"testing"
	"time"
)

// fakeClock is a Clock whose Sleep records the duration and moves the time.
type fakeClock struct {
	t      time.Time
	sleeps []time.Duration
}

func newFakeClock() *fakeClock { return &fakeClock{t: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) clock() Clock {
	return Clock{Now: func() time.Time { return c.t }, Sleep: func(d time.Duration) { c.sleeps = append(c.sleeps, d); c.t = c.t.Add(d) }}
}

// at sets the time to start + offset.
func (c *fakeClock) at(start time.Time, offset time.Duration) { c.t = start.Add(offset) }

type throttleStep struct {
	at    time.Duration // time since the throttler was made
	bytes int64
	sleep time.Duration // the sleep this call must take (0: none)
}

func runSteps(t *testing.T, name string, thr Throttler, c *fakeClock, start time.Time, steps []throttleStep) {
	t.Helper()
	var total time.Duration
	for i, s := range steps {
		if start.Add(s.at).Before(c.t) {
			t.Fatalf("%s step %d: at %v is before the clock (%v): the steps are wrong", name, i, s.at, c.t.Sub(start))
		}
		c.at(start, s.at)
		if got := thr.MaybeThrottle(s.bytes); got != s.sleep {
			t.Fatalf("%s step %d (at %v, %d bytes): slept %v, want %v", name, i, s.at, s.bytes, got, s.sleep)
		}
		total += s.sleep
	}
	st := thr.Stats()
	if st.Slept != total || st.Calls != int64(len(steps)) {
		t.Fatalf("%s: stats %+v, want %v slept over %d calls", name, st, total, len(steps))
	}
}

// TestKafkaThrottlerSleeps checks Kafka's sleep formula (docs/kafka-rules.md
// §5) on sequences worked by hand. At 1000 bytes/s (1 byte/ms):
//   - 100 B at 0, 500 B at 200 ms, 50 B at 300 ms: no check yet (300 ms is
//     not more than the 300 ms interval);
//   - 50 B at 301 ms: 700 B in 301 ms is 2326 B/s, so sleep
//     round(700/1 - 301) = 399 ms; the next period starts after the sleep,
//     at 700 ms;
//   - 50 B at 800 ms, 200 B at 1100 ms: 250 B in 400 ms is 625 B/s, under
//     the rate: no sleep, but the period restarts at 1100 ms;
//   - 0 B at 1100 ms and at 1500 ms: nothing observed, so no check and no
//     restart, even past the interval;
//   - 1000 B at 1600.9 ms: 1000 B in 500.9 ms; elapsed ms truncates to 500:
//     sleep round(1000 - 500) = 500 ms.
func TestKafkaThrottlerSleeps(t *testing.T) {
	c := newFakeClock()
	start := c.t
	thr := NewKafkaThrottler(1000, c.clock())
	ms := time.Millisecond
	runSteps(t, "1000 B/s", thr, c, start, []throttleStep{
		{0, 100, 0},
		{200 * ms, 500, 0},
		{300 * ms, 50, 0},
		{301 * ms, 50, 399 * ms},
		{800 * ms, 50, 0},
		{1100 * ms, 200, 0},
		{1100 * ms, 0, 0},
		{1500 * ms, 0, 0},
		{1600*ms + 900*time.Microsecond, 1000, 500 * ms},
	})
	if want := []time.Duration{399 * ms, 500 * ms}; len(c.sleeps) != 2 || c.sleeps[0] != want[0] || c.sleeps[1] != want[1] {
		t.Fatalf("sleeps %v, want %v", c.sleeps, want)
	}
	if st := thr.Stats(); st.Bytes != 1950 || st.Sleeps != 2 {
		t.Fatalf("stats %+v, want 1950 bytes, 2 sleeps", st)
	}

	// Rounding (Java's Math.round, half up) and a sleep that rounds to 0.
	// At 2000 B/s (2 B/ms): 1001 B at 301.9 ms (elapsed ms 301): 500.5 - 301
	// = 199.5 -> 200 ms; the period restarts at 501.9 ms; 1000 B at 803.3 ms
	// (301.4 ms later): 500 - 301 = 199 ms.
	c = newFakeClock()
	start = c.t
	runSteps(t, "2000 B/s", NewKafkaThrottler(2000, c.clock()), c, start, []throttleStep{
		{301*ms + 900*time.Microsecond, 1001, 200 * ms},
		{803*ms + 300*time.Microsecond, 1000, 199 * ms},
	})
	// At 3000 B/s (3 B/ms): 904 B in 301 ms is 3003 B/s, over the rate, but
	// 904/3 - 301 = 0.33 rounds to 0: no sleep; the period restarts at
	// 301 ms, so 300 B at 602 ms (301 ms later, 997 B/s) sleeps nothing.
	c = newFakeClock()
	start = c.t
	runSteps(t, "3000 B/s", NewKafkaThrottler(3000, c.clock()), c, start, []throttleStep{
		{301 * ms, 904, 0},
		{602 * ms, 300, 0},
	})
	if len(c.sleeps) != 0 {
		t.Fatalf("sleeps %v, want none", c.sleeps)
	}
}

// TestTokenBucketSleeps: at 1000 B/s with a 300-byte bucket, full at first:
// 300 B at 0 empties it; 100 B at 0 owes 100 B: 100 ms; 50 B at 100 ms (the
// bucket refilled the 100 it owed) owes 50: 50 ms; 1000 B at 150 ms is
// taken 300 + 300 + 300 + 100, each owed in full: 300, 300, 300 and 100 ms,
// 1000 ms in all; at 3150 ms the bucket is full again (capped at 300): 300 B
// pass and 10 B more owe 10 ms.
func TestTokenBucketSleeps(t *testing.T) {
	c := newFakeClock()
	start := c.t
	thr := NewTokenBucket(1000, 300, c.clock())
	ms := time.Millisecond
	runSteps(t, "token bucket", thr, c, start, []throttleStep{
		{0, 300, 0},
		{0, 100, 100 * ms},
		{100 * ms, 50, 50 * ms},
		{150 * ms, 1000, 1000 * ms},
		{3150 * ms, 300, 0},
		{3150 * ms, 10, 10 * ms},
	})
	want := []time.Duration{100 * ms, 50 * ms, 300 * ms, 300 * ms, 300 * ms, 100 * ms, 10 * ms}
	if len(c.sleeps) != len(want) {
		t.Fatalf("sleeps %v, want %v", c.sleeps, want)
	}
	for i := range want {
		if c.sleeps[i] != want[i] {
			t.Fatalf("sleeps %v, want %v", c.sleeps, want)
		}
	}
	if st := thr.Stats(); st.Sleeps != 7 || st.Bytes != 1760 {
		t.Fatalf("stats %+v", st)
	}
	if d := NewTokenBucket(1e6, 0, Clock{}); d.burst != 300_000 {
		t.Fatalf("default bucket of 1 MB/s: %d bytes, want 300 ms of bytes", d.burst)
	}
}

func TestNewThrottler(t *testing.T) {
	for kind, want := range map[string]string{"": ThrottlerKafka, "kafka": ThrottlerKafka, "token-bucket": ThrottlerTokenBucket} {
		thr, err := NewThrottler(kind, 1e6, Clock{})
		if err != nil || thr.Kind() != want {
			t.Fatalf("NewThrottler(%q): %v, %v", kind, thr, err)
		}
	}
	if _, err := NewThrottler("leaky", 1e6, Clock{}); err == nil || !strings.Contains(err.Error(), "leaky") {
		t.Fatalf("unknown kind: %v", err)
	}
	for _, r := range []float64{0, -1} {
		if _, err := NewThrottler("kafka", r, Clock{}); err == nil {
			t.Fatalf("rate %v accepted", r)
		}
	}
}
