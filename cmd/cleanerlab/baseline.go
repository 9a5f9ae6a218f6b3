package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/settings"
)

func newBaselineCmd() *cobra.Command {
	var dir, out string
	o := iosched.BaselineOptions{BlockBytes: 1 << 20, Runs: 3, MemBytes: 256 << 20, DropCaches: true}
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Measure the physical limits of a data directory's device (O_DIRECT, from a cold cache) and of memory",
		Long: `baseline measures what the hardware under a data directory can do, as fio
measures it (direct=1, ioengine=psync, iodepth=1, bs=--block-bytes). Each of
--runs rounds writes one --file-bytes file with O_DIRECT and fdatasyncs it
(the write figure), drops it from the page cache (drop_caches when permitted,
as root, with --drop-caches, the default; then fdatasync and fadvise
DONTNEED), checks with cachestat(2) or mincore(2) that none of it is still
cached, and reads it with O_DIRECT (the read figure); a file found cached is
an error and no figure is reported. One core's memory copy bandwidth is
measured too; medians are reported. The test file is removed afterwards.

The file is 1 GiB by default, or twice --device-cache-bytes when that is
larger: Linux does not tell a disk's own cache size, give it when you know it.
In a virtual machine the host's page cache may still serve the reads, which
no guest can see or drop: a read figure far above the disk's rating is the
host's cache (use a file larger than the host's free memory).

The result is cached in --out as baseline-<device>.json with when, on which
device, file system, mount and kernel it was measured; run reads it (or
measures anew with --baseline, or when it is stale: older than 30 days, or of
another kernel, device or mount) and reports the cleaner's throughput as a
share of the device's read bandwidth and of memory copy bandwidth.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return lab.BaselineCommand(cmd.Context(), cmd.OutOrStdout(), dir, out, o, cmd.Flags().Changed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "a directory on the device to measure (the test file is made and removed there)")
	f.StringVar(&out, "out", "runs", "directory of run records, where the baseline is cached for run")
	f.Var(settings.Bytes(&o.FileBytes), "file-bytes", "size of the test file (bytes; suffixes KiB, MiB, GiB); default 1 GiB, or twice --device-cache-bytes when larger")
	f.Var(settings.Bytes(&o.DeviceCacheBytes), "device-cache-bytes", "the device's own cache, when known (Linux does not tell it); the default file is twice it")
	f.Var(settings.Bytes(&o.BlockBytes), "block-bytes", "bytes per O_DIRECT read or write (a multiple of 4096)")
	f.Var(settings.Count(&o.Runs), "runs", "repetitions of each measurement (medians are reported)")
	f.Var(settings.Bytes(&o.MemBytes), "mem-bytes", "buffer copied to measure memory bandwidth (bytes)")
	f.BoolVar(&o.DropCaches, "drop-caches", o.DropCaches, "also write 3 to /proc/sys/vm/drop_caches before each read: the whole machine's page cache (root only; falls back to fadvise DONTNEED, always done, and says so)")
	return cmd
}
