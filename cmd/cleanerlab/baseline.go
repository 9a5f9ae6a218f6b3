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
		Use:  "baseline",
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
