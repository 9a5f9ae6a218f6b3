package sizing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestSizingTakesOnlyTheZeroCleanerConfigForTheDefaults: plan's, the
// advisor's and the calibration's options take the zero cleaner config
// for engine.DefaultCleanerConfig(), as documented, and nothing else: a
// config that sets a 1 MiB bucket16 map but leaves Threads 0 was taken
// for the zero config, its settings dropped for Kafka's 128 MiB skimpy
// map (engine.NewCleanerManager did the same, and now refuses 0 threads).
// Plan and advise now refuse it, naming log.cleaner.threads; the
// calibration, which cleans with one thread whatever Threads says, keeps
// its map.
func TestSizingTakesOnlyTheZeroCleanerConfigForTheDefaults(t *testing.T) {
	cc := engine.CleanerConfig{DedupeBufferBytes: 1 << 20, OffsetMap: "bucket16", Hasher: "xxh3-128", LoadFactor: 0.9, IOBufferBytes: 512 << 10}
	const want = "log.cleaner.threads 0 must be at least 1"
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "t-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := MakePlan(t.Context(), root, Options{Cleaner: cc}); err == nil || !strings.Contains(err.Error(), want) {
		var threads int
		if p != nil {
			threads = p.Cleaner.Threads
		}
		t.Errorf("plan of a config of 0 threads: %d threads, error %v; want %q", threads, err, want)
	}
	if a, err := AdviseWorkload(KafkaWorkload(), AdviseOptions{Cleaner: cc}); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("advice for a config of 0 threads: %v, error %v; want %q", a != nil, err, want)
	}
	p, err := MakePlan(t.Context(), root, Options{})
	if err != nil || p.Cleaner.Threads != 1 || p.Cleaner.DedupeBufferBytes != 128<<20 {
		t.Errorf("plan of the zero config: %v; want Kafka's defaults (1 thread, 128 MiB)", err)
	}
	o := CalibrateOptions{Cleaner: cc, NoVerdict: true}
	o.defaults()
	if o.Cleaner.OffsetMap != "bucket16" || o.Cleaner.DedupeBufferBytes != 1<<20 {
		t.Errorf("calibration of a config of 0 threads: map %s of %d bytes; want the bucket16 map of 1 MiB given", o.Cleaner.OffsetMap, o.Cleaner.DedupeBufferBytes)
	}
}
