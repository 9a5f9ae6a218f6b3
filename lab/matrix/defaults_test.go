package matrix

import (
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestDefaultsKeepACleanerOfZeroThreads: Options' cleaner is
// engine.DefaultCleanerConfig() only when it is the zero config; a config
// that names a bucket16 map but leaves Threads 0 was taken for the zero
// config and its map dropped for Kafka's skimpy one (the trap
// engine.NewCleanerManager had).
func TestDefaultsKeepACleanerOfZeroThreads(t *testing.T) {
	o := Options{Cleaner: engine.CleanerConfig{OffsetMap: "bucket16", Hasher: "xxh3-128", DedupeBufferBytes: 1 << 20}}
	o.defaults()
	if o.Cleaner.OffsetMap != "bucket16" || o.Cleaner.DedupeBufferBytes != 1<<20 {
		t.Errorf("a config of 0 threads: map %s of %d bytes; want the bucket16 map of 1 MiB given", o.Cleaner.OffsetMap, o.Cleaner.DedupeBufferBytes)
	}
	var z Options
	z.defaults()
	if z.Cleaner != engine.DefaultCleanerConfig() {
		t.Errorf("the zero config: %+v; want engine.DefaultCleanerConfig()", z.Cleaner)
	}
}
