package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// openDeletedIn lists this process's descriptors that point at deleted
// files under dir (/proc/self/fd links ending in " (deleted)").
func openDeletedIn(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err == nil && strings.HasPrefix(target, dir+"/") && strings.HasSuffix(target, " (deleted)") {
			out = append(out, target)
		}
	}
	return out
}

// TestDeletedSegmentsClosed: with file.delete.delay.ms 0 the clean's
// replaced segments are removed at once and their files closed on a
// goroutine of the log's (release); once WaitClosing (which Close calls)
// returns, no descriptor of the process points at a deleted file of the
// log, with sync-behind and without. The C13 layout's clean replaces the segments @0, @10 and @20.
func TestDeletedSegmentsClosed(t *testing.T) {
	for _, behind := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "closed-0")
		crashTestLog(t, dir)
		cfg := DefaultLogConfig()
		cfg.FileDeleteDelayMs = 0
		l, err := Open(dir, Options{Config: &cfg, Now: fixedClock(crashNowMs)})
		if err != nil {
			t.Fatal(err)
		}
		c := crashCleaner(t, behind)
		st, err := c.Clean(l, CleanOptions{Force: true})
		if err != nil || st.SegmentsCleaned != 3 {
			t.Fatalf("sync-behind %v: clean: %v, %+v", behind, err, st)
		}
		l.WaitClosing()
		if open := openDeletedIn(t, dir); len(open) > 0 {
			t.Errorf("sync-behind %v: after WaitClosing, descriptors of deleted files remain: %v", behind, open)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
		left, _ := filepath.Glob(filepath.Join(dir, "*.deleted"))
		if len(left) > 0 {
			t.Errorf("sync-behind %v: .deleted files left: %v", behind, left)
		}
	}
}
