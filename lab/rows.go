package lab

import (
	"fmt"
	"strings"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cleanerlab/cleanerlab/results"
)

// The row rules: every figure a person reads is a results.Row with its
// unit (MiB, MiB/s, s, %, records) and a meaning that says what it counts
// and, for kernel counters, its scope: "process" (/proc/self/io, this
// process), "thread" (/proc/thread-self/io, the cleaner thread) or
// "system" (diskstats, meminfo, vmstat: every process of the machine). A
// counter that could not be read is "n/a", never 0.

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }

func mib(n int64) string { return f1(float64(n) / (1 << 20)) }

func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

func pct(a, b int64) string {
	if b == 0 {
		return "n/a"
	}
	return f1(100 * float64(a) / float64(b))
}

// RunRows are the cleaner table of a run: the clean's bytes, records,
// throughput (Throughput), times, the offset map (MapRows, then
// MapSortBufferRow), and the kernel counters of the clean phase with their
// scope.
func RunRows(stats []*engine.CleanStats, cfg engine.CleanerConfig, tp Throughput, d results.CounterDelta) []results.Row {
	// mapKeys stays -1 (unknown, n/a) unless a clean reports its keys
	// (an external cleaner may not).
	mapKeys := int64(-1)
	var written, recRead, recKept, skipped, ahead, mapAhead, aside, recopied, crcSkipped int64
	var mapTime, copyTime, syncTime time.Duration
	util := 0.0
	mapSlots := 0 // each thread's map's slots (0: no clean reported them)
	for _, st := range stats {
		written += st.BytesWritten
		recRead += st.MessagesRead
		recKept += st.MessagesWritten
		mapTime += st.MapTime()
		copyTime += st.CopyTime()
		syncTime += st.SyncTime
		util = max(util, st.BufferUtilization)
		mapKeys = max(mapKeys, int64(st.MapEntries))
		mapSlots = max(mapSlots, st.MapSlots)
		skipped += st.LookupsSkipped
		ahead += st.LookupsAhead
		mapAhead += st.MapBatchesAhead
		aside += int64(st.GroupsCopiedAside)
		recopied += int64(st.GroupsRecopied)
		crcSkipped += st.CRCsSkipped
	}
	rows := []results.Row{
		{Name: "map read", Value: mib(tp.MapBytes), Unit: "MiB", Meaning: "bytes of dirty segments read to build the offset map"},
		{Name: "copy read", Value: mib(tp.CopyBytes), Unit: "MiB", Meaning: "bytes of segments read while recopying"},
		{Name: "log written", Value: mib(written), Unit: "MiB", Meaning: "bytes of cleaned segments written"},
		{Name: "records read", Value: fmt.Sprint(recRead), Unit: "records", Meaning: recordsReadMeaning},
		{Name: "records kept", Value: fmt.Sprint(recKept), Unit: "records", Meaning: "records written to cleaned segments"},
		{Name: "throughput", Value: tp.MiBps(), Unit: "MiB/s", Meaning: ThroughputMeaning},
		{Name: "clean wall time", Value: secs(tp.Wall), Unit: "s", Meaning: "wall time of the clean phase (all partitions)"},
		{Name: "map build time", Value: secs(mapTime), Unit: "s", Meaning: "building offset maps (summed over partitions)"},
		{Name: "copy time", Value: secs(copyTime), Unit: "s", Meaning: "recopying, fsync and swap (summed over partitions)"},
		{Name: "fsync time", Value: secs(syncTime), Unit: "s", Meaning: "inside fsync, fdatasync and sync_file_range of cleaned segments (--fsync)"},
		{Name: "map utilisation", Value: f1(100 * util), Unit: "%", Meaning: "max over cleans of keys in the map / slots"},
	}
	rows = append(rows, lookupRows(skipped, ahead, mapAhead)...)
	rows = append(rows, copyRows(aside, recopied, crcSkipped)...)
	rows = append(rows, MapRows(cfg, mapKeys)...)
	rows = append(rows, MapSortBufferRow(cfg, mapSlots))
	rows = append(rows, CounterRows(d)...)
	return rows
}

// CounterRows are the kernel counters of the clean phase, each with its
// scope; a source that could not be read gives "n/a" and the reason.
func CounterRows(d results.CounterDelta) []results.Row {
	var rows []results.Row
	switch {
	case !d.Measured(results.SourceDiskstats):
		rows = append(rows, results.Row{Name: "disk counters", Value: "n/a", Meaning: "system: /proc/diskstats could not be read"})
	case d.DiskNote != "":
		rows = append(rows, results.Row{Name: "disk counters", Value: "n/a", Meaning: "system: " + d.DiskNote})
	default:
		rows = append(rows,
			results.Row{Name: "disk read", Value: mib(d.DiskReadBytes), Unit: "MiB", Meaning: "system: device " + d.Device + " sectors read during the clean (all processes)"},
			results.Row{Name: "disk written", Value: mib(d.DiskWrittenBytes), Unit: "MiB", Meaning: "system: device " + d.Device + " sectors written during the clean (all processes)"})
	}
	measured := func(src string, r results.Row) results.Row {
		if !d.Measured(src) {
			r.Value, r.Unit = "n/a", ""
			r.Meaning += " (not read)"
		}
		return r
	}
	rows = append(rows,
		measured(results.SourceSelfIO, results.Row{Name: "process read from storage", Value: mib(d.ProcReadBytes), Unit: "MiB", Meaning: "process: /proc/self/io read_bytes, what this process's page-cache misses fetched"}),
		measured(results.SourceSelfIO, results.Row{Name: "process written to storage", Value: mib(d.ProcWriteBytes), Unit: "MiB", Meaning: "process: /proc/self/io write_bytes"}),
		measured(results.SourceMeminfo, results.Row{Name: "page cache change", Value: mib(d.CachedBytes), Unit: "MiB", Meaning: "system: meminfo Cached after - before"}),
		measured(results.SourceVmstat, results.Row{Name: "major faults", Value: fmt.Sprint(d.MajorFaultsCount), Unit: "faults", Meaning: "system: vmstat pgmajfault delta"}),
	)
	return rows
}

// MapRows describe the offset map of cfg: its layout and hasher, its
// density and the collision risk of the largest pass of keys keys, computed
// by offsetmap.LayoutInfo from the layout's fingerprint width (a model
// prediction, not a measurement: the birthday bound); keys < 0 (unknown)
// makes it n/a.
func MapRows(cfg engine.CleanerConfig, keys int64) []results.Row {
	h, err := offsetmap.NewHasher(cfg.Hasher)
	if err != nil {
		return nil // the cleaner would have refused it
	}
	info, err := offsetmap.Describe(cfg.OffsetMap, h)
	if err != nil {
		return nil
	}
	return []results.Row{
		{Name: "offset map", Value: info.Layout, Meaning: fmt.Sprintf("--offset-map: %d bytes per entry, %d-bit fingerprints", info.EntryBytes, info.FingerprintBits)},
		{Name: "hasher", Value: info.Hasher, Meaning: "--hasher: the key digest the map stores"},
		{Name: "map keys per MiB", Value: fmt.Sprintf("%.0f", info.KeysPerMiB()), Unit: "keys/MiB", Meaning: "slots per MiB of dedupe buffer (2^20 / bytes per entry); a pass fills up to the load factor of them"},
		collisionRow(info, keys),
		mapClearRow(cfg, info),
	}
}

// mapClearRow says what each pass's Clear of the offset map zero-fills,
// from cfg (a figure of the config, not a measurement): the skimpy
// layout zero-fills its thread's whole table (PerThreadMapTableBytes) at
// the start of every pass, as Kafka's SkimpyOffsetMap.clear does, inside
// the map build time, whatever the log's size; the dense layouts clear in
// O(1) (offsetmap.LayoutInfo.ClearIsConstant).
func mapClearRow(cfg engine.CleanerConfig, info offsetmap.LayoutInfo) results.Row {
	if info.ClearIsConstant {
		return results.Row{Name: "map clear", Value: "O(1)", Meaning: fmt.Sprintf("--offset-map %s clears in constant time: no zero-fill inside the clean", info.Layout)}
	}
	return results.Row{Name: "map clear", Value: mib(cfg.PerThreadMapTableBytes()), Unit: "MiB", Meaning: "config, not measured: zero-filled at the start of each pass, inside the map build time, as Kafka's SkimpyOffsetMap.clear: a cost per clean whatever the log's size, so it weighs most on small logs (docs/measuring.md)"}
}

// recordsReadMeaning explains the records read row: engine.CleanStats.MessagesRead
// counts the records of the batches the copy kept or filtered, not those
// of batches dropped whole, as Kafka's CleanerStats.messagesRead, so it is
// below the log's record count when aborted data was discarded.
const recordsReadMeaning = "records read while recopying, batches dropped whole (aborted data, discarded markers) not counted, as Kafka's messagesRead"

// mapFullMeaning explains the map full row for its value.
func mapFullMeaning(full bool) string {
	if full {
		return "the map filled before the dirty range ended: this clean stopped there, another clean is needed for the rest"
	}
	return "the map did not fill: this clean reached the end of the cleanable range"
}

// collisionRow is the collision probability row for the largest pass's
// keys, or n/a when keys < 0 (the cleaner reported no key count).
func collisionRow(info offsetmap.LayoutInfo, keys int64) results.Row {
	if keys < 0 {
		return results.Row{Name: "collision probability", Value: "n/a", Meaning: "the cleaner reported no key count of its map"}
	}
	return results.Row{Name: "collision probability", Value: fmt.Sprintf("%.3g", info.CollisionProbability(keys)), Meaning: fmt.Sprintf("model: chance that the largest pass's %d keys held two with equal fingerprints (1-exp(-n(n-1)/2^(b+1)), b = %d); such a pair makes the cleaner drop a live record", keys, info.FingerprintBits)}
}

// CleanRows are the figures of one clean (cleanerlab clean), throughput by
// the one definition over the clean's own elapsed time.
func CleanRows(st *engine.CleanStats) []results.Row {
	tp := ThroughputOfClean(st)
	rows := []results.Row{
		{Name: "cleanable ratio", Value: fmt.Sprintf("%.4f", st.LogToClean.CleanableRatio), Meaning: "cleanable bytes / (clean + cleanable bytes) before the clean"},
		{Name: "map read", Value: mib(st.MapBytesRead), Unit: "MiB", Meaning: "bytes of dirty segments read to build the offset map"},
		{Name: "copy read", Value: mib(st.BytesRead), Unit: "MiB", Meaning: "bytes of segments recopied (all segments below the end offset)"},
		{Name: "log written", Value: mib(st.BytesWritten), Unit: "MiB", Meaning: "bytes of cleaned segments written"},
		{Name: "records read", Value: fmt.Sprint(st.MessagesRead), Unit: "records", Meaning: recordsReadMeaning},
		{Name: "records kept", Value: fmt.Sprint(st.MessagesWritten), Unit: "records", Meaning: "records written to cleaned segments"},
		{Name: "throughput", Value: tp.MiBps(), Unit: "MiB/s", Meaning: ThroughputMeaning},
		{Name: "clean time", Value: secs(st.ElapsedTime()), Unit: "s", Meaning: "wall time of the whole clean"},
		{Name: "map build time", Value: secs(st.MapTime()), Unit: "s", Meaning: "building the offset map"},
		{Name: "copy time", Value: secs(st.CopyTime()), Unit: "s", Meaning: "recopying, fsync and swap"},
		{Name: "fsync time", Value: secs(st.SyncTime), Unit: "s", Meaning: "inside fsync of cleaned segments"},
		{Name: "map utilisation", Value: f1(100 * st.BufferUtilization), Unit: "%", Meaning: "keys in the map / map slots"},
		{Name: "map keys", Value: fmt.Sprint(st.MapEntries), Unit: "keys", Meaning: fmt.Sprintf("of at most %d (slots x load factor)", st.MaxMapEntries)},
		{Name: "map full", Value: fmt.Sprint(st.MapFull), Meaning: mapFullMeaning(st.MapFull)},
		{Name: "batches rebuilt", Value: fmt.Sprint(st.BatchesRebuilt), Unit: "batches", Meaning: "batches re-encoded because records went or a delete horizon was stamped"},
		{Name: "batches dropped", Value: fmt.Sprint(st.BatchesDropped), Unit: "batches", Meaning: "batches with no record left"},
		{Name: "segments cleaned", Value: fmt.Sprintf("%d in %d groups", st.SegmentsCleaned, st.Groups), Meaning: "segments recopied, and the cleaned segments they became"},
	}
	rows = append(rows, lookupRows(st.LookupsSkipped, st.LookupsAhead, st.MapBatchesAhead)...)
	rows = append(rows, copyRows(int64(st.GroupsCopiedAside), int64(st.GroupsRecopied), st.CRCsSkipped)...)
	if st.IO.ReadFallbacks > 0 {
		rows = append(rows, results.Row{Name: "direct I/O fallbacks", Value: fmt.Sprint(st.IO.ReadFallbacks), Unit: "segments", Meaning: st.IO.ReadFallbackReason})
	}
	if st.IO.WriteBehind {
		rows = append(rows, writeBehindRow(st.IO.BehindBuffers, st.IO.BehindInline))
	}
	if st.IO.Recompressed > 0 {
		rows = append(rows, recompressRow(st.IO.Recompressed, st.IO.RecompressInline))
	}
	if st.IO.SyncBehind {
		rows = append(rows, syncBehindRow(st.IO.SyncBehindWait))
	}
	if st.IO.WriteDirectSetBytes > 0 || st.IO.WriteDirectBytes > 0 {
		rows = append(rows, directWriteRows(st.IO.DirectWrittenBytes, st.IO.WriteFallbacks, st.IO.WriteFallbackReason, directWriteRule([]*engine.CleanStats{st}))...)
	}
	return rows
}

// writeBehindRow is how many of the output buffers handed to write-behind
// the cleaner wrote itself (--write-behind).
func writeBehindRow(buffers, inline int64) results.Row {
	return results.Row{Name: "copy: written inline", Value: fmt.Sprintf("%d of %d", inline, buffers), Unit: "buffers",
		Meaning: "--write-behind: output buffers the cleaner thread wrote itself, as their goroutine had not started when it needed the buffer back (no free core); the rest were written on another core"}
}

// recompressRow is how many rebuilt batches were compressed on other
// goroutines, and of them by the cleaner itself (--parallel-recompress).
func recompressRow(n, inline int64) results.Row {
	return results.Row{Name: "copy: recompressed apart", Value: fmt.Sprintf("%d (%d inline)", n, inline), Unit: "batches",
		Meaning: "--parallel-recompress: rebuilt batches of compressed topics compressed on goroutines of their own while the cleaner filtered on; inline: those the cleaner compressed itself, their goroutine not started when their turn to be written came"}
}

// syncBehindRow is the time the copy waited for the groups synced and
// swapped behind it (--sync-behind).
func syncBehindRow(waited time.Duration) results.Row {
	return results.Row{Name: "copy: waited for syncs behind", Value: secs(waited), Unit: "s", Meaning: "--sync-behind: time the copy waited for a group's fsync, indexes and swap running behind it (the rest overlapped the copy)"}
}

// directWriteRows are the O_DIRECT output's bytes, the rule that chose it
// and its fallbacks (--write-direct-bytes): shown whenever the setting is
// in force, the rule "page cache" where no minimum was reached.
func directWriteRows(direct, fallbacks int64, reason, rule string) []results.Row {
	rows := []results.Row{
		{Name: "copy: written direct", Value: mib(direct), Unit: "MiB", Meaning: "of the bytes written to cleaned segments, those written with O_DIRECT (each file's last partial block goes through the page cache)"},
		{Name: "direct write rule", Value: rule, Meaning: "what chose O_DIRECT output: always (--write-direct-bytes with no minimum), record-bytes (the map build's records averaged --write-direct-min-record-bytes or more), clean-bytes (the round's source segments held --write-direct-min-clean-bytes or more); page cache: neither minimum reached"},
	}
	if fallbacks > 0 {
		rows = append(rows, results.Row{Name: "direct write fallbacks", Value: fmt.Sprint(fallbacks), Unit: "segments", Meaning: reason})
	}
	return rows
}

// directWriteRule names the rule that chose each clean's output path
// (IOStats.WriteDirectRule; "page cache" where none did): the one rule
// when all agree, else each with how many partitions it chose, in the
// order first seen (perPartition).
func directWriteRule(stats []*engine.CleanStats) string {
	values := make([]string, len(stats))
	for i, st := range stats {
		values[i] = st.IO.WriteDirectRule
		if values[i] == "" {
			values[i] = "page cache"
		}
	}
	return perPartition(values)
}

// directWriteSize is each clean's O_DIRECT write size in KiB, one decimal
// (IOStats.WriteDirectBytes; 0.0 where the output went through the page
// cache), as perPartition joins them.
func directWriteSize(stats []*engine.CleanStats) string {
	values := make([]string, len(stats))
	for i, st := range stats {
		values[i] = f1(float64(st.IO.WriteDirectBytes) / 1024)
	}
	return perPartition(values)
}

// perPartition is the value of a row that may differ by partition, given
// each partition's value: the one value when all agree ("" when there are
// none), else each distinct value with how many partitions had it, in the
// order first seen: "a (2 partitions), b (1)".
func perPartition(values []string) string {
	var order []string
	count := map[string]int{}
	for _, v := range values {
		if count[v] == 0 {
			order = append(order, v)
		}
		count[v]++
	}
	if len(order) <= 1 {
		return strings.Join(order, "")
	}
	parts := make([]string, len(order))
	for i, v := range order {
		unit := ""
		if i == 0 {
			unit = " partitions"
			if count[v] == 1 {
				unit = " partition"
			}
		}
		parts[i] = fmt.Sprintf("%s (%d%s)", v, count[v], unit)
	}
	return strings.Join(parts, ", ")
}

// copyRows are the copy phase's groups copied by a copy worker and kept
// or copied again, and its batches whose CRC the map build had checked,
// when there were any.
func copyRows(aside, recopied, crcSkipped int64) []results.Row {
	var rows []results.Row
	if aside > 0 || recopied > 0 {
		rows = append(rows, results.Row{Name: "groups copied aside", Value: fmt.Sprintf("%d kept, %d copied again", aside, recopied), Unit: "groups",
			Meaning: "--parallel-copy: groups a copy worker copied on another core while the cleaner copied the group before; copied again: the group before changed the transaction state the worker started from"})
	}
	if crcSkipped > 0 {
		rows = append(rows, results.Row{Name: "CRC checks skipped", Value: fmt.Sprint(crcSkipped), Unit: "batches",
			Meaning: "--verify-crc-once: batches the copy read whose CRC the map build had checked"})
	}
	return rows
}

// lookupRows are the copy phase's lookups that the speed settings spared
// the filter, and the map build's batches decoded and hashed on the second
// core, when there were any.
func lookupRows(skipped, ahead, mapAhead int64) []results.Row {
	var rows []results.Row
	if mapAhead > 0 {
		rows = append(rows, results.Row{Name: "map batches ahead", Value: fmt.Sprint(mapAhead), Unit: "batches",
			Meaning: "--parallel-map-build: the map build's batches a second goroutine read, decoded and hashed, so that the cleaner thread only put their keys (it read the others itself)"})
	}
	if skipped > 0 {
		rows = append(rows, results.Row{Name: "lookups skipped", Value: fmt.Sprint(skipped), Unit: "records",
			Meaning: "--skip-dirty-lookups: dirty records the copy decided from the map build, without a map lookup"})
	}
	if ahead > 0 {
		rows = append(rows, results.Row{Name: "lookups ahead", Value: fmt.Sprint(ahead), Unit: "keys",
			Meaning: "--parallel-lookups: keys the second goroutine looked up ahead of the copy's filter"})
	}
	return rows
}
