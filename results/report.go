package results

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Report renders the run as Markdown: verification, the caller's cleaner rows,
// phases, counter deltas, environment, configuration, raw stats and notes. It fails
// only if Config or Stats cannot be marshalled.
func (r *Run) Report() (string, error) {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }

	p("# cleanerlab run %s\n\n", r.ID)
	p("- started: %s\n", r.StartedAt.UTC().Format(time.RFC3339))
	commit := r.Environment.Commit
	if m := r.Environment.CommitModified; m != nil && *m {
		commit += " (work tree modified)"
	}
	if commit != "" {
		p("- commit: %s\n", commit)
	}
	switch v := r.Verification; {
	case v == nil:
		p("- verification: not run\n")
	case v.Passed:
		p("- verification: **passed** %s\n", cell(v.Detail))
	default:
		p("- verification: **FAILED** %s\n", cell(v.Detail))
	}
	p("\n")

	if len(r.Rows) > 0 {
		p("## Cleaner\n\n| figure | value | unit | meaning |\n|---|--:|---|---|\n")
		for _, row := range r.Rows {
			p("| %s | %s | %s | %s |\n", cell(row.Name), cell(row.Value), cell(row.Unit), cell(row.Meaning))
		}
		p("\n")
	}

	if len(r.Phases) > 0 {
		names := make([]string, 0, len(r.Phases))
		for n := range r.Phases {
			names = append(names, n)
		}
		sort.Strings(names)
		p("## Phases\n\n| phase | wall time | ms |\n|---|--:|--:|\n")
		for _, n := range names {
			d := r.Phases[n]
			p("| %s | %s | %.3f |\n", cell(n), d, float64(d)/float64(time.Millisecond))
		}
		p("\n")
	}

	r.writeInterference(&b)

	if len(r.Benchmarks) > 0 {
		var bb strings.Builder
		WriteBench(&bb, nil, r.Benchmarks)
		p("## Benchmark lines (bench.txt, for benchstat)\n\n```\n%s```\n\n", bb.String())
	}

	r.writeCounters(&b)
	r.writeEnvironment(&b)

	if r.Config != nil {
		js, err := json.MarshalIndent(r.Config, "", "  ")
		if err != nil {
			return "", fmt.Errorf("results: report %s: marshal config: %w", r.ID, err)
		}
		p("## Configuration\n\n```json\n%s\n```\n\n", js)
	}
	if r.Stats != nil {
		js, err := json.MarshalIndent(r.Stats, "", "  ")
		if err != nil {
			return "", fmt.Errorf("results: report %s: marshal stats: %w", r.ID, err)
		}
		p("## Cleaner stats as reported\n\n```json\n%s\n```\n\n", js)
	}
	if len(r.Notes) > 0 {
		p("## Notes\n\n")
		for _, n := range r.Notes {
			p("- %s\n", strings.ReplaceAll(n, "\n", " "))
		}
		p("\n")
	}
	return b.String(), nil
}

// counterRow is one line of the counter table.
type counterRow struct {
	name   string
	value  int64
	unit   string // "bytes", "ms", "count"
	source string // the file it comes from
	what   string
}

func (r *Run) writeCounters(b *strings.Builder) {
	d := r.Delta
	if d.ElapsedNs == 0 && r.Before.TakenAt.IsZero() {
		return // no snapshots taken
	}
	fmt.Fprintf(b, "## Counters (after - before, over %s)\n\n", d.Elapsed())
	dev := "diskstats " + d.Device
	rows := []counterRow{
		{"page cache", d.CachedBytes, "bytes", SourceMeminfo, "change of Cached"},
		{"dirty", d.DirtyBytes, "bytes", SourceMeminfo, "change of Dirty"},
		{"writeback", d.WritebackBytes, "bytes", SourceMeminfo, "change of Writeback"},
	}
	if d.DiskNote == "" {
		rows = append(rows,
			counterRow{"disk reads", d.DiskReadsCount, "count", dev, "reads completed"},
			counterRow{"disk read", d.DiskReadBytes, "bytes", dev, "sectors read x 512"},
			counterRow{"disk writes", d.DiskWritesCount, "count", dev, "writes completed"},
			counterRow{"disk written", d.DiskWrittenBytes, "bytes", dev, "sectors written x 512"},
			counterRow{"disk busy", d.DiskIOTicksMs, "ms", dev, "time with I/O in flight"},
			counterRow{"disk read time", d.DiskReadTimeMs, "ms", dev, "summed over reads"},
			counterRow{"disk write time", d.DiskWriteTimeMs, "ms", dev, "summed over writes"},
			counterRow{"disk flushes", d.DiskFlushesCount, "count", dev, "flush requests completed"},
			counterRow{"disk flush time", d.DiskFlushTimeMs, "ms", dev, "time spent flushing"},
		)
	}
	rows = append(rows,
		counterRow{"process rchar", d.ProcReadCharBytes, "bytes", SourceSelfIO, "read by syscalls, cache hits included"},
		counterRow{"process wchar", d.ProcWriteCharBytes, "bytes", SourceSelfIO, "passed to write syscalls"},
		counterRow{"process read_bytes", d.ProcReadBytes, "bytes", SourceSelfIO, "fetched from storage for this process"},
		counterRow{"process write_bytes", d.ProcWriteBytes, "bytes", SourceSelfIO, "sent to storage for this process"},
		counterRow{"process read syscalls", d.ProcReadSyscallsCount, "count", SourceSelfIO, "syscr"},
		counterRow{"process write syscalls", d.ProcWriteSyscallsCount, "count", SourceSelfIO, "syscw"},
		counterRow{"paged in", d.PagedInBytes, "bytes", SourceVmstat, "pgpgin x 1024, system-wide"},
		counterRow{"paged out", d.PagedOutBytes, "bytes", SourceVmstat, "pgpgout x 1024, system-wide"},
		counterRow{"major faults", d.MajorFaultsCount, "count", SourceVmstat, "pgmajfault, system-wide"},
		counterRow{"page faults", d.PageFaultsCount, "count", SourceVmstat, "pgfault, system-wide"},
	)
	b.WriteString("| counter | value | unit | readable | scope | source | meaning |\n|---|--:|---|--:|---|---|---|\n")
	for _, c := range rows {
		value, readable := strconv.FormatInt(c.value, 10), ""
		if d.missing(c.source) {
			value, readable = "n/a", "n/a"
		} else if c.unit == "bytes" {
			readable = FormatBytes(c.value)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", c.name, value, c.unit, readable, counterScope(c.source), cell(c.source), c.what)
	}
	b.WriteString("\n")
	if d.DiskNote != "" {
		fmt.Fprintf(b, "No disk figures: %s.\n\n", d.DiskNote)
	}
	for _, m := range d.Missing {
		fmt.Fprintf(b, "Not read: %s.\n\n", cell(m))
	}
}

// missing says whether source failed in either snapshot.
func (d CounterDelta) missing(source string) bool {
	src, _, _ := strings.Cut(source, " ")
	for _, m := range d.Missing {
		if strings.HasPrefix(m, src+":") {
			return true
		}
	}
	return false
}

func (r *Run) writeEnvironment(b *strings.Builder) {
	e := r.Environment
	if e.CapturedAt.IsZero() && e.GoVersion == "" {
		return
	}
	b.WriteString("## Environment\n\n| | |\n|---|---|\n")
	kv := func(k, v string) {
		if v != "" {
			fmt.Fprintf(b, "| %s | %s |\n", k, cell(v))
		}
	}
	kv("host", e.Hostname)
	kv("cpu", e.CPUModel)
	kv("logical cores", fmt.Sprintf("%d (usable %d, GOMAXPROCS %d)", e.LogicalCores, e.UsableCores, e.GOMAXPROCS))
	if e.MemTotalBytes > 0 {
		kv("memory", fmt.Sprintf("%s (%d bytes)", FormatBytes(e.MemTotalBytes), e.MemTotalBytes))
	}
	kv("kernel", strings.TrimSpace(e.KernelRelease+" "+e.KernelVersion))
	kv("go", fmt.Sprintf("%s %s/%s", e.GoVersion, e.GOOS, e.GOARCH))
	if e.Commit != "" {
		kv("commit", e.Commit+" (from "+e.CommitSource+")")
	}
	dd := e.DataDir
	kv("data dir", dd.Path)
	if dd.FSType != "" {
		kv("file system", fmt.Sprintf("%s on %s at %s (statfs magic 0x%s)", dd.FSType, dd.MountSource, dd.MountPoint, dd.FSMagic))
	}
	kv("mount options", dd.MountOptions)
	kv("super options", dd.SuperOptions)
	if dd.Device != "" {
		dev := dd.Device + " (" + dd.DevNumber + ")"
		if dd.Disk != dd.Device {
			dev += ", partition of " + dd.Disk
		}
		kv("block device", dev)
	}
	kv("device model", dd.Model)
	if dd.Rotational != nil {
		kv("rotational", strconv.FormatBool(*dd.Rotational))
	}
	kv("scheduler", dd.Scheduler)
	kv("slaves", strings.Join(dd.Slaves, ", "))
	b.WriteString("\n")
	for _, n := range e.Notes {
		fmt.Fprintf(b, "- %s\n", cell(n))
	}
	if len(e.Notes) > 0 {
		b.WriteString("\n")
	}
}

// cell makes s safe inside a Markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// counterScope is who a counter source counts: this process
// (/proc/self/io) or the whole machine (meminfo, diskstats, vmstat).
func counterScope(source string) string {
	if strings.HasPrefix(source, SourceSelfIO) {
		return "process"
	}
	return "system"
}

// writeInterference writes each timed phase's CPU use and the machine's
// interference over it, with the verdict and the thresholds it used.
func (r *Run) writeInterference(b *strings.Builder) {
	if len(r.Interference) == 0 {
		return
	}
	names := make([]string, 0, len(r.Interference))
	for n := range r.Interference {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintf(b, "## Interference\n\nThis process's CPU time and what else the machine did over each timed phase (/proc/stat, /proc/pressure, /proc/diskstats less this process, getrusage).\n\n")
	fmt.Fprintf(b, "| phase | wall s | this process | the machine | verdict |\n|---|--:|---|---|---|\n")
	var th string
	for _, n := range names {
		iv := r.Interference[n]
		fmt.Fprintf(b, "| %s | %.3f | %s | %s | %s |\n", cell(n), iv.Wall().Seconds(), cell(iv.CPUText()), cell(iv.MachineText()), cell(iv.VerdictText()))
		if iv.Thresholds != nil {
			th = iv.Thresholds.String()
		}
	}
	if th != "" {
		fmt.Fprintf(b, "\nThresholds: `%s`.\n", th)
	}
	fmt.Fprintf(b, "\n")
}
