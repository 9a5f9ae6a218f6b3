package main

import (
	"github.com/spf13/cobra"

	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
)

func newDumpCmd() *cobra.Command {
	var dir, file string
	var o inspect.Options
	var indexes bool
	cmd := &cobra.Command{
		Use:  "dump (--dir PARTITION_OR_LOG_DIR | --file FILE)",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			labcli.ReadOnly() // read-only: a signal exits at once
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
