package sizing

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// Shape is the clean a calibration's runs imitate, beside the record
// shape, since each moves the cost per byte: a map's size and fill set its
// cost per key (cache and TLB misses, probe lengths); the dirty ratio sets
// the share of the bytes copied that are written again; tombstones the
// records per byte.
type Shape struct {
	// MapBytes is each run's dedupe buffer per thread (bytes). Default 16
	// MiB: give the per-thread buffer of the clean to be predicted.
	MapBytes int64 `json:"map_bytes,omitempty"`
	// MapFill, in (0, 1], sizes the runs' keys so that one clean's distinct
	// dirty keys fill this share of the map's keys per pass (slots x load
	// factor): the fill of the clean to be predicted. 0: the keys of a
	// LogBytes log, whatever share of the map they fill. When those keys
	// need a log over LogBytes, keys and map are scaled down together
	// (Calibration.Notes says by how much).
	MapFill float64 `json:"map_fill,omitempty"`
	// DirtyRatio is the cleanable ratio of the runs' logs, in (0, 1) (the
	// head written over the base's keys). Default 0.5.
	DirtyRatio float64 `json:"dirty_ratio,omitempty"`
	// TombstoneRatio is the share of the head's writes that are
	// tombstones, in [0, 1).
	TombstoneRatio float64 `json:"tombstone_ratio,omitempty"`
}

// name is the shape's part of a cache file name: "" for the default.
func (s Shape) name() string {
	var b strings.Builder
	if s.MapBytes != calibrationMapBytes || s.MapFill > 0 {
		fmt.Fprintf(&b, "-m%d-f%d", s.MapBytes, int(math.Round(s.MapFill*100)))
	}
	if s.DirtyRatio != 0.5 {
		fmt.Fprintf(&b, "-r%d", int(math.Round(s.DirtyRatio*100)))
	}
	if s.TombstoneRatio > 0 {
		fmt.Fprintf(&b, "-t%d", int(math.Round(s.TombstoneRatio*100)))
	}
	return b.String()
}

// CalibrateOptions configure a calibration.
type CalibrateOptions struct {
	// Out is where the calibration is cached (run's --out; default "runs").
	Out string
	// Dir is the parent of the calibration's data directory ("": the OS
	// temp dir); put it on the disk to be sized.
	Dir string
	// Cleaner gives the offset map layout, hasher and I/O path measured
	// (one thread, Kafka's 128 MiB map, pre-faulted). The zero config:
	// engine.DefaultCleanerConfig(); any other is taken as it is (its
	// Threads does not matter).
	Cleaner engine.CleanerConfig
	// KeyBytes, ValueBytes and RecordsPerBatch shape the records measured,
	// since per-record costs set the throughput (default run's 16, 100, 16).
	KeyBytes, ValueBytes, RecordsPerBatch int
	// LogBytes of each measured run. Default 64 MiB. With MapFill it is the
	// largest log a run may have.
	LogBytes int64
	// Shape is the clean the runs imitate: the map, its fill, the dirty
	// ratio and the tombstones of the clean to be predicted.
	Shape
	// Runs is the least number of measured runs; the fastest Runs usable
	// runs must agree within SpreadBound. Default 3.
	Runs int
	// SpreadBound is the largest spread allowed among the fastest Runs
	// usable runs, (fastest - slowest) / fastest of each rate. Default 0.10.
	SpreadBound float64
	// MaxRuns: runs are repeated until the spread is within SpreadBound or
	// MaxRuns runs were made (then the calibration says it could not).
	// Default 3 x Runs.
	MaxRuns int
	// Threads, when > 1, also measures the contention curve: 1..Threads
	// cleaner threads at once on Dir, one partition each, with warm and
	// cold page caches (Calibration.ThreadCurves). 0 or 1: no curve.
	Threads int
	// ThreadLogBytes is each thread's partition in the curve's runs.
	// Default LogBytes / 2.
	ThreadLogBytes int64
	// DropCaches writes 3 to /proc/sys/vm/drop_caches before a cold run
	// (root only; else, and always after it, posix_fadvise DONTNEED per
	// file, lab.SetCache).
	DropCaches bool
	// Busy, when set, is called as each measured run starts; the func it
	// returns is called when the run ends and gives the machine's
	// interference over the run: a verdict ("quiet", "busy" or "unusable";
	// "" when unknown) and the record to keep with the run (JSON; nil for
	// none). A run judged busy or unusable is recorded and never used for
	// the kept figures unless every run was, which the calibration then says
	// (Calibration.Verdict, Notes). nil: lab.InterferenceHook, unless
	// NoVerdict.
	Busy func() (end func() (verdict string, record json.RawMessage))
	// NoVerdict leaves Busy nil (no interference verdict); otherwise a nil
	// Busy becomes lab.InterferenceHook: every calibration judges its runs.
	NoVerdict bool
	// MaxAge: an older cache is measured again. Default DefaultCalibrationMaxAge.
	MaxAge time.Duration
	// Force measures even when the cache is fresh.
	Force bool
	// Log receives progress lines; nil: none.
	Log func(format string, args ...any)
}

func (o *CalibrateOptions) defaults() {
	if o.Out == "" {
		o.Out = "runs"
	}
	if o.Busy == nil && !o.NoVerdict {
		o.Busy = lab.InterferenceHook("")
	}
	if o.Cleaner == (engine.CleanerConfig{}) {
		o.Cleaner = engine.DefaultCleanerConfig()
	}
	d := workloads.DefaultSpec()
	if o.KeyBytes == 0 {
		o.KeyBytes = d.KeyBytes
	}
	if o.ValueBytes == 0 {
		o.ValueBytes = d.ValueBytes
	}
	if o.RecordsPerBatch == 0 {
		o.RecordsPerBatch = d.RecordsPerBatch
	}
	if o.LogBytes == 0 {
		o.LogBytes = 64 << 20
	}
	if o.MapBytes <= 0 {
		o.MapBytes = calibrationMapBytes
	}
	if o.MapFill < 0 || o.MapFill > 1 || math.IsNaN(o.MapFill) {
		o.MapFill = 0
	}
	if !(o.DirtyRatio > 0 && o.DirtyRatio < 1) {
		o.DirtyRatio = 0.5
	}
	if !(o.TombstoneRatio >= 0 && o.TombstoneRatio < 1) {
		o.TombstoneRatio = 0
	}
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if o.SpreadBound <= 0 {
		o.SpreadBound = DefaultSpreadBound
	}
	if o.MaxRuns < o.Runs {
		o.MaxRuns = 3 * o.Runs
	}
	if o.ThreadLogBytes <= 0 {
		o.ThreadLogBytes = o.LogBytes / 2
	}
	if o.MaxAge == 0 {
		o.MaxAge = DefaultCalibrationMaxAge
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
}

// path is o's cache file (after defaults): CalibrationPath, the record
// shape (-k, -v, -b), the Shape (-m, -f, -r, -t) and, where the speed
// settings differ from those of the default cleaner with o's layout,
// hasher and I/O path, -s and 16 hex digits of their FNV-1a hash, so a
// calibration is used only for the settings it measured.
func (o *CalibrateOptions) path() string {
	base := CalibrationPath(o.Out, layoutName(o.Cleaner.OffsetMap), string(o.Cleaner.Hasher), ioName(o.Cleaner.IOPath))
	settings := ""
	if s := o.speedSettings(); s != o.defaultSpeedSettings() {
		h := fnv.New64a()
		h.Write([]byte(s))
		settings = fmt.Sprintf("-s%016x", h.Sum64())
	}
	return strings.TrimSuffix(base, ".json") + fmt.Sprintf("-k%d-v%d-b%d%s%s.json", o.KeyBytes, o.ValueBytes, o.RecordsPerBatch, o.Shape.name(), settings)
}

// speedSettings is, as JSON, what sets a calibration's measured speeds
// besides what its cache file's name says (layout, hasher, I/O path, record
// shape and Shape): the cleaner of its runs (calibrationCleaner of one
// thread, so the sort buffer is one thread's), less what the calibration
// sets itself (the dedupe buffer, from Shape; no throttle, as the model
// applies it) and the name's fields; and its runs' log sizes, directory
// and drop_caches. Call it after defaults.
func (o *CalibrateOptions) speedSettings() string {
	c := calibrationCleaner(*o, 1)
	c.DedupeBufferBytes, c.MaxIOBytesPerSecond, c.Throttler = 0, 0, ""
	c.OffsetMap, c.Hasher, c.IOPath = "", "", ""
	js, err := json.Marshal(struct {
		Cleaner                  engine.CleanerConfig
		LogBytes, ThreadLogBytes int64
		Dir                      string `json:",omitempty"`
		DropCaches               bool   `json:",omitempty"`
	}{c, o.LogBytes, o.ThreadLogBytes, o.Dir, o.DropCaches})
	if err != nil {
		panic(err) // a struct of numbers, strings and bools always marshals
	}
	return string(js)
}

// defaultSpeedSettings is speedSettings of the default cleaner
// (engine.DefaultCleanerConfig) and options, with o's layout, hasher and
// I/O path: the settings whose cache file keeps the name without -s.
func (o *CalibrateOptions) defaultSpeedSettings() string {
	d := CalibrateOptions{Cleaner: engine.DefaultCleanerConfig(), NoVerdict: true}
	d.Cleaner.OffsetMap, d.Cleaner.Hasher, d.Cleaner.IOPath = o.Cleaner.OffsetMap, o.Cleaner.Hasher, o.Cleaner.IOPath
	d.defaults()
	return d.speedSettings()
}

// settingsStale says why a cached calibration c was measured with other
// speed settings than o's ("" when not, or when c predates Settings).
func (o *CalibrateOptions) settingsStale(c *Calibration) string {
	if c == nil || c.Settings == "" {
		return ""
	}
	if want := o.speedSettings(); c.Settings != want {
		return fmt.Sprintf("measured with the settings %s, not %s", c.Settings, want)
	}
	return ""
}

// calibrationShape is the log and per-thread map of o's runs: LogBytes and
// MapBytes, or with MapFill the keys whose distinct dirty keys fill
// MapFill of the map's keys per pass. The generated base holds every key
// once (k records of r bytes, 1 - R of the log at dirty ratio R) and the
// head writes n = k R / (1 - R) records uniformly over them, so its
// distinct keys are k (1 - e^(-R/(1-R))) (ExpectedDistinct):
// k = MapFill x maxKeys / (1 - e^(-R/(1-R))), and the log
// k r / (1 - R) / 1.002 (as calibrationExperiment sizes the keys from the
// log; tombstones, smaller, are not counted). A log over LogBytes
// scales keys and table (PerThreadMapTableBytes, whole entries, 64 at
// least) down by the same factor, so the fill stays MapFill; mapBytes is
// then the share whose table that is with the sort buffer carved out of
// it as the cleaner carves it
// (engine.CleanerConfig.PerThreadMapBytesForTable). note says so ("" when
// not).
func calibrationShape(o CalibrateOptions) (logBytes, mapBytes int64, note string, err error) {
	if o.MapFill <= 0 {
		return o.LogBytes, o.MapBytes, "", nil
	}
	info, err := layoutInfo(o.Cleaner.OffsetMap, o.Cleaner.Hasher)
	if err != nil {
		return 0, 0, "", err
	}
	lf := o.Cleaner.LoadFactor
	if lf <= 0 {
		lf = engine.DefaultCleanerConfig().LoadFactor
	}
	one := calibrationCleaner(o, 1)
	maxKeys := float64(info.MaxKeys(int(min(one.PerThreadMapTableBytes(), math.MaxInt32)), lf))
	R := o.DirtyRatio
	k := o.MapFill * maxKeys / (1 - math.Exp(-R/(1-R)))
	r := RecordBytes(o.KeyBytes, o.ValueBytes, o.RecordsPerBatch, false)
	logBytes = int64(math.Ceil(k * r / (1 - R) / 1.002))
	mapBytes = o.MapBytes
	if logBytes > o.LogBytes {
		f := float64(o.LogBytes) / float64(logBytes)
		entry := int64(info.EntryBytes)
		table := one.PerThreadMapTableBytes()
		scaled := max(int64(float64(table)*f)/entry*entry, entry*64)
		mapBytes = one.PerThreadMapBytesForTable(scaled)
		note = fmt.Sprintf("the map of the clean predicted (%s of dedupe buffer a thread, a %s table, %.0f%% full) needs a %s log at this fill; calibrated with keys and table scaled by %.3g to a %s log and a %s table (%s of dedupe buffer, its map sort buffer counted as the cleaner carves it) (raise --calibration-log-bytes to measure the full map's cache misses)",
			results.FormatBytes(o.MapBytes), results.FormatBytes(table), 100*o.MapFill, results.FormatBytes(logBytes), f, results.FormatBytes(o.LogBytes), results.FormatBytes(scaled), results.FormatBytes(mapBytes))
		logBytes = o.LogBytes
	}
	return max(logBytes, 1), mapBytes, note, nil
}

// calibrationCleaner is o's cleaner with threads threads, each with the
// map of the clean to be predicted: a share of the dedupe buffer of
// o.MapBytes (its zero-fill per clean, measured apart, is taken out of the
// map-build rate) and the configured map sort buffer of one thread
// (MapSortBufferBytes / Threads of o.Cleaner) taken out of it, so the
// table (engine.CleanerConfig.PerThreadMapTableBytes) is the same whatever
// threads is.
func calibrationCleaner(o CalibrateOptions, threads int) engine.CleanerConfig {
	c := o.Cleaner
	perSort := c.MapSortBufferBytes / int64(max(c.Threads, 1))
	c.Threads = threads
	c.DedupeBufferBytes = o.MapBytes * int64(threads)
	c.MapSortBufferBytes = perSort * int64(threads)
	return c
}

func layoutName[S ~string](name S) string {
	s := string(name)
	if s == "" {
		return "skimpy"
	}
	return strings.ToLower(s)
}

func ioName[S ~string](name S) string {
	s := string(name)
	if s == "" {
		return "pread"
	}
	return strings.ToLower(s)
}

// LoadOrCalibrate returns the cached calibration for o's cleaner and
// record shape when it is fresh (Calibration.Stale), else measures one
// (Calibrate) and caches it. status says which, and why a cache was stale.
func LoadOrCalibrate(ctx context.Context, o CalibrateOptions) (*Calibration, string, error) {
	o.defaults()
	path := o.path()
	env, _ := results.CaptureEnvironment(o.Out)
	if !o.Force {
		c, err := ReadCalibration(path)
		if err != nil {
			return nil, "", err
		}
		why := c.Stale(time.Now(), o.MaxAge, env, layoutName(o.Cleaner.OffsetMap), string(o.Cleaner.Hasher), ioName(o.Cleaner.IOPath))
		if why == "" {
			why = o.settingsStale(c)
		}
		if why == "" && o.Threads > 1 && (c.Curve("warm").MaxThreads() < o.Threads || c.Curve("cold").MaxThreads() < o.Threads) {
			why = fmt.Sprintf("no contention curve of 1..%d threads (warm and cold) cached", o.Threads)
		}
		if why == "" {
			return c, "cached " + path + " (measured " + c.MeasuredAt.Format(time.RFC3339) + ")", nil
		}
		o.Log("calibration: %s: measuring again\n", why)
	}
	c, err := Calibrate(ctx, o)
	if err != nil {
		return nil, "", err
	}
	if err := WriteCalibration(path, c); err != nil {
		return nil, "", err
	}
	return c, "measured now, cached in " + path, nil
}

// measureOverhead is the fixed cost of one clean (segment files created,
// fsynced, swapped, the directory fsynced, the checkpoint written): the
// fastest of 5 cleans of a 64 KiB log by the engine's cleaner manager (the
// path of a broker's cleaner thread, and of Validate; lab.Run's per-clean
// counters are not part of it).
func measureOverhead(ctx context.Context, e lab.Experiment, o CalibrateOptions, out string) (float64, float64, error) {
	w := DefaultWorkload()
	w.KeyBytes, w.ValueBytes, w.RecordsPerBatch = o.KeyBytes, o.ValueBytes, o.RecordsPerBatch
	r := RecordBytes(o.KeyBytes, o.ValueBytes, o.RecordsPerBatch, false)
	w.Keys = max(int64(math.Ceil(32<<10/r)), 16)
	if need := len(workloads.KeyPrefix) + len(fmt.Sprint(w.Keys-1)); o.KeyBytes < need {
		w.Keys = 9 // a key of at least 2 bytes holds one digit
	}
	_ = e
	h := headOfWorkload(w)
	vo := ValidateOptions{Dir: o.Dir, Cleaner: o.Cleaner}
	vo.Cleaner.MaxIOBytesPerSecond = 0 // the model applies the throttle itself
	best, gap := math.Inf(1), math.Inf(1)
	for i := 0; i < 5; i++ {
		_, secs, g, err := measureCleansGap(ctx, w, h, o.MapBytes, vo)
		if err != nil {
			return 0, 0, fmt.Errorf("sizing: calibration (per-clean overhead): %w", err)
		}
		best, gap = min(best, secs), min(gap, g)
	}
	if math.IsInf(best, 1) {
		return 0, 0, nil
	}
	return best, gap, nil
}

// calibrationMapBytes is the default dedupe buffer of the calibration runs
// (CalibrateOptions.MapBytes): 16 MiB.
const calibrationMapBytes = 16 << 20

// measureClear times Clear of a 128 MiB map of the layout, median of 5;
// 0 for layouts whose Clear is O(1).
func measureClear(cc engine.CleanerConfig) (float64, error) {
	info, err := layoutInfo(cc.OffsetMap, cc.Hasher)
	if err != nil || info.ClearIsConstant {
		return 0, err
	}
	h, err := offsetmap.NewHasher(info.Hasher)
	if err != nil {
		return 0, err
	}
	const size = 128 << 20
	m, err := offsetmap.New(info.Layout, size, h)
	if err != nil {
		return 0, err
	}
	m.Clear() // first touch of every page
	var samples []float64
	for i := 0; i < 5; i++ {
		t0 := time.Now()
		m.Clear()
		if d := time.Since(t0); d > 0 {
			samples = append(samples, size/d.Seconds())
		}
	}
	return results.Median(samples), nil
}

// DefaultSpreadBound is the calibration's default spread bound: 10%.
const DefaultSpreadBound = 0.10

// Calibrate measures the map-build and copy throughputs with short runs of
// lab.Run (warm page cache, one thread, no throttle, verification off; the
// dedupe buffer allocated and touched before the clock starts, as a broker
// holds it): each generates a log of o.LogBytes (half dirty, keys in one
// pass) and cleans it once. Runs repeat, at least o.Runs and at most
// o.MaxRuns, until the fastest o.Runs usable runs (not judged busy by
// o.Busy) agree within o.SpreadBound; the fastest usable run's rates are
// kept. With o.Threads > 1 it then measures the contention curve
// (measureThreadCurve). The run records go to a temporary directory,
// removed after. Errors: a run that fails or measures no time.
func Calibrate(ctx context.Context, o CalibrateOptions) (*Calibration, error) {
	o.defaults()
	settings := o.speedSettings() // before the shape changes LogBytes
	logBytes, mapBytes, shapeNote, err := calibrationShape(o)
	if err != nil {
		return nil, err
	}
	o.LogBytes, o.MapBytes = logBytes, mapBytes
	e, err := calibrationExperiment(o, o.LogBytes, 1)
	if err != nil {
		return nil, err
	}
	e.Cache = lab.CacheWarm
	out, err := os.MkdirTemp("", "cleanerlab-calibration-runs-")
	if err != nil {
		return nil, fmt.Errorf("sizing: calibration: %w", err)
	}
	defer os.RemoveAll(out)
	c := &Calibration{OffsetMap: layoutName(o.Cleaner.OffsetMap), Hasher: string(o.Cleaner.Hasher), IOPath: ioName(o.Cleaner.IOPath), Settings: settings, Cache: string(lab.CacheWarm),
		Workload: fmt.Sprintf("%d keys, %d-byte keys, %d-byte values, %d records per batch, %s log, dirty ratio %.2f, one thread, %s map, no throttle",
			e.Workload.Keys, o.KeyBytes, o.ValueBytes, o.RecordsPerBatch, results.FormatBytes(o.LogBytes), e.Workload.DirtyRatio, results.FormatBytes(e.Cleaner.DedupeBufferBytes)),
		SpreadBound: o.SpreadBound, Shape: o.Shape}
	if shapeNote != "" {
		c.Notes = append(c.Notes, shapeNote)
	}
	type rawRun struct {
		mapBytes, copyBytes int64
		mapTime, copyTime   time.Duration
		cleans              int
		verdict             string
	}
	var raw []rawRun
	over, gap, clear := 0.0, 0.0, 0.0
	for i := 0; i < o.MaxRuns; i++ {
		e.Workload.Seed = uint64(i + 1)
		o.Log("calibration run %d (at least %d, at most %d): %s\n", i+1, o.Runs, o.MaxRuns, c.Workload)
		var run *results.Run
		verdict, rec, err := judged(o.Busy, func() (err error) {
			run, err = lab.Run(ctx, e, lab.Options{Dir: o.Dir, Out: out, IDSuffix: fmt.Sprintf("-cal%d", i)})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("sizing: calibration run: %w", err)
		}
		if o.Busy != nil {
			c.Interference = append(c.Interference, rec)
		}
		c.RunVerdicts = append(c.RunVerdicts, verdict)
		var rr rawRun
		for _, st := range lab.Stats(run) {
			rr.mapBytes += st.MapBytesRead
			rr.copyBytes += st.BytesRead
			rr.mapTime += st.MapTime()
			rr.copyTime += st.CopyTime()
			rr.cleans++
		}
		if rr.mapTime <= 0 || rr.copyTime <= 0 {
			return nil, fmt.Errorf("sizing: calibration run %d: no measurable time (map %v, copy %v)", i+1, rr.mapTime, rr.copyTime)
		}
		rr.verdict = verdict
		raw = append(raw, rr)
		c.Environment = run.Environment
		if i == 0 {
			// Measured once, after the first run (fixed costs, checked by
			// their own fastest-of-5 and median-of-5).
			if over, gap, err = measureOverhead(ctx, e, o, out); err != nil {
				return nil, err
			}
			if clear, err = measureClear(o.Cleaner); err != nil {
				return nil, fmt.Errorf("sizing: calibration: map clear: %w", err)
			}
		}
		// Samples so far, and the spread of the fastest usable ones.
		c.MapBuildSamples, c.CopySamples = nil, nil
		var mapOK, copyOK []float64
		for _, r := range raw {
			// The map phase began with a Clear of the map: not map building.
			t := r.mapTime.Seconds()
			if clear > 0 {
				t -= float64(r.cleans) * float64(o.MapBytes) / clear
			}
			if t <= 0 {
				t = r.mapTime.Seconds()
			}
			// The fixed cost of each clean is counted apart (CleanOverheadSeconds).
			ct := r.copyTime.Seconds() - float64(r.cleans)*over
			if ct <= 0 {
				ct = r.copyTime.Seconds()
			}
			m, cp := float64(r.mapBytes)/t, float64(r.copyBytes)/ct
			c.MapBuildSamples = append(c.MapBuildSamples, m)
			c.CopySamples = append(c.CopySamples, cp)
			if usableVerdict(r.verdict) {
				mapOK, copyOK = append(mapOK, m), append(copyOK, cp)
			}
		}
		c.UsableRuns = len(mapOK)
		c.Spread = math.Max(Spread(mapOK, o.Runs), Spread(copyOK, o.Runs))
		if len(mapOK) >= o.Runs && c.Spread <= o.SpreadBound {
			c.SpreadWithinBound = true
			break
		}
	}
	c.CleanOverheadSeconds = over
	c.CleanGapSeconds = gap
	c.MapClearBytesPerSecond = clear
	c.Runs = len(raw)
	c.Verdict = "quiet"
	if o.Busy == nil {
		c.Verdict = ""
	}
	mapUse, copyUse := c.MapBuildSamples, c.CopySamples
	if c.UsableRuns == 0 && o.Busy != nil {
		c.Verdict = "busy"
		for _, r := range raw {
			if r.verdict == "unusable" {
				c.Verdict = "unusable"
			}
		}
		c.Notes = append(c.Notes, fmt.Sprintf("every one of %d runs was judged busy or unusable: the calibration's rates come from busy runs; measure again on a quieter machine (--calibrate)", len(raw)))
	} else if o.Busy != nil {
		mapUse, copyUse = nil, nil
		for i, r := range raw {
			if usableVerdict(r.verdict) {
				mapUse, copyUse = append(mapUse, c.MapBuildSamples[i]), append(copyUse, c.CopySamples[i])
			}
		}
		if n := len(raw) - c.UsableRuns; n > 0 {
			c.Notes = append(c.Notes, fmt.Sprintf("%d of %d runs judged busy or unusable: left out of the kept rates", n, len(raw)))
		}
	}
	switch {
	case c.SpreadWithinBound:
	case c.UsableRuns < o.Runs:
		c.Notes = append(c.Notes, fmt.Sprintf("could not calibrate within the spread bound: %d usable (not busy) run(s) of %d, %d needed to judge the spread",
			c.UsableRuns, len(raw), o.Runs))
	default:
		c.Notes = append(c.Notes, fmt.Sprintf("could not calibrate within the spread bound: the fastest %d usable runs of %d spread %.1f%% (bound %.1f%%)",
			o.Runs, len(raw), 100*c.Spread, 100*o.SpreadBound))
	}
	// The fastest usable run: the one least disturbed by other load on the
	// machine (validation compares with its fastest run too).
	c.MapBuildBytesPerSecond = maxOf(mapUse)
	c.CopyBytesPerSecond = maxOf(copyUse)
	if o.Threads > 1 {
		for _, cache := range []lab.CacheState{lab.CacheWarm, lab.CacheCold} {
			curve, err := measureThreadCurve(ctx, o, cache, out)
			if err != nil {
				return nil, err
			}
			c.ThreadCurves = append(c.ThreadCurves, *curve)
		}
	}
	c.MeasuredAt = time.Now().UTC()
	return c, nil
}

// usableVerdict: a run judged neither busy nor unusable ("" and "quiet").
func usableVerdict(v string) bool { return v == "" || v == "quiet" }

// Spread is (fastest - slowest) / fastest of the fastest n samples
// (all of them when fewer); 0 for none.
func Spread(samples []float64, n int) float64 {
	s := append([]float64(nil), samples...)
	sort.Sort(sort.Reverse(sort.Float64Slice(s)))
	if n > 0 && len(s) > n {
		s = s[:n]
	}
	if len(s) == 0 || s[0] <= 0 {
		return 0
	}
	return (s[0] - s[len(s)-1]) / s[0]
}

// calibrationExperiment is the lab.Run experiment of a calibration run of
// threads threads, one partition each of logBytes: o's record shape, the
// base holding (almost) every key once and the head writing over all of
// them (the steady state the advisor's model assumes), a map per
// thread (CalibrateOptions.MapBytes), no throttle (the model applies
// log.cleaner.io.max.bytes.per.second itself), verification off.
func calibrationExperiment(o CalibrateOptions, logBytes int64, threads int) (lab.Experiment, error) {
	e := lab.DefaultExperiment()
	e.Workload.KeyBytes, e.Workload.ValueBytes, e.Workload.RecordsPerBatch = o.KeyBytes, o.ValueBytes, o.RecordsPerBatch
	e.Workload.LogBytes = logBytes * int64(threads)
	e.Workload.Partitions = threads
	if o.DirtyRatio > 0 && o.DirtyRatio < 1 {
		e.Workload.DirtyRatio = o.DirtyRatio
	}
	e.Workload.TombstoneRatio = o.TombstoneRatio
	r := RecordBytes(o.KeyBytes, o.ValueBytes, o.RecordsPerBatch, false)
	e.Workload.Keys = max(int64(math.Ceil((1-e.Workload.DirtyRatio)*float64(logBytes)/r*1.002)), 1000) * int64(threads)
	if need := int64(len(workloads.KeyPrefix) + len(fmt.Sprint(e.Workload.Keys-1))); int64(o.KeyBytes) < need {
		return e, fmt.Errorf("sizing: calibration: %d-byte keys cannot hold %d key ids (need %d bytes)", o.KeyBytes, e.Workload.Keys, need)
	}
	e.Cleaner = calibrationCleaner(o, threads)
	e.Cleaner.MaxIOBytesPerSecond = 0
	e.Verify = false
	return e, nil
}

func maxOf(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func minOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	m := v[0]
	for _, x := range v[1:] {
		m = min(m, x)
	}
	return m
}

// ValidateOptions configure a validation.
type ValidateOptions struct {
	// Dir is the parent of the data directory ("": the OS temp dir).
	Dir string
	// LogBytes is the scaled-down log, all partitions. Default 48 MiB.
	LogBytes int64
	// Cleaner is the configured cleaner (layout, hasher, I/O path). The
	// zero config: engine.DefaultCleanerConfig(); any other is taken as it
	// is (the validation cleans with one thread whatever its Threads).
	Cleaner engine.CleanerConfig
	// Calibration is required: the predicted times come from it.
	Calibration *Calibration
	// Repetitions of each measured configuration; the fastest is
	// compared. Default 3.
	Repetitions int
	// Recalibrate, when set, runs one calibration run before each
	// repetition (interleaved, so both see the same machine load) and the
	// predictions use the fastest of them instead of Calibration.
	Recalibrate *CalibrateOptions
	// Busy is the interference hook of CalibrateOptions.Busy, called around
	// each measured configuration's run; a repetition judged busy or
	// unusable is recorded (ValidationRun.Verdicts) and not compared unless
	// every repetition was. nil: lab.InterferenceHook, unless NoVerdict.
	Busy func() (end func() (verdict string, record json.RawMessage))
	// NoVerdict leaves Busy nil: no interference verdict.
	NoVerdict bool
	// Log receives progress lines; nil: none.
	Log func(format string, args ...any)
}

// Validate runs the advice's configuration and one step below it (a map
// holding 60% of the dirty keys) on a scaled-down log of w: each partition's
// keys scaled by s = LogBytes / (the workload's log), the dedupe buffer by
// the same s, so the keys-per-buffer ratio is the workload's. Each run
// generates the log (the base holding every key once, the head at
// min.cleanable.dirty.ratio, uniform writes as the workload), warms the page
// cache, and cleans every partition with one thread, again and again,
// until a clean ends without a full map; passes and clean time (the
// cleans' wall times summed, the mean over partitions; the fastest of
// o.Repetitions runs, as the calibration takes its fastest) are measured. The
// predictions are the advisor's model at the scaled size.
func Validate(ctx context.Context, w Workload, o ValidateOptions) (*Validation, error) {
	if err := w.Validate(); err != nil {
		return nil, err
	}
	if o.Calibration == nil && o.Recalibrate == nil {
		return nil, fmt.Errorf("sizing: validate needs a calibration")
	}
	if o.Busy == nil && !o.NoVerdict {
		o.Busy = lab.InterferenceHook("")
	}
	if o.Cleaner == (engine.CleanerConfig{}) {
		o.Cleaner = engine.DefaultCleanerConfig()
	}
	if o.LogBytes == 0 {
		o.LogBytes = 48 << 20
	}
	if o.Repetitions <= 0 {
		o.Repetitions = 3
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
	if w.Distribution != workloads.DistributionUniform {
		return nil, fmt.Errorf("sizing: validate: --distribution %s: the model's pass count is exact for uniform writes only", w.Distribution)
	}
	full := headOfWorkload(w)
	fullLog := (full.cleanBytes + full.dirtyBytes) * float64(w.Partitions)
	s := math.Min(1, float64(o.LogBytes)/fullLog)
	k := int64(math.Max(64, math.Round(full.partKeys*s)))
	s = float64(k) / full.partKeys
	sw := w
	sw.Keys = k * int64(w.Partitions)
	sw.WriteBytesPerSecond, sw.MaxCompactionLagMs = 0, math.MaxInt64
	scaled := headOfWorkload(sw)
	info, err := layoutInfo(o.Cleaner.OffsetMap, o.Cleaner.Hasher)
	if err != nil {
		return nil, err
	}
	lf := o.Cleaner.LoadFactor
	// The recommendation at full size holds ceil(K/lf) entries (rounded up to
	// a MiB); scaled, the same ratio of keys per entry.
	fullEntries := float64(roundUpMiB(int64(math.Ceil(full.keys/lf))*int64(info.EntryBytes))) / float64(info.EntryBytes)
	fullEntries = math.Min(fullEntries, float64(MaxPerThreadBuffer/info.EntryBytes))
	recEntries := int64(math.Ceil(fullEntries * s))
	belowEntries := int64(math.Ceil(0.6 * scaled.keys / lf))
	v := &Validation{Scale: s}
	type config struct {
		name     string
		buf      int64 // the map's table
		share    int64 // the one thread's dedupe buffer: the table and its map sort buffer
		maxKeys  int
		times    []float64
		verdicts []string
		passes   int
		cal      *Calibration   // the fastest of the calibration runs
		cals     []*Calibration // each repetition's (Recalibrate)
	}
	var cfgs []*config
	for _, c := range []struct {
		name    string
		entries int64
	}{{"recommended", recEntries}, {"one step below (60% of the dirty keys)", belowEntries}} {
		buf := c.entries * int64(info.EntryBytes)
		cfgs = append(cfgs, &config{name: c.name, buf: buf, share: validationShare(o.Cleaner, buf), maxKeys: info.MaxKeys(int(buf), lf)})
	}
	// Repetitions interleave a calibration run (when asked) with one run of
	// each configuration, so that both see the same load on the machine;
	// each configuration's calibration runs its map at its fill (the keys
	// of a pass over its keys per pass), since a map's size and fill set
	// its cost per key.
	for _, c := range cfgs {
		c.cal = o.Calibration
	}
	for rep := 0; rep < o.Repetitions; rep++ {
		if o.Recalibrate != nil {
			for _, c := range cfgs {
				co := *o.Recalibrate
				co.Runs, co.MaxRuns, co.Threads = 1, 1, 0
				co.MapBytes = c.share
				co.MapFill = scaled.meanPassFill(c.maxKeys)
				co.DirtyRatio = scaled.dirtyBytes / (scaled.cleanBytes + scaled.dirtyBytes)
				co.TombstoneRatio = w.TombstoneRatio
				cal, err := Calibrate(ctx, co)
				if err != nil {
					return nil, err
				}
				c.cals = append(c.cals, cal)
				if rep == 0 {
					c.cal = cal
				} else {
					c.cal = mergeFastest(c.cal, cal)
				}
			}
		}
		for _, c := range cfgs {
			o.Log("validate %d/%d %s: %d keys, %d partitions, dedupe buffer %d bytes a thread (%d keys per pass)\n", rep+1, o.Repetitions, c.name, sw.Keys, w.Partitions, c.share, c.maxKeys)
			var passes int
			var secs float64
			verdict, _, err := judged(o.Busy, func() (err error) {
				passes, secs, err = measureCleans(ctx, sw, scaled, c.share, o)
				return err
			})
			if err != nil {
				return nil, err
			}
			c.passes = max(c.passes, passes)
			c.times = append(c.times, secs)
			c.verdicts = append(c.verdicts, verdict)
		}
	}
	v.Calibration = cfgs[0].cal
	for _, c := range cfgs {
		var usable []float64
		for i, t := range c.times {
			if usableVerdict(c.verdicts[i]) {
				usable = append(usable, t)
			}
		}
		run := ValidationRun{Name: c.name, DedupeBufferBytes: c.share, Keys: sw.Keys, PassesMeasured: c.passes, CleanSecondsMeasured: minOf(c.times), CleanSecondsSamples: c.times}
		if o.Busy != nil {
			run.Verdicts = c.verdicts
			if len(usable) > 0 {
				run.CleanSecondsMeasured = minOf(usable)
			} else {
				run.AllBusy = true
			}
		}
		run.PassesPredicted = scaled.passesFor(c.maxKeys)
		pr := predictValidation(c.cal, scaled, w.Partitions, c.maxKeys, clearBytes(info, c.buf), o.Cleaner.MaxIOBytesPerSecond)
		pr.fill(&run, c.cal)
		if m := run.CleanSecondsMeasured; m > 0 {
			run.CleanSecondsError = (run.CleanSecondsPredicted - m) / m
		}
		// Each repetition's prediction from the calibration run just
		// before it: how far the calibration's own noise moves the figure.
		if len(c.cals) == len(c.times) {
			for _, cal := range c.cals {
				p := predictValidation(cal, scaled, w.Partitions, c.maxKeys, clearBytes(info, c.buf), o.Cleaner.MaxIOBytesPerSecond)
				run.CleanSecondsPredictedSamples = append(run.CleanSecondsPredictedSamples, p.predicted)
			}
		}
		v.Runs = append(v.Runs, run)
	}
	r := v.Runs[0]
	v.PassesPredicted, v.PassesMeasured = r.PassesPredicted, r.PassesMeasured
	v.CleanSecondsPredicted, v.CleanSecondsMeasured, v.CleanSecondsError = r.CleanSecondsPredicted, r.CleanSecondsMeasured, r.CleanSecondsError
	return v, nil
}

// prediction is the model's clean time of a validated configuration.
type prediction struct {
	unthrottled, predicted, tail, throttle float64
}

// fill sets run's predicted figures and the rates they came from.
func (p prediction) fill(run *ValidationRun, cal *Calibration) {
	run.CleanSecondsUnthrottled, run.CleanSecondsPredicted = p.unthrottled, p.predicted
	run.ThrottleTailSeconds, run.ThrottleBytesPerSecond = p.tail, p.throttle
	run.MapBuildBytesPerSecond, run.CopyBytesPerSecond = cal.MapBuildBytesPerSecond, cal.CopyBytesPerSecond
}

// predictValidation is the model's mean clean time per partition of the
// scaled workload h over partitions, as measureCleans runs the cleans: one
// thread, partition after partition, pass after pass, back to back
// through the one throttle of the manager (throttle <= 0: none).
func predictValidation(cal *Calibration, h head, partitions, maxKeys int, clear int64, throttle float64) prediction {
	var seq [][]Phase
	chunks := h.chunksFor(maxKeys)
	var rem int64
	for _, ch := range chunks {
		rem += ch.Bytes
	}
	for _, ch := range chunks {
		rem -= ch.Bytes
		ph := cal.passPhases(h.cleanBytes, float64(ch.Bytes), float64(rem), h.segBytes, clear)
		for p := 0; p < partitions; p++ {
			seq = append(seq, ph)
		}
	}
	unthrottled := 0.0
	for _, ph := range seq {
		t, _ := phaseSums(ph)
		unthrottled += t
	}
	out := prediction{unthrottled: unthrottled / float64(partitions)}
	out.predicted = out.unthrottled
	if throttle > 0 {
		// Averaged over the clean's own speed spread, as
		// ExpectedKafkaThrottledSeconds.
		total := expectedOverSpread(func(scale float64) float64 {
			th := newThrottleSim(throttle)
			total := 0.0
			for i, ph := range seq {
				if i > 0 {
					th.idle(cal.CleanGapSeconds) // between cleans: the throttle's clock runs
				}
				for _, p := range ph {
					p.Seconds *= scale
					total += th.run(p)
				}
			}
			return total
		})
		// The last period (< 300 ms of work) is never slept for: where
		// the checks fall moves up to this much, per partition.
		fast := 0.0
		for _, ph := range seq {
			for _, p := range ph {
				if p.Seconds > 0 {
					fast = math.Max(fast, p.Bytes/p.Seconds)
				}
			}
		}
		out.tail = math.Max(0, float64(iosched.KafkaCheckIntervalMs)/1000*(fast/throttle-1)) / float64(partitions)
		out.predicted = total / float64(partitions)
		out.throttle = throttle
	}
	return out
}

// mergeFastest keeps the fastest rates of two calibrations (and both's
// samples and verdicts); runs judged busy are left out unless all were.
func mergeFastest(a, b *Calibration) *Calibration {
	m := *b
	m.MapBuildSamples = append(append([]float64(nil), a.MapBuildSamples...), b.MapBuildSamples...)
	m.CopySamples = append(append([]float64(nil), a.CopySamples...), b.CopySamples...)
	if len(a.RunVerdicts) == len(a.MapBuildSamples) && len(b.RunVerdicts) == len(b.MapBuildSamples) {
		m.RunVerdicts = append(append([]string(nil), a.RunVerdicts...), b.RunVerdicts...)
		m.Interference = append(append([]json.RawMessage(nil), a.Interference...), b.Interference...)
	} else {
		m.RunVerdicts, m.Interference = nil, nil
	}
	var mapOK, copyOK []float64
	for i := range m.MapBuildSamples {
		if i >= len(m.RunVerdicts) || usableVerdict(m.RunVerdicts[i]) {
			mapOK, copyOK = append(mapOK, m.MapBuildSamples[i]), append(copyOK, m.CopySamples[i])
		}
	}
	m.UsableRuns, m.Runs = len(mapOK), len(m.MapBuildSamples)
	m.Verdict = b.Verdict
	if len(mapOK) == 0 {
		mapOK, copyOK = m.MapBuildSamples, m.CopySamples
		if len(m.RunVerdicts) > 0 {
			m.Verdict = "busy"
		}
	} else if len(m.RunVerdicts) > 0 {
		m.Verdict = "quiet"
	}
	m.MapBuildBytesPerSecond = maxOf(mapOK)
	m.CopyBytesPerSecond = maxOf(copyOK)
	m.MapClearBytesPerSecond = max(a.MapClearBytesPerSecond, b.MapClearBytesPerSecond)
	m.CleanOverheadSeconds = min(a.CleanOverheadSeconds, b.CleanOverheadSeconds)
	m.CleanGapSeconds = min(a.CleanGapSeconds, b.CleanGapSeconds)
	return &m
}

// measureCleans generates the scaled workload and cleans it to the end
// with one thread of o.Cleaner whose dedupe buffer is bufferBytes
// (oneThreadCleaner: one thread's map sort buffer taken out of it); it
// returns the largest pass count of a partition and the mean over
// partitions of the summed clean wall times.
func measureCleans(ctx context.Context, w Workload, h head, bufferBytes int64, o ValidateOptions) (int, float64, error) {
	p, s, _, err := measureCleansGap(ctx, w, h, bufferBytes, o)
	return p, s, err
}

// measureCleansGap is measureCleans, with the mean time between the cleans
// of a round that is no clean's (CleanEach's grab, checkpoint and hand-over:
// time Kafka's throttle counts as elapsed).
func measureCleansGap(ctx context.Context, w Workload, h head, bufferBytes int64, o ValidateOptions) (int, float64, float64, error) {
	spec := workloads.DefaultSpec()
	spec.Keys, spec.KeyBytes, spec.ValueBytes, spec.RecordsPerBatch = w.Keys, w.KeyBytes, w.ValueBytes, w.RecordsPerBatch
	spec.Partitions, spec.Distribution, spec.TombstoneRatio = w.Partitions, w.Distribution, w.TombstoneRatio
	spec.DirtyRatio = w.MinCleanableDirtyRatio
	// The base holds every key once: C = k x r, the head D = C R / (1 - R).
	// (0.1% short, so the base never needs more keys than the partition has.)
	spec.LogBytes = int64((h.cleanBytes + h.dirtyBytes) * float64(w.Partitions) * 0.999)
	if w.SegmentBytes > 0 {
		spec.SegmentBytes = w.SegmentBytes
	}
	return CleanToEnd(ctx, spec, oneThreadCleaner(o.Cleaner, bufferBytes), o.Dir)
}

// oneThreadCleaner is cc as the one cleaner thread of a validation run
// with a dedupe buffer of shareBytes: its map sort buffer is one of cc's
// threads' (MapSortBufferBytes / Threads), so that the run's map is the
// one a thread of cc has.
func oneThreadCleaner(cc engine.CleanerConfig, shareBytes int64) engine.CleanerConfig {
	cc.MapSortBufferBytes /= int64(max(cc.Threads, 1))
	cc.Threads = 1
	cc.DedupeBufferBytes = shareBytes
	return cc
}

// validationShare is the dedupe buffer of a validation run whose map's
// table is tableBytes (the model's map of the configuration validated):
// tableBytes with one thread's map sort buffer carved out of it as the
// cleaner carves it (engine.CleanerConfig.PerThreadMapBytesForTable);
// tableBytes itself without a sort buffer.
func validationShare(cc engine.CleanerConfig, tableBytes int64) int64 {
	return oneThreadCleaner(cc, 0).PerThreadMapBytesForTable(tableBytes)
}

// CleanToEnd generates spec in a fresh directory under parent ("": the OS
// temp dir; removed after), opens its logs, warms their page cache, and
// cleans every partition with one cleaner thread of cc (its map
// pre-faulted first), round after round, until a round's cleans end
// without a full map. It returns the largest pass count of a partition,
// the mean over partitions of the summed clean wall times (seconds), and
// the mean time per clean between a round's cleans that is no clean's
// (the manager's grab, checkpoint and hand-over). Errors: the generation,
// an open, a clean.
func CleanToEnd(ctx context.Context, spec workloads.Spec, cc engine.CleanerConfig, parent string) (passes int, meanSecs, gapSecs float64, err error) {
	root, err := os.MkdirTemp(parent, "cleanerlab-validate-")
	if err != nil {
		return 0, 0, 0, fmt.Errorf("sizing: validate: %w", err)
	}
	defer os.RemoveAll(root)
	cfg := engine.DefaultLogConfig()
	cfg.FileDeleteDelayMs = 0
	gen, err := workloads.Generate(filepath.Join(root, "data"), spec, cfg, nil)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("sizing: validate: %w", err)
	}
	var logs []*engine.Log
	defer func() {
		for _, l := range logs {
			l.Close()
		}
	}()
	for _, d := range gen.Dirs {
		l, err := engine.Open(d, engine.Options{Config: &gen.LogConfig})
		if err != nil {
			return 0, 0, 0, err
		}
		logs = append(logs, l)
		if err := l.LoadProducerState(); err != nil {
			return 0, 0, 0, err
		}
	}
	if _, err := lab.SetCache(logs, lab.CacheWarm, false); err != nil {
		return 0, 0, 0, err
	}
	m, err := lab.NewCleanManager(logs, cc, engine.CleanerOptions{})
	if err != nil {
		return 0, 0, 0, fmt.Errorf("sizing: validate: %w", err)
	}
	lab.PrefaultMaps(m, cc)
	tally := NewPassTally(len(logs))
	var gapSum float64
	var gapN int
	for round := 0; round < 1000; round++ {
		t0 := time.Now()
		stats, err := lab.CleanEach(ctx, m)
		wall := time.Since(t0).Seconds()
		if err != nil {
			return 0, 0, 0, err
		}
		inRound, n := 0.0, 0
		for _, st := range stats {
			if st.Cleaned() {
				inRound += st.ElapsedTime().Seconds()
				n++
			}
		}
		if n > 0 && wall > inRound {
			gapSum += (wall - inRound) / float64(n)
			gapN++
		}
		if tally.Add(stats) {
			break
		}
	}
	maxPasses, mean := tally.Result()
	if gapN > 0 {
		gapSecs = gapSum / float64(gapN)
	}
	return maxPasses, mean, gapSecs, nil
}

// PassTally counts the passes and clean seconds of cleans of several logs
// repeated round after round until each log's clean ends without a full
// offset map (or cleans nothing): the passes a dirty section takes.
type PassTally struct {
	passes []int
	secs   []float64
	done   []bool
}

// NewPassTally tallies n logs.
func NewPassTally(n int) *PassTally {
	return &PassTally{passes: make([]int, n), secs: make([]float64, n), done: make([]bool, n)}
}

// Add takes one round's stats, one per log in order (extra ones are
// ignored), and reports whether every log is done.
func (t *PassTally) Add(stats []*engine.CleanStats) bool {
	for i, st := range stats {
		if i >= len(t.done) || t.done[i] {
			continue
		}
		if !st.Cleaned() {
			t.done[i] = true
			continue
		}
		t.passes[i]++
		t.secs[i] += st.ElapsedTime().Seconds()
		if !st.MapFull {
			t.done[i] = true
		}
	}
	for _, d := range t.done {
		if !d {
			return false
		}
	}
	return true
}

// Result returns the most passes any log took and the mean over the logs
// of their summed clean seconds.
func (t *PassTally) Result() (maxPasses int, meanSeconds float64) {
	sum := 0.0
	for i := range t.passes {
		maxPasses = max(maxPasses, t.passes[i])
		sum += t.secs[i]
	}
	if len(t.passes) == 0 {
		return 0, 0
	}
	return maxPasses, sum / float64(len(t.passes))
}

// clearBytes is what one pass's Clear zero-fills: the per-thread map for
// layouts without an O(1) clear, else 0.
func clearBytes(info offsetmap.LayoutInfo, perThread int64) int64 {
	if info.ClearIsConstant {
		return 0
	}
	return perThread
}

// ReadFreshCalibration returns the cached calibration for o's cleaner and
// record shape when it is fresh, without measuring; otherwise nil and a
// note saying why and how to measure one.
func ReadFreshCalibration(o CalibrateOptions) (*Calibration, string, error) {
	o.defaults()
	path := o.path()
	c, err := ReadCalibration(path)
	if err != nil {
		return nil, "", err
	}
	env, _ := results.CaptureEnvironment(o.Out)
	why := c.Stale(time.Now(), o.MaxAge, env, layoutName(o.Cleaner.OffsetMap), string(o.Cleaner.Hasher), ioName(o.Cleaner.IOPath))
	if why == "" {
		why = o.settingsStale(c)
	}
	if why != "" {
		return nil, fmt.Sprintf("none used (%s: %s); --calibrate measures one, so clean times can be predicted", path, why), nil
	}
	return c, "cached " + path + " (measured " + c.MeasuredAt.Format(time.RFC3339) + ")", nil
}

// judged runs f between the two calls of the interference hook busy
// (CalibrateOptions.Busy), and returns the verdict and record the hook
// gives ("" and nil without a hook) with f's error.
func judged(busy func() func() (string, json.RawMessage), f func() error) (string, json.RawMessage, error) {
	if busy == nil {
		return "", nil, f()
	}
	end := busy()
	err := f()
	verdict, rec := end()
	return verdict, rec, err
}
