package sizing

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/lab/topicconfig"
	"github.com/cleanerlab/cleanerlab/results"
)

// WritePlanTable writes p as the table "cleanerlab plan" prints: a
// header with the time and the cleaner config, calNote (the calibration's
// status, omitted when empty), one row per partition (sizes in
// results.FormatBytes, shares in percent, PREDICTED a model prediction in
// seconds or "-"), each partition's reason it is not cleanable, the totals,
// the cleaning order and the warnings.
func WritePlanTable(w io.Writer, p *Plan, calNote string) {
	c := p.Cleaner
	fmt.Fprintf(w, "plan of %s at %s (read-only)\n", p.Dir, time.UnixMilli(p.NowMs).UTC().Format(time.RFC3339))
	each := results.FormatBytes(c.PerThreadMapBytes()) + " each"
	if sb := c.MapSortBufferBytesPerThread; sb > 0 {
		// The keys per pass are the table's: say what it is.
		each += fmt.Sprintf(": table %s + map sort buffer %s", results.FormatBytes(c.PerThreadMapBytes()-sb), results.FormatBytes(sb))
	}
	fmt.Fprintf(w, "cleaner: %d thread(s), log.cleaner.dedupe.buffer.size %s (%s, %s/%s map, %d B/entry: %d keys per pass at load factor %g)\n",
		c.Threads, results.FormatBytes(c.DedupeBufferBytes), each, c.OffsetMap, c.Hasher, c.EntryBytes, c.MaxKeysPerPass, c.LoadFactor)
	if calNote != "" {
		fmt.Fprintf(w, "calibration: %s\n", calNote)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PARTITION\tPOLICY\tSIZE\tCLEAN\tDIRTY\tRATIO\tDIRTY RANGE\tBOUND\tDIRTY KEYS\tTOMB\tCTRL\tPASSES\tORDER\tPREDICTED")
	for _, pt := range p.Partitions {
		keys := fmt.Sprint(pt.DirtyKeys)
		if pt.DirtyKeysEstimate {
			keys = fmt.Sprintf("~%d ±%.2f%%", pt.DirtyKeys, 100*pt.DirtyKeysError)
		}
		passes := fmt.Sprint(pt.Passes)
		if pt.PassesEstimate {
			passes = ">=" + passes
		}
		order := "-"
		if pt.Order > 0 {
			order = fmt.Sprint(pt.Order)
		}
		pred := "-"
		if pt.PredictedCleanSeconds != nil {
			pred = fmt.Sprintf("%.3f s", *pt.PredictedCleanSeconds)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.3f\t[%d, %d)\t%s\t%s\t%.1f%%\t%.1f%%\t%s\t%s\t%s\n", pt.Name, policyLabel(pt), results.FormatBytes(pt.SizeBytes),
			results.FormatBytes(pt.CleanBytes), results.FormatBytes(pt.DirtyBytes), pt.CleanableRatio, pt.FirstDirtyOffset, pt.FirstUncleanableOffset, orDash(pt.UncleanableBound),
			keys, 100*pt.TombstoneShare, 100*pt.ControlShare, passes, order, pred)
	}
	tw.Flush()
	for _, pt := range p.Partitions {
		if pt.NotCleanable != "" {
			fmt.Fprintf(w, "  %s: %s\n", pt.Name, pt.NotCleanable)
		}
	}
	t := p.Totals
	keys := fmt.Sprint(t.DirtyKeys)
	if t.DirtyKeysEstimate {
		keys = "~" + keys + " (partly estimated)"
	}
	fmt.Fprintf(w, "totals: %d partitions (%d eligible now, %d uncleanable), %s, %s clean, %s dirty, %s dirty keys, %d passes\n",
		t.Partitions, t.Eligible, t.Uncleanable, results.FormatBytes(t.SizeBytes), results.FormatBytes(t.CleanBytes), results.FormatBytes(t.DirtyBytes), keys, t.Passes)
	if len(p.Order) > 0 {
		fmt.Fprintf(w, "order Kafka's manager would clean them in (filthiest first): %s\n", strings.Join(p.Order, ", "))
	}
	if t.PredictedCleanSeconds != nil {
		thr := ""
		if c.MaxIOBytesPerSecond > 0 {
			thr = fmt.Sprintf(" through log.cleaner.io.max.bytes.per.second %s/s (each partition's clean isolated; all of them at least their read + written bytes / the rate)", results.FormatBytes(int64(c.MaxIOBytesPerSecond)))
		}
		fmt.Fprintf(w, "predicted clean time of the eligible partitions with %d thread(s)%s: %.3f s (a model prediction from the calibration%s)\n", c.Threads, thr, *t.PredictedCleanSeconds, cacheScope(p.PredictedCache))
	}
	for _, wn := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
}

func policyLabel(pt Partition) string {
	if pt.Policy == "" {
		return `""`
	}
	if pt.PolicySource == topicconfig.SourceAssumed {
		return pt.Policy + "?"
	}
	return pt.Policy
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cacheScope is the plan's label of its predicted clean times: the page
// cache they hold for ("" when unknown).
func cacheScope(cache string) string {
	if cache == "" {
		return ""
	}
	from := "disk"
	if cache == "warm" {
		from = "memory"
	}
	return fmt.Sprintf("; scope: %s page cache, as the calibration's runs: this and the PREDICTED column assume the segments are read from %s", cache, from)
}

// orUnknown is s, or "unknown" when empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// WriteAdviceTable writes a as the table "cleanerlab advise" prints: the
// recommended log.cleaner.dedupe.buffer.size per layout, threads and I/O
// buffer, the clean time (from cal, or "-" with calNote when cal is nil),
// dirty ratios, memory, Kafka's rule of thumb, the model inputs sorted by
// name, the formulas, the notes and, when a.Validation is set, predicted
// against measured figures. cc is the cleaner config in force (its
// log.cleaner.dedupe.buffer.size is shown as "now"). Every figure is a
// model prediction except the validation's measured columns.
func WriteAdviceTable(w io.Writer, a *Advice, cc engine.CleanerConfig, calNote string, cal *Calibration) {
	fmt.Fprintf(w, "advice from the %s (a MODEL PREDICTION from the inputs below, not a measurement)\n", a.Source)
	var chosen LayoutAdvice
	for _, la := range a.Layouts {
		if la.Layout == a.Layout {
			chosen = la
		}
	}
	parts := ""
	if table := a.PerThreadMapTableBytes(); table < a.PerThreadMapBytes() {
		// The keys per pass are the table's: say what it is.
		parts = fmt.Sprintf("per thread table %s + map sort buffer %s, ", results.FormatBytes(table), results.FormatBytes(a.PerThreadMapBytes()-table))
	}
	fmt.Fprintf(w, "  log.cleaner.dedupe.buffer.size  %s  (%s/%s map, %d B/entry, %s%d keys per pass per thread: %d pass(es) per clean; now %s gives %d)\n",
		results.FormatBytes(a.DedupeBufferBytes), chosen.Layout, chosen.Hasher, chosen.EntryBytes, parts, chosen.MaxKeysPerPass, a.Passes, results.FormatBytes(cc.DedupeBufferBytes), a.CurrentPasses)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "    layout\thasher\tB/entry\tbuffer\tkeys/pass/thread\tpasses\tP(collision) per pass")
	for _, la := range a.Layouts {
		fmt.Fprintf(tw, "    %s\t%s\t%d\t%s\t%d\t%d\t%.2g\n", la.Layout, la.Hasher, la.EntryBytes, results.FormatBytes(la.DedupeBufferBytes), la.MaxKeysPerPass, la.Passes, la.CollisionProbability)
	}
	tw.Flush()
	fmt.Fprintf(w, "  log.cleaner.threads             %d  (%s)\n", a.Threads, a.ThreadsReason)
	fmt.Fprintf(w, "  log.cleaner.io.buffer.size      %s  (%s read + %s write buffer per thread)\n", results.FormatBytes(a.IOBufferBytes),
		results.FormatBytes(a.PerThreadIOBufferBytes()), results.FormatBytes(a.PerThreadIOBufferBytes()))
	fmt.Fprintf(w, "  thread speeds                   %s", a.ThreadsCurve)
	if len(a.ThreadSpeedups) > 0 {
		var sp []string
		for i, v := range a.ThreadSpeedups {
			sp = append(sp, fmt.Sprintf("%d: %.2f", i+1, v))
		}
		fmt.Fprintf(w, "; aggregate speed of n threads / one: %s", strings.Join(sp, ", "))
	}
	fmt.Fprintln(w)
	if cal != nil {
		fmt.Fprintf(w, "  clean time per partition        %.3f s  (scope: %s page cache; calibration: map build %s/s, copy %s/s; %s)\n", a.CleanSeconds, orUnknown(cal.Cache),
			results.FormatBytes(int64(cal.MapBuildBytesPerSecond)), results.FormatBytes(int64(cal.CopyBytesPerSecond)), calNote)
		if cal.Runs > 0 {
			within := "within"
			if !cal.SpreadWithinBound {
				within = "NOT within"
			}
			verdict := ""
			if cal.Verdict != "" {
				verdict = ", interference verdict " + cal.Verdict
			}
			spread := fmt.Sprintf("spread %.1f%% %s the %.1f%% bound", 100*cal.Spread, within, 100*cal.SpreadBound)
			if !cal.SpreadWithinBound && cal.UsableRuns < 2 {
				spread = fmt.Sprintf("spread not judged (too few usable runs for the %.1f%% bound)", 100*cal.SpreadBound)
			}
			fmt.Fprintf(w, "    calibration: %d run(s), %d usable, %s%s\n", cal.Runs, cal.UsableRuns, spread, verdict)
			if cal.Verdict == "busy" || cal.Verdict == "unusable" {
				fmt.Fprintf(w, "    WARNING: every calibration run was busy or unusable: the clean times here rest on rates bent by other load; measure again on a quieter machine (--calibrate)\n")
			}
		}
		if a.ThrottleBytesPerSecond > 0 {
			fmt.Fprintf(w, "    log.cleaner.io.max.bytes.per.second %s/s: %.3f s unthrottled; isolated %.3f s, back to back %.3f s; %s read + written per clean\n",
				results.FormatBytes(int64(a.ThrottleBytesPerSecond)), a.CleanSecondsUnthrottled, a.CleanSeconds, a.CleanSecondsBackToBack, results.FormatBytes(int64(a.ThrottledBytesPerClean)))
		}
	} else {
		fmt.Fprintf(w, "  clean time per partition        - (%s)\n", calNote)
	}
	if a.ThrottleUtilization > 0 {
		fmt.Fprintf(w, "  throttle utilization            %.3f (read + written bytes needed / log.cleaner.io.max.bytes.per.second)\n", a.ThrottleUtilization)
	}
	fmt.Fprintf(w, "  dirty ratio                     peak %.3f, mean %.3f\n", a.PeakDirtyRatio, a.MeanDirtyRatio)
	if a.MaxCompactionDelaySeconds > 0 {
		fmt.Fprintf(w, "  max compaction delay            %.1f s (closed form %.1f s)\n", a.MaxCompactionDelaySeconds, a.MaxCompactionDelayClosedFormSeconds)
	}
	if q := a.Queue; q != nil {
		fmt.Fprintf(w, "  queue                           %.2f partitions per thread, filthiest first, backoff %g s: max wait %.1f s, threads busy %.0f%%, %d cleans in the simulated steady %.0f s",
			a.PartitionsPerThread, a.Inputs["log_cleaner_backoff_ms"]/1000, q.MaxQueueWaitSeconds, 100*q.ThreadBusy, q.Cleans, q.SimulatedSeconds/2)
		if a.Alone != nil {
			fmt.Fprintf(w, " (alone: peak %.3f, mean %.3f, delay %.1f s)", a.Alone.PeakDirtyRatio, a.Alone.MeanDirtyRatio, a.Alone.MaxCompactionDelaySeconds)
		}
		fmt.Fprintln(w)
	}
	if a.FallsBehind {
		fmt.Fprintf(w, "  FALLS BEHIND                    %s\n", a.FallsBehindReason)
	} else if a.FallsBehindAboveWriteBytesPerSecond > 0 {
		fmt.Fprintf(w, "  keeps up below                  %s/s of writes (all partitions)\n", results.FormatBytes(int64(a.FallsBehindAboveWriteBytesPerSecond)))
	}
	fmt.Fprintf(w, "  memory                          %s (dedupe buffer, map sort buffer included, + I/O buffers)\n", results.FormatBytes(a.MemoryBytes))
	fmt.Fprintf(w, "Kafka's rule of thumb (24 bytes per entry, every dirty record a distinct key, no load factor; 8 GB cleans ~366 GB of head at 1 KiB messages): %s\n",
		results.FormatBytes(a.RuleOfThumbBufferBytes))
	fmt.Fprintln(w, "model inputs:")
	names := make([]string, 0, len(a.Inputs))
	for k := range a.Inputs {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		fmt.Fprintf(w, "  %-28s %.6g\n", k, a.Inputs[k])
	}
	fmt.Fprintln(w, "formulas:")
	for _, f := range a.Formulas {
		fmt.Fprintf(w, "  %s\n", f)
	}
	for _, n := range a.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if v := a.Validation; v != nil {
		how := fmt.Sprintf("fastest of %d runs each", len(v.Runs[0].CleanSecondsSamples))
		if len(v.Runs[0].CleanSecondsPredictedSamples) > 0 {
			how += ", each after a calibration run with its map at its fill; predicted from the fastest of those"
		}
		fmt.Fprintf(w, "validation at scale %.4g (keys per buffer kept; warm cache, one thread; measured now, %s):\n", v.Scale, how)
		for _, r := range v.Runs {
			if r.CopyBytesPerSecond > 0 {
				fmt.Fprintf(w, "  %s: predicted with map build %s/s, copy %s/s (calibrated with its map at its fill)\n", r.Name, results.FormatBytes(int64(r.MapBuildBytesPerSecond)), results.FormatBytes(int64(r.CopyBytesPerSecond)))
			}
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  run\tbuffer\tkeys\tpasses predicted\tmeasured\tclean s predicted\t(unthrottled)\tmeasured\terror\tverdicts")
		for _, r := range v.Runs {
			verdicts := "-"
			if len(r.Verdicts) > 0 {
				verdicts = strings.Join(r.Verdicts, ",")
				if r.AllBusy {
					verdicts += " (all busy: compared anyway)"
				}
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%.4f\t%.4f\t%.4f\t%+.1f%%\t%s\n", r.Name, results.FormatBytes(r.DedupeBufferBytes), r.Keys, r.PassesPredicted, r.PassesMeasured,
				r.CleanSecondsPredicted, r.CleanSecondsUnthrottled, r.CleanSecondsMeasured, 100*r.CleanSecondsError, verdicts)
		}
		tw.Flush()
		for _, r := range v.Runs {
			if r.ThrottleBytesPerSecond > 0 {
				fmt.Fprintf(w, "  %s: throttled at %s/s back to back; the throttle's last, unchecked period moves the figure by up to %.3f s per partition\n",
					r.Name, results.FormatBytes(int64(r.ThrottleBytesPerSecond)), r.ThrottleTailSeconds)
				if r.ThrottleTailSeconds > 0.2*max(r.CleanSecondsPredicted, r.CleanSecondsMeasured) {
					fmt.Fprintf(w, "  %s: WARNING: that is more than 20%% of the clean: this validation cannot judge the throttle; give a larger --validate-log-bytes, so that each partition's clean lasts many of Kafka's 300 ms throttle checks\n", r.Name)
				}
			}
		}
	}
}

// WarnKeyless writes, before a clean, a warning for every partition whose
// cleanup.policy no source states (assumed compact) and whose dirty section
// holds keyless records, which a compacting clean deletes. It reads the
// dirty sections with a read-only plan (clean sections unchecked); a nil
// set means no per-topic configs. It writes nothing when the plan fails:
// the clean that follows reports the problem itself, or when ctx is
// cancelled.
func WarnKeyless(ctx context.Context, w io.Writer, dir string, set *topicconfig.Set, cc engine.CleanerConfig) {
	if set == nil {
		set = &topicconfig.Set{}
	}
	p, err := MakePlan(ctx, dir, Options{Configs: set, Cleaner: cc, SkipCleanSectionCRC: true, KeylessOnly: true})
	if err != nil {
		return // the clean reports the problem itself
	}
	for _, pt := range p.Partitions {
		if pt.PolicySource == topicconfig.SourceAssumed && pt.KeylessRecords > 0 {
			fmt.Fprintf(w, "warning: %s: cleanup.policy is not known (no --server-config, --topic-config, metadata log or --cleanup.policy says it; compact assumed) and %d keyless records of its dirty section will be deleted by this clean\n",
				pt.Name, pt.KeylessRecords)
		}
	}
}
