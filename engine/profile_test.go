package engine

import (
	"strings"
	"testing"
)

// TestApplyProfile: each profile sets exactly its fields, from the spec in
// ProfileKafka and ProfileBest, and leaves sizes and the rest alone.
func TestApplyProfile(t *testing.T) {
	cfg := DefaultCleanerConfig()
	cfg.DedupeBufferBytes, cfg.IOBufferBytes, cfg.IOPath, cfg.Readahead = 64<<20, 1<<20, "direct", "willneed"
	cfg.ParallelRecompress = true
	if err := cfg.ApplyProfile(ProfileBest); err != nil {
		t.Fatal(err)
	}
	if cfg.Hasher != "xxh3-128" || cfg.OffsetMap != "bucket16" || !cfg.WriteBehind || cfg.LookAhead || cfg.IOPath != "pread" || cfg.Readahead != "none" ||
		cfg.ReadaheadBytes != 32<<20 || !cfg.SkipDirtyLookups {
		t.Errorf("best: hasher %s map %s write-behind %v look-ahead %v io %s readahead %s readahead bytes %d skip-dirty-lookups %v",
			cfg.Hasher, cfg.OffsetMap, cfg.WriteBehind, cfg.LookAhead, cfg.IOPath, cfg.Readahead, cfg.ReadaheadBytes, cfg.SkipDirtyLookups)
	}
	if !cfg.SkipDirtyLookups || !cfg.SyncBehind || !cfg.ParallelMapBuild || !cfg.ParallelCopy || !cfg.VerifyCRCOnce {
		t.Errorf("best: skip-dirty-lookups %v sync-behind %v parallel-map-build %v parallel-copy %v verify-crc-once %v, want all on",
			cfg.SkipDirtyLookups, cfg.SyncBehind, cfg.ParallelMapBuild, cfg.ParallelCopy, cfg.VerifyCRCOnce)
	}
	if !cfg.MapHugePages {
		t.Error("best: map-huge-pages off, want on (measured less CPU per byte with the map in huge pages)")
	}
	if !cfg.KeyScan {
		t.Error("best: key-scan off, want on")
	}
	if cfg.ParallelLookups {
		t.Error("best: parallel-lookups on, want off (ParallelCopy uses the second core without reading every segment twice)")
	}
	if cfg.ParallelRecompress {
		t.Error("best: parallel recompression on; want off (measured slower on the lab's machine)")
	}
	if cfg.WriteDirectBytes != 1<<20 || cfg.WriteDirectMinRecordBytes != 256 {
		t.Errorf("best: O_DIRECT writes of %d bytes from a mean record of %d bytes; want 1 MiB from 256 bytes", cfg.WriteDirectBytes, cfg.WriteDirectMinRecordBytes)
	}
	if cfg.WriteDirectMinCleanBytes != BestWriteDirectMinCleanBytes {
		t.Errorf("best: O_DIRECT from cleans of %d bytes, want BestWriteDirectMinCleanBytes (%d)", cfg.WriteDirectMinCleanBytes, BestWriteDirectMinCleanBytes)
	}
	if cfg.WritebackBytes != BestWritebackBytes || BestWritebackBytes <= 0 {
		t.Errorf("best: write-back every %d bytes, want BestWritebackBytes (%d, > 0)", cfg.WritebackBytes, BestWritebackBytes)
	}
	if cfg.DedupeBufferBytes != 64<<20 || cfg.IOBufferBytes != 1<<20 || cfg.LoadFactor != 0.9 || !cfg.VerifyCRC {
		t.Errorf("best changed sizes: %+v", cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("best does not validate: %v", err)
	}
	if err := cfg.ApplyProfile(ProfileKafka); err != nil {
		t.Fatal(err)
	}
	want := DefaultCleanerConfig()
	want.DedupeBufferBytes, want.IOBufferBytes = 64<<20, 1<<20
	if cfg.WriteDirectBytes != 0 || cfg.WriteDirectMinCleanBytes != 0 {
		t.Errorf("kafka after best: O_DIRECT writes of %d bytes from cleans of %d bytes, want both 0 (page cache, as Kafka)", cfg.WriteDirectBytes, cfg.WriteDirectMinCleanBytes)
	}
	if cfg.WritebackBytes != 0 {
		t.Errorf("kafka after best: write-back every %d bytes, want 0 (off)", cfg.WritebackBytes)
	}
	if cfg != want { // ReadaheadBytes back to 0 among them
		t.Errorf("kafka after best: %+v, want Kafka's defaults %+v", cfg, want)
	}
	if err := cfg.ApplyProfile("fastest"); err == nil || !strings.Contains(err.Error(), `"fastest"`) || !strings.Contains(err.Error(), "kafka, best") {
		t.Errorf("unknown profile: error %v", err)
	}
}

// TestIgnoredSettings: look-ahead, parallel lookups and the parallel map
// build need bucket16; on another layout each is named as ignored, on
// bucket16 nothing is, but the parallel map build under a throttle.
func TestIgnoredSettings(t *testing.T) {
	cfg := DefaultCleanerConfig()
	cfg.LookAhead, cfg.ParallelLookups, cfg.ParallelMapBuild = true, true, true
	got := cfg.IgnoredSettings(nil)
	if len(got) != 3 || !strings.Contains(got[0], "--look-ahead") || !strings.Contains(got[1], "--parallel-lookups") || !strings.Contains(got[1], "skimpy") ||
		!strings.Contains(got[2], "--parallel-map-build") {
		t.Errorf("skimpy: %q, want --look-ahead, --parallel-lookups and --parallel-map-build named", got)
	}
	cfg.OffsetMap = "bucket16"
	if got := cfg.IgnoredSettings(nil); len(got) != 0 {
		t.Errorf("bucket16: %q, want none", got)
	}
	cfg.MaxIOBytesPerSecond = 1 << 20
	if got := cfg.IgnoredSettings(nil); len(got) != 1 || !strings.Contains(got[0], "--parallel-map-build") || !strings.Contains(got[0], "log.cleaner.io.max.bytes.per.second") {
		t.Errorf("bucket16, throttled: %q, want --parallel-map-build named with the throttle", got)
	}
	def := DefaultCleanerConfig()
	if got := def.IgnoredSettings(nil); len(got) != 0 {
		t.Errorf("Kafka's defaults: %q, want none", got)
	}
	def.WriteDirectMinRecordBytes = 256
	if got := def.IgnoredSettings(nil); len(got) != 1 || !strings.Contains(got[0], "--write-direct-min-record-bytes") || !strings.Contains(got[0], "--write-direct-bytes") {
		t.Errorf("a minimum record size without O_DIRECT output: %q, want it named as ignored", got)
	}
	def.WriteDirectMinRecordBytes, def.WriteDirectMinCleanBytes = 0, 1<<30
	if got := def.IgnoredSettings(nil); len(got) != 1 || !strings.Contains(got[0], "--write-direct-min-clean-bytes") || !strings.Contains(got[0], "--write-direct-bytes") {
		t.Errorf("a minimum clean size without O_DIRECT output: %q, want it named as ignored", got)
	}
	def.WriteDirectMinRecordBytes, def.WriteDirectMinCleanBytes = 256, 0
	def.WriteDirectBytes = 1 << 20
	if got := def.IgnoredSettings(nil); len(got) != 0 {
		t.Errorf("O_DIRECT output from 256 bytes: %q, want none", got)
	}
	// Only the settings given are named: the best profile with its O_DIRECT
	// output turned off names its minimum record size only when given.
	best := DefaultCleanerConfig()
	if err := best.ApplyProfile(ProfileBest); err != nil {
		t.Fatal(err)
	}
	best.WriteDirectBytes = 0
	if got := best.IgnoredSettings(func(s string) bool { return s == "write-direct-bytes" }); len(got) != 0 {
		t.Errorf("best, --write-direct-bytes 0 given alone: %q, want none", got)
	}
	if got := best.IgnoredSettings(func(s string) bool { return s == "write-direct-min-record-bytes" }); len(got) != 1 || !strings.Contains(got[0], "--write-direct-min-record-bytes") {
		t.Errorf("best, --write-direct-min-record-bytes given: %q, want it named", got)
	}
}

// TestIgnoredSettingsBySource: under a throttle, the parallel copy and the
// parallel map build the user gave are named by their flags; the best
// profile's are said to be the profile's, off under the throttle, no flag
// named; a default's nothing. The layout's sentences say nothing of a
// profile's setting (the profile sets the bucket16 map they need).
func TestIgnoredSettingsBySource(t *testing.T) {
	best := DefaultCleanerConfig()
	if err := best.ApplyProfile(ProfileBest); err != nil {
		t.Fatal(err)
	}
	best.MaxIOBytesPerSecond = 1 << 20
	by := func(src SettingSource) func(string) SettingSource {
		return func(string) SettingSource { return src }
	}
	user := best.IgnoredSettingsBy(by(SourceUser))
	if len(user) != 2 || !strings.HasPrefix(user[0], "--parallel-copy is ignored: ") || !strings.HasPrefix(user[1], "--parallel-map-build is ignored: ") {
		t.Errorf("given by the user: %q, want --parallel-copy and --parallel-map-build named", user)
	}
	prof := best.IgnoredSettingsBy(by(SourceProfile))
	if len(prof) != 2 || !strings.HasPrefix(prof[0], "the profile's parallel copy is off under the throttle: ") ||
		!strings.HasPrefix(prof[1], "the profile's parallel map build is off under the throttle: ") || strings.Contains(strings.Join(prof, " "), "--parallel") {
		t.Errorf("set by the profile: %q, want the profile's parallel copy and map build said off under the throttle, no flag named", prof)
	}
	if got := best.IgnoredSettingsBy(by(SourceDefault)); len(got) != 0 {
		t.Errorf("defaults: %q, want none", got)
	}
	skimpy := best
	skimpy.MaxIOBytesPerSecond, skimpy.OffsetMap = 0, "skimpy"
	if got := skimpy.IgnoredSettingsBy(by(SourceProfile)); len(got) != 0 {
		t.Errorf("the profile's settings on skimpy: %q, want none", got)
	}
}
