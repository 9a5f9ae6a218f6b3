package iosched

import (
	"errors"
	"fmt"
	"slices"
	"time"
)

// Baseline defaults.
const (
	// DefaultBaselineFileBytes is the smallest default test file: 1 GiB, past
	// the cache of most devices (BaselineOptions.DeviceCacheBytes makes it
	// larger).
	DefaultBaselineFileBytes = 1 << 30
	// BaselineSchemaVersion is the version of the Baseline record. 2: the
	// read is of a file dropped from the page cache and checked not resident
	// (records without a version, from before, read a file just written).
	BaselineSchemaVersion = 2
)

// ErrBaselineCached: part of the baseline's test file was still in the page
// cache after it was dropped, so a read of it would measure memory, not the
// device. MeasureBaseline refuses to report such a figure.
var ErrBaselineCached = errors.New("iosched: baseline test file still in the page cache before the read")

// BaselineOptions configure MeasureBaseline.
type BaselineOptions struct {
	// Dir is the data directory whose device is measured: the test file is
	// made in it, and removed afterwards.
	Dir string
	// FileBytes is the size of the test file. Default
	// DefaultBaselineFileBytes (1 GiB), or twice DeviceCacheBytes when that
	// is larger.
	FileBytes int64
	// DeviceCacheBytes is the device's own (or a RAID controller's) cache,
	// when known: Linux does not expose it in sysfs. 0: unknown.
	DeviceCacheBytes int64
	// BlockBytes is the size of each O_DIRECT read and write. Default 1 MiB.
	BlockBytes int
	// Runs is how many times the file is written, dropped from the cache and
	// read, and memory copied; the figures are the medians. Default 3.
	Runs int
	// MemBytes is the buffer copied to measure memory bandwidth. Default
	// 256 MiB (past the CPU caches).
	MemBytes int64
	// DropCaches also writes 3 to /proc/sys/vm/drop_caches before each read
	// (DropCachesGlobal; root only). When that is not permitted the per-file
	// drop (fdatasync, fadvise DONTNEED), which is always done, is relied on
	// and Baseline.DropNote says why.
	DropCaches bool
	// CheckDone, when set, is asked between runs and every 64 blocks
	// written or read; its error (a cancelled context's, ctx.Err) stops
	// the measurement, the test file removed, and is returned.
	CheckDone func() error

	// beforeCheck, in tests, runs between the drop and the residency check.
	beforeCheck func(path string) error
}

func (o *BaselineOptions) defaults() {
	if o.FileBytes <= 0 {
		o.FileBytes = max(DefaultBaselineFileBytes, 2*o.DeviceCacheBytes)
	}
	if o.BlockBytes <= 0 {
		o.BlockBytes = 1 << 20
	}
	if o.Runs <= 0 {
		o.Runs = 3
	}
	if o.MemBytes <= 0 {
		o.MemBytes = 256 << 20
	}
}

// Validate returns an error for options MeasureBaseline cannot use: a block
// size that is not a multiple of the O_DIRECT alignment (4096 bytes), or a
// negative device cache.
func (o BaselineOptions) Validate() error {
	o.defaults()
	if o.BlockBytes%directAlignBytes != 0 {
		return fmt.Errorf("iosched: baseline block size %d is not a multiple of %d", o.BlockBytes, directAlignBytes)
	}
	if o.DeviceCacheBytes < 0 {
		return fmt.Errorf("iosched: baseline device cache %d bytes: want >= 0 (0: unknown)", o.DeviceCacheBytes)
	}
	return nil
}

// Baseline holds the physical limits of a data directory's device and of
// memory, measured as fio measures with direct=1, ioengine=psync, iodepth=1,
// bs=BlockBytes over one file of FileBytes: one synchronous O_DIRECT call per
// block, in file order. Each run writes the file, fdatasyncs it, drops it
// from the page cache, checks that none of it is resident, then reads it.
// Bandwidths are in bytes per second (medians of Runs; the samples are
// kept).
type Baseline struct {
	// SchemaVersion is BaselineSchemaVersion for records written by this
	// code; 0 for older ones (their read figure may come from a cache).
	SchemaVersion int       `json:"schema_version"`
	Dir           string    `json:"dir"`
	MeasuredAt    time.Time `json:"measured_at"`
	FileBytes     int64     `json:"file_bytes"`
	BlockBytes    int       `json:"block_bytes"`
	Runs          int       `json:"runs"`
	// DeviceCacheBytes is the device cache the file was sized against (0:
	// unknown).
	DeviceCacheBytes int64 `json:"device_cache_bytes,omitempty"`
	// DeviceWriteBps: FileBytes / (time of the O_DIRECT writes + the
	// fdatasync after them), into a file preallocated with fallocate.
	DeviceWriteBps     float64   `json:"device_write_bps"`
	DeviceWriteSamples []float64 `json:"device_write_samples"`
	// DeviceReadBps: FileBytes / time of the O_DIRECT reads of the file,
	// none of it in the page cache as each read began.
	DeviceReadBps     float64   `json:"device_read_bps"`
	DeviceReadSamples []float64 `json:"device_read_samples"`
	// DropMethod says how the file left the page cache before each read:
	// "fadvise DONTNEED" or "drop_caches + fadvise DONTNEED"; DropNote why
	// drop_caches was not used when it was asked for.
	DropMethod string `json:"drop_method"`
	DropNote   string `json:"drop_note,omitempty"`
	// ResidentBeforeReadBytes is the most bytes of the file found in the
	// page cache just before a read (always 0 in a reported baseline:
	// anything else is ErrBaselineCached), by ResidencyMethod (cachestat or
	// mincore).
	ResidentBeforeReadBytes int64  `json:"resident_before_read_bytes"`
	ResidencyMethod         string `json:"residency_method"`
	// MemCopyBps: bytes copied per second by one copy() of MemBytes between
	// two buffers (Go's memmove), one core.
	MemCopyBps     float64   `json:"mem_copy_bps"`
	MemCopySamples []float64 `json:"mem_copy_samples"`
	MemBytes       int64     `json:"mem_bytes"`
	// Where it was measured, for the caller to fill (results knows them):
	// the block device, file system type, mount point and options of Dir,
	// and the kernel release. A cached baseline whose kernel or mount
	// differs from the data directory's now is stale.
	Device       string `json:"device,omitempty"`
	FileSystem   string `json:"file_system,omitempty"`
	MountPoint   string `json:"mount_point,omitempty"`
	MountOptions string `json:"mount_options,omitempty"`
	Kernel       string `json:"kernel,omitempty"`
}

// median is the middle value of v (the mean of the middle two for an even
// count), 0 for none: results.Median's rule, written here again because
// iosched is a leaf that imports none of the lab's packages.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// MeasureMemCopy copies a memBytes buffer runs times and returns the bytes
// per second of each copy.
func MeasureMemCopy(memBytes int64, runs int) []float64 {
	src := make([]byte, memBytes)
	dst := make([]byte, memBytes)
	for i := range src {
		src[i] = byte(i * 31)
	}
	copy(dst, src) // fault every page in before timing
	out := make([]float64, 0, runs)
	for range runs {
		start := time.Now()
		copy(dst, src)
		out = append(out, float64(memBytes)/time.Since(start).Seconds())
	}
	return out
}

// MeasureBaseline measures the device of o.Dir and memory copy bandwidth,
// and returns the medians with their samples. Errors: invalid options, an
// *IOError wrapping ErrDirectUnsupported when Dir's file system refuses
// O_DIRECT, ErrBaselineCached when the test file stayed in the page cache
// (no figure is reported then), or the *IOError of a failed call.
func MeasureBaseline(o BaselineOptions) (*Baseline, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o.defaults()
	b := &Baseline{SchemaVersion: BaselineSchemaVersion, Dir: o.Dir, MeasuredAt: time.Now().UTC(), FileBytes: o.FileBytes,
		BlockBytes: o.BlockBytes, Runs: o.Runs, MemBytes: o.MemBytes, DeviceCacheBytes: o.DeviceCacheBytes}
	if err := measureDevice(o, b); err != nil {
		return nil, err
	}
	b.MemCopySamples = MeasureMemCopy(o.MemBytes, o.Runs)
	b.DeviceWriteBps = median(b.DeviceWriteSamples)
	b.DeviceReadBps = median(b.DeviceReadSamples)
	b.MemCopyBps = median(b.MemCopySamples)
	return b, nil
}
