package engine

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// slowFailingSyncFS is the OS file system whose files named failName fail
// Sync with EIO after a pause (a dying disk's slow fsync).
type slowFailingSyncFS struct {
	FS
	failName string
}

type slowFailingSyncFile struct{ File }

func (f slowFailingSyncFile) Sync() error {
	time.Sleep(100 * time.Millisecond)
	return &os.PathError{Op: "fsync", Path: f.Name(), Err: syscall.EIO}
}

func (s slowFailingSyncFS) Create(path string) (File, error) {
	f, err := s.FS.Create(path)
	if err == nil && filepath.Base(path) == s.failName {
		return slowFailingSyncFile{f}, nil
	}
	return f, err
}

// TestSyncBehindErrorWins: the first group's cleaned segment fails its
// fsync (EIO) while, with sync-behind, the second group is already being
// copied, and that copy is then aborted (CheckDone). The clean's error is
// the fsync's, as without sync-behind, where the fsync fails before the
// second group starts: an I/O error, which takes a root offline, not an
// abort. The C13 layout in two groups ({0, 10} then {20}); either way the
// log is left as it was.
func TestSyncBehindErrorWins(t *testing.T) {
	pristine := filepath.Join(t.TempDir(), "behind-0")
	sizes := crashTestLog(t, pristine)
	for _, behind := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "behind-0")
		copyDir(t, pristine, dir)
		cfg := DefaultLogConfig()
		cfg.SegmentBytes = sizes[0] + sizes[1]
		fsys := slowFailingSyncFS{FS: DefaultFS, failName: "00000000000000000000.log" + CleanedFileSuffix}
		l, err := Open(dir, Options{Config: &cfg, FS: fsys, Now: fixedClock(crashNowMs)})
		if err != nil {
			t.Fatal(err)
		}
		c := crashCleaner(t, behind)
		second := filepath.Join(dir, "00000000000000000020.log"+CleanedFileSuffix)
		_, err = c.Clean(l, CleanOptions{Force: true, CheckDone: func() error {
			if _, serr := os.Stat(second); serr == nil {
				return errors.New("test abort during the second group")
			}
			return nil
		}})
		if !errors.Is(err, syscall.EIO) || !isIOError(err) {
			t.Errorf("sync-behind %v: clean error %v, want the first group's fsync EIO, an I/O error", behind, err)
		}
		if err := l.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		_, got, _ := readPartition(t, dir)
		_, orig, _ := readPartition(t, pristine)
		compareRecords(t, "after the failed clean", orig, got)
	}
}
