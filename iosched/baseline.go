package iosched

import (
	"fmt"
	"slices"
	"time"
)

// BaselineOptions configure MeasureBaseline.
type BaselineOptions struct {
	// Dir is the data directory whose device is measured: the test file is
	// made in it, and removed afterwards.
	Dir string
	// FileBytes is the size of the test file. Default 256 MiB. It should be
	// well past the device's own cache.
	FileBytes int64
	// BlockBytes is the size of each O_DIRECT read and write. Default 1 MiB.
	BlockBytes int
	// Runs is how many times the file is written, then read, and memory
	// copied; the figures are the medians. Default 3.
	Runs int
	// MemBytes is the buffer copied to measure memory bandwidth. Default
	// 256 MiB (past the CPU caches).
	MemBytes int64
}

func (o *BaselineOptions) defaults() {
	if o.FileBytes <= 0 {
		o.FileBytes = 256 << 20
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
// size that is not a multiple of the O_DIRECT alignment (4096 bytes).
func (o BaselineOptions) Validate() error {
	o.defaults()
	if o.BlockBytes%directAlignBytes != 0 {
		return fmt.Errorf("iosched: baseline block size %d is not a multiple of %d", o.BlockBytes, directAlignBytes)
	}
	return nil
}

// Baseline holds the physical limits of a data directory's device and of
// memory, measured as fio measures with direct=1, ioengine=psync, iodepth=1,
// rw=write then rw=read, bs=BlockBytes over one file of FileBytes: one
// synchronous O_DIRECT call per block, in file order. Bandwidths are in
// bytes per second (medians of Runs; the samples are kept).
type Baseline struct {
	Dir        string    `json:"dir"`
	MeasuredAt time.Time `json:"measured_at"`
	FileBytes  int64     `json:"file_bytes"`
	BlockBytes int       `json:"block_bytes"`
	Runs       int       `json:"runs"`
	// DeviceWriteBps: FileBytes / (time of the O_DIRECT writes + the
	// fdatasync after them), into a file preallocated with fallocate.
	DeviceWriteBps     float64   `json:"device_write_bps"`
	DeviceWriteSamples []float64 `json:"device_write_samples"`
	// DeviceReadBps: FileBytes / time of the O_DIRECT reads.
	DeviceReadBps     float64   `json:"device_read_bps"`
	DeviceReadSamples []float64 `json:"device_read_samples"`
	// MemCopyBps: bytes copied per second by one copy() of MemBytes between
	// two buffers (Go's memmove), one core.
	MemCopyBps     float64   `json:"mem_copy_bps"`
	MemCopySamples []float64 `json:"mem_copy_samples"`
	MemBytes       int64     `json:"mem_bytes"`
	// Device and FileSystem are for the caller to fill (results knows them).
	Device     string `json:"device,omitempty"`
	FileSystem string `json:"file_system,omitempty"`
}

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

// MeasureBaseline measures the device of o.Dir (MeasureDevice) and memory
// copy bandwidth, and returns the medians with their samples.
func MeasureBaseline(o BaselineOptions) (*Baseline, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	o.defaults()
	b := &Baseline{Dir: o.Dir, MeasuredAt: time.Now().UTC(), FileBytes: o.FileBytes, BlockBytes: o.BlockBytes, Runs: o.Runs, MemBytes: o.MemBytes}
	var err error
	if b.DeviceWriteSamples, b.DeviceReadSamples, err = measureDevice(o); err != nil {
		return nil, err
	}
	b.MemCopySamples = MeasureMemCopy(o.MemBytes, o.Runs)
	b.DeviceWriteBps = median(b.DeviceWriteSamples)
	b.DeviceReadBps = median(b.DeviceReadSamples)
	b.MemCopyBps = median(b.MemCopySamples)
	return b, nil
}
