package inspect

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
)

// VerifyResult is what Verify found in one partition directory: its report
// (never nil) and engine.Verify's error (nil when it has no problem).
type VerifyResult struct {
	Dir    string
	Report *engine.VerifyReport
	Err    error
	// Skipped, when set, is the line of a directory of a root that holds
	// segment files but is no partition (engine.SkippedDirs): Report is
	// nil and nothing was checked.
	Skipped string
}

// Verify runs engine.Verify (read-only) over path: a partition directory,
// or every partition directory of a log directory root (engine.PartitionDirs,
// in name order), each with opts. It returns one result per partition; a
// partition that fails does not stop the others, and one of a root that
// holds no segment file (an empty partition, as Kafka loads it) is a note. The error joins the
// partitions' errors (each a *record.CorruptionError or the error of
// opening it, prefixed with its directory), or says why path is neither.
// opts.Checkpoint names one partition's offset and is refused for a log
// directory root.
func Verify(path string, opts engine.VerifyOptions) ([]VerifyResult, error) {
	k, err := Classify(path)
	if err != nil {
		return nil, err
	}
	switch k {
	case KindFile:
		return nil, fmt.Errorf("inspect: verify %s: %w: want a partition directory or a log directory root, not a file", path, engine.ErrNotLogDir)
	case KindPartition:
		rep, err := engine.Verify(path, opts)
		return []VerifyResult{{Dir: path, Report: rep, Err: err}}, err
	}
	if opts.Checkpoint > 0 {
		return nil, fmt.Errorf("inspect: verify %s: a checkpoint offset (%d) names one partition's offset; give a partition directory, or none to read each partition's entry of the cleaner checkpoint file", path, opts.Checkpoint)
	}
	dirs, err := engine.PartitionDirs(opts.FS, path)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	var res []VerifyResult
	var errs []error
	if skipped, err := engine.SkippedDirs(opts.FS, path); err == nil {
		for _, s := range skipped {
			// Not checked: a line says so (WriteVerifyResult), not an OK.
			res = append(res, VerifyResult{Dir: s.Path, Skipped: s.String()})
		}
	}
	for _, dir := range dirs {
		if logs, err := segmentFiles(dir); err == nil && len(logs) == 0 {
			// An empty partition (Kafka loads it as an empty log): nothing to check.
			res = append(res, VerifyResult{Dir: dir, Report: &engine.VerifyReport{Dir: dir, CheckpointOffset: engine.NoCheckpoint,
				Notes: []engine.VerifyNote{{Path: dir, Message: "no segment file: an empty partition, nothing to check"}}}})
			continue
		}
		rep, err := engine.Verify(dir, opts)
		res = append(res, VerifyResult{Dir: dir, Report: rep, Err: err})
		if err != nil {
			if strings.HasPrefix(err.Error(), dir+string(filepath.Separator)) {
				errs = append(errs, err) // it names a file of dir already
			} else {
				errs = append(errs, fmt.Errorf("%s: %w", dir, err))
			}
		}
	}
	return res, errors.Join(errs...)
}

// WriteVerifyResult prints one partition's result: a summary line (segments,
// bytes, offsets, batches, records, keys, index entries, checkpoint), then
// "note: ", "PROBLEM " and "RECOVERY PENDING " lines (what a read-write
// open would change: engine.VerifyReport.RecoveryPending), a PROBLEM line
// with the error when the
// partition could not be opened at all, else "DIR: OK" when it has no
// problem.
func WriteVerifyResult(w io.Writer, r VerifyResult) {
	if r.Skipped != "" {
		fmt.Fprintln(w, r.Skipped)
		return
	}
	rep, err := r.Report, r.Err
	if rep.Segments > 0 {
		ckpt := "none"
		if rep.CheckpointOffset >= 0 {
			ckpt = fmt.Sprint(rep.CheckpointOffset)
		}
		fmt.Fprintf(w, "%s: %d segments, %d bytes, offsets [%d, %d), %d batches (%d control, %d empty, %d legacy), %d records, %d keys, %d tombstones, %d keyless; %d offset-index, %d time-index and %d txn-index entries; checkpoint %s\n",
			rep.TopicPartition, rep.Segments, rep.Bytes, rep.LogStartOffset, rep.LogEndOffset, rep.Batches, rep.ControlBatches, rep.EmptyBatches, rep.LegacyBatches,
			rep.Records, rep.Keys, rep.Tombstones, rep.KeylessRecords, rep.OffsetIndexEntries, rep.TimeIndexEntries, rep.TxnIndexEntries, ckpt)
	}
	for _, n := range rep.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "PROBLEM %s\n", p)
	}
	for _, a := range rep.RecoveryPending {
		fmt.Fprintf(w, "RECOVERY PENDING %s\n", a)
	}
	switch {
	case err != nil && len(rep.Problems) == 0 && len(rep.RecoveryPending) == 0:
		fmt.Fprintf(w, "PROBLEM %s: %v\n", r.Dir, err)
	case err == nil:
		fmt.Fprintf(w, "%s: OK\n", r.Dir)
	}
}
