package main

import (
	"bufio"
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

// TestSteadySignal sends SIGINT and SIGTERM to a child running `steady`
// once it has printed samples of its window: the child must exit 130 or
// 143 well before its 60 s duration, having written its record, and leave
// logs that verify, closed cleanly (the clean-shutdown marker), with no
// open transaction.
func TestSteadySignal(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(tc.sig.String(), func(t *testing.T) {
			dir, out := t.TempDir(), t.TempDir()
			args := []string{"steady", "--dir", dir, "--keep", "--out", out, "--keys", "200", "--partitions", "2", "--segment.bytes", "8KiB",
				"--write-rate", "64KiB", "--log.cleaner.backoff.ms", "50", "--log.cleaner.dedupe.buffer.size", "1MiB", "--txn-ratio", "0.5",
				"--warmup", "200ms", "--duration", "60s", "--sample-interval", "100ms", "--file.delete.delay.ms", "0"}
			// The child runs the command line as main does (TestMain, childEnv).
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			sc := bufio.NewScanner(stderr)
			windows := 0
			for sc.Scan() && windows < 5 {
				if strings.Contains(sc.Text(), " window ") {
					windows++
				}
			}
			if windows < 5 {
				cmd.Wait()
				t.Fatalf("the child printed %d window samples before its output ended", windows)
			}
			cmd.Process.Signal(tc.sig)
			go func() {
				for sc.Scan() {
				}
			}()
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
				t.Fatalf("child exit: %v, want status %d", err, tc.code)
			}
			if el := time.Since(start); el > 30*time.Second {
				t.Errorf("the child took %v to stop", el)
			}
			roots, _ := filepath.Glob(filepath.Join(dir, "cleanerlab-*"))
			if len(roots) != 1 {
				t.Fatalf("log roots %v", roots)
			}
			if _, err := os.Stat(filepath.Join(roots[0], engine.CleanShutdownFile)); err != nil {
				t.Errorf("no clean-shutdown marker after %v: %v", tc.sig, err)
			}
			parts, _ := filepath.Glob(filepath.Join(roots[0], "cleanerlab-*"))
			if len(parts) != 2 {
				t.Fatalf("partitions %v", parts)
			}
			for _, p := range parts {
				if rep, err := engine.Verify(p, engine.VerifyOptions{}); err != nil {
					t.Errorf("%s: %v\n%v", p, err, rep)
				}
				l, err := engine.Open(p, engine.Options{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				if open, err := l.OpenTransactions(); err != nil || len(open) != 0 {
					t.Errorf("%s: open transactions %v (%v)", p, open, err)
				}
				l.Close()
			}
			recs, _ := filepath.Glob(filepath.Join(out, "*", "series.csv"))
			logs, _ := filepath.Glob(filepath.Join(out, "*", "log-cleaner.log"))
			if len(recs) != 1 || len(logs) != 1 {
				t.Fatalf("records %v, event logs %v", recs, logs)
			}
			b, _ := os.ReadFile(filepath.Join(filepath.Dir(recs[0]), "summary.md"))
			if !strings.Contains(string(b), "stopped early: signal: "+tc.sig.String()) {
				t.Errorf("summary.md does not say the run was stopped by %v:\n%s", tc.sig, b)
			}
		})
	}
}

// TestSteadyBadInput: bad flags are errors naming the flag, before any
// directory is made.
func TestSteadyBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--write-rate", "0"}, "--write-rate"},
		{[]string{"--duration", "0s"}, "--duration"},
		{[]string{"--sample-interval", "1ms"}, "--sample-interval"},
		{[]string{"--metrics-addr", "localhost:http"}, "--metrics-addr"},
		{[]string{"--from-advice", filepath.Join(dir, "missing.json")}, "--from-advice"},
		{[]string{"--segment.jitter.ms", "-1"}, "segment.jitter.ms"},
	} {
		_, err := cli(t, append([]string{"steady", "--dir", dir, "--out", dir}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one naming %s", tc.args, err, tc.want)
		}
	}
	if roots, _ := filepath.Glob(filepath.Join(dir, "cleanerlab-*")); len(roots) != 0 {
		t.Errorf("bad input left %v", roots)
	}
}

// TestSteadyNamesTheFlagAsTyped: a setting refused by validation is named
// by the flag the user typed, an alias (--threads) as itself, not by the
// setting's main flag (--log.cleaner.threads).
func TestSteadyNamesTheFlagAsTyped(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ flag, other string }{
		{"--threads", "--log.cleaner.threads"},
		{"--log.cleaner.threads", "--threads"},
	} {
		_, err := cli(t, "steady", "--dir", dir, "--out", dir, tc.flag, "0")
		if err == nil || !strings.Contains(err.Error(), "steady: "+tc.flag+": ") || strings.Contains(err.Error(), tc.other+":") {
			t.Errorf("%s 0: error %v, want one naming %s (not %s)", tc.flag, err, tc.flag, tc.other)
		}
	}
}

// TestCleanLogDirMetricsAddr: clean --dir LOGDIR --metrics-addr starts the
// endpoint before cleaning (a bad address is an error naming the flag, a
// good one is announced).
func TestCleanLogDirMetricsAddr(t *testing.T) {
	root := t.TempDir()
	l, err := engine.Open(filepath.Join(root, "t-0"), engine.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := cli(t, "clean", "--dir", root, "--metrics-addr", "localhost:http"); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("bad address: %v, want an error naming --metrics-addr", err)
	}
	out, err := cli(t, "clean", "--dir", root, "--metrics-addr", ":0")
	if err != nil || !strings.Contains(out, "serving Prometheus metrics at http://127.0.0.1:") {
		t.Errorf("clean --metrics-addr :0: %v\n%s", err, out)
	}
}

// TestSteadyNamesTheAdviceFileAsTheSource: a value steady takes from
// --from-advice that validation refuses is named by the file, its line
// and its key, not by the setting's flag (which was not given). Kafka's
// LogCleaner gives each thread at most Int.MaxValue bytes of dedupe
// buffer; the engine refuses more (engine.CleanerConfig.Validate), so
// 8 GiB on one thread is refused. A flag given over the advice is still
// named as the flag.
func TestSteadyNamesTheAdviceFileAsTheSource(t *testing.T) {
	dir := t.TempDir()
	advice := filepath.Join(t.TempDir(), "advice.json")
	if err := os.WriteFile(advice, []byte("{\n  \"threads\": 1,\n  \"dedupe_buffer_bytes\": 8589934592,\n  \"io_buffer_bytes\": 1048576\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := cli(t, "steady", "--dir", dir, "--out", dir, "--from-advice", advice)
	want := "steady: --from-advice " + advice + ":3: \"dedupe_buffer_bytes\": 8589934592 (log.cleaner.dedupe.buffer.size): "
	if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "--log.cleaner.dedupe.buffer.size") {
		t.Errorf("error %v, want one starting %q", err, want)
	}
	_, err = cli(t, "steady", "--dir", dir, "--out", dir, "--from-advice", advice, "--log.cleaner.dedupe.buffer.size", "4294967296")
	if err == nil || !strings.HasPrefix(err.Error(), "steady: --log.cleaner.dedupe.buffer.size: ") {
		t.Errorf("a flag over the advice: error %v, want one naming the flag", err)
	}
	if roots, _ := filepath.Glob(filepath.Join(dir, "cleanerlab-*")); len(roots) != 0 {
		t.Errorf("the refused run left %v", roots)
	}
}
