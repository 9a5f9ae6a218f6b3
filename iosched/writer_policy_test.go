package iosched_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
)

// TestFsyncPolicyCalls writes 10 pieces of 1,000 bytes through a Writer
// with a 4,096-byte buffer to a file of a LoggingFS, so the file sees three
// writes (4,000, 4,000 and, in Finish, 2,000 bytes), and checks the sync
// calls each policy makes, in order, from the FS seam's operation log,
// with and without early write-back (SetWritebackBytes) and drop-behind.
func TestFsyncPolicyCalls(t *testing.T) {
	const wr, wait = "flags=write", "flags=wait-before|write|wait-after"
	writes := []string{"write x.log len=4000", "write x.log len=4000", "write x.log len=2000"}
	cases := []struct {
		policy     string
		writeback  int64
		dropBehind bool
		want       []string
	}{
		{"none", 0, false, writes},
		{"segment", 0, false, append(writes[:3:3], "sync x.log")},
		{"fdatasync", 0, false, append(writes[:3:3], "datasync x.log")},
		// bytes=N: write-back started once N bytes are written since the last start.
		{"bytes=6000", 0, false, []string{writes[0], writes[1], "sync-range x.log off=0 len=8000 " + wr, writes[2], "datasync x.log"}},
		{"bytes=4000", 0, false, []string{writes[0], "sync-range x.log off=0 len=4000 " + wr, writes[1], "sync-range x.log off=4000 len=4000 " + wr, writes[2], "datasync x.log"}},
		// Early write-back: bytes=N's starts, then the policy's own sync
		// of the whole file; the last 2,000 bytes are under N, so
		// Finish's sync alone writes them.
		{"segment", 4000, false, []string{writes[0], "sync-range x.log off=0 len=4000 " + wr, writes[1], "sync-range x.log off=4000 len=4000 " + wr, writes[2], "sync x.log"}},
		{"segment", 6000, false, []string{writes[0], writes[1], "sync-range x.log off=0 len=8000 " + wr, writes[2], "sync x.log"}},
		{"fdatasync", 4000, false, []string{writes[0], "sync-range x.log off=0 len=4000 " + wr, writes[1], "sync-range x.log off=4000 len=4000 " + wr, writes[2], "datasync x.log"}},
		// ... ignored under none (which measures not syncing), and under
		// bytes=N, whose N applies.
		{"none", 4000, false, writes},
		{"bytes=6000", 4000, false, []string{writes[0], writes[1], "sync-range x.log off=0 len=8000 " + wr, writes[2], "datasync x.log"}},
		// Drop-behind: start each flush's write-back, wait for the previous one's.
		{"segment", 0, true, []string{
			writes[0], "sync-range x.log off=0 len=4000 " + wr,
			writes[1], "sync-range x.log off=0 len=4000 " + wait, "sync-range x.log off=4000 len=4000 " + wr,
			writes[2], "sync-range x.log off=4000 len=4000 " + wait, "sync-range x.log off=8000 len=2000 " + wr,
			"sync x.log"}},
		// Both: each early start precedes drop-behind's start of the same
		// flush (redundant, and harmless).
		{"segment", 8000, true, []string{
			writes[0], "sync-range x.log off=0 len=4000 " + wr,
			writes[1], "sync-range x.log off=0 len=8000 " + wr, "sync-range x.log off=0 len=4000 " + wait, "sync-range x.log off=4000 len=4000 " + wr,
			writes[2], "sync-range x.log off=4000 len=4000 " + wait, "sync-range x.log off=8000 len=2000 " + wr,
			"sync x.log"}},
		{"none", 0, true, []string{
			writes[0], "sync-range x.log off=0 len=4000 " + wr,
			writes[1], "sync-range x.log off=0 len=4000 " + wait, "sync-range x.log off=4000 len=4000 " + wr,
			writes[2], "sync-range x.log off=4000 len=4000 " + wait, "sync-range x.log off=8000 len=2000 " + wr,
			"sync-range x.log off=8000 len=2000 " + wait}},
	}
	for _, c := range cases {
		policy, err := iosched.ParseFsyncPolicy(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		lfs := vfstest.NewLoggingFS(nil, nil)
		path := filepath.Join(t.TempDir(), "x.log")
		f, err := lfs.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := iosched.NewWriter(4096, policy)
		w.SetDropBehind(c.dropBehind)
		w.SetWritebackBytes(c.writeback)
		w.Reset(f)
		var want bytes.Buffer
		for i := range 10 {
			p := bytes.Repeat([]byte{byte('a' + i)}, 1000)
			want.Write(p)
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(); err != nil {
			t.Fatalf("%s: %v", c.policy, err)
		}
		got := lfs.Ops(func(o vfstest.Op) bool {
			switch o.Kind {
			case vfstest.OpWrite, vfstest.OpSync, vfstest.OpDatasync, vfstest.OpSyncRange:
				return true
			}
			return false
		})
		if g, w := strings.TrimSpace(vfstest.Ops(got)), strings.Join(c.want, "\n"); g != w {
			t.Errorf("%s (write-back every %d, drop-behind %v): calls\n%s\nwant\n%s", c.policy, c.writeback, c.dropBehind, g, w)
		}
		if c.dropBehind {
			if st := w.Stats(); st.DroppedBytes != 10000 {
				t.Errorf("%s drop-behind: dropped %d bytes, want 10000", c.policy, st.DroppedBytes)
			}
			if res, err := iosched.Residency(f, 10000); err != nil || res != 0 {
				t.Errorf("%s drop-behind: %d bytes still cached (%v)", c.policy, res, err)
			}
		}
		f.Close()
		if data, err := os.ReadFile(path); err != nil || !bytes.Equal(data, want.Bytes()) {
			t.Errorf("%s: file holds %d bytes, want the 10000 written (%v)", c.policy, len(data), err)
		}
	}
}

func TestParseFsyncPolicyForms(t *testing.T) {
	for in, want := range map[string]iosched.FsyncPolicy{
		"": "segment", "segment": "segment", "none": "none", "fdatasync": "fdatasync",
		"bytes=4096": "bytes=4096", "bytes=8MiB": "bytes=8388608", "bytes=1KiB": "bytes=1024",
	} {
		got, err := iosched.ParseFsyncPolicy(in)
		if err != nil || got != want {
			t.Errorf("ParseFsyncPolicy(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"bytes=0", "bytes=", "bytes=-5", "bytes=1TB", "always", "Segment"} {
		if _, err := iosched.ParseFsyncPolicy(bad); err == nil {
			t.Errorf("ParseFsyncPolicy(%q) succeeded", bad)
		}
	}
	if p := iosched.FsyncBytes(1 << 20); p.RangeBytes() != 1<<20 || !p.SyncsDir() || iosched.FsyncNone.SyncsDir() || iosched.FsyncSegment.RangeBytes() != 0 {
		t.Errorf("policy methods: %q RangeBytes %d", p, p.RangeBytes())
	}
}

// TestWritebackBytesRealFile writes 1 MiB in 1,024-byte pieces through a
// 4,096-byte buffer (256 write(2) calls of 4,096 bytes, the last in Finish)
// to a real file with write-back started every 40,000 bytes: every 10
// writes (40,960 bytes) one sync_file_range, 25 in all, and the policy's
// one fsync or fdatasync in Finish; with write-behind the same.
func TestWritebackBytesRealFile(t *testing.T) {
	const pieces, pieceBytes, every = 1024, 1024, 40000
	for _, c := range []struct {
		policy                  iosched.FsyncPolicy
		behind                  bool
		wantSyncs, wantDatasync int64
	}{
		{iosched.FsyncSegment, false, 1, 0},
		{iosched.FsyncSegment, true, 1, 0},
		{iosched.FsyncFdatasync, false, 0, 1},
		{iosched.FsyncFdatasync, true, 0, 1},
	} {
		path := filepath.Join(t.TempDir(), "00000000000000000000.log")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := iosched.NewWriter(4096, c.policy)
		w.SetWriteBehind(c.behind)
		w.SetWritebackBytes(every)
		if got := w.WritebackBytes(); got != every {
			t.Errorf("%s: WritebackBytes() = %d, want %d", c.policy, got, every)
		}
		w.Reset(f)
		var want []byte
		for i := range pieces {
			p := bytes.Repeat([]byte{byte(i)}, pieceBytes)
			want = append(want, p...)
			if err := w.Write(p); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(); err != nil {
			t.Fatalf("%s write-behind %v: %v", c.policy, c.behind, err)
		}
		f.Close()
		st := w.Stats()
		if st.Writes != 256 || st.Bytes != pieces*pieceBytes || st.RangeSyncs != 25 || st.Syncs != c.wantSyncs || st.Datasyncs != c.wantDatasync {
			t.Errorf("%s write-behind %v: %d writes of %d bytes, %d range syncs, %d fsyncs, %d fdatasyncs; want 256 of %d, 25, %d, %d",
				c.policy, c.behind, st.Writes, st.Bytes, st.RangeSyncs, st.Syncs, st.Datasyncs, pieces*pieceBytes, c.wantSyncs, c.wantDatasync)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s write-behind %v: file holds %d bytes (%v), want the %d written", c.policy, c.behind, len(got), err, len(want))
		}
		// The final sync's time is apart from the 25 starts': part of
		// SyncTime, not all of it, and not nothing (a real file's sync).
		if st.FinalSyncTime <= 0 || st.FinalSyncTime >= st.SyncTime {
			t.Errorf("%s write-behind %v: final sync %v of %v in syncs", c.policy, c.behind, st.FinalSyncTime, st.SyncTime)
		}
	}
}

// TestWritebackBytesOff: 0 (the default) and negative values start no
// write-back, and the policies that ignore the setting report 0.
func TestWritebackBytesOff(t *testing.T) {
	for _, n := range []int64{0, -1} {
		w := iosched.NewWriter(16, iosched.FsyncSegment)
		w.SetWritebackBytes(n)
		if got := w.WritebackBytes(); got != 0 {
			t.Errorf("SetWritebackBytes(%d): WritebackBytes() = %d, want 0", n, got)
		}
		path := filepath.Join(t.TempDir(), "x.log")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w.Reset(f)
		for range 10 {
			if err := w.Write([]byte("0123456789")); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Finish(); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if st := w.Stats(); st.RangeSyncs != 0 || st.Syncs != 1 {
			t.Errorf("SetWritebackBytes(%d): %d range syncs, %d fsyncs; want 0 and 1", n, st.RangeSyncs, st.Syncs)
		}
	}
	for _, p := range []iosched.FsyncPolicy{iosched.FsyncNone, iosched.FsyncBytes(4096)} {
		w := iosched.NewWriter(16, p)
		w.SetWritebackBytes(1 << 20)
		if got := w.WritebackBytes(); got != 0 {
			t.Errorf("%s: WritebackBytes() = %d, want 0 (the policy ignores it)", p, got)
		}
	}
}
