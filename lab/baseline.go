package lab

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results"
	"github.com/cleanerlab/cleanerlab/settings"
)

// MeasureBaseline is "cleanerlab baseline": it measures the device under
// the directory dir and one core's memory copy bandwidth with
// iosched.MeasureBaseline (o.Dir is set to dir; a file of o.FileBytes, or
// when that is 0 the larger of iosched.DefaultBaselineFileBytes and twice
// o.DeviceCacheBytes), stamps the result with the environment of dir
// (results.StampBaseline) and caches it in the runs directory out
// (results.BaselinePath). It writes to w what it measures before it
// starts, the read, write and copy figures in MiB/s (medians) with their
// samples, how the file left the page cache and how much of it was still
// cached, the virtual-machine caveat and the cached file's path. Errors:
// dir not a directory, o out of range, a failed measurement (a file found
// cached included) or a failed write of the cache, each prefixed
// "baseline: " where the measurement is concerned. A cancelled ctx (a
// signal) stops the measurement within 64 blocks, the test file removed,
// and nothing is cached.
func MeasureBaseline(ctx context.Context, w io.Writer, dir, out string, o iosched.BaselineOptions) error {
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("baseline: --dir %s: not a directory (%v)", dir, err)
	}
	o.Dir = dir
	if err := o.Validate(); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	env, _ := results.CaptureEnvironment(dir)
	size := o.FileBytes
	if size <= 0 {
		size = max(iosched.DefaultBaselineFileBytes, 2*o.DeviceCacheBytes)
	}
	d := env.DataDir
	fmt.Fprintf(w, "measuring %s (%s on %s, mount %s (%s), kernel %s): %s file, %s blocks, %d runs\n", dir, d.FSType, deviceOrNone(d.Device),
		d.MountPoint, d.MountOptions, env.KernelRelease, results.FormatBytes(size), results.FormatBytes(int64(o.BlockBytes)), o.Runs)
	o.CheckDone = ctx.Err
	b, err := iosched.MeasureBaseline(o)
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	results.StampBaseline(b, env)
	path := results.BaselinePath(out, env.DataDir)
	if err := results.WriteBaseline(path, b); err != nil {
		return err
	}
	mibps := func(v float64) string { return fmt.Sprintf("%10.1f MiB/s", v/(1<<20)) }
	fmt.Fprintf(w, "  device sequential read  %s  (O_DIRECT of a file not in the page cache, samples %s)\n", mibps(b.DeviceReadBps), mibSamples(b.DeviceReadSamples))
	fmt.Fprintf(w, "  device sequential write %s  (O_DIRECT + fdatasync, samples %s)\n", mibps(b.DeviceWriteBps), mibSamples(b.DeviceWriteSamples))
	fmt.Fprintf(w, "  memory copy             %s  (one core, %s buffer, samples %s)\n", mibps(b.MemCopyBps), results.FormatBytes(b.MemBytes), mibSamples(b.MemCopySamples))
	fmt.Fprintf(w, "cold read check: before each read the file left the page cache by %s; %s found %d of its bytes cached\n", b.DropMethod, b.ResidencyMethod, b.ResidentBeforeReadBytes)
	if b.DropNote != "" {
		fmt.Fprintf(w, "note: %s\n", b.DropNote)
	}
	vm := "if this is a virtual machine,"
	if guest, known := results.UnderHypervisor(); known && guest {
		vm = "this machine runs under a hypervisor (cpuinfo flag), so"
	}
	fmt.Fprintf(w, "note: %s the host's page cache may still serve these reads, unseen by this kernel; a read figure far above the disk's rating is the host's cache (use --file-bytes above the host's free memory)\n", vm)
	fmt.Fprintf(w, "baseline: %s\n", path)
	return nil
}

func deviceOrNone(s string) string {
	if s == "" {
		return "no block device"
	}
	return s
}

func mibSamples(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.0f", x/(1<<20))
	}
	return s
}

// BaselineCommand is the baseline command: it checks its flags (a count
// given as 0 is refused: the options read 0 as "the default", which a
// user who typed it did not ask for; changed says which were given) and
// measures dir's device and memory (MeasureBaseline), caching the result
// in runsDir.
func BaselineCommand(ctx context.Context, w io.Writer, dir, runsDir string, o iosched.BaselineOptions, changed func(flag string) bool) error {
	if dir == "" {
		return fmt.Errorf("baseline: --dir is required (a directory on the device to measure)")
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fmt.Errorf("baseline: --dir %s: not a directory (%v)", dir, err)
	}
	if o.Runs < 1 {
		return fmt.Errorf("baseline: --runs %d: want at least 1", o.Runs)
	}
	for _, c := range []struct {
		name  string
		value int64
	}{{"file-bytes", o.FileBytes}, {"block-bytes", int64(o.BlockBytes)}, {"mem-bytes", o.MemBytes}} {
		if changed != nil && changed(c.name) && c.value < 1 {
			return fmt.Errorf("baseline: --%s %d: want at least 1 byte (leave the flag out for the default)", c.name, c.value)
		}
	}
	return MeasureBaseline(ctx, w, dir, runsDir, o)
}

// BaselineCommandOptions are the baseline command's options, as its flags
// give them: the directory measured, the runs directory the result is
// cached in, the measurement's options.
type BaselineCommandOptions struct {
	Dir, Out string
	iosched.BaselineOptions
}

// DefaultBaselineCommandOptions are the baseline command's defaults:
// cached under runs/, 1 MiB blocks, 3 runs, a 256 MiB copy, the machine's
// page cache dropped where permitted.
func DefaultBaselineCommandOptions() BaselineCommandOptions {
	return BaselineCommandOptions{Out: "runs", BaselineOptions: iosched.BaselineOptions{BlockBytes: 1 << 20, Runs: 3, MemBytes: 256 << 20, DropCaches: true}}
}

// BaselineFlags are the baseline command's flags.
var BaselineFlags = settings.MustRegistry(DefaultBaselineCommandOptions, []settings.Setting[BaselineCommandOptions]{
	settings.Flag("dir", "a directory on the device to measure (the test file is made and removed there)",
		func(o *BaselineCommandOptions) settings.Value { return settings.String(&o.Dir) }),
	settings.Flag("out", "directory of run records, where the baseline is cached for run", func(o *BaselineCommandOptions) settings.Value { return settings.String(&o.Out) }),
	settings.Flag("file-bytes", "size of the test file (bytes; suffixes KiB, MiB, GiB); default 1 GiB, or twice --device-cache-bytes when larger",
		func(o *BaselineCommandOptions) settings.Value { return settings.Bytes(&o.FileBytes) }),
	settings.Flag("device-cache-bytes", "the device's own cache, when known (Linux does not tell it); the default file is twice it",
		func(o *BaselineCommandOptions) settings.Value { return settings.Bytes(&o.DeviceCacheBytes) }),
	settings.Flag("block-bytes", "bytes per O_DIRECT read or write (a multiple of 4096)", func(o *BaselineCommandOptions) settings.Value { return settings.Bytes(&o.BlockBytes) }),
	settings.Flag("runs", "repetitions of each measurement (medians are reported)", func(o *BaselineCommandOptions) settings.Value { return settings.Count(&o.Runs) }),
	settings.Flag("mem-bytes", "buffer copied to measure memory bandwidth (bytes)", func(o *BaselineCommandOptions) settings.Value { return settings.Bytes(&o.MemBytes) }),
	settings.Flag("drop-caches", "also write 3 to /proc/sys/vm/drop_caches before each read: the whole machine's page cache (root only; falls back to fadvise DONTNEED, always done, and says so)",
		func(o *BaselineCommandOptions) settings.Value { return settings.Bool(&o.DropCaches) }),
})
