package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/lab"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// workloadFlags binds the workload spec's fields as flags.
func workloadFlags(f *pflag.FlagSet, w *workloads.Spec) {
	f.Var(countOf(&w.Keys), "keys", "key cardinality: distinct keys the workload writes (an integer; 1e6 is accepted)")
	f.Var(bytesOf(&w.KeyBytes), "key-bytes", "bytes per key (the median with --key-size lognormal)")
	f.Var((*sizeDistValue)(&w.KeySize), "key-size", "key size distribution: fixed (--key-bytes), uniform:MIN-MAX, lognormal:SIGMA[:MIN-MAX] (median --key-bytes)")
	f.Var(bytesOf(&w.ValueBytes), "value-bytes", "bytes per value (the median with --value-size lognormal)")
	f.Var((*sizeDistValue)(&w.ValueSize), "value-size", "value size distribution: fixed (--value-bytes), uniform:MIN-MAX, lognormal:SIGMA[:MIN-MAX] (median --value-bytes)")
	f.Float64Var(&w.TombstoneRatio, "tombstone-ratio", w.TombstoneRatio, "share of dirty writes that are tombstones (null values)")
	f.Float64Var(&w.DirtyRatio, "dirty-ratio", w.DirtyRatio, "target cleanable ratio: dirty bytes / log bytes")
	f.Var(bytesOf(&w.LogBytes), "log-bytes", "approximate .log bytes of all partitions together (suffixes KiB, MiB, GiB)")
	f.Var(countOf(&w.RecordsPerBatch), "records-per-batch", "records per batch written by the generator")
	f.Var((*codecValue)(&w.Codec), "compression", "codec of generated batches: none, gzip, snappy, lz4, zstd")
	f.Var((*uintCount)(&w.Seed), "seed", "seed of the workload: same seed, same bytes")
	f.Var(countOf(&w.Partitions), "partitions", "partitions (logs) to generate and clean")
	f.Var(nameValue{&w.Distribution, checkDistribution, "distribution"}, "distribution", "key choice of the dirty head: "+strings.Join(workloads.Distributions, ", ")+" (YCSB's generators)")
	f.Float64Var(&w.ZipfConstant, "zipf-constant", w.ZipfConstant, "skew of zipfian and latest, in (0, 1) (YCSB's zipfian constant)")
	f.Float64Var(&w.HotKeyShare, "hot-key-share", w.HotKeyShare, "hotcold: share of the keys that are hot")
	f.Float64Var(&w.HotWriteShare, "hot-write-share", w.HotWriteShare, "hotcold: share of the writes that go to hot keys")
	f.Var(countOf(&w.RecordsPerSecond), "records-per-sec", "rate at which record timestamps advance (records per second of CreateTime)")
	f.Var(countOf(&w.StartTimeMs), "start-time-ms", "CreateTime of offset 0 (ms since the epoch)")
	f.Float64Var(&w.Txn.Ratio, "txn-ratio", w.Txn.Ratio, "share of dirty-head batches written inside transactions")
	f.Float64Var(&w.Txn.AbortRatio, "abort-ratio", w.Txn.AbortRatio, "share of transactions that end with ABORT")
	f.Var(countOf(&w.Txn.Producers), "producers", "transactional producers, whose transactions interleave")
	f.Var(countOf(&w.Txn.BatchesPerTxn), "batches-per-txn", "data batches in each transaction")
}

func checkDistribution(s string) error { return lab.CheckSetting("workload.Distribution", s) }

// sizeDistValue is a workloads.SizeDist as a flag.
type sizeDistValue workloads.SizeDist

func (d *sizeDistValue) String() string { return workloads.SizeDist(*d).String() }
func (d *sizeDistValue) Type() string   { return "dist" }

func (d *sizeDistValue) Set(s string) error {
	v, err := workloads.ParseSizeDist(s)
	if err != nil {
		return err
	}
	*d = sizeDistValue(v)
	return nil
}
