package lab

import (
	"errors"
	"fmt"
	"io"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/lab/inspect"
	"github.com/cleanerlab/cleanerlab/lab/truthfile"
	"github.com/cleanerlab/cleanerlab/settings"
)

// VerifyCommandOptions are the verify command's options, as its flags
// give them.
type VerifyCommandOptions struct {
	// Dir is the partition directory or log directory root. Required.
	Dir string
	// Checkpoint is the offset below which no key may appear twice: -1 the
	// cleaner checkpoint file's entry, 0 no check.
	Checkpoint int64
	// IgnoreCheckpoint skips the compaction check.
	IgnoreCheckpoint bool
	// Truth, when set, is a ground truth file (cleanerlab generate) every
	// key's latest record is checked against.
	Truth string
}

// VerifyCommand is the verify command: it checks o.Dir read-only
// (inspect.Verify, and truthfile.Check with o.Truth), writes every
// problem to out, "OK" when there is none. A problem asks for exit status
// 2, recovery pending alone for 3. An o.Truth that cannot be read as a
// truth file (truthfile.CheckHeader) is an error naming --truth, before
// anything is checked or printed.
func VerifyCommand(o VerifyCommandOptions, out io.Writer) error {
	if o.Dir == "" {
		return errors.New("verify: --dir is required")
	}
	if o.Checkpoint < -1 {
		return fmt.Errorf("verify: --checkpoint %d: want an offset >= 0, or -1 for the checkpoint file's entry", o.Checkpoint)
	}
	// A truth file that cannot be read fails before the log's checks print
	// their lines and "OK".
	if o.Truth != "" {
		if err := truthfile.CheckHeader(o.Truth); err != nil {
			return fmt.Errorf("verify: --truth: %w", err)
		}
	}
	opts := engine.VerifyOptions{IgnoreCheckpoint: o.IgnoreCheckpoint || o.Checkpoint == 0}
	if o.Checkpoint > 0 {
		opts.Checkpoint = record.Offset(o.Checkpoint)
	}
	results, err := inspect.Verify(o.Dir, opts)
	for _, r := range results {
		inspect.WriteVerifyResult(out, r)
	}
	if o.Truth != "" {
		err = errors.Join(err, truthfile.Check(out, o.Dir, o.Truth))
	}
	if err != nil {
		if inspect.OnlyRecoveryPending(results) {
			return ExitError{Code: 3, Err: err}
		}
		return ExitError{Code: 2, Err: err}
	}
	fmt.Fprintln(out, "OK")
	return nil
}

// VerifyFlags are the verify command's flags.
var VerifyFlags = settings.MustRegistry(func() VerifyCommandOptions { return VerifyCommandOptions{Checkpoint: -1} }, []settings.Setting[VerifyCommandOptions]{
	settings.Flag("dir", "partition directory (named topic-partition) or log directory root (the parent of partition directories)",
		func(o *VerifyCommandOptions) settings.Value { return settings.String(&o.Dir) }),
	settings.Flag("checkpoint", "check that no key appears twice below this offset (-1: the cleaner checkpoint file's entry; one partition only)",
		func(o *VerifyCommandOptions) settings.Value { return settings.Count(&o.Checkpoint) }),
	settings.Flag("ignore-checkpoint", "skip the compaction check", func(o *VerifyCommandOptions) settings.Value { return settings.Bool(&o.IgnoreCheckpoint) }),
	settings.Flag("truth", "also check every key's latest record against this ground truth file (from cleanerlab generate)",
		func(o *VerifyCommandOptions) settings.Value { return settings.String(&o.Truth) }),
})
