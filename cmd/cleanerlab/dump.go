package main

import (
	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/lab/inspect"
)

func newDumpCmd() *cobra.Command {
	var dir, file string
	var o inspect.Options
	var indexes bool
	cmd := &cobra.Command{
		Use:   "dump (--dir PARTITION_OR_LOG_DIR | --file FILE)",
		Short: "Print segment files, indexes and checkpoints of a partition or a whole log directory, in the shape of kafka-dump-log",
		Long: `dump prints one line per batch: base and last offset, record count, byte
position and size, magic, codec, attributes, producer id/epoch/sequence, the
stored CRC and whether it verifies. With --records it also prints one line per
record: offset, timestamp, key, value length (or null for a tombstone) and
header count; magic 0/1 messages are printed as stored, and with --records the
inner messages of a compressed wrapper with their absolute offsets.

--dir takes a partition directory (every .log file in offset order) or a whole
log directory root (every topic-partition directory in it, in name order; a
partition that cannot be dumped is reported and the others go on).

--index, --timeindex and --txnindex (or --indexes for all three) print each
segment's .index, .timeindex and .txnindex entries after its batches, and
check each offset-index entry against the log: it must point at a batch start
(within the file) whose base offset is at or below the entry's offset.
--checkpoints prints, for a partition, its leader-epoch-checkpoint, its entries
of the root's checkpoint files and whether the root holds the clean-shutdown
marker; for a log directory root, the root's checkpoint files whole, the
marker, and each partition's leader-epoch-checkpoint.

--file takes one .log, .index (checked against its .log when that exists),
.timeindex or .txnindex file (a .cleaned, .swap or .deleted suffix allowed),
cleaner-offset-checkpoint, recovery-point-offset-checkpoint,
log-start-offset-checkpoint, leader-epoch-checkpoint or .kafka_cleanshutdown.

Nothing is written and no lock is taken. A corrupt or truncated batch, or an
index or checkpoint entry that does not decode or match the log, ends that
file's dump with an error naming the file and byte position, and a non-zero
exit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			exitOnSignal.Store(true) // read-only: a signal exits at once
			return inspect.DumpCommand(cmd.OutOrStdout(), dir, file, indexes, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "partition directory (every .log file in offset order) or log directory root (every partition in it)")
	f.StringVar(&file, "file", "", "one .log, .index, .timeindex, .txnindex or checkpoint file")
	f.BoolVar(&o.Records, "records", false, "also print every record (the inner messages of legacy compressed wrappers too)")
	f.BoolVar(&o.Values, "values", false, "with --records, print value bytes too")
	f.BoolVar(&o.Index, "index", false, "print each segment's .index entries, checked against the log")
	f.BoolVar(&o.TimeIndex, "timeindex", false, "print each segment's .timeindex entries")
	f.BoolVar(&o.TxnIndex, "txnindex", false, "print each segment's .txnindex entries (aborted transactions)")
	f.BoolVar(&indexes, "indexes", false, "all of --index, --timeindex and --txnindex")
	f.BoolVar(&o.Checkpoints, "checkpoints", false, "print the checkpoint files, leader-epoch-checkpoint and the clean-shutdown marker (with --dir)")
	return cmd
}
