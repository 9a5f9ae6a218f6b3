package iosched

import (
	"errors"
	"strings"
	"testing"
)

// syncFailFile is a countingFile whose Sync fails.
type syncFailFile struct{ countingFile }

func (s *syncFailFile) Sync() error { s.syncs++; return errors.New("device gone") }

// TestFinishBehind: FinishBehind writes a file's bytes but does not sync
// it; the Writer goes on with a second file while the first one's
// PendingSync has not run; Run syncs the first file once (and the second
// file not at all), and its counts reach Stats only through AddSynced. A
// failing sync is an *IOError naming the file, counted as a sync.
func TestFinishBehind(t *testing.T) {
	w := NewWriter(16, FsyncSegment)
	w.SetWriteBehind(true)
	first, second := &countingFile{}, &countingFile{}
	w.Reset(first)
	for _, p := range pieces {
		if err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	pending, err := w.FinishBehind()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join(pieces, "")
	if first.buf.String() != want || first.syncs != 0 {
		t.Fatalf("after FinishBehind: %q, %d syncs; want all the bytes and no sync", first.buf.String(), first.syncs)
	}
	w.Reset(second)
	if err := w.Write([]byte("next file")); err != nil {
		t.Fatal(err)
	}
	r := pending.Run()
	if r.Err != nil || r.Syncs != 1 || first.syncs != 1 || second.syncs != 0 {
		t.Fatalf("Run: %+v; first file %d syncs, second %d", r, first.syncs, second.syncs)
	}
	if st := w.Stats(); st.Syncs != 0 {
		t.Fatalf("a PendingSync's sync counted before AddSynced: %+v", st)
	}
	w.AddSynced(r)
	if err := w.Finish(); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Syncs != 2 || st.Bytes != int64(len(want)+len("next file")) || second.buf.String() != "next file" || st.FinalSyncTime != st.SyncTime {
		t.Fatalf("stats %+v, second file %q", st, second.buf.String())
	}

	bad := &syncFailFile{}
	w.Reset(bad)
	if err := w.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	pending, err = w.FinishBehind()
	if err != nil {
		t.Fatal(err)
	}
	r = pending.Run()
	var ioe *IOError
	if !errors.As(r.Err, &ioe) || ioe.Op != "fsync" || ioe.Path != "counting.log" || r.Syncs != 1 {
		t.Fatalf("failing sync: %+v", r)
	}
	var zero PendingSync
	if r := zero.Run(); r != (SyncResult{}) {
		t.Fatalf("zero PendingSync did %+v", r)
	}
}
