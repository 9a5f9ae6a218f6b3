package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/iosched"
)

// TestRunIOFlags measures a baseline into --out, then runs a small clean
// with every I/O flag set, and checks that the record holds the
// configuration, the baseline, the efficiency and the I/O rows, and that
// the cache-friendly mode left none of the cleaned segments in the cache.
func TestRunIOFlags(t *testing.T) {
	out := t.TempDir()
	data := t.TempDir()
	// Skip only where the probe finds no O_DIRECT, and never under CI=true.
	if err := iosched.ProbeDirectIO(data); err != nil {
		if errors.Is(err, iosched.ErrDirectUnsupported) && os.Getenv("CI") != "true" {
			t.Skipf("the file system of %s has no O_DIRECT (probed): %v", data, err)
		}
		t.Fatalf("O_DIRECT probe of %s: %v", data, err)
	}
	stdout, err := cli(t, "baseline", "--dir", data, "--out", out, "--file-bytes", "4MiB", "--block-bytes", "1MiB", "--runs", "1", "--mem-bytes", "4MiB", "--drop-caches=false")
	if err != nil {
		t.Fatalf("baseline: %v\n%s", err, stdout)
	}
	if !strings.Contains(stdout, "device sequential read") || !strings.Contains(stdout, "baseline: "+out) {
		t.Fatalf("baseline output:\n%s", stdout)
	}
	stdout, err = cli(t, "run", "--progress", "never", "--out", out, "--dir", data,
		"--keys", "20000", "--log-bytes", "2MiB", "--segment.bytes", "256KiB", "--dirty-ratio", "0.6",
		"--hasher", "xxh3-128", "--io", "direct", "--fsync", "bytes=64KiB", "--throttle", "1GiB/s",
		"--throttler", "token-bucket", "--cache-friendly", "--hot-bytes", "1MiB")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stdout)
	}
	for _, want := range []string{"verification PASSED", "read path", "copy: from storage", "throttled I/O rate", "hot set resident after", "efficiency vs device read"} {
		if !strings.Contains(stdout, want) {
			t.Fatalf("run output lacks %q:\n%s", want, stdout)
		}
	}
	recs, _ := filepath.Glob(filepath.Join(out, "*", "run.json"))
	if len(recs) != 1 {
		t.Fatalf("records %v", recs)
	}
	b, err := os.ReadFile(recs[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Config struct {
			Cleaner struct {
				IOPath              string
				MaxIOBytesPerSecond float64
				Throttler           string
				CacheFriendly       bool
			} `json:"cleaner"`
			Fsync    string `json:"fsync"`
			HotBytes int64  `json:"hot_bytes"`
		} `json:"config"`
		Baseline *struct {
			DeviceReadBps float64 `json:"device_read_bps"`
		} `json:"baseline"`
		Efficiency *struct {
			OfDeviceRead float64 `json:"of_device_read"`
		} `json:"efficiency"`
		Stats []struct {
			IO struct {
				ReadPath    string `json:"read_path"`
				FsyncPolicy string `json:"fsync_policy"`
				Copy        struct {
					ReadBytes int64           `json:"read_bytes"`
					OS        json.RawMessage `json:"os"`
				} `json:"copy"`
			}
		} `json:"stats"`
		Rows []struct{ Name, Value string } `json:"rows"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	c := rec.Config
	if c.Cleaner.IOPath != "direct" || c.Cleaner.MaxIOBytesPerSecond != 1<<30 || c.Cleaner.Throttler != "token-bucket" || !c.Cleaner.CacheFriendly ||
		c.Fsync != "bytes=65536" || c.HotBytes != 1<<20 {
		t.Fatalf("config not recorded: %+v", c)
	}
	if rec.Baseline == nil || rec.Baseline.DeviceReadBps <= 0 || rec.Efficiency == nil || rec.Efficiency.OfDeviceRead <= 0 {
		t.Fatalf("baseline %+v, efficiency %+v", rec.Baseline, rec.Efficiency)
	}
	if len(rec.Stats) != 1 || rec.Stats[0].IO.ReadPath != "direct" || rec.Stats[0].IO.FsyncPolicy != "bytes=65536" ||
		rec.Stats[0].IO.Copy.ReadBytes == 0 || len(rec.Stats[0].IO.Copy.OS) == 0 {
		t.Fatalf("stats: %+v", rec.Stats)
	}
	rows := map[string]string{}
	for _, r := range rec.Rows {
		rows[r.Name] = r.Value
	}
	if rows["cleaned segments resident"] != "0.0" || rows["hot set resident before"] != "100.0" {
		t.Fatalf("residency rows: cleaned %q, hot before %q", rows["cleaned segments resident"], rows["hot set resident before"])
	}

	for _, bad := range [][]string{{"--io", "aio"}, {"--fsync", "bytes=0"}, {"--throttler", "leaky"}, {"--readahead", "lots"}} {
		args := append([]string{"run", "--progress", "never", "--out", out, "--dir", data}, bad...)
		if _, err := cli(t, args...); err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(bad[1], "bytes=")) {
			t.Errorf("run %v: %v", bad, err)
		}
	}
}
