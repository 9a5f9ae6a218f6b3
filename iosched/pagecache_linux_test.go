package iosched

import (
	"os"
	"path/filepath"
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

func TestDropCachesGlobal(t *testing.T) {
	if os.Getenv("CLEANERLAB_TEST_DROP_CACHES") == "" {
		t.Skip("drops the whole machine's page cache; set CLEANERLAB_TEST_DROP_CACHES=1 to run")
	}
	if err := DropCachesGlobal(); err != nil {
		t.Logf("not permitted here (callers fall back to DropFileCache): %v", err)
	}
}
