package iosched

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// requireDirectIO probes dir once for O_DIRECT and skips only when the probe
// found it absent (ErrDirectUnsupported), and never under CI=true, where
// the machine is known to have it; any other probe failure fails the test.
func requireDirectIO(t *testing.T, dir string) {
	t.Helper()
	err := ProbeDirectIO(dir)
	switch {
	case err == nil:
	case errors.Is(err, ErrDirectUnsupported) && os.Getenv("CI") != "true":
		t.Skipf("the file system of %s has no O_DIRECT (probed): %v", dir, err)
	default:
		t.Fatalf("O_DIRECT probe of %s: %v", dir, err)
	}
}

// TestProbeDirectIO: the probe leaves nothing behind, and a failure that is
// not the file system refusing O_DIRECT (here: no such directory) is not
// reported as ErrDirectUnsupported, so no test skips on it.
func TestProbeDirectIO(t *testing.T) {
	dir := t.TempDir()
	requireDirectIO(t, dir)
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("probe left %v in %s (%v)", ents, dir, err)
	}
	err := ProbeDirectIO(filepath.Join(dir, "absent"))
	if err == nil || errors.Is(err, ErrDirectUnsupported) {
		t.Fatalf("probe of a missing directory: %v, want an error that is not ErrDirectUnsupported", err)
	}
	if !errors.Is(directError("open O_DIRECT", "f", -1, unix.EINVAL), ErrDirectUnsupported) || errors.Is(directError("read O_DIRECT", "f", 0, unix.EIO), ErrDirectUnsupported) {
		t.Fatal("only EINVAL is the absence of O_DIRECT")
	}
}

// TestMeasureBaseline measures a small file: every figure is positive and
// is the median of its samples, the file was not resident before any read,
// the record says so, and the test file is gone afterwards. Any error fails
// the test once the probe found O_DIRECT.
func TestMeasureBaseline(t *testing.T) {
	dir := t.TempDir()
	requireDirectIO(t, dir)
	b, err := MeasureBaseline(BaselineOptions{Dir: dir, FileBytes: 4 << 20, BlockBytes: 1 << 20, Runs: 3, MemBytes: 4 << 20})
	if err != nil {
		t.Fatalf("O_DIRECT works in %s but the baseline failed: %v", dir, err)
	}
	for name, v := range map[string]struct {
		median  float64
		samples []float64
	}{"read": {b.DeviceReadBps, b.DeviceReadSamples}, "write": {b.DeviceWriteBps, b.DeviceWriteSamples}, "memcopy": {b.MemCopyBps, b.MemCopySamples}} {
		if len(v.samples) != 3 || v.median <= 0 || v.median != median(v.samples) {
			t.Fatalf("%s: median %v of %v", name, v.median, v.samples)
		}
	}
	if b.SchemaVersion != BaselineSchemaVersion || b.ResidentBeforeReadBytes != 0 || b.DropMethod != "fadvise DONTNEED" || b.ResidencyMethod == "" || b.FileBytes != 4<<20 {
		t.Fatalf("baseline record %+v", b)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("left in %s: %v (%v)", dir, ents, err)
	}
	if median([]float64{3, 1, 2}) != 2 || median([]float64{4, 1, 3, 2}) != 2.5 || median(nil) != 0 {
		t.Fatal("median")
	}
	if _, err := MeasureBaseline(BaselineOptions{Dir: dir, BlockBytes: 1000}); err == nil {
		t.Fatal("unaligned block size accepted")
	}
}

// TestBaselineRefusesCachedRead: when the test file is back in the page
// cache as the read is about to begin, after each drop (here another reader
// reads it through the cache in between), MeasureBaseline reports no
// figure: it fails with ErrBaselineCached, and removes the file.
func TestBaselineRefusesCachedRead(t *testing.T) {
	dir := t.TempDir()
	requireDirectIO(t, dir)
	const size = 4 << 20
	o := BaselineOptions{Dir: dir, FileBytes: size, BlockBytes: 1 << 20, Runs: 1, MemBytes: 1 << 20}
	reads := 0
	o.beforeCheck = func(path string) error {
		reads++
		data, err := os.ReadFile(path) // buffered: through the page cache
		if err == nil && len(data) != size {
			t.Errorf("read %d bytes of %d", len(data), size)
		}
		return err
	}
	b, err := MeasureBaseline(o)
	if !errors.Is(err, ErrBaselineCached) || b != nil {
		t.Fatalf("baseline of a cached file: %+v, %v; want no baseline and ErrBaselineCached", b, err)
	}
	if reads != 2 {
		t.Errorf("the file was dropped and checked %d times, want 2 (one retry)", reads)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("left in %s: %v (%v)", dir, ents, err)
	}
}

// TestMeasureBaselineStops: CheckDone's error (a signal's cancelled
// context) stops the measurement in the middle of a run: it is returned,
// no figure is, and the test file is removed. 256 blocks of 4 KiB are
// asked at blocks 0, 64, 128, ...: the third ask, in the first write,
// stops it.
func TestMeasureBaselineStops(t *testing.T) {
	dir := t.TempDir()
	requireDirectIO(t, dir)
	stop := errors.New("signal: interrupt")
	asked := 0
	b, err := MeasureBaseline(BaselineOptions{Dir: dir, FileBytes: 1 << 20, BlockBytes: 4096, Runs: 2, MemBytes: 1 << 20,
		CheckDone: func() error {
			if asked++; asked == 3 {
				return stop
			}
			return nil
		}})
	if !errors.Is(err, stop) || b != nil || asked != 3 {
		t.Fatalf("stopped at the 3rd ask: baseline %v, error %v, asked %d times", b, err, asked)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("left in %s: %v (%v)", dir, ents, err)
	}
}
