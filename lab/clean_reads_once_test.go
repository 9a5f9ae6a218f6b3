//go:build linux

package lab

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestCleanReadsTheServerConfigOnce: clean --server-config resolves the
// topic configs and the cleaner's log.cleaner.* settings from one reading
// of the file: the kernel's inotify counts the opens of server.properties
// while clean runs: one. It read it twice (Sources.LogConfigs, then
// Sources.Load).
func TestCleanReadsTheServerConfigOnce(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "t-0")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(root, "server.properties")
	if err := os.WriteFile(server, []byte("log.cleaner.dedupe.buffer.size=1048576\nlog.cleaner.threads=2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	if _, err := syscall.InotifyAddWatch(fd, server, syscall.IN_OPEN|syscall.IN_CLOSE); err != nil {
		t.Fatal(err)
	}
	o := CleanCommandOptions{Dir: dir}
	o.Cleaner = engine.DefaultCleanerConfig()
	o.Sources.ServerConfig = server
	var got engine.CleanerConfig
	o.Other = func(_ context.Context, _ io.Writer, _ string, co CleanOptions) error { got = co.Cleaner; return nil }
	if err := CleanCommand(context.Background(), o, io.Discard); err != nil {
		t.Fatal(err)
	}
	// The events are queued by open(2) and close(2) themselves, so all of
	// clean's are there; closes are watched too, since inotify merges an
	// event with the same one queued just before it (two opens in a row).
	opens := 0
	buf := make([]byte, 64*(syscall.SizeofInotifyEvent+syscall.NAME_MAX+1))
	for {
		n, err := syscall.Read(fd, buf)
		if err == syscall.EAGAIN || n <= 0 {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&syscall.IN_OPEN != 0 {
				opens++
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
		}
	}
	if opens != 1 {
		t.Errorf("server.properties opened %d times, want once", opens)
	}
	if got.DedupeBufferBytes != 1<<20 || got.Threads != 2 {
		t.Errorf("dedupe buffer %d B, %d threads; want the file's 1048576 B, 2", got.DedupeBufferBytes, got.Threads)
	}
}
