package lab

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results"
)

// hotFileName is the hot file a run with --hot-bytes keeps in the page
// cache beside its logs, to measure how much of it a clean evicts.
const hotFileName = "hot-set.bin"

// ioRun holds what a run does around its clean for issue 6's figures: the
// shared throttle, the baseline, and the hot set whose residency measures
// cache pollution.
type ioRun struct {
	throttler iosched.Throttler
	baseline  *iosched.Baseline
	hot       []hotFile
	hotBefore int64 // resident bytes of the hot set just before the clean
	hotAfter  int64 // and just after it
	// cleanedBytes and cleanedResident: the cleaned segments' bytes, and how
	// many of them were in the page cache just after the clean.
	cleanedBytes, cleanedResident int64
	stopHot                       func()
	closed                        bool
	notes                         []string
}

type hotFile struct {
	path string
	f    *os.File
	size int64
}

// prepareIO runs before the clean's counter snapshot: it gets the baseline
// (measured now with opt.Baseline, else the cached one of the data
// directory's device), makes the one throttle all cleaner threads share,
// writes and warms the hot set (every log's active segment, plus a hot file
// of cfg.HotBytes under root) and, with cfg.HotRereadMs, starts re-reading
// the hot file during the clean as a workload would.
func prepareIO(ctx context.Context, cfg *Experiment, opt Options, env results.Environment, root string, logs []*engine.Log, logw io.Writer) (*ioRun, error) {
	r := &ioRun{stopHot: func() {}}
	bpath := results.BaselinePath(opt.Out, env.DataDir)
	measure := opt.Baseline
	if !measure {
		if b, err := results.ReadBaseline(bpath); err != nil {
			r.notes = append(r.notes, err.Error())
		} else if b == nil {
			r.notes = append(r.notes, fmt.Sprintf("no baseline of this device (%s): run cleanerlab baseline --dir %s --out %s, or run with --baseline", bpath, filepath.Dir(root), opt.Out))
		} else if why := results.BaselineStale(b, env, time.Now(), results.BaselineMaxAge); why != "" {
			r.notes = append(r.notes, fmt.Sprintf("cached baseline %s is stale (%s): measured anew", bpath, why))
			measure = true
		} else {
			r.baseline = b
		}
	}
	if measure {
		fmt.Fprintf(logw, "measuring the baseline of %s (O_DIRECT sequential write, drop from the page cache, O_DIRECT read; memory copy)\n", root)
		b, err := iosched.MeasureBaseline(iosched.BaselineOptions{Dir: root, DropCaches: opt.DropCaches, CheckDone: ctx.Err})
		if err != nil {
			r.notes = append(r.notes, fmt.Sprintf("baseline not measured: %v", err))
		} else {
			results.StampBaseline(b, env)
			r.baseline = b
			if err := results.WriteBaseline(bpath, b); err != nil {
				r.notes = append(r.notes, err.Error())
			}
		}
	}

	thr, err := engine.NewThrottler(cfg.Cleaner)
	if err != nil {
		return nil, err
	}
	r.throttler = thr

	for _, l := range logs {
		a := l.ActiveSegment()
		f, err := os.Open(a.LogPath())
		if err != nil {
			return nil, err
		}
		r.hot = append(r.hot, hotFile{path: a.LogPath(), f: f, size: a.Size()})
	}
	if cfg.HotBytes > 0 {
		path := filepath.Join(root, hotFileName)
		if err := writeHotFile(path, cfg.HotBytes); err != nil {
			return nil, err
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		r.hot = append(r.hot, hotFile{path: path, f: f, size: cfg.HotBytes})
	}
	buf := make([]byte, 1<<20)
	for range 2 { // twice: onto the kernel's active list, as a working set is
		for _, h := range r.hot {
			if err := iosched.WarmFile(h.f, buf); err != nil {
				return nil, err
			}
		}
	}
	r.hotBefore = r.hotResident()
	if cfg.HotRereadMs > 0 && cfg.HotBytes > 0 {
		r.stopHot = rereadHot(r.hot[len(r.hot)-1].f, time.Duration(cfg.HotRereadMs)*time.Millisecond)
	}
	return r, nil
}

// writeHotFile writes n pseudo-random bytes to path and syncs them, so that
// the hot file's pages are clean and only eviction, not write-back, moves them.
func writeHotFile(path string, n int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	buf := make([]byte, 1<<20)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range buf {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		buf[i] = byte(x)
	}
	for left := n; left > 0; left -= int64(len(buf)) {
		if _, err := f.Write(buf[:min(left, int64(len(buf)))]); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// rereadHot reads f from start to end every period until the returned
// function is called.
func rereadHot(f *os.File, period time.Duration) func() {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		buf := make([]byte, 1<<20)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				iosched.WarmFile(f, buf)
			}
		}
	}()
	stopped := false
	return func() {
		if !stopped {
			stopped = true
			close(done)
			<-finished
		}
	}
}

func (r *ioRun) hotResident() int64 {
	var n int64
	for _, h := range r.hot {
		if res, err := iosched.Residency(h.f, h.size); err == nil {
			n += res
		}
	}
	return n
}

func (r *ioRun) hotBytes() int64 {
	var n int64
	for _, h := range r.hot {
		n += h.size
	}
	return n
}

// cleanerOptions adds the shared throttle and the phase probe to opts.
func (r *ioRun) cleanerOptions(opts engine.CleanerOptions) engine.CleanerOptions {
	opts.Throttler = r.throttler
	opts.PhaseProbe = iosched.ThreadPhaseProbe
	return opts
}

// afterClean runs just after the clean, before anything else reads the
// logs: it stops the hot-file reader and measures the residency of the hot
// set and of the cleaned segments.
func (r *ioRun) afterClean(logs []*engine.Log) {
	r.stopHot()
	r.hotAfter = r.hotResident()
	for _, l := range logs {
		segs := l.Segments()
		for _, s := range segs[:len(segs)-1] { // all but the active one: the clean's output
			r.cleanedBytes += s.Size()
			if res, err := iosched.Residency(s.File(), s.Size()); err == nil {
				r.cleanedResident += res
			}
		}
	}
	r.close()
}

// close stops the hot-file reader and closes the hot files; again, nothing.
func (r *ioRun) close() {
	if r.closed {
		return
	}
	r.closed = true
	r.stopHot()
	for _, h := range r.hot {
		h.f.Close()
	}
}

// finish records the baseline, the efficiency and the rows of the I/O
// figures in run. Efficiency against the device's read bandwidth is a
// figure of a cold run only (a warm run reads the page cache, not the
// device), and even then only as cold as the copy phase found its input:
// the share of it still cached after the map phase read it is shown beside.
func (r *ioRun) finish(run *results.Run, stats []*engine.CleanStats, tp Throughput, cache CacheState) {
	run.Notes = append(run.Notes, r.notes...)
	run.Rows = append(run.Rows, ioRows(stats, tp.Wall, r)...)
	if r.baseline == nil {
		return
	}
	run.Baseline = r.baseline
	e := results.EfficiencyOf(tp.BytesPerSecond(), r.baseline)
	mibps := func(bps float64) string { return fmt.Sprintf("%.1f", bps/(1<<20)) }
	run.Rows = append(run.Rows,
		results.Row{Name: "device read bandwidth", Value: mibps(r.baseline.DeviceReadBps), Unit: "MiB/s", Meaning: fmt.Sprintf("baseline: O_DIRECT sequential reads of %s blocks, measured %s", results.FormatBytes(int64(r.baseline.BlockBytes)), r.baseline.MeasuredAt.Format(time.DateTime))},
		results.Row{Name: "device write bandwidth", Value: mibps(r.baseline.DeviceWriteBps), Unit: "MiB/s", Meaning: "baseline: O_DIRECT sequential writes + fdatasync"},
		results.Row{Name: "memory copy bandwidth", Value: mibps(r.baseline.MemCopyBps), Unit: "MiB/s", Meaning: fmt.Sprintf("baseline: one core copying a %s buffer", results.FormatBytes(int64(r.baseline.MemBytes)))},
	)
	if cache == CacheCold {
		run.Efficiency = &e
		cached := copyCachedShare(stats)
		run.Rows = append(run.Rows,
			results.Row{Name: "efficiency vs device read", Value: fmt.Sprintf("%.2f", e.OfDeviceRead), Unit: "ratio", Meaning: "throughput / device read bandwidth (cold run; the cold-cache target is 0.9)"},
			results.Row{Name: "copy input cached", Value: cached, Unit: "%", Meaning: "share of the copy phase's input in the page cache as it began (" + iosched.ResidencyMethod() + "): bytes the map phase had just read; that much of the copy did not read the device"},
		)
		run.Notes = append(run.Notes, "efficiency vs device read: in a virtual machine the host's page cache may still serve reads that the guest counts as device reads, so cold may be warmer than it looks")
	} else {
		e.OfDeviceRead = 0
		run.Efficiency = &e
		run.Rows = append(run.Rows, results.Row{Name: "efficiency vs device read", Value: "n/a", Meaning: "a warm run reads the page cache, not the device: compare cold runs only"})
	}
	run.Rows = append(run.Rows, results.Row{Name: "efficiency vs memory", Value: fmt.Sprintf("%.3f", e.OfMemCopy), Unit: "ratio", Meaning: "throughput / memory copy bandwidth"})
}

// copyCachedShare is the share, in percent, of the copy phase's input that
// was in the page cache as the phase began, summed over the cleans ("n/a"
// when the phase probe measured no residency).
func copyCachedShare(stats []*engine.CleanStats) string {
	var in, cached int64
	for _, st := range stats {
		if q := st.IO.Copy.OS; q != nil {
			in += q.InputBytes
			cached += q.InputCachedBytes
		}
	}
	if in == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f", 100*float64(cached)/float64(in))
}

// ioRows are the rows of how the clean's bytes moved, summed over the
// partitions: per phase, what was read (from storage and, by difference,
// from the page cache), written, waited for and slept; the throttle; and
// the page-cache pollution.
func ioRows(stats []*engine.CleanStats, wall time.Duration, r *ioRun) []results.Row {
	var rows []results.Row
	if len(stats) == 0 {
		return nil
	}
	io0 := stats[0].IO
	rows = append(rows,
		results.Row{Name: "read path", Value: io0.ReadPath, Meaning: "--io: how segments were read"},
		results.Row{Name: "fsync policy", Value: io0.FsyncPolicy, Meaning: "--fsync: how cleaned segments were synced"},
		results.Row{Name: "cache-friendly", Value: fmt.Sprint(io0.CacheFriendly), Meaning: "--cache-friendly: pages dropped behind the copy"},
		results.Row{Name: "write-behind", Value: fmt.Sprint(io0.WriteBehind), Meaning: "--write-behind: output buffers written on a second core"},
		results.Row{Name: "sync behind", Value: fmt.Sprint(io0.SyncBehind), Meaning: "--sync-behind: each cleaned segment's fsync, indexes and swap run on a second goroutine while the next group is copied"},
		results.Row{Name: "direct write", Value: directWriteSize(stats), Unit: "KiB", Meaning: "--write-direct-bytes: cleaned output written with O_DIRECT in writes of this size (rounded up to 4 KiB), bypassing the page cache (0: off, or the partition's clean reached neither --write-direct-min-record-bytes nor --write-direct-min-clean-bytes; the direct write rule row, shown whenever --write-direct-bytes is set, says what chose it); where partitions differ, each size with how many partitions wrote with it"},
		results.Row{Name: "early write-back", Value: mib(io0.WritebackBytes), Unit: "MiB", Meaning: "--writeback-bytes: output's write-back started every this many bytes, before the final sync (0: off, or ignored by the fsync policy)"},
		results.Row{Name: "read-ahead", Value: mib(io0.ReadaheadBytes), Unit: "MiB", Meaning: "--readahead-bytes: how far past the cleaner's read position a helper reads segments into the page cache (0: off)"},
	)
	var fallbacks int64
	var reason string
	for _, st := range stats {
		fallbacks += st.IO.ReadFallbacks
		if reason == "" {
			reason = st.IO.ReadFallbackReason
		}
	}
	if fallbacks > 0 {
		rows = append(rows, results.Row{Name: "direct I/O fallbacks", Value: fmt.Sprint(fallbacks), Unit: "segments", Meaning: reason})
	}
	// The direct write rows show whenever --write-direct-bytes was in force
	// for some partition, "page cache" (0.0 MiB direct) where no minimum
	// was reached.
	directSet := false
	for _, st := range stats {
		directSet = directSet || st.IO.WriteDirectSetBytes > 0 || st.IO.WriteDirectBytes > 0
	}
	if directSet {
		var direct, wfallbacks int64
		wreason := ""
		for _, st := range stats {
			direct += st.IO.DirectWrittenBytes
			wfallbacks += st.IO.WriteFallbacks
			if wreason == "" {
				wreason = st.IO.WriteFallbackReason
			}
		}
		rows = append(rows, directWriteRows(direct, wfallbacks, wreason, directWriteRule(stats))...)
	}
	for _, phase := range []string{engine.PhaseMap, engine.PhaseCopy} {
		var p engine.PhaseStats
		var k iosched.PhaseCounters
		haveOS, delayKnown := false, true
		for _, st := range stats {
			q := st.IO.Map
			if phase == engine.PhaseCopy {
				q = st.IO.Copy
			}
			p.Wall += q.Wall
			p.ReadBytes += q.ReadBytes
			p.WrittenBytes += q.WrittenBytes
			p.ThrottleSleep += q.ThrottleSleep
			p.SyncTime += q.SyncTime
			p.FinalSyncTime += q.FinalSyncTime
			p.DroppedBytes += q.DroppedBytes
			p.ReadaheadDoneBytes += q.ReadaheadDoneBytes
			p.ReadaheadCachedBytes += q.ReadaheadCachedBytes
			if q.OS != nil {
				haveOS = true
				delayKnown = delayKnown && q.OS.BlkioDelayKnown
				k.InputBytes += q.OS.InputBytes
				k.InputCachedBytes += q.OS.InputCachedBytes
				k.StorageReadBytes += q.OS.StorageReadBytes
				k.StorageWriteBytes += q.OS.StorageWriteBytes
				k.MajorFaults += q.OS.MajorFaults
				k.BlkioDelay += q.OS.BlkioDelay
				k.IOPressureStall += q.OS.IOPressureStall
			}
		}
		name := phase // "map" or "copy"
		rows = append(rows,
			results.Row{Name: name + ": wall", Value: secs(p.Wall), Unit: "s", Meaning: "wall time of the phase: building the offset map, or copying and swapping (summed over partitions)"},
			results.Row{Name: name + ": read", Value: mib(p.ReadBytes), Unit: "MiB", Meaning: "bytes the segment reader returned (re-reads after a buffer grew included)"},
		)
		if io0.ReadaheadBytes > 0 {
			rows = append(rows,
				results.Row{Name: name + ": read ahead", Value: mib(p.ReadaheadDoneBytes), Unit: "MiB", Meaning: "bytes the read-ahead helper went through, read from storage on its own thread (not in from storage below) or found cached"},
				results.Row{Name: name + ": read ahead, cached", Value: mib(p.ReadaheadCachedBytes), Unit: "MiB", Meaning: "of them, found in the page cache or on their way there (cachestat: the kernel's readahead of the helper's earlier preads, or earlier reads) and not read"})
		}
		if phase == engine.PhaseCopy {
			rows = append(rows,
				results.Row{Name: name + ": written", Value: mib(p.WrittenBytes), Unit: "MiB", Meaning: "bytes written to cleaned segments"},
				results.Row{Name: name + ": sync", Value: secs(p.SyncTime), Unit: "s", Meaning: "inside fsync / fdatasync / sync_file_range of cleaned segments"},
				results.Row{Name: name + ": final syncs", Value: secs(p.FinalSyncTime), Unit: "s", Meaning: "of sync, inside the fsync or fdatasync of each cleaned segment (without early write-back's sync_file_range starts)"})
			var recompressed, recompressInline int64
			for _, st := range stats {
				recompressed += st.IO.Recompressed
				recompressInline += st.IO.RecompressInline
			}
			if recompressed > 0 {
				rows = append(rows, recompressRow(recompressed, recompressInline))
			}
			if io0.WriteBehind {
				var buffers, inline int64
				for _, st := range stats {
					buffers += st.IO.BehindBuffers
					inline += st.IO.BehindInline
				}
				rows = append(rows, writeBehindRow(buffers, inline))
			}
			if io0.SyncBehind {
				var waited time.Duration
				for _, st := range stats {
					waited += st.IO.SyncBehindWait
				}
				rows = append(rows, syncBehindRow(waited))
			}
		}
		if haveOS {
			rows = append(rows,
				results.Row{Name: name + ": cached at start", Value: pct(k.InputCachedBytes, k.InputBytes), Unit: "%", Meaning: "share of the phase's input in the page cache as it began (" + iosched.ResidencyMethod() + ")"},
				results.Row{Name: name + ": from storage", Value: mib(k.StorageReadBytes), Unit: "MiB", Meaning: "thread: /proc/thread-self/io read_bytes of the cleaner thread (and, with --parallel-map-build, of the map build goroutine's thread), page-cache misses with their readahead, O_DIRECT reads"},
				results.Row{Name: name + ": from cache", Value: mib(max(0, p.ReadBytes-k.StorageReadBytes)), Unit: "MiB", Meaning: "read - read from storage (an estimate: readahead beyond the reads makes it low)"},
				results.Row{Name: name + ": major faults", Value: fmt.Sprint(k.MajorFaults), Unit: "faults", Meaning: "thread: /proc/thread-self/stat majflt of the cleaner thread, page faults that waited for storage (the mmap path's misses)"},
				results.Row{Name: name + ": I/O pressure", Value: secs(k.IOPressureStall), Unit: "s", Meaning: "system: /proc/pressure/io some, time some task of the machine was stalled on I/O"},
			)
			if phase == engine.PhaseCopy {
				rows = append(rows, results.Row{Name: name + ": dirtied", Value: mib(k.StorageWriteBytes), Unit: "MiB", Meaning: "thread: /proc/thread-self/io write_bytes of the cleaner thread"})
			}
			if delayKnown {
				rows = append(rows, results.Row{Name: name + ": block I/O wait", Value: secs(k.BlkioDelay), Unit: "s", Meaning: "thread: delayacct_blkio_ticks, time the cleaner thread waited for block I/O"})
			} else {
				rows = append(rows, results.Row{Name: name + ": block I/O wait", Value: "n/a", Meaning: "delay accounting is off (sysctl kernel.task_delayacct=0); see I/O pressure"})
			}
		}
		if p.DroppedBytes > 0 {
			rows = append(rows, results.Row{Name: name + ": dropped from cache", Value: mib(p.DroppedBytes), Unit: "MiB", Meaning: "input and output bytes the cache-friendly mode dropped behind it"})
		}
		if r.throttler != nil {
			rows = append(rows, results.Row{Name: name + ": throttle sleep", Value: secs(p.ThrottleSleep), Unit: "s", Meaning: "time slept in the throttle"})
		}
	}
	if r.throttler != nil {
		var moved int64
		for _, st := range stats {
			moved += st.IO.Map.ReadBytes + st.IO.Copy.ReadBytes + st.IO.Copy.WrittenBytes
		}
		rows = append(rows,
			results.Row{Name: "throttle", Value: f1(io0.ThrottleBytesPerSecond / (1 << 20)), Unit: "MiB/s", Meaning: "--throttle (" + io0.Throttler + "): read + written bytes per second, all threads"},
			results.Row{Name: "throttled I/O rate", Value: f1(float64(moved) / (1 << 20) / wall.Seconds()), Unit: "MiB/s", Meaning: "read + written bytes / clean wall time: what the throttle held"},
		)
	}
	if hb := r.hotBytes(); hb > 0 {
		rows = append(rows,
			results.Row{Name: "hot set", Value: mib(hb), Unit: "MiB", Meaning: "active segments + --hot-bytes hot file, warmed before the clean"},
			results.Row{Name: "hot set resident before", Value: pct(r.hotBefore, hb), Unit: "%", Meaning: "share of the hot set in the page cache as the clean began"},
			results.Row{Name: "hot set resident after", Value: pct(r.hotAfter, hb), Unit: "%", Meaning: "share still in the page cache after it: 100 - this is the clean's cache pollution"},
		)
	}
	rows = append(rows, results.Row{Name: "cleaned segments resident", Value: pct(r.cleanedResident, r.cleanedBytes), Unit: "%", Meaning: "share of the cleaned segments in the page cache after the clean: the cleaner's footprint"})
	return rows
}
