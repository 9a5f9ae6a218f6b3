//go:build linux

package engine

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// lockHolderEnv, when set, makes the test binary a lock holder instead of
// running the tests: it locks the .lock of the root named by the variable
// ("flock:ROOT" or "fcntl:ROOT"), prints "locked", and holds the lock until
// its standard input closes. It is "another process" for TestRootLock.
const lockHolderEnv = "CLEANERLAB_ENGINE_TEST_HOLD_LOCK"

func TestMain(m *testing.M) {
	if v := os.Getenv(lockHolderEnv); v != "" {
		kind, root, _ := strings.Cut(v, ":")
		f, err := os.OpenFile(filepath.Join(root, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
		if err == nil {
			if kind == "fcntl" {
				// As a JVM's FileChannel.tryLock: a classic record lock.
				lk := unix.Flock_t{Type: unix.F_WRLCK}
				err = unix.FcntlFlock(f.Fd(), unix.F_SETLK, &lk)
			} else {
				err = unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
			}
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "lock holder:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdLock starts another process that locks root/.lock with flock
// (another cleanerlab) or with a classic fcntl record lock (a Kafka
// broker); release ends it.
func holdLock(t *testing.T, root string, fcntl bool) (release func()) {
	t.Helper()
	kind := "flock"
	if fcntl {
		kind = "fcntl"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lockHolderEnv+"="+kind+":"+root)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		stdin.Close()
		cmd.Wait()
		t.Fatalf("lock holder of %s: %q, %v", root, line, err)
	}
	return func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("lock holder: %v", err)
		}
	}
}

// lockIsFree reports whether another holder could lock root/.lock now (a
// flock on a descriptor of its own conflicts with the engine's, even in
// this process).
func lockIsFree(t *testing.T, root string) bool {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(root, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}

// TestRootLock: a read-write open takes the root's .lock and a second
// holder is refused with ErrLogDirLocked naming the directory; read-only
// opens and Verify take no lock; the lock goes with the last Log of the
// root; one partition opens read-write once per process.
func TestRootLock(t *testing.T) {
	cfg := DefaultLogConfig()
	for _, fcntl := range []bool{false, true} {
		name := "flock"
		if fcntl {
			name = "fcntl (a Kafka broker)"
		}
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "t-0")
			writeTestLog(t, dir, &cfg, [][]byte{testBatch(t, 0, 1, "k=v")})
			if !lockIsFree(t, root) {
				t.Fatal("the lock is still held after the log was closed")
			}
			release := holdLock(t, root, fcntl)
			before := hashTree(t, root)
			_, err := Open(dir, Options{Config: &cfg})
			if !errors.Is(err, ErrLogDirLocked) || !strings.Contains(err.Error(), root) || !strings.Contains(err.Error(), "another process") {
				t.Fatalf("open while another process holds the lock: %v, want ErrLogDirLocked naming %s", err, root)
			}
			logs, failed, err := OpenLogDir(root, Options{Config: &cfg})
			if !errors.Is(err, ErrLogDirLocked) || len(logs) != 0 || len(failed) != 0 {
				t.Fatalf("OpenLogDir while locked: %d logs, failed %v, err %v; want ErrLogDirLocked and nothing opened", len(logs), failed, err)
			}
			if d := diffHashes(before, hashTree(t, root)); d != "" {
				t.Errorf("refused opens changed files: %s", d)
			}
			if _, err := os.Stat(filepath.Join(root, CleanShutdownFile)); err != nil {
				t.Errorf("refused opens removed the clean-shutdown marker: %v", err)
			}
			ro, err := Open(dir, Options{Config: &cfg, ReadOnly: true})
			if err != nil {
				t.Fatalf("read-only open while locked: %v", err)
			}
			ro.Close()
			if _, err := Verify(dir, VerifyOptions{}); err != nil {
				t.Fatalf("verify while locked: %v", err)
			}
			if got := rootHolders(root); got != 0 {
				t.Errorf("refused opens left %d holders of the root", got)
			}
			release()

			l, err := Open(dir, Options{Config: &cfg})
			if err != nil {
				t.Fatal(err)
			}
			if lockIsFree(t, root) {
				t.Fatal("an open read-write log does not hold the lock")
			}
			if _, err := Open(dir, Options{Config: &cfg}); !errors.Is(err, ErrPartitionOpen) {
				t.Errorf("second read-write open of one partition in a process: %v, want ErrPartitionOpen", err)
			}
			// Another partition of the root shares the process's lock.
			l2, err := Open(filepath.Join(root, "u-0"), Options{Config: &cfg, Create: true})
			if err != nil {
				t.Fatalf("second partition of a locked root in the same process: %v", err)
			}
			if err := l.Close(); err != nil {
				t.Fatal(err)
			}
			if lockIsFree(t, root) {
				t.Fatal("the lock went before the root's last log closed")
			}
			if err := l2.Close(); err != nil {
				t.Fatal(err)
			}
			if !lockIsFree(t, root) {
				t.Fatal("the lock is held after the root's last log closed")
			}
			if got := rootHolders(root); got != 0 {
				t.Errorf("%d holders of the root after every log closed", got)
			}
		})
	}
}

// TestOpenEmptyDirLeavesRoot is item 5 of issue 11: opening an empty
// partition directory read-write without Create fails with ErrNotLogDir
// and changes nothing: the clean-shutdown marker stays, the root's open
// count is not raised (so the lock is free, and a later log of the root
// writes the marker back when it closes).
func TestOpenEmptyDirLeavesRoot(t *testing.T) {
	cfg := DefaultLogConfig()
	root := t.TempDir()
	good := filepath.Join(root, "good-0")
	writeTestLog(t, good, &cfg, [][]byte{testBatch(t, 0, 1, "k=v")})
	marker := filepath.Join(root, CleanShutdownFile)
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("no marker after a clean close: %v", err)
	}
	empty := filepath.Join(root, "empty-0")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(empty, Options{Config: &cfg}); !errors.Is(err, ErrNotLogDir) {
		t.Fatalf("open of an empty directory: %v, want ErrNotLogDir", err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the failed open removed the clean-shutdown marker: %v", err)
	}
	if got := rootHolders(root); got != 0 {
		t.Errorf("the failed open left the root's open count at %d", got)
	}
	if !lockIsFree(t, root) {
		t.Errorf("the failed open left the root locked")
	}
	// A log of the root opened and closed: the marker is written back, so
	// the next open is a clean one.
	l, err := Open(good, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Recovery().CleanShutdown {
		t.Errorf("open after the failed open: not a clean shutdown")
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("no marker after the last log of the root closed: %v", err)
	}
	l, err = Open(good, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	if !l.Recovery().CleanShutdown {
		t.Errorf("reopen: not a clean shutdown, every partition of the root would be recovered")
	}
	l.Close()
}

// TestFailedOpenLeavesRootUnclean: an open that fails after it began
// changing its partition (here: the clean-shutdown marker removed, then
// the active segment's index files cannot be made) leaves the root
// unclean, so the root's other log, closing cleanly, writes no marker.
func TestFailedOpenLeavesRootUnclean(t *testing.T) {
	cfg := DefaultLogConfig()
	root := t.TempDir()
	a, b := filepath.Join(root, "a-0"), filepath.Join(root, "b-0")
	writeTestLog(t, a, &cfg, [][]byte{testBatch(t, 0, 1, "k=v")})
	writeTestLog(t, b, &cfg, [][]byte{testBatch(t, 0, 1, "k=v")})
	la, err := Open(a, Options{Config: &cfg})
	if err != nil {
		t.Fatal(err)
	}
	// b's active segment's .index cannot be created: a directory of its name.
	idx := filepath.Join(b, segmentFileName(0, IndexFileSuffix))
	if err := os.Remove(idx); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(idx, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(b, Options{Config: &cfg}); err == nil {
		t.Fatal("open with an index path that is a directory succeeded")
	}
	if got := rootHolders(root); got != 1 {
		t.Errorf("%d holders of the root, want 1 (a-0)", got)
	}
	if err := la.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, CleanShutdownFile)); !os.IsNotExist(err) {
		t.Errorf("clean-shutdown marker written although b-0 failed to open after changing the root: %v", err)
	}
	if !lockIsFree(t, root) {
		t.Errorf("root still locked")
	}
}

// TestManagerRefusesReadOnlyLog: a read-only log holds no lock on its root,
// so the manager, which writes the root's checkpoint file, refuses it.
func TestManagerRefusesReadOnlyLog(t *testing.T) {
	cfg := DefaultLogConfig()
	dir := filepath.Join(t.TempDir(), "ro-0")
	writeTestLog(t, dir, &cfg, [][]byte{testBatch(t, 0, 1, "k=v")})
	l, err := Open(dir, Options{Config: &cfg, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m, err := NewCleanerManager(CleanerManagerOptions{Cleaner: testCleanerConfig()})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.AddLog(l); !errors.Is(err, ErrReadOnly) {
		t.Errorf("AddLog of a read-only log: %v, want ErrReadOnly", err)
	}
}
