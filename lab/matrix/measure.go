package matrix

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/cleanerlab/cleanerlab/lab/sizing"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// measureScaled measures the clean of a row the model does not cover
// (compressed batches, transactions, a non-uniform distribution) the way
// sizing.Validate measures the others, so its figures sit in the same
// columns: each partition's keys scaled by s = ValidateLogBytes / the
// workload's log (the row's own ValidateLogBytes when set; at least 64 keys), the advised per-thread buffer by the
// same s (or 60% of the scaled dirty keys for MeasureBelow); the log
// generated with the row's codec and transactions (base holding every key
// once, head at the trigger ratio), the page cache warmed, every partition
// cleaned by one thread until a clean ends without a full map. It returns
// the largest pass count of a partition, the mean over partitions of the
// summed clean wall times (the fastest of ValidateRuns), s and the buffer.
func measureScaled(ctx context.Context, r Row, a *sizing.Advice, o Options) (passes int, secs, scale float64, buf int64, err error) {
	w := r.Workload
	c, d, k, rb := a.Inputs["clean_bytes_per_partition"], a.Inputs["dirty_bytes_at_trigger"], a.Inputs["keys_per_partition"], a.Inputs["record_bytes"]
	if c <= 0 || d <= 0 || k <= 0 || rb <= 0 {
		return 0, 0, 0, 0, fmt.Errorf("matrix: row %s: advice without the head's inputs", r.Name)
	}
	ratio := w.MinCleanableDirtyRatio
	if eff := lagRatio(a); eff > 0 {
		ratio = eff
	}
	fullLog := (c + d) * float64(w.Partitions)
	s := math.Min(1, float64(o.validateBytes(r))/fullLog)
	ks := int64(math.Max(64, math.Round(k*s)))
	s = float64(ks) / k
	var entry int
	for _, la := range a.Layouts {
		if la.Layout == a.Layout {
			entry = la.EntryBytes
		}
	}
	if entry == 0 || a.Threads < 1 {
		return 0, 0, 0, 0, fmt.Errorf("matrix: row %s: advice without its layout %q", r.Name, a.Layout)
	}
	lf := o.Cleaner.LoadFactor
	if r.Measure == MeasureBelow {
		cs := float64(ks) * rb
		ds := cs * ratio / (1 - ratio)
		keys := sizing.ExpectedDistinct(float64(ks), ds/rb)
		buf = int64(math.Ceil(0.6*keys/lf)) * int64(entry)
	} else {
		per := float64(a.PerThreadMapTableBytes()) / float64(entry)
		buf = int64(math.Ceil(per*s)) * int64(entry)
	}
	spec := workloads.DefaultSpec()
	spec.Keys, spec.KeyBytes, spec.ValueBytes, spec.RecordsPerBatch = ks*int64(w.Partitions), w.KeyBytes, w.ValueBytes, w.RecordsPerBatch
	spec.Partitions, spec.Distribution, spec.TombstoneRatio = w.Partitions, w.Distribution, w.TombstoneRatio
	spec.Codec = r.Codec
	spec.Txn.Ratio, spec.Txn.AbortRatio = r.TxnRatio, r.TxnAbortRatio
	spec.DirtyRatio = ratio
	spec.SegmentBytes = w.SegmentBytes
	logBytes := float64(ks) * rb / (1 - ratio) * float64(w.Partitions) * 0.999
	// buf so far is the table; the dedupe buffer holds one thread's map
	// sort buffer besides (engine.CleanerConfig.DedupeBufferBytesForTable).
	cc := o.Cleaner
	cc.MapSortBufferBytes /= int64(max(cc.Threads, 1))
	cc.Threads, cc.MaxIOBytesPerSecond = 1, r.MaxIOBytesPerSecond
	buf = cc.DedupeBufferBytesForTable(buf)
	cc.DedupeBufferBytes = buf
	best := math.Inf(1)
	for rep := 0; rep < o.ValidateRuns; rep++ {
		o.Log("measure %d/%d %s (not modelled): %d keys, %d partitions, dedupe buffer %d bytes\n", rep+1, o.ValidateRuns, r.Name, spec.Keys, w.Partitions, buf)
		var p int
		var t float64
		// A compressed base holds fewer bytes per key than the model's
		// record: shrink the log until the keys fill its base.
		for try := 0; ; try++ {
			spec.LogBytes = int64(logBytes)
			p, t, _, err = sizing.CleanToEnd(ctx, spec, cc, o.Dir)
			if err == nil || try == 4 || !errors.Is(err, workloads.ErrDirtyRatioUnreachable) {
				break
			}
			logBytes *= 0.85
		}
		if err != nil {
			return 0, 0, 0, 0, fmt.Errorf("matrix: row %s: %w", r.Name, err)
		}
		passes = max(passes, p)
		best = math.Min(best, t)
	}
	return passes, best, s, buf, nil
}
