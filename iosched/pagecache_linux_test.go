package iosched

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResidencyAndDropFileCache(t *testing.T) {
	const size = 8<<20 + 100 // not a whole number of pages
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	written, err := Residency(f, size)
	if err != nil {
		t.Fatal(err)
	}
	// Just written: the pages are in the cache (capped at the size, not page-rounded).
	if written < size/2 || written > size {
		t.Fatalf("resident after write: %d of %d bytes", written, size)
	}

	if err := DropFileCache(f); err != nil {
		t.Fatal(err)
	}
	dropped, err := Residency(f, size)
	if err != nil {
		t.Fatal(err)
	}
	if dropped > size/16 {
		t.Fatalf("resident after DropFileCache: %d of %d bytes (was %d)", dropped, size, written)
	}

	if err := WarmFile(f, make([]byte, 1<<16)); err != nil {
		t.Fatal(err)
	}
	warm, err := Residency(f, size)
	if err != nil {
		t.Fatal(err)
	}
	if warm != size {
		t.Fatalf("resident after WarmFile: %d of %d bytes", warm, size)
	}
	t.Logf("resident bytes: written %d, dropped %d, warmed %d of %d", written, dropped, warm, size)

	if n, err := Residency(f, 0); n != 0 || err != nil {
		t.Fatalf("Residency(size 0) = %d, %v", n, err)
	}
}

// TestDropCachesGlobal writes "3\n" (page cache, dentries and inodes) to
// the drop knob, here a file standing in for /proc/sys/vm/drop_caches, and
// returns an error wrapping the cause when it cannot (callers then fall
// back to DropFileCache).
func TestDropCachesGlobal(t *testing.T) {
	saved := dropCachesPath
	defer func() { dropCachesPath = saved }()
	dir := t.TempDir()
	dropCachesPath = filepath.Join(dir, "drop_caches")
	if err := os.WriteFile(dropCachesPath, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := DropCachesGlobal(); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(dropCachesPath); err != nil || string(got) != "3\n" {
		t.Fatalf("knob holds %q (%v), want \"3\\n\"", got, err)
	}
	dropCachesPath = filepath.Join(dir, "absent", "drop_caches")
	if err := DropCachesGlobal(); !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "drop caches") {
		t.Fatalf("missing knob: %v, want an error wrapping fs.ErrNotExist", err)
	}
}

// TestDropCachesGlobalDropsPages drops the machine's page cache for real and
// checks that a warm file left it. Set CLEANERLAB_TEST_DROP_CACHES=1 (as
// root, where /proc/sys is writable) to run it; it then fails if the drop
// is not permitted.
func TestDropCachesGlobalDropsPages(t *testing.T) {
	if os.Getenv("CLEANERLAB_TEST_DROP_CACHES") == "" {
		t.Skip("drops the whole machine's page cache; set CLEANERLAB_TEST_DROP_CACHES=1 to run")
	}
	const size = 8 << 20
	f, _ := tempFile(t, size)
	if err := WarmFile(f, nil); err != nil {
		t.Fatal(err)
	}
	if err := DropCachesGlobal(); err != nil {
		t.Fatalf("asked to drop the page cache but could not: %v", err)
	}
	res, err := Residency(f, size)
	if err != nil {
		t.Fatal(err)
	}
	if res > size/16 {
		t.Fatalf("%d of %d bytes still resident after drop_caches", res, size)
	}
}

// TestCachestatAgreesWithMincore: on a quiet file the two methods count the
// same resident bytes, and cachestat sees the dirty pages of a file just
// written and none once it is synced.
func TestCachestatAgreesWithMincore(t *testing.T) {
	const size = 4<<20 + 10
	f, _ := tempFile(t, size)
	w, err := os.OpenFile(f.Name(), os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.WriteAt(make([]byte, 1<<20), 0); err != nil { // 256 dirty pages
		t.Fatal(err)
	}
	cs, err := FileCacheState(f, size)
	if err != nil {
		t.Fatal(err)
	}
	if cs.Method != MethodCachestat {
		t.Skipf("cachestat(2) not available here (method %s)", cs.Method)
	}
	if cs.DirtyBytes < 1<<20 {
		t.Fatalf("dirty after a 1 MiB write: %+v", cs)
	}
	if err := DropFileCache(f); err != nil { // fdatasync, then drop
		t.Fatal(err)
	}
	if err := WarmFile(f, nil); err != nil {
		t.Fatal(err)
	}
	cs, err = FileCacheState(f, size)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := MincoreResidency(f, size)
	if err != nil {
		t.Fatal(err)
	}
	if cs.CachedBytes != size || mc != size || cs.DirtyBytes != 0 {
		t.Fatalf("warm file: cachestat %+v, mincore %d, want %d cached, 0 dirty", cs, mc, size)
	}
}

// TestDropBehind reads a warm file with each read path in the cache-friendly
// mode: the pread and mmap paths leave none of it in the page cache and say
// they dropped every byte; without the mode all of it stays.
func TestDropBehind(t *testing.T) {
	const size = 2<<20 + 100
	f, data := tempFile(t, size)
	if err := DropFileCache(f); err != nil { // clean pages: dirty ones cannot be dropped
		t.Fatal(err)
	}
	for _, p := range []ReadPath{ReadPread, ReadMmap} {
		for _, on := range []bool{false, true} {
			if err := WarmFile(f, nil); err != nil {
				t.Fatal(err)
			}
			r := newPath(t, p, 64<<10, 64<<10)
			r.SetDropBehind(on)
			got := readFrom(t, r, f, 0, size)
			r.Restore()
			if !bytes.Equal(got, data) {
				t.Fatalf("%s: bytes differ", p)
			}
			res, err := Residency(f, size)
			if err != nil {
				t.Fatal(err)
			}
			st := r.Stats()
			switch {
			case on && (res != 0 || st.DroppedBytes != size):
				t.Fatalf("%s drop-behind: %d bytes still cached, %d dropped of %d", p, res, st.DroppedBytes, size)
			case !on && (res != size || st.DroppedBytes != 0):
				t.Fatalf("%s: %d bytes cached, %d dropped, want all cached", p, res, st.DroppedBytes)
			}
		}
	}
}
