package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
)

// dirtyPartition writes a partition directory of three segments (the last
// active) of one-record batches over 4 keys, 8 batches a segment, and
// returns the log end offset.
func dirtyPartition(t *testing.T, dir string) record.Offset {
	t.Helper()
	l, err := engine.Open(dir, engine.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	off := int64(0)
	for s := range 3 {
		if s > 0 {
			if err := l.Roll(); err != nil {
				t.Fatal(err)
			}
		}
		for range 8 {
			if err := l.Append(batch(t, off, 1000+off, plain, fmt.Sprintf("k%d=v%d", off%4, off))); err != nil {
				t.Fatal(err)
			}
			off++
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return record.Offset(off)
}

// runChild runs a cleanerlab command line in a child process (this test
// binary, see TestMain) and returns its combined output and exit status.
func runChild(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("child %v: %v", args, err)
	return "", -1
}

// TestCleanRefusesLogDirInUse is item 1 of issue 11 with two processes and
// one partition: while this process holds the partition open read-write
// (and so its log directory's .lock), `cleanerlab clean` of the partition
// and of its log directory in a child process fail with an error naming
// the directory and saying another process uses it, and change nothing (no
// .cleaned or .swap file, every file as it was). Once this process closes
// the log, the same command cleans it, and verify says OK.
func TestCleanRefusesLogDirInUse(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "held-0")
	dirtyPartition(t, part)
	l, err := engine.Open(part, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	before := hashTree(t, root)
	for _, dir := range []string{part, root} {
		out, code := runChild(t, "clean", "--dir", dir, "--roll", "--force")
		if code == 0 || !strings.Contains(out, "another process") || !strings.Contains(out, root) {
			t.Errorf("clean --dir %s while another process holds the log directory: exit %d, want an error naming %s and another process:\n%s", dir, code, root, out)
		}
	}
	assertSameTree(t, root, before)
	if hasTempFiles(root) {
		t.Errorf("a refused clean left temporary files in %s", root)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if out, code := runChild(t, "clean", "--dir", part, "--roll", "--force"); code != 0 || !strings.Contains(out, "cleaned") {
		t.Fatalf("clean after the other process let go: exit %d\n%s", code, out)
	}
	if out, err := cli(t, "verify", "--dir", part); err != nil || !strings.Contains(out, "OK") {
		t.Errorf("verify after the clean: %v\n%s", err, out)
	}
}

// TestVerifyRecoveryPendingExit is item 2 of issue 11 at the command line:
// a leftover .swap file makes verify print RECOVERY PENDING lines naming
// the files and what a read-write open does, with no OK and exit status 3;
// a clean (a read-write open) recovers the log, and verify then says OK.
func TestVerifyRecoveryPendingExit(t *testing.T) {
	root := t.TempDir()
	part := filepath.Join(root, "pending-0")
	dirtyPartition(t, part)
	swap := filepath.Join(part, "00000000000000000016.log.swap")
	if err := os.WriteFile(swap, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := cli(t, "verify", "--dir", part)
	if err == nil || labcli.ExitStatus(err) != 3 || strings.Contains(out, "\nOK") ||
		!strings.Contains(out, "RECOVERY PENDING "+swap+": renamed to 00000000000000000016.log: completes the interrupted swap") {
		t.Fatalf("verify with a leftover .swap: %v, want exit 3 and a RECOVERY PENDING line for %s:\n%s", err, swap, out)
	}
	if out, code := runChild(t, "verify", "--dir", part); code != 3 {
		t.Errorf("verify in a child process: exit %d, want 3\n%s", code, out)
	}
	// The log directory: a healthy partition beside it changes nothing;
	// a corrupt one makes it exit 2.
	dirtyPartition(t, filepath.Join(root, "healthy-0"))
	if out, code := runChild(t, "verify", "--dir", root); code != 3 || !strings.Contains(out, "RECOVERY PENDING "+swap) {
		t.Errorf("verify of the log directory: exit %d, want 3 and the pending swap\n%s", code, out)
	}
	bad := filepath.Join(root, "bad-0")
	dirtyPartition(t, bad)
	data, err := os.ReadFile(filepath.Join(bad, "00000000000000000000.log"))
	if err != nil {
		t.Fatal(err)
	}
	data[record.BatchHeaderSize+2] ^= 0x5a
	if err := os.WriteFile(filepath.Join(bad, "00000000000000000000.log"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := runChild(t, "verify", "--dir", root); code != 2 {
		t.Errorf("verify of the log directory with a corrupt partition too: exit %d, want 2\n%s", code, out)
	}
	if err := os.RemoveAll(bad); err != nil {
		t.Fatal(err)
	}
	if out, err := cli(t, "clean", "--dir", part, "--force"); err != nil {
		t.Fatalf("clean: %v\n%s", err, out)
	}
	if out, err := cli(t, "verify", "--dir", part); err != nil || !strings.HasSuffix(out, "OK\n") {
		t.Errorf("verify after the recovery: %v\n%s", err, out)
	}
}

// TestCleanLogDirCorruptFirstPartition is item 4 of issue 11 at the
// command line: `clean --dir LOGDIR --threads 1` with a corrupt partition
// that sorts first (a record byte flipped: its CRC fails when the cleaner
// reads it) marks it uncleanable and still cleans the two others.
func TestCleanLogDirCorruptFirstPartition(t *testing.T) {
	root := t.TempDir()
	for _, name := range []string{"a-0", "b-0", "c-0"} {
		dirtyPartition(t, filepath.Join(root, name))
	}
	p := filepath.Join(root, "a-0", "00000000000000000000.log")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	data[record.BatchHeaderSize+2] ^= 0x5a // first batch, inside its records
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := cli(t, "clean", "--dir", root, "--threads", "1", "--force")
	if err == nil || !strings.Contains(err.Error(), "a-0: uncleanable") {
		t.Fatalf("clean --dir: %v, want a-0 uncleanable\n%s", err, out)
	}
	for _, want := range []string{"cleaned log b-0", "cleaned log c-0"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q: a healthy partition after the corrupt one was not cleaned\n%s", want, out)
		}
	}
	ckpt, err := engine.ReadCheckpoint(nil, filepath.Join(root, engine.CleanerCheckpointFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range []engine.TopicPartition{{Topic: "b", Partition: 0}, {Topic: "c", Partition: 0}} {
		// The two inactive segments [0, 16) are the cleanable range.
		if ckpt[tp] != 16 {
			t.Errorf("%s: checkpoint %d, want 16", tp, ckpt[tp])
		}
	}
}

// TestCleanWarnsOfCheckpointReset is the checkpoint part of item 10 of
// issue 11 at the command line: a cleaner-offset-checkpoint entry past the
// log end offset (24) is reset to the log start offset (0) with Kafka's
// warning printed as a WARN line, by clean of a partition and of a log
// directory, and the clean then starts at 0.
func TestCleanWarnsOfCheckpointReset(t *testing.T) {
	for _, logDir := range []bool{false, true} {
		root := t.TempDir()
		part := filepath.Join(root, "w-0")
		dirtyPartition(t, part)
		tp := engine.TopicPartition{Topic: "w", Partition: 0}
		if err := engine.WriteCheckpoint(nil, filepath.Join(root, engine.CleanerCheckpointFile), map[engine.TopicPartition]record.Offset{tp: 999}); err != nil {
			t.Fatal(err)
		}
		dir := part
		if logDir {
			dir = root
		}
		out, err := cli(t, "clean", "--dir", dir, "--force")
		if err != nil {
			t.Fatalf("clean --dir %s: %v\n%s", dir, err, out)
		}
		want := "WARN The last checkpoint dirty offset for partition w-0 is 999, which is larger than the log end offset 24. Resetting to the log start offset 0."
		if !strings.Contains(out, want) {
			t.Errorf("clean --dir %s: no line %q:\n%s", dir, want, out)
		}
		ckpt, err := engine.ReadCheckpoint(nil, filepath.Join(root, engine.CleanerCheckpointFile))
		if err != nil {
			t.Fatal(err)
		}
		if ckpt[tp] != 16 {
			t.Errorf("clean --dir %s: checkpoint %d after the clean from 0, want 16", dir, ckpt[tp])
		}
	}
}
