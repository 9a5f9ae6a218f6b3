package lab

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/settings"
)

// TestThrottleWarningHandWorked: the prediction is --log-bytes /
// --throttle, worked by hand: 4 MiB = 4,194,304 bytes at 64 KiB/s =
// 65,536 bytes/s is 64 s, over the 60 s limit, so run warns, naming
// --throttle and the prediction as one; 3 MiB at 64 KiB/s is 48 s and
// 3,932,160 bytes (60 x 65,536) exactly 60 s, neither over it; 16 MiB at
// 1 KiB/s is 16,384 s. No throttle (0, the lab's default) predicts
// nothing.
func TestThrottleWarningHandWorked(t *testing.T) {
	for _, c := range []struct {
		logBytes int64
		rate     float64
		kind     iosched.ThrottlerKind
		secs     float64
		want     []string // "" when no warning
	}{
		// Kafka's throttler sleeps only at its checks and lets a clean's last
		// period through: the time is a bound, not a minimum (a 12 MiB clean
		// at 64 KiB/s, predicted 192 s, took 3.4 s), and the first check may
		// come at the first read (the period began when the cleaner was made).
		{4 << 20, 64 << 10, iosched.ThrottlerKafka, 64, []string{"--throttle 64.0 KiB/s", "clean time up to about 64 s", "a prediction, not a measurement", "--log-bytes 4.0 MiB / --throttle 64.0 KiB/s", "a stop (SIGINT) waits for", "only at its checks", "first read"}},
		{3 << 20, 64 << 10, iosched.ThrottlerKafka, 48, nil},
		{3932160, 64 << 10, iosched.ThrottlerKafka, 60, nil},
		{16 << 20, 1 << 10, iosched.ThrottlerTokenBucket, 16384, []string{"--throttle 1.0 KiB/s", "predicted minimum clean time 16384 s"}},
		{16 << 20, 0, iosched.ThrottlerKafka, 0, nil},
	} {
		e := DefaultExperiment()
		e.Workload.LogBytes, e.Cleaner.MaxIOBytesPerSecond, e.Cleaner.Throttler = c.logBytes, c.rate, c.kind
		if got := ThrottleMinSeconds(e); got != c.secs {
			t.Errorf("%d B at %v B/s: predicted %v s, want %v", c.logBytes, c.rate, got, c.secs)
		}
		w := ThrottleWarning(e)
		if (w != "") != (c.want != nil) {
			t.Errorf("%d B at %v B/s: warning %q, want one: %v", c.logBytes, c.rate, w, c.want != nil)
		}
		for _, s := range c.want {
			if !strings.Contains(w, s) {
				t.Errorf("%d B at %v B/s: warning %q does not say %q", c.logBytes, c.rate, w, s)
			}
		}
		if c.kind == iosched.ThrottlerKafka && strings.Contains(w, "minimum") {
			t.Errorf("Kafka's throttler: warning %q calls the time a minimum", w)
		}
		if c.kind == iosched.ThrottlerTokenBucket && strings.Contains(w, "Kafka's throttler") {
			t.Errorf("token bucket: warning %q speaks of Kafka's throttler", w)
		}
	}
}

// TestRunAndSweepWarnOfSlowThrottle: run prints the warning before
// anything runs (a bad progress mode stops it after the warnings), and a
// sweep names the points it is about: of --throttle 64KiB,1MiB over a
// 4 MiB log, only 64 KiB/s (64 s; 1 MiB/s is 4 s).
func TestRunAndSweepWarnOfSlowThrottle(t *testing.T) {
	flag := func(key, value string) settings.Given {
		return settings.Given{Key: key, Value: value, From: settings.FromFlag, Where: "--" + key}
	}
	var warnings bytes.Buffer
	o := DefaultRunCommandOptions()
	o.Given = []settings.Given{flag("keys", "1e5"), flag("log-bytes", "4MiB"), flag("throttle", "64KiB")}
	o.Warnings, o.ProgressMode = &warnings, "not-a-mode"
	err := RunCommand(context.Background(), o, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "not-a-mode") {
		t.Fatalf("%v, want the progress mode refused", err)
	}
	if !strings.Contains(warnings.String(), "warning: --throttle 64.0 KiB/s") || !strings.Contains(warnings.String(), "clean time up to about 64 s") {
		t.Errorf("run's warnings %q do not warn of the throttle", warnings.String())
	}

	base := DefaultExperiment()
	base.Workload.Keys, base.Workload.LogBytes = 100000, 4<<20
	plan, err := PlanSweep(base, nil, []Axis{{Name: "cleaner.MaxIOBytesPerSecond", Values: []string{"64KiB", "1MiB"}, Where: "--throttle"}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, w := range plan.Warnings {
		if strings.Contains(w, "clean time up to about") {
			n++
			if !strings.HasSuffix(w, "(point cleaner.MaxIOBytesPerSecond=64KiB)") || !strings.Contains(w, "64 s") {
				t.Errorf("sweep warning %q: want 64 s, about point cleaner.MaxIOBytesPerSecond=64KiB", w)
			}
		}
	}
	if n != 1 {
		t.Errorf("sweep warnings %q: want one throttle warning", plan.Warnings)
	}
}
