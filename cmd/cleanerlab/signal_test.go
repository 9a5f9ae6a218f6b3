package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
)

// startChild starts this test binary as `cleanerlab args...` (TestMain
// runs the command line in childEnv) with its output in buf.
func startChild(t *testing.T, buf *bytes.Buffer, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	cmd.Stdout, cmd.Stderr = buf, buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// waitFor polls cond every 10 ms for up to 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// exitStatus is the child's exit status (-1 when a signal killed it).
func exitStatus(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if err == nil {
		return 0
	}
	if !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return ee.ExitCode()
}

// throttledRun is a run whose clean takes seconds (a 256 KiB/s throttle
// on a 1 MiB log), so a signal lands in the middle of it.
func throttledRun(out, data string, extra ...string) []string {
	return append([]string{"run", "--progress", "never", "--out", out, "--dir", data, "--keys", "20000", "--log-bytes", "1MiB",
		"--segment.bytes", "128KiB", "--cache", "warm", "--throttle", "256KiB", "--throttler", "token-bucket"}, extra...)
}

// TestSignalStopsRun: SIGTERM in the middle of run's clean stops it at a
// safe point: exit status 143, no record written, the temporary data
// directory removed; SIGINT with --keep: exit 130, no record, the data
// kept, and every partition opens read-write and verifies (the clean in
// progress was aborted at a read, leaving its group as it was).
func TestSignalStopsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	for _, c := range []struct {
		name string
		sig  syscall.Signal
		keep bool
		want int
	}{
		{"SIGTERM", syscall.SIGTERM, false, 143},
		{"SIGINT keep", syscall.SIGINT, true, 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, data := t.TempDir(), t.TempDir()
			var extra []string
			if c.keep {
				extra = []string{"--keep"}
			}
			var buf bytes.Buffer
			cmd := startChild(t, &buf, throttledRun(out, data, extra...)...)
			// The clean has begun once a .cleaned file exists (the first
			// group's output) or the map phase is under way: wait for the
			// generated log, then a little into the clean.
			waitFor(t, "the generated log", func() bool {
				m, _ := filepath.Glob(filepath.Join(data, "cleanerlab-*", "cleanerlab-0", "*.log"))
				return len(m) >= 8
			})
			time.Sleep(1500 * time.Millisecond)
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			status := exitStatus(t, cmd.Wait())
			if status != c.want {
				t.Fatalf("exit status %d, want %d\n%s", status, c.want, buf.String())
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v to stop", took)
			}
			if !strings.Contains(buf.String(), "stopped") || strings.Contains(buf.String(), "record:") {
				t.Errorf("output:\n%s", buf.String())
			}
			if recs, _ := filepath.Glob(filepath.Join(out, "*", "run.json")); len(recs) != 0 {
				t.Errorf("records written: %v", recs)
			}
			left, _ := filepath.Glob(filepath.Join(data, "cleanerlab-*"))
			if !c.keep {
				if len(left) != 0 {
					t.Errorf("data left behind: %v", left)
				}
				return
			}
			if len(left) != 1 {
				t.Fatalf("kept data %v", left)
			}
			parts, err := engine.PartitionDirs(nil, left[0])
			if err != nil || len(parts) != 1 {
				t.Fatalf("partitions %v %v", parts, err)
			}
			for _, p := range parts {
				dir := p
				if hasTempFiles(dir) {
					t.Errorf("%s holds temporary files after the stop", dir)
				}
				if stdout, err := cli(t, "verify", "--dir", dir); err != nil {
					t.Errorf("verify %s: %v\n%s", dir, err, stdout)
				}
			}
		})
	}
}

// TestSignalStopsSweep: SIGTERM during a sweep's first run: exit 143, the
// run in progress leaves no record and no data.
func TestSignalStopsSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	out, data := t.TempDir(), t.TempDir()
	var buf bytes.Buffer
	cmd := startChild(t, &buf, "sweep", "--progress", "never", "--out", out, "--dir", data, "--keys", "20000,30000", "--log-bytes", "1MiB",
		"--segment.bytes", "128KiB", "--cache", "warm", "--throttle", "256KiB", "--throttler", "token-bucket", "--count", "1")
	waitFor(t, "the first run's log", func() bool {
		m, _ := filepath.Glob(filepath.Join(data, "cleanerlab-*", "cleanerlab-0", "*.log"))
		return len(m) >= 8
	})
	time.Sleep(time.Second)
	cmd.Process.Signal(syscall.SIGTERM)
	if status := exitStatus(t, cmd.Wait()); status != 143 {
		t.Fatalf("exit status %d, want 143\n%s", status, buf.String())
	}
	if recs, _ := filepath.Glob(filepath.Join(out, "sweep-*", "runs", "*", "run.json")); len(recs) != 0 {
		t.Errorf("run records written: %v", recs)
	}
	if left, _ := filepath.Glob(filepath.Join(data, "cleanerlab-*")); len(left) != 0 {
		t.Errorf("data left behind: %v", left)
	}
}

// TestKeepUncleanedAndSignalStopsClean: run --keep=uncleaned keeps a copy
// of the generated log as it was before the clean (more bytes than the
// cleaned one, and the same partition); SIGTERM during `clean` of that
// copy stops it with exit 143 and the partition verifies.
func TestKeepUncleanedAndSignalStopsClean(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	out, data := t.TempDir(), t.TempDir()
	stdout, err := cli(t, "run", "--progress", "never", "--out", out, "--dir", data, "--keys", "20000", "--log-bytes", "1MiB",
		"--segment.bytes", "128KiB", "--cache", "warm", "--keep=uncleaned")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stdout)
	}
	cleaned, _ := filepath.Glob(filepath.Join(data, "cleanerlab-*[0-9]", "cleanerlab-0"))
	uncleaned, _ := filepath.Glob(filepath.Join(data, "cleanerlab-*-uncleaned", "cleanerlab-0"))
	if len(cleaned) != 1 || len(uncleaned) != 1 || !strings.Contains(stdout, "uncleaned data: ") {
		t.Fatalf("kept %v and %v\n%s", cleaned, uncleaned, stdout)
	}
	size := func(dir string) int64 {
		var n int64
		files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			n += st.Size()
		}
		return n
	}
	if a, b := size(uncleaned[0]), size(cleaned[0]); a < 1<<20 || b >= a {
		t.Errorf("uncleaned %d bytes, cleaned %d: want the uncleaned copy of ~1 MiB, larger", a, b)
	}

	var buf bytes.Buffer
	cmd := startChild(t, &buf, "clean", "--dir", uncleaned[0], "--force", "--throttle", "256KiB", "--throttler", "token-bucket", "--segment.bytes", "128KiB")
	time.Sleep(1500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	if status := exitStatus(t, cmd.Wait()); status != 143 {
		t.Fatalf("exit status %d, want 143\n%s", status, buf.String())
	}
	if hasTempFiles(uncleaned[0]) {
		t.Errorf("temporary files left in %s", uncleaned[0])
	}
	if stdout, err := cli(t, "verify", "--dir", uncleaned[0]); err != nil {
		t.Errorf("verify after the stop: %v\n%s", err, stdout)
	}
}

// TestSignalStopsGenerate: SIGINT in the middle of generate stops it at its
// next append: exit status 130, and the root it created is gone (no
// partial partition, no truth file).
func TestSignalStopsGenerate(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "gen")
	var buf bytes.Buffer
	cmd := startChild(t, &buf, "generate", "--dir", root, "--log-bytes", "8GiB", "--keys", "40000000", "--segment.bytes", "16MiB")
	waitFor(t, "the first segment", func() bool {
		_, err := os.Stat(filepath.Join(root, "cleanerlab-0", "00000000000000000000.log"))
		return err == nil
	})
	cmd.Process.Signal(syscall.SIGINT)
	if got := exitStatus(t, cmd.Wait()); got != 130 {
		t.Fatalf("generate exit status %d, want 130\n%s", got, buf.String())
	}
	if _, err := os.Stat(root); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("generate left %s behind (%v)\n%s", root, err, buf.String())
	}
	if _, err := os.Stat(root + "-truth.txt"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("generate left its truth file behind")
	}
}
