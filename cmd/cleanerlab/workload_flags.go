package main

import (
	"strings"

	"github.com/spf13/pflag"

	"github.com/cleanerlab/cleanerlab/workloads"
)

// workloadFlags binds the workload spec's fields as flags; compression is
// the codec's name, parsed when the run is resolved.
func workloadFlags(f *pflag.FlagSet, w *workloads.Spec, compression *string) {
	f.Var((*countValue)(&w.Keys), "keys", "key cardinality: distinct keys the workload writes (an integer; 1e6 is accepted)")
	f.IntVar(&w.KeyBytes, "key-bytes", w.KeyBytes, "bytes per key (the median with --key-size lognormal)")
	f.Var((*sizeDistValue)(&w.KeySize), "key-size", "key size distribution: fixed (--key-bytes), uniform:MIN-MAX, lognormal:SIGMA[:MIN-MAX] (median --key-bytes)")
	f.IntVar(&w.ValueBytes, "value-bytes", w.ValueBytes, "bytes per value (the median with --value-size lognormal)")
	f.Var((*sizeDistValue)(&w.ValueSize), "value-size", "value size distribution: fixed (--value-bytes), uniform:MIN-MAX, lognormal:SIGMA[:MIN-MAX] (median --value-bytes)")
	f.Float64Var(&w.TombstoneRatio, "tombstone-ratio", w.TombstoneRatio, "share of dirty writes that are tombstones (null values)")
	f.Float64Var(&w.DirtyRatio, "dirty-ratio", w.DirtyRatio, "target cleanable ratio: dirty bytes / log bytes")
	f.Var((*byteSize)(&w.LogBytes), "log-bytes", "approximate .log bytes of all partitions together (suffixes KiB, MiB, GiB)")
	f.IntVar(&w.RecordsPerBatch, "records-per-batch", w.RecordsPerBatch, "records per batch written by the generator")
	f.StringVar(compression, "compression", *compression, "codec of generated batches: none, gzip, snappy, lz4, zstd")
	f.Uint64Var(&w.Seed, "seed", w.Seed, "seed of the workload: same seed, same bytes")
	f.IntVar(&w.Partitions, "partitions", w.Partitions, "partitions (logs) to generate and clean")
	f.StringVar(&w.Distribution, "distribution", w.Distribution, "key choice of the dirty head: "+strings.Join(workloads.Distributions, ", ")+" (YCSB's generators)")
	f.Float64Var(&w.ZipfConstant, "zipf-constant", w.ZipfConstant, "skew of zipfian and latest, in (0, 1) (YCSB's zipfian constant)")
	f.Float64Var(&w.HotKeyShare, "hot-key-share", w.HotKeyShare, "hotcold: share of the keys that are hot")
	f.Float64Var(&w.HotWriteShare, "hot-write-share", w.HotWriteShare, "hotcold: share of the writes that go to hot keys")
	f.Int64Var(&w.RecordsPerSecond, "records-per-sec", w.RecordsPerSecond, "rate at which record timestamps advance (records per second of CreateTime)")
	f.Int64Var(&w.StartTimeMs, "start-time-ms", w.StartTimeMs, "CreateTime of offset 0 (ms since the epoch)")
	f.Float64Var(&w.Txn.Ratio, "txn-ratio", w.Txn.Ratio, "share of dirty-head batches written inside transactions")
	f.Float64Var(&w.Txn.AbortRatio, "abort-ratio", w.Txn.AbortRatio, "share of transactions that end with ABORT")
	f.IntVar(&w.Txn.Producers, "producers", w.Txn.Producers, "transactional producers, whose transactions interleave")
	f.IntVar(&w.Txn.BatchesPerTxn, "batches-per-txn", w.Txn.BatchesPerTxn, "data batches in each transaction")
}

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
