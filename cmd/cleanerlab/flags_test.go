package main

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestNegativeOffsetsRefused: a negative --high-watermark, --first-dirty-offset
// or --now-ms is refused naming the flag (issue 11.10: they silently meant
// "none"), for clean and retention alike.
func TestNegativeOffsetsRefused(t *testing.T) {
	for _, c := range [][]string{
		{"clean", "--dir", t.TempDir(), "--high-watermark", "-5"},
		{"clean", "--dir", t.TempDir(), "--first-dirty-offset", "-1"},
		{"clean", "--dir", t.TempDir(), "--now-ms", "-2"},
		{"retention", "--dir", t.TempDir(), "--high-watermark", "-1"},
	} {
		flag := c[3]
		_, err := cli(t, c...)
		if err == nil || !strings.Contains(err.Error(), `"`+flag+`"`) || !strings.Contains(err.Error(), "is negative") {
			t.Errorf("%v: %v, want an error naming %s", c, err, flag)
		}
	}
}

// TestFlagSuggestions: a mistyped flag of any command is answered with the
// closest flag.
func TestFlagSuggestions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--kyes", "5"}, `unknown flag: --kyes; did you mean "keys"?`},
		{[]string{"sweep", "--hashr", "md5"}, `did you mean "hasher"?`},
		{[]string{"clean", "--high-watermak", "5"}, `did you mean "high-watermark"?`},
	} {
		_, err := cli(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestOneSizeAndCountParser: byte flags of every command take 1e6 and
// 64MiB, count flags 1e6; a fraction of a byte is refused.
func TestOneSizeAndCountParser(t *testing.T) {
	for _, args := range [][]string{
		{"sweep", "--dry-run", "--keys", "2e4", "--log-bytes", "1e6", "--segment.bytes", "256KiB", "--records-per-batch", "1e1"},
		{"sweep", "--dry-run", "--keys", "2e4", "--log-bytes", "1MiB", "--value-bytes", "1e2", "--log.cleaner.dedupe.buffer.size", "1.5e7"},
	} {
		if out, err := cli(t, args...); err != nil || !strings.Contains(out, "1 points x 3 repetitions") {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	if _, err := cli(t, "run", "--log-bytes", "1.5"); err == nil || !strings.Contains(err.Error(), "not a whole number of bytes") {
		t.Errorf("--log-bytes 1.5: %v", err)
	}
	if _, err := cli(t, "hashers", "--keys", "1e7"); err != nil {
		t.Errorf("hashers --keys 1e7: %v", err)
	}
}

// TestSweepRecordsAnInvalidPoint: a point that is no valid experiment
// (10 keys cannot reach dirty ratio 0.5 in 1 MiB) is recorded as failed
// with its reason, and the sweep runs the other point and goes on.
func TestSweepRecordsAnInvalidPoint(t *testing.T) {
	out := t.TempDir()
	stdout, err := cli(t, "sweep", "--progress", "never", "--out", out, "--dir", t.TempDir(), "--keys", "10,2e4", "--log-bytes", "1MiB",
		"--segment.bytes", "256KiB", "--cache", "warm", "--count", "1")
	if err == nil || !strings.Contains(err.Error(), "1 of 2 runs failed") {
		t.Fatalf("sweep: %v\n%s", err, stdout)
	}
	dirs, _ := filepath.Glob(filepath.Join(out, "sweep-*"))
	if len(dirs) != 1 {
		t.Fatalf("sweep dirs %v", dirs)
	}
	sw, err := results.ReadSweep(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	bad, good := sw.Points[0], sw.Points[1]
	if len(bad.Runs) != 1 || !strings.Contains(bad.Runs[0].Error, "dirty ratio 0.5 is unreachable") {
		t.Errorf("invalid point's runs %+v", bad.Runs)
	}
	if len(good.Runs) != 1 || good.Runs[0].Error != "" || good.Runs[0].Verified == nil || !*good.Runs[0].Verified {
		t.Errorf("valid point's runs %+v", good.Runs)
	}
	if !strings.Contains(stdout, "keys=10") || !strings.Contains(stdout, "n/a") {
		t.Errorf("table:\n%s", stdout)
	}
}

// TestFlagPath: each run flag maps to the Experiment field it sets, the
// field path experiment files use; a flag of two fields maps to none.
func TestFlagPath(t *testing.T) {
	for flag, want := range map[string]string{
		"keys": "workload.Keys", "hasher": "cleaner.Hasher", "segment.bytes": "log.SegmentBytes", "compression": "workload.Codec",
		"cache": "cache", "txn-ratio": "workload.Txn.Ratio", "value-size": "workload.ValueSize", "throttle": "cleaner.MaxIOBytesPerSecond",
		"records-per-batch": "workload.RecordsPerBatch", "seed": "workload.Seed", "fsync": "fsync", "hot-bytes": "hot_bytes",
		"writeback-bytes": "cleaner.WritebackBytes", "cleanup.policy": "", "no-such-flag": "",
	} {
		if got := lab.RunFlagPath(flag); got != want {
			t.Errorf("lab.RunFlagPath(%q) = %q, want %q", flag, got, want)
		}
	}
}

// TestCleanedIndexFlagNamed: an unknown --cleaned-index is refused at the
// flag, by name, before any data is generated, for every command that
// takes it.
func TestCleanedIndexFlagNamed(t *testing.T) {
	for _, c := range [][]string{
		{"run", "--log-bytes", "1MiB", "--dir", t.TempDir(), "--cleaned-index", "per-foo"},
		{"clean", "--dir", t.TempDir(), "--cleaned-index", "per-foo"},
	} {
		_, err := cli(t, c...)
		if err == nil || !strings.Contains(err.Error(), "--cleaned-index") || !strings.Contains(err.Error(), "per-append, per-batch") {
			t.Errorf("%v: %v, want an error naming --cleaned-index and its values", c, err)
		}
	}
}

// TestProfileAfterFlagsWarns: a --profile after a flag of a setting it
// sets warns on stderr, naming both flags (run, clean, steady); the
// command goes on (here to its own error: clean without --dir).
func TestProfileAfterFlagsWarns(t *testing.T) {
	for _, args := range [][]string{
		{"clean", "--look-ahead", "--profile", "kafka"},
		{"run", "--look-ahead", "--profile", "kafka", "--progress", "not-a-mode"},
		{"steady", "--look-ahead", "--profile", "kafka", "--write-rate", "0"},
	} {
		var stderr bytes.Buffer
		root := newRootCmd()
		root.SetOut(io.Discard)
		root.SetErr(&stderr)
		root.SetArgs(args)
		root.Execute()
		if !strings.Contains(stderr.String(), "warning: --profile kafka after --look-ahead sets look-ahead to false") {
			t.Errorf("%v: stderr %q, want the warning naming --profile kafka and --look-ahead", args, stderr.String())
		}
	}
}
