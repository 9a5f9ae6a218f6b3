package steady

import (
	"testing"
	"time"
)

// TestSettingsDefaults: the steady command's settings parse their text
// and print back the defaults its help documents (100000 keys, 64 MiB
// segments, 1 MiB/s, a minute after 10 s of warm-up, Kafka's 15 s
// backoff and 5 min retention check).
func TestSettingsDefaults(t *testing.T) {
	for key, want := range map[string]string{
		"keys": "100000", "segment.bytes": "67108864", "write-rate": "1048576",
		"duration": "1m0s", "warmup": "10s", "sample-interval": "1s",
		"log.cleaner.backoff.ms": "15000", "log.retention.check.interval.ms": "300000",
		"fsync": "segment", "readers": "0", "per-partition": "false",
	} {
		s, ok := Settings.Lookup(key)
		if !ok {
			t.Errorf("%s: not a setting", key)
			continue
		}
		if got := Settings.Default(s); got != want {
			t.Errorf("%s: default %q, want %q", key, got, want)
		}
	}
	o := DefaultOptions()
	for key, value := range map[string]string{"duration": "90s", "write-rate": "2MiB/s", "fsync": "bytes=1MiB", "readers": "2"} {
		if err := Settings.Set(&o, key, value); err != nil {
			t.Fatalf("%s %s: %v", key, value, err)
		}
	}
	if o.Duration != 90*time.Second || o.WriteRateBytes != 2<<20 || o.CleanerOptions.FsyncPolicy != "bytes=1048576" || o.Readers != 2 {
		t.Errorf("set: duration %v, rate %v, fsync %q, readers %d", o.Duration, o.WriteRateBytes, o.CleanerOptions.FsyncPolicy, o.Readers)
	}
	if err := Settings.Set(&o, "duration", "1 minute"); err == nil {
		t.Error("duration \"1 minute\" taken")
	}
}
