package sizing

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/results"
)

// ThreadCurve is a measured contention curve: the aggregate cleaning
// throughput of 1..N cleaner threads cleaning at once, one partition each,
// on the calibration's directory (its disk), with the page cache in Cache.
type ThreadCurve struct {
	// Cache is "warm" or "cold" (cold: each segment dropped from the page
	// cache before the clean; lab.SetCache).
	Cache string `json:"cache"`
	// Points are 1..N threads, in order.
	Points []ThreadPoint `json:"points"`
	// Note says how the cold cache was made when drop_caches was asked for
	// ("" when by posix_fadvise DONTNEED per file alone).
	Note string `json:"note,omitempty"`
}

// ThreadPoint is one thread count of a ThreadCurve.
type ThreadPoint struct {
	Threads int `json:"threads"`
	// BytesPerSecond is the aggregate throughput: bytes read by all the
	// cleans (map build + copy) / the wall time of the clean phase, the
	// fastest usable repetition.
	BytesPerSecond float64 `json:"bytes_per_second"`
	// Samples are every repetition's figure; Spread as Calibration.Spread.
	Samples  []float64 `json:"samples"`
	Spread   float64   `json:"spread"`
	Verdicts []string  `json:"verdicts,omitempty"`
	// Interference holds the verdict hook's records, one per repetition.
	Interference []json.RawMessage `json:"interference,omitempty"`
}

// Speedup is the aggregate throughput of n threads over one thread's
// (Speedup(1) = 1). Past the last point, the last point's figure (more
// threads than measured are taken to add nothing); 0 for n < 1 or an
// unusable curve.
func (c *ThreadCurve) Speedup(n int) float64 {
	if c == nil || len(c.Points) == 0 || n < 1 || c.Points[0].BytesPerSecond <= 0 {
		return 0
	}
	i := min(n, len(c.Points)) - 1
	return c.Points[i].BytesPerSecond / c.Points[0].BytesPerSecond
}

// MaxThreads is the largest thread count measured.
func (c *ThreadCurve) MaxThreads() int {
	if c == nil || len(c.Points) == 0 {
		return 0
	}
	return c.Points[len(c.Points)-1].Threads
}

// Curve returns the calibration's contention curve for cache ("warm" or
// "cold"), nil when none was measured.
func (c *Calibration) Curve(cache string) *ThreadCurve {
	if c == nil {
		return nil
	}
	for i := range c.ThreadCurves {
		if c.ThreadCurves[i].Cache == cache {
			return &c.ThreadCurves[i]
		}
	}
	return nil
}

// measureThreadCurve runs 1..o.Threads threads at once, each cleaning its
// own partition of o.ThreadLogBytes (lab.Run: the dedupe buffers allocated
// and touched before the clock, no throttle), with the page cache in
// cache. Each thread count repeats as Calibrate's runs do: at least
// o.Runs, at most o.MaxRuns, until the fastest o.Runs usable runs agree
// within o.SpreadBound; runs o.Busy judges busy are recorded and left out.
func measureThreadCurve(ctx context.Context, o CalibrateOptions, cache lab.CacheState, out string) (*ThreadCurve, error) {
	curve := &ThreadCurve{Cache: string(cache)}
	for n := 1; n <= o.Threads; n++ {
		e, err := calibrationExperiment(o, o.ThreadLogBytes, n)
		if err != nil {
			return nil, err
		}
		e.Cache = cache
		pt := ThreadPoint{Threads: n}
		var usable []float64
		for i := 0; i < o.MaxRuns; i++ {
			e.Workload.Seed = uint64(100*n + i + 1)
			o.Log("thread curve (%s cache) %d thread(s), run %d: %d partition(s) of %s\n", cache, n, i+1, n, results.FormatBytes(o.ThreadLogBytes))
			var run *results.Run
			verdict, rec, err := judged(o.Busy, func() (err error) {
				run, err = lab.Run(ctx, e, lab.Options{Dir: o.Dir, Out: out, DropCaches: o.DropCaches, IDSuffix: fmt.Sprintf("-curve%s%d-%d", cache, n, i)})
				return err
			})
			if err != nil {
				return nil, fmt.Errorf("sizing: calibration (%d threads, %s cache): %w", n, cache, err)
			}
			if o.Busy != nil {
				pt.Interference = append(pt.Interference, rec)
			}
			pt.Verdicts = append(pt.Verdicts, verdict)
			for _, note := range run.Notes {
				// lab.SetCache's note on how the cold cache was made.
				if cache == lab.CacheCold && curve.Note == "" && (strings.HasPrefix(note, "cache:") || strings.HasPrefix(note, "drop_caches")) {
					curve.Note = note
				}
			}
			var bytes int64
			for _, st := range lab.Stats(run) {
				bytes += st.MapBytesRead + st.BytesRead
			}
			wall := run.Phases["clean"].Seconds()
			if wall <= 0 || bytes <= 0 {
				return nil, fmt.Errorf("sizing: calibration (%d threads, %s cache): no measurable clean (%d bytes in %v s)", n, cache, bytes, wall)
			}
			v := float64(bytes) / wall
			pt.Samples = append(pt.Samples, v)
			if usableVerdict(verdict) {
				usable = append(usable, v)
			}
			pt.Spread = Spread(usable, o.Runs)
			if len(usable) >= o.Runs && pt.Spread <= o.SpreadBound {
				break
			}
		}
		if len(usable) == 0 {
			usable = pt.Samples // every run busy: Verdicts say so
		}
		pt.BytesPerSecond = maxOf(usable)
		curve.Points = append(curve.Points, pt)
	}
	return curve, nil
}

// threadChoice is the advisor's thread count from a contention curve (or
// none): the fewest threads n <= bound whose aggregate speed Speedup(n)
// exceeds load (in single-thread units); when none does, the n of the
// largest speedup within the bound, and ok false.
func threadChoice(load float64, bound int, speedup func(int) float64) (n int, ok bool) {
	best, bestS := 1, 0.0
	for i := 1; i <= max(bound, 1); i++ {
		s := speedup(i)
		if s > load {
			return i, true
		}
		if s > bestS*(1+1e-9) {
			best, bestS = i, s
		}
	}
	return best, false
}

// linearSpeedup is "no curve: assumed": n threads are n times as fast.
func linearSpeedup(n int) float64 { return math.Max(float64(n), 0) }
