package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/iosched"
	"github.com/cleanerlab/cleanerlab/results"
)

func newBaselineCmd() *cobra.Command {
	var dir, out string
	o := iosched.BaselineOptions{FileBytes: 256 << 20, BlockBytes: 1 << 20, Runs: 3, MemBytes: 256 << 20}
	cmd := &cobra.Command{
		Use:   "baseline",
		Short: "Measure the physical limits of a data directory's device and of memory",
		Long: `baseline measures what the hardware under a data directory can do, as fio
measures it (direct=1, ioengine=psync, iodepth=1, bs=--block-bytes): sequential
O_DIRECT writes of one --file-bytes file (then fdatasync), sequential O_DIRECT
reads of it, and one core's memory copy bandwidth; --runs times each, medians.
The test file is removed afterwards.

The result is cached in --out as baseline-<device>.json; run reads it (or
measures anew with --baseline) and reports the cleaner's throughput as a share
of the device's read bandwidth and of memory copy bandwidth.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return fmt.Errorf("baseline: --dir is required (a directory on the device to measure)")
			}
			if st, err := os.Stat(dir); err != nil || !st.IsDir() {
				return fmt.Errorf("baseline: --dir %s: not a directory (%v)", dir, err)
			}
			o.Dir = dir
			if err := o.Validate(); err != nil {
				return fmt.Errorf("baseline: %w", err)
			}
			env, _ := results.CaptureEnvironment(dir)
			w := cmd.OutOrStdout()
			fmt.Fprintf(w, "measuring %s (%s on %s): %s file, %s blocks, %d runs\n", dir, env.DataDir.FSType, orNone(env.DataDir.Device),
				results.FormatBytes(o.FileBytes), results.FormatBytes(int64(o.BlockBytes)), o.Runs)
			b, err := iosched.MeasureBaseline(o)
			if err != nil {
				return fmt.Errorf("baseline: %w", err)
			}
			b.Device, b.FileSystem = env.DataDir.Device, env.DataDir.FSType
			path := results.BaselinePath(out, env.DataDir)
			if err := results.WriteBaseline(path, b); err != nil {
				return err
			}
			mibps := func(v float64) string { return fmt.Sprintf("%10.1f MiB/s", v/(1<<20)) }
			fmt.Fprintf(w, "  device sequential read  %s  (O_DIRECT, samples %s)\n", mibps(b.DeviceReadBps), samples(b.DeviceReadSamples))
			fmt.Fprintf(w, "  device sequential write %s  (O_DIRECT + fdatasync, samples %s)\n", mibps(b.DeviceWriteBps), samples(b.DeviceWriteSamples))
			fmt.Fprintf(w, "  memory copy             %s  (one core, %s buffer, samples %s)\n", mibps(b.MemCopyBps), results.FormatBytes(b.MemBytes), samples(b.MemCopySamples))
			fmt.Fprintf(w, "baseline: %s\n", path)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "a directory on the device to measure (the test file is made and removed there)")
	f.StringVar(&out, "out", "runs", "directory of run records, where the baseline is cached for run")
	f.Var((*byteSize)(&o.FileBytes), "file-bytes", "size of the test file (bytes; suffixes KiB, MiB, GiB); larger than the device's cache")
	f.Var((*intByteSize)(&o.BlockBytes), "block-bytes", "bytes per O_DIRECT read or write (a multiple of 4096)")
	f.IntVar(&o.Runs, "runs", o.Runs, "repetitions of each measurement (medians are reported)")
	f.Var((*byteSize)(&o.MemBytes), "mem-bytes", "buffer copied to measure memory bandwidth (bytes)")
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "no block device"
	}
	return s
}

func samples(v []float64) string {
	s := ""
	for i, x := range v {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%.0f", x/(1<<20))
	}
	return s
}

// intByteSize is byteSize for an int.
type intByteSize int

func (b *intByteSize) String() string { return fmt.Sprint(int(*b)) }
func (b *intByteSize) Type() string   { return "bytes" }
func (b *intByteSize) Set(s string) error {
	v, err := parseByteSize(s)
	if err != nil {
		return err
	}
	if int64(int(v)) != v {
		return fmt.Errorf("%q is too large", s)
	}
	*b = intByteSize(v)
	return nil
}
