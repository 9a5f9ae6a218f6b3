package sizing

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/results"
)

// TestValidateTiny runs the validate path at a tiny scale (about 2 MiB over
// 2 partitions): the recommended buffer cleans in one pass and the step
// below (60% of the dirty keys) in more, and the model's pass counts equal
// the measured ones. Times are measured but not asserted (tests never
// assert on timings); the calibration here is a stand-in.
func TestValidateTiny(t *testing.T) {
	w := DefaultWorkload()
	w.Keys, w.Partitions = 40_000, 2
	cal := &Calibration{MapBuildBytesPerSecond: 100e6, CopyBytesPerSecond: 100e6}
	v, err := Validate(context.Background(), w, ValidateOptions{Dir: t.TempDir(), LogBytes: 2 << 20, Calibration: cal})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Runs) != 2 {
		t.Fatalf("runs %+v", v.Runs)
	}
	if v.PassesPredicted != 1 || v.PassesMeasured != 1 {
		t.Errorf("recommended: passes predicted %d measured %d, want 1", v.PassesPredicted, v.PassesMeasured)
	}
	for _, r := range v.Runs {
		t.Logf("%+v", r)
	}
	below := v.Runs[1]
	if below.PassesPredicted < 2 || below.PassesPredicted != below.PassesMeasured {
		t.Errorf("one step below: passes predicted %d measured %d, want equal and at least 2", below.PassesPredicted, below.PassesMeasured)
	}
	for _, r := range v.Runs {
		if r.CleanSecondsMeasured <= 0 || r.CleanSecondsPredicted <= 0 {
			t.Errorf("%s: times predicted %v measured %v", r.Name, r.CleanSecondsPredicted, r.CleanSecondsMeasured)
		}
	}
}

// TestCalibrationCache: a cached calibration is used while fresh, and
// stale when older than the max age or from another environment or map.
func TestCalibrationCache(t *testing.T) {
	dir := t.TempDir()
	env := results.Environment{CPUModel: "cpu", UsableCores: 2, KernelRelease: "6.1", GoVersion: "go1.26", Commit: "abc"}
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	c := &Calibration{MapBuildBytesPerSecond: 1, CopyBytesPerSecond: 2, OffsetMap: "skimpy", Hasher: "md5", IOPath: "pread", MeasuredAt: now, Environment: env}
	path := filepath.Join(dir, "c.json")
	if err := WriteCalibration(path, c); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCalibration(path)
	if err != nil || got.CopyBytesPerSecond != 2 {
		t.Fatalf("read %+v %v", got, err)
	}
	if why := got.Stale(now.Add(time.Hour), DefaultCalibrationMaxAge, env, "skimpy", "md5", "pread"); why != "" {
		t.Errorf("fresh calibration stale: %s", why)
	}
	if why := got.Stale(now.Add(8*24*time.Hour), DefaultCalibrationMaxAge, env, "skimpy", "md5", "pread"); why == "" {
		t.Error("8-day-old calibration not stale")
	}
	other := env
	other.Commit = "def"
	if why := got.Stale(now, DefaultCalibrationMaxAge, other, "skimpy", "md5", "pread"); why == "" {
		t.Error("calibration of another commit not stale")
	}
	if why := got.Stale(now, DefaultCalibrationMaxAge, env, "dense16", "xxh3-64", "pread"); why == "" {
		t.Error("calibration of another map not stale")
	}
	if c, err := ReadCalibration(filepath.Join(dir, "missing.json")); c != nil || err != nil {
		t.Errorf("missing file: %v %v", c, err)
	}
}

// TestCalibrationCacheKeyedBySpeedSettings: a calibration cached for the
// best profile's cleaner is not used for a cleaner that differs in one
// setting that changes the measured speed (each below), and is used for
// one that differs only in what a calibration does not measure: the
// throttle (the calibration runs without it, the model applies it), the
// thread count with the same sort buffer per thread (it calibrates one
// thread), the cache's max age.
func TestCalibrationCacheKeyedBySpeedSettings(t *testing.T) {
	out := t.TempDir()
	best := engine.DefaultCleanerConfig()
	if err := best.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	base := CalibrateOptions{Out: out, Cleaner: best, NoVerdict: true}
	env, err := results.CaptureEnvironment(out)
	if err != nil {
		t.Fatal(err)
	}
	cached := base
	cached.defaults()
	c := &Calibration{MapBuildBytesPerSecond: 1, CopyBytesPerSecond: 2, OffsetMap: layoutName(best.OffsetMap), Hasher: string(best.Hasher),
		IOPath: ioName(best.IOPath), MeasuredAt: time.Now(), Environment: env}
	if err := WriteCalibration(cached.path(), c); err != nil {
		t.Fatal(err)
	}
	if got, _, err := ReadFreshCalibration(base); err != nil || got == nil {
		t.Fatalf("the cached calibration itself: %v, %v", got, err)
	}
	for _, v := range []struct {
		name  string
		speed bool
		set   func(o *CalibrateOptions)
	}{
		{"map-sort-buffer-bytes 16 MiB", true, func(o *CalibrateOptions) { o.Cleaner.MapSortBufferBytes = 16 << 20 }},
		{"no sort buffer", true, func(o *CalibrateOptions) { o.Cleaner.MapSortBufferBytes = 0 }},
		{"parallel-copy off", true, func(o *CalibrateOptions) { o.Cleaner.ParallelCopy = false }},
		{"map-huge-pages off", true, func(o *CalibrateOptions) { o.Cleaner.MapHugePages = false }},
		{"parallel-map-build off", true, func(o *CalibrateOptions) { o.Cleaner.ParallelMapBuild = false }},
		{"write-behind off", true, func(o *CalibrateOptions) { o.Cleaner.WriteBehind = false }},
		{"io buffer 1 MiB", true, func(o *CalibrateOptions) { o.Cleaner.IOBufferBytes = 1 << 20 }},
		{"load factor 0.75", true, func(o *CalibrateOptions) { o.Cleaner.LoadFactor = 0.75 }},
		{"2 threads, 16 MiB of sort buffer each", true, func(o *CalibrateOptions) { o.Cleaner.Threads = 2 }},
		{"calibration log 32 MiB", true, func(o *CalibrateOptions) { o.LogBytes = 32 << 20 }},
		{"throttled", false, func(o *CalibrateOptions) { o.Cleaner.MaxIOBytesPerSecond = 1 << 20 }},
		{"2 threads, 32 MiB of sort buffer each", false, func(o *CalibrateOptions) {
			o.Cleaner.Threads, o.Cleaner.MapSortBufferBytes = 2, 64<<20
		}},
		{"max age 1h", false, func(o *CalibrateOptions) { o.MaxAge = time.Hour }},
	} {
		o := base
		v.set(&o)
		got, note, err := ReadFreshCalibration(o)
		if err != nil {
			t.Fatalf("%s: %v", v.name, err)
		}
		if v.speed && got != nil {
			t.Errorf("%s: the best profile's cached calibration was used (%s)", v.name, note)
		}
		if !v.speed && got == nil {
			t.Errorf("%s: the best profile's cached calibration was not used (%s)", v.name, note)
		}
	}
	// A file under the right name whose recorded settings are others.
	c.Settings = `{"Cleaner":{}}`
	if err := WriteCalibration(cached.path(), c); err != nil {
		t.Fatal(err)
	}
	if got, note, err := ReadFreshCalibration(base); err != nil || got != nil || !strings.Contains(note, "measured with the settings") {
		t.Errorf("recorded settings differ: %v, %q, %v; want none used, saying why", got, note, err)
	}
}

// TestValidationCleanerTable: a validation run of a configuration whose
// model map is a table of tableBytes cleans with one thread whose table
// is tableBytes, its sort buffer one thread's of the configured cleaner,
// carved as the cleaner carves it. Worked by hand: the best profile on 4
// threads, 32 MiB of sort buffer, 8 MiB (262,144 Puts) a thread; a 4 MiB
// table needs a share S whose quarter caps the buffer (4 MiB < 96 x
// 262,144): S = 128 q + r, 96 q + r = 4,194,304, 0 <= r < 128, so q =
// 43,690, r = 64, S = 5,592,384 (the run's dedupe buffer), of which
// 1,398,080 bytes of sort buffer. Taking the table for the dedupe buffer
// with the whole 32 MiB on one thread left a 3 MiB table.
func TestValidationCleanerTable(t *testing.T) {
	cc := engine.DefaultCleanerConfig()
	if err := cc.ApplyProfile(engine.ProfileBest); err != nil {
		t.Fatal(err)
	}
	cc.Threads = 4
	share := validationShare(cc, 4<<20)
	one := oneThreadCleaner(cc, share)
	if share != 5592384 || one.Threads != 1 || one.MapSortBufferBytes != 8<<20 {
		t.Errorf("share %d, %d threads, sort buffer %d; want 5,592,384, 1, 8 MiB", share, one.Threads, one.MapSortBufferBytes)
	}
	if tb, sb := one.PerThreadMapTableBytes(), one.PerThreadMapSortBytes(); tb != 4<<20 || sb != 1398080 {
		t.Errorf("table %d, sort buffer %d bytes; want 4 MiB and 1,398,080", tb, sb)
	}
	kafka := engine.DefaultCleanerConfig()
	if share := validationShare(kafka, 4<<20); share != 4<<20 {
		t.Errorf("kafka: share %d, want the table, 4 MiB", share)
	}
}

// TestValidateKeepsTheTableWithASortBuffer: with a bucket16 map and a map
// sort buffer (carved out of the dedupe buffer, engine.CleanerConfig.
// PerThreadMapTableBytes), the validated runs give the map the table the
// predictions count (MaxKeys of the table), the sort buffer on top, as
// advise recommends (DedupeBufferBytesForTable). A sort buffer of 1 GiB
// asks for more than the cap, so a run whose buffer is only the table
// loses a quarter of it. By hand, at dirty ratio 0.75 the head is 3K
// uniform records over the K keys (distinct: (1 - e^-3) K = 0.95 K); the
// step below holds 0.6 x 0.95 K = 0.57 K keys, a pass of -ln(1 - 0.57) K =
// 0.84 K records, 4 passes over 3 K; a table carved by a quarter holds
// 0.43 K, a pass of 0.56 K records, 6 passes.
func TestValidateKeepsTheTableWithASortBuffer(t *testing.T) {
	w := DefaultWorkload()
	w.Keys, w.Partitions, w.MinCleanableDirtyRatio = 40_000, 2, 0.75
	cc := engine.DefaultCleanerConfig()
	cc.OffsetMap, cc.Hasher, cc.MapSortBufferBytes = "bucket16", "xxh3-64", 1<<30
	cal := &Calibration{MapBuildBytesPerSecond: 100e6, CopyBytesPerSecond: 100e6}
	v, err := Validate(context.Background(), w, ValidateOptions{Dir: t.TempDir(), LogBytes: 2 << 20, Calibration: cal, Cleaner: cc, Repetitions: 1, NoVerdict: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Runs) != 2 || v.Runs[1].PassesPredicted != 4 {
		t.Fatalf("runs %+v, want the step below predicted at 4 passes", v.Runs)
	}
	for _, r := range v.Runs {
		if r.PassesPredicted != r.PassesMeasured {
			t.Errorf("%s: passes predicted %d measured %d (buffer %d bytes)", r.Name, r.PassesPredicted, r.PassesMeasured, r.DedupeBufferBytes)
		}
	}
}
