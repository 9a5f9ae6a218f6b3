package results

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/prometheus/procfs/blockdevice"
)

// Sources a Snapshot reads; named in Counters.Missing when unreadable.
const (
	SourceMeminfo   = "meminfo"
	SourceDiskstats = "diskstats"
	SourceSelfIO    = "self/io"
	SourceVmstat    = "vmstat"
)

// sectorBytes is the unit of /proc/diskstats sector counts: always 512 bytes,
// whatever the device's logical block size.
const sectorBytes = 512

// Counters is one snapshot of the kernel's counters. Memory gauges and cumulative
// counters alike are in the unit their name ends with. A source that could not be
// read is named in Missing and its fields are zero: report them as unknown, not 0.
type Counters struct {
	TakenAt time.Time `json:"taken_at"`

	// /proc/meminfo (gauges, system-wide).
	CachedBytes    int64 `json:"cached_bytes"`    // page cache, without swap cache
	DirtyBytes     int64 `json:"dirty_bytes"`     // waiting to be written back
	WritebackBytes int64 `json:"writeback_bytes"` // being written back now

	// /proc/diskstats line of Device (cumulative, all processes).
	Device string `json:"device"`
	// DiskNote says why there are no disk figures: no device given (tmpfs, overlay),
	// or Device is not a line of /proc/diskstats. Empty when they were read.
	DiskNote         string `json:"disk_note,omitempty"`
	DiskReadsCount   int64  `json:"disk_reads_count"`   // reads completed
	DiskReadBytes    int64  `json:"disk_read_bytes"`    // sectors read x 512
	DiskWritesCount  int64  `json:"disk_writes_count"`  // writes completed
	DiskWrittenBytes int64  `json:"disk_written_bytes"` // sectors written x 512
	DiskIOTicksMs    int64  `json:"disk_io_ticks_ms"`   // time the device had I/O in flight
	DiskReadTimeMs   int64  `json:"disk_read_time_ms"`  // summed over all reads
	DiskWriteTimeMs  int64  `json:"disk_write_time_ms"` // summed over all writes
	DiskFlushesCount int64  `json:"disk_flushes_count"` // flush requests completed (kernel 5.5+; else 0)
	DiskFlushTimeMs  int64  `json:"disk_flush_time_ms"` // time spent flushing (kernel 5.5+; else 0)

	// /proc/self/io (cumulative, this process only).
	ProcReadCharBytes      int64 `json:"proc_rchar_bytes"` // rchar: bytes read by read-like syscalls, cache hits included
	ProcWriteCharBytes     int64 `json:"proc_wchar_bytes"` // wchar: bytes passed to write-like syscalls
	ProcReadBytes          int64 `json:"proc_read_bytes"`  // read_bytes: bytes this process caused to be fetched from storage
	ProcWriteBytes         int64 `json:"proc_write_bytes"` // write_bytes: bytes this process caused to be sent to storage
	ProcReadSyscallsCount  int64 `json:"proc_syscr_count"` // syscr
	ProcWriteSyscallsCount int64 `json:"proc_syscw_count"` // syscw

	// /proc/vmstat (cumulative, system-wide).
	PagedInBytes     int64 `json:"paged_in_bytes"`     // pgpgin (KiB) x 1024: read from block devices
	PagedOutBytes    int64 `json:"paged_out_bytes"`    // pgpgout (KiB) x 1024: written to block devices
	MajorFaultsCount int64 `json:"major_faults_count"` // pgmajfault
	PageFaultsCount  int64 `json:"page_faults_count"`  // pgfault (major faults included)

	// Missing names the sources that could not be read (SourceMeminfo, ...), with why.
	Missing []string `json:"missing,omitempty"`
}

// Snapshot reads the machine's counters, with the /proc/diskstats line of device
// (a Environment.DataDir.Device name such as "nvme0n1p2"; "" when the data directory
// has no block device).
func Snapshot(device string) (Counters, error) {
	return DefaultSource.Snapshot(device)
}

// Snapshot is Snapshot reading s's proc tree. It returns an error only when the proc
// tree cannot be opened at all (every source is then named in Missing too); a
// source that cannot be read is named in Counters.Missing, and a device absent
// from diskstats is said in DiskNote.
func (s Source) Snapshot(device string) (Counters, error) {
	c := Counters{TakenAt: time.Now(), Device: device}
	missing := func(src string, err error) { c.Missing = append(c.Missing, src+": "+err.Error()) }
	fs, err := s.procFS()
	if err != nil {
		// Nothing was read: every source is missing, so that a caller that
		// keeps the snapshot shows n/a, never zeros as if measured.
		for _, src := range []string{SourceMeminfo, SourceDiskstats, SourceSelfIO, SourceVmstat} {
			missing(src, err)
		}
		return c, fmt.Errorf("results: snapshot: %w", err)
	}

	if mi, err := fs.Meminfo(); err != nil {
		missing(SourceMeminfo, err)
	} else {
		c.CachedBytes = int64(deref(mi.CachedBytes))
		c.DirtyBytes = int64(deref(mi.DirtyBytes))
		c.WritebackBytes = int64(deref(mi.WritebackBytes))
	}

	if device == "" {
		c.DiskNote = "no block device given (data directory on tmpfs, overlay or similar): no disk figures"
	} else if bfs, err := blockdevice.NewFS(s.proc(), s.sys()); err != nil {
		missing(SourceDiskstats, err)
	} else if stats, err := bfs.ProcDiskstats(); err != nil {
		missing(SourceDiskstats, err)
	} else {
		found := false
		for _, d := range stats {
			if d.DeviceName != device {
				continue
			}
			found = true
			c.DiskReadsCount = int64(d.ReadIOs)
			c.DiskReadBytes = int64(d.ReadSectors) * sectorBytes
			c.DiskWritesCount = int64(d.WriteIOs)
			c.DiskWrittenBytes = int64(d.WriteSectors) * sectorBytes
			c.DiskIOTicksMs = int64(d.IOsTotalTicks)
			c.DiskReadTimeMs = int64(d.ReadTicks)
			c.DiskWriteTimeMs = int64(d.WriteTicks)
			c.DiskFlushesCount = int64(d.FlushRequestsCompleted)
			c.DiskFlushTimeMs = int64(d.TimeSpentFlushing)
			break
		}
		if !found {
			c.DiskNote = fmt.Sprintf("device %q is not in /proc/diskstats: no disk figures", device)
		}
	}

	if self, err := fs.Self(); err != nil {
		missing(SourceSelfIO, err)
	} else if pio, err := self.IO(); err != nil {
		missing(SourceSelfIO, err)
	} else {
		c.ProcReadCharBytes = int64(pio.RChar)
		c.ProcWriteCharBytes = int64(pio.WChar)
		c.ProcReadBytes = int64(pio.ReadBytes)
		c.ProcWriteBytes = int64(pio.WriteBytes)
		c.ProcReadSyscallsCount = int64(pio.SyscR)
		c.ProcWriteSyscallsCount = int64(pio.SyscW)
	}

	if vm, err := readVmstat(filepath.Join(s.proc(), "vmstat")); err != nil {
		missing(SourceVmstat, err)
	} else {
		c.PagedInBytes = vm["pgpgin"] * 1024
		c.PagedOutBytes = vm["pgpgout"] * 1024
		c.MajorFaultsCount = vm["pgmajfault"]
		c.PageFaultsCount = vm["pgfault"]
		for _, k := range []string{"pgpgin", "pgpgout", "pgmajfault", "pgfault"} {
			if _, ok := vm[k]; !ok {
				missing(SourceVmstat, fmt.Errorf("no %s line", k))
			}
		}
	}
	return c, nil
}

func deref(p *uint64) uint64 {
	if p == nil {
		return 0
	}
	return *p
}

// readVmstat parses /proc/vmstat ("name value" per line); procfs does not.
func readVmstat(path string) (map[string]int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := make(map[string]int64, 200)
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, val, ok := bytes.Cut(sc.Bytes(), []byte{' '})
		if !ok {
			continue
		}
		v, err := strconv.ParseInt(string(bytes.TrimSpace(val)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: line %q: %w", path, sc.Text(), err)
		}
		m[string(name)] = v
	}
	return m, sc.Err()
}

// CounterDelta is after minus before for every counter of Counters; gauges (the
// meminfo fields) may be negative.
type CounterDelta struct {
	ElapsedNs int64 `json:"elapsed_ns"` // after.TakenAt - before.TakenAt

	CachedBytes    int64 `json:"cached_bytes"`
	DirtyBytes     int64 `json:"dirty_bytes"`
	WritebackBytes int64 `json:"writeback_bytes"`

	Device           string `json:"device"`
	DiskNote         string `json:"disk_note,omitempty"`
	DiskReadsCount   int64  `json:"disk_reads_count"`
	DiskReadBytes    int64  `json:"disk_read_bytes"`
	DiskWritesCount  int64  `json:"disk_writes_count"`
	DiskWrittenBytes int64  `json:"disk_written_bytes"`
	DiskIOTicksMs    int64  `json:"disk_io_ticks_ms"`
	DiskReadTimeMs   int64  `json:"disk_read_time_ms"`
	DiskWriteTimeMs  int64  `json:"disk_write_time_ms"`
	DiskFlushesCount int64  `json:"disk_flushes_count"`
	DiskFlushTimeMs  int64  `json:"disk_flush_time_ms"`

	ProcReadCharBytes      int64 `json:"proc_rchar_bytes"`
	ProcWriteCharBytes     int64 `json:"proc_wchar_bytes"`
	ProcReadBytes          int64 `json:"proc_read_bytes"`
	ProcWriteBytes         int64 `json:"proc_write_bytes"`
	ProcReadSyscallsCount  int64 `json:"proc_syscr_count"`
	ProcWriteSyscallsCount int64 `json:"proc_syscw_count"`

	PagedInBytes     int64 `json:"paged_in_bytes"`
	PagedOutBytes    int64 `json:"paged_out_bytes"`
	MajorFaultsCount int64 `json:"major_faults_count"`
	PageFaultsCount  int64 `json:"page_faults_count"`

	// Missing is the union of both snapshots' Missing: those fields are not figures.
	Missing []string `json:"missing,omitempty"`
}

// Elapsed is ElapsedNs as a time.Duration.
func (d CounterDelta) Elapsed() time.Duration { return time.Duration(d.ElapsedNs) }

// Delta returns c (the later snapshot) minus before. The disk fields are zero with a
// DiskNote when either snapshot lacks them or the two are of different devices.
func (c Counters) Delta(before Counters) CounterDelta {
	d := CounterDelta{
		ElapsedNs:              c.TakenAt.Sub(before.TakenAt).Nanoseconds(),
		CachedBytes:            c.CachedBytes - before.CachedBytes,
		DirtyBytes:             c.DirtyBytes - before.DirtyBytes,
		WritebackBytes:         c.WritebackBytes - before.WritebackBytes,
		Device:                 c.Device,
		ProcReadCharBytes:      c.ProcReadCharBytes - before.ProcReadCharBytes,
		ProcWriteCharBytes:     c.ProcWriteCharBytes - before.ProcWriteCharBytes,
		ProcReadBytes:          c.ProcReadBytes - before.ProcReadBytes,
		ProcWriteBytes:         c.ProcWriteBytes - before.ProcWriteBytes,
		ProcReadSyscallsCount:  c.ProcReadSyscallsCount - before.ProcReadSyscallsCount,
		ProcWriteSyscallsCount: c.ProcWriteSyscallsCount - before.ProcWriteSyscallsCount,
		PagedInBytes:           c.PagedInBytes - before.PagedInBytes,
		PagedOutBytes:          c.PagedOutBytes - before.PagedOutBytes,
		MajorFaultsCount:       c.MajorFaultsCount - before.MajorFaultsCount,
		PageFaultsCount:        c.PageFaultsCount - before.PageFaultsCount,
	}
	switch {
	case c.Device != before.Device:
		d.DiskNote = fmt.Sprintf("snapshots are of different devices (%q then %q): no disk figures", before.Device, c.Device)
	case before.DiskNote != "":
		d.DiskNote = before.DiskNote
	case c.DiskNote != "":
		d.DiskNote = c.DiskNote
	default:
		d.DiskReadsCount = c.DiskReadsCount - before.DiskReadsCount
		d.DiskReadBytes = c.DiskReadBytes - before.DiskReadBytes
		d.DiskWritesCount = c.DiskWritesCount - before.DiskWritesCount
		d.DiskWrittenBytes = c.DiskWrittenBytes - before.DiskWrittenBytes
		d.DiskIOTicksMs = c.DiskIOTicksMs - before.DiskIOTicksMs
		d.DiskReadTimeMs = c.DiskReadTimeMs - before.DiskReadTimeMs
		d.DiskWriteTimeMs = c.DiskWriteTimeMs - before.DiskWriteTimeMs
		d.DiskFlushesCount = c.DiskFlushesCount - before.DiskFlushesCount
		d.DiskFlushTimeMs = c.DiskFlushTimeMs - before.DiskFlushTimeMs
	}
	seen := map[string]bool{}
	for _, m := range append(append([]string{}, before.Missing...), c.Missing...) {
		if !seen[m] {
			seen[m] = true
			d.Missing = append(d.Missing, m)
		}
	}
	return d
}
