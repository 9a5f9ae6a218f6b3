package engine

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/cleanerlab/cleanerlab/vfs"
)

// TestOpenOnMemFS: a log opens on an FS whose files have no descriptor
// (vfs.MemFS: no kernel lock to take), and this process's registry of
// roots still refuses a second open of the same partition.
func TestOpenOnMemFS(t *testing.T) {
	m := vfs.NewMemFS()
	dir := filepath.Join("/mem", "root", "t-0")
	l, err := Open(dir, Options{FS: m, Create: true})
	if err != nil {
		t.Fatalf("open on MemFS: %v", err)
	}
	if _, err := Open(dir, Options{FS: m, Create: true}); !errors.Is(err, ErrPartitionOpen) {
		t.Errorf("second open of %s: %v, want ErrPartitionOpen", dir, err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, err = Open(dir, Options{FS: m})
	if err != nil {
		t.Fatalf("reopen after close: %v", err)
	}
	l.Close()
}
