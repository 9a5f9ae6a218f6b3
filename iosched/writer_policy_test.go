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
// calls each policy makes, in order, from the FS seam's operation log.
func TestFsyncPolicyCalls(t *testing.T) {
	const wr, wait = "flags=write", "flags=wait-before|write|wait-after"
	writes := []string{"write x.log len=4000", "write x.log len=4000", "write x.log len=2000"}
	cases := []struct {
		policy     string
		dropBehind bool
		want       []string
	}{
		{"none", false, writes},
		{"segment", false, append(writes[:3:3], "sync x.log")},
		{"fdatasync", false, append(writes[:3:3], "datasync x.log")},
		// bytes=N: write-back started once N bytes are written since the last start.
		{"bytes=6000", false, []string{writes[0], writes[1], "sync-range x.log off=0 len=8000 " + wr, writes[2], "datasync x.log"}},
		{"bytes=4000", false, []string{writes[0], "sync-range x.log off=0 len=4000 " + wr, writes[1], "sync-range x.log off=4000 len=4000 " + wr, writes[2], "datasync x.log"}},
		// Drop-behind: start each flush's write-back, wait for the previous one's.
		{"segment", true, []string{
			writes[0], "sync-range x.log off=0 len=4000 " + wr,
			writes[1], "sync-range x.log off=0 len=4000 " + wait, "sync-range x.log off=4000 len=4000 " + wr,
			writes[2], "sync-range x.log off=4000 len=4000 " + wait, "sync-range x.log off=8000 len=2000 " + wr,
			"sync x.log"}},
		{"none", true, []string{
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
			t.Errorf("%s (drop-behind %v): calls\n%s\nwant\n%s", c.policy, c.dropBehind, g, w)
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
