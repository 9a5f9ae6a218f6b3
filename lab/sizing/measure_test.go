package sizing

import (
	"context"
	"path/filepath"
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
