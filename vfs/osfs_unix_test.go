//go:build unix

package vfs

import (
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestOSFSCloseOnExec: every file the OS file system opens is closed on
// exec (FD_CLOEXEC), as os.OpenFile's are, so a child process does not
// inherit a segment's descriptor.
func TestOSFSCloseOnExec(t *testing.T) {
	var o OSFS
	p := filepath.Join(t.TempDir(), "a.log")
	opens := []struct {
		name string
		open func(string) (File, error)
	}{{"Create", o.Create}, {"Open", o.Open}, {"OpenAppend", o.OpenAppend}, {"OpenReadWrite", o.OpenReadWrite}}
	for _, c := range opens {
		f, err := c.open(p)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFD, 0)
		if err != nil {
			t.Fatal(err)
		}
		if flags&unix.FD_CLOEXEC == 0 {
			t.Errorf("%s: descriptor without FD_CLOEXEC", c.name)
		}
		f.Close()
	}
}
