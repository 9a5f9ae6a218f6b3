package kafkajvm

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// generated is one generated partition of about 4 MiB in 128 KiB segments
// with its checkpoint at the dirty boundary, and its log config.
func generated(t *testing.T) (string, engine.LogConfig, *workloads.GroundTruth) {
	t.Helper()
	e := lab.DefaultExperiment()
	e.Workload.Keys, e.Workload.LogBytes = 20000, 4<<20
	e.Workload.SegmentBytes, e.Log.SegmentBytes = 128<<10, 128<<10
	res, err := workloads.GenerateContext(context.Background(), t.TempDir(), e.Workload, e.Log, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Dirs[0], e.Log, res.Truth[0]
}

// TestRecoverPartition: after Kafka's JVM died mid-clean, the partition's
// .cleaned files (output not swapped in) are deleted as Kafka's LogLoader
// deletes them at a broker's start, and the sentence says so; a partition
// without them is left alone, and the sentence says that.
func TestRecoverPartition(t *testing.T) {
	dir, log, truth := generated(t)
	if got := RecoverPartition(dir, log); !strings.Contains(got, "holds no .cleaned or .swap file") {
		t.Errorf("clean partition: %q", got)
	}
	for _, n := range []string{"00000000000000000000.log.cleaned", "00000000000000000000.index.cleaned", "00000000000000000000.timeindex.cleaned"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("half-written"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := RecoverPartition(dir, log)
	if !strings.Contains(got, "00000000000000000000.log.cleaned") || !strings.Contains(got, "recovered") {
		t.Errorf("sentence %q, want the files named and recovered", got)
	}
	if left := leftovers(dir); len(left) != 0 {
		t.Errorf("left: %v", left)
	}
	l, err := engine.Open(dir, engine.Options{Config: &log, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := truth.Verify(l, 0); err != nil {
		t.Errorf("after recovery: %v", err)
	}
}

// kafkaLibs is $CLEANERLAB_KAFKA_LIBS; the test skips without it or java.
func kafkaLibs(t *testing.T) string {
	t.Helper()
	libs := os.Getenv("CLEANERLAB_KAFKA_LIBS")
	if _, err := exec.LookPath("java"); err != nil || libs == "" {
		t.Skip("needs java and Kafka's classes: set CLEANERLAB_KAFKA_LIBS (scripts/build-kafka-classes.sh)")
	}
	return libs
}

// TestJVMOwnProcessGroup: the JVM leads a process group of its own, so a
// terminal's SIGINT (sent to the foreground group) does not kill it
// mid-clean; cleanerlab stops it at a safe point instead.
func TestJVMOwnProcessGroup(t *testing.T) {
	o := CleanOptions{Libs: kafkaLibs(t), Lab: lab.CleanOptions{Log: engine.DefaultLogConfig(), Cleaner: engine.DefaultCleanerConfig()}}
	j, err := start(io.Discard, &o)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	pg, err := syscall.Getpgid(j.Pid())
	if err != nil {
		t.Fatal(err)
	}
	if pg != j.Pid() || pg == syscall.Getpgrp() {
		t.Errorf("the JVM's process group %d, want its own (%d), not ours (%d)", pg, j.Pid(), syscall.Getpgrp())
	}
}

// TestCleanStopped: a clean whose context is cancelled as it is sent is
// either aborted by Kafka at a safe point (no .cleaned or .swap file left,
// the checkpoint unchanged) or, if Kafka had finished, reported cleaned
// with the checkpoint it advanced to; either way the error wraps
// lab.ErrStopped and says which, and the log holds its ground truth.
func TestCleanStopped(t *testing.T) {
	libs := kafkaLibs(t)
	dir, log, truth := generated(t)
	ckPath := filepath.Join(filepath.Dir(dir), "cleaner-offset-checkpoint")
	before, err := os.ReadFile(ckPath)
	if err != nil {
		t.Fatal(err)
	}
	o := CleanOptions{Libs: libs, Lab: lab.CleanOptions{Log: log, Cleaner: engine.DefaultCleanerConfig()}}
	j, err := start(io.Discard, &o)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, _, err := cleanInPlace(ctx, j, dir, time.Now().UnixMilli(), log)
	if !errors.Is(err, lab.ErrStopped) {
		t.Fatalf("err %v, want lab.ErrStopped", err)
	}
	after, _ := os.ReadFile(ckPath)
	switch {
	case r.Aborted:
		t.Logf("aborted: %v", err)
		if !strings.Contains(err.Error(), "aborted") || string(after) != string(before) {
			t.Errorf("aborted: %v; checkpoint %q, was %q", err, after, before)
		}
	case r.Cleaned:
		t.Logf("finished first: %v", err)
		if !strings.Contains(err.Error(), "checkpoint advanced") || string(after) == string(before) {
			t.Errorf("cleaned: %v; checkpoint %q, was %q", err, after, before)
		}
	default:
		t.Errorf("neither aborted nor cleaned: %+v, %v", r, err)
	}
	if left := leftovers(dir); len(left) != 0 {
		t.Errorf("Kafka's temporary files left: %v", left)
	}
	l, err := engine.Open(dir, engine.Options{Config: &log, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := truth.Verify(l, 0); err != nil {
		t.Errorf("after the stop: %v", err)
	}
	// The JVM still serves: the next clean runs in full.
	if _, _, err := cleanInPlace(context.Background(), j, dir, time.Now().UnixMilli(), log); err != nil {
		t.Errorf("the clean after the stop: %v", err)
	}
}

// TestStartErrorOnce: a JVM that fails to start (an option it refuses)
// gives its words once, in the error, not also on Stderr.
func TestStartErrorOnce(t *testing.T) {
	libs := kafkaLibs(t)
	var stderr strings.Builder
	_, err := Start(Options{Libs: libs, JavaOpts: []string{"-XX:+NoSuchCleanerlabOption"}, Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), "NoSuchCleanerlabOption") {
		t.Fatalf("err %v, want the JVM's words", err)
	}
	if strings.Contains(stderr.String(), "NoSuchCleanerlabOption") {
		t.Errorf("the JVM's words also went to Stderr:\n%s", stderr.String())
	}
}

// TestStoppedBeforeTheClean: a stop before or during the warm-up leaves
// the user's partition untouched and says so, wrapping lab.ErrStopped.
func TestStoppedBeforeTheClean(t *testing.T) {
	libs := kafkaLibs(t)
	dir, log, _ := generated(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := CleanPartition(ctx, io.Discard, dir, CleanOptions{Libs: libs, Warmup: 1, Lab: lab.CleanOptions{Log: log, Cleaner: engine.DefaultCleanerConfig()}})
	if !errors.Is(err, lab.ErrStopped) || !strings.Contains(err.Error(), "warm-up") || !strings.Contains(err.Error(), dir+" untouched") {
		t.Errorf("err %v, want a stop before the warm-up, %s untouched", err, dir)
	}
}
