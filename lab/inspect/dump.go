package inspect

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/settings"
)

// Options choose what Dump prints besides one line per batch.
type Options struct {
	// Records prints one line per record (the inner messages of a legacy
	// compressed wrapper too); Values adds the value bytes to it.
	Records, Values bool
	// Index, TimeIndex and TxnIndex print each segment's .index,
	// .timeindex and .txnindex entries after its batches; offset-index
	// entries are checked against the log.
	Index, TimeIndex, TxnIndex bool
	// Checkpoints prints, for a partition directory, its leader-epoch-checkpoint
	// and its entries in the root's offset checkpoint files and whether the
	// clean-shutdown marker is there; for a log directory root, the root's
	// checkpoint files whole, the marker, and each partition's
	// leader-epoch-checkpoint.
	Checkpoints bool
}

// Dump prints path, read-only: one file (DumpFile), a partition directory
// (DumpPartition) or a log directory root (DumpLogDir), as Classify tells.
func Dump(w io.Writer, path string, o Options) error {
	k, err := Classify(path)
	if err != nil {
		return err
	}
	switch k {
	case KindPartition:
		return DumpPartition(w, path, o)
	case KindLogDir:
		return DumpLogDir(w, path, o)
	}
	return DumpFile(w, path, o)
}

// DumpFile prints one file, its format told by its name: a segment .log
// (with Records, its records), .index (checked against the .log beside it
// when there is one), .timeindex or .txnindex file, named by a 20-digit
// base offset (a .cleaned, .swap or .deleted suffix after the extension
// allowed); an offset checkpoint file, a leader-epoch-checkpoint or the
// clean-shutdown marker. Any other name is an error saying which names are
// known.
func DumpFile(w io.Writer, path string, o Options) error {
	kind, ext := fileKind(path)
	switch kind {
	case engine.LogFileSuffix:
		return dumpLog(w, path, ext, o)
	case engine.IndexFileSuffix:
		base, err := baseOffsetOf(path, ext)
		if err != nil {
			return err
		}
		logPath := path[:len(path)-len(ext)] + engine.LogFileSuffix + ext[len(engine.IndexFileSuffix):]
		var starts map[engine.FilePos]record.Offset
		size := int64(-1)
		if st, err := os.Stat(logPath); err == nil {
			size = st.Size()
			if starts, err = batchStarts(logPath); err != nil {
				return err
			}
		}
		return dumpOffsetIndex(w, path, base, starts, size)
	case engine.TimeIndexFileSuffix:
		base, err := baseOffsetOf(path, ext)
		if err != nil {
			return err
		}
		return dumpTimeIndex(w, path, base)
	case engine.TxnIndexFileSuffix:
		base, err := baseOffsetOf(path, ext)
		if err != nil {
			return err
		}
		return dumpTxnIndex(w, path, base)
	case engine.CleanShutdownFile:
		if _, err := os.Stat(path); err != nil {
			return fmt.Errorf("inspect: %w", err)
		}
		fmt.Fprintf(w, "%s: present (the last shutdown of this log directory was clean)\n", path)
		return nil
	case LeaderEpochCheckpointFile:
		return dumpLeaderEpochCheckpoint(w, path)
	case "":
		return fmt.Errorf("%w: %s: want a segment file (20-digit base offset + .log, .index, .timeindex or .txnindex), %s, %s, %s, %s or %s",
			errUnknownFile, path, engine.CleanerCheckpointFile, engine.RecoveryPointCheckpointFile, engine.LogStartOffsetCheckpointFile, LeaderEpochCheckpointFile, engine.CleanShutdownFile)
	}
	return dumpOffsetCheckpoint(w, path)
}

// DumpPartition prints every segment of a partition directory in offset
// order: its batches (and with Options.Records its records), then the index
// files asked for. With Options.Checkpoints it first prints the partition's
// leader-epoch-checkpoint, its entries in the root's offset checkpoint files
// and whether the root holds the clean-shutdown marker. The first corrupt
// batch or index entry ends the dump with a *record.CorruptionError.
func DumpPartition(w io.Writer, dir string, o Options) error {
	return dumpPartition(w, dir, o, true)
}

func dumpPartition(w io.Writer, dir string, o Options, rootEntries bool) error {
	files, err := segmentFiles(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("inspect: %w: %s holds no *.log segment file", engine.ErrNotLogDir, dir)
	}
	if o.Checkpoints {
		if rootEntries {
			if err := dumpPartitionCheckpoints(w, dir); err != nil {
				return err
			}
		}
		le := filepath.Join(dir, LeaderEpochCheckpointFile)
		if _, err := os.Stat(le); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(w, "No %s in %s\n", LeaderEpochCheckpointFile, dir)
		} else if err := dumpLeaderEpochCheckpoint(w, le); err != nil {
			return err
		}
	}
	for _, f := range files {
		if err := dumpSegment(w, f, o); err != nil {
			return err
		}
	}
	return nil
}

// DumpLogDir prints every partition directory of a log directory root (as
// engine.PartitionDirs lists them, in name order) as DumpPartition does,
// after the root's checkpoint files and clean-shutdown marker with
// Options.Checkpoints. A root checkpoint file or a partition that cannot
// be dumped does not stop the others: its error is printed in its place
// and returned, joined with the others', at the end. A partition without segment files (an empty
// partition, as Kafka loads it) is said to be so.
func DumpLogDir(w io.Writer, root string, o Options) error {
	dirs, err := engine.PartitionDirs(nil, root)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	if len(dirs) == 0 {
		return fmt.Errorf("inspect: %w: %s holds no topic-partition directory", engine.ErrNotLogDir, root)
	}
	var errs []error
	if o.Checkpoints {
		for _, name := range offsetCheckpointFiles {
			p := filepath.Join(root, name)
			if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
				fmt.Fprintf(w, "No %s in %s\n", name, root)
				continue
			}
			// A bad checkpoint ends that file's dump only: the other
			// files and every partition are still dumped.
			if err := dumpOffsetCheckpoint(w, p); err != nil {
				fmt.Fprintf(w, "error: %v\n", err)
				errs = append(errs, err)
			}
		}
		_, err := os.Stat(filepath.Join(root, engine.CleanShutdownFile))
		fmt.Fprintf(w, "%s: %t\n", engine.CleanShutdownFile, err == nil)
	}
	if skipped, err := engine.SkippedDirs(nil, root); err == nil {
		for _, s := range skipped {
			fmt.Fprintln(w, s.String())
		}
	}
	for _, dir := range dirs {
		fmt.Fprintf(w, "Partition %s\n", dir)
		if logs, err := segmentFiles(dir); err == nil && len(logs) == 0 {
			fmt.Fprintf(w, "No segment file in %s (an empty partition)\n", dir)
			continue
		}
		if err := dumpPartition(w, dir, o, false); err != nil {
			fmt.Fprintf(w, "error: %v\n", err)
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// dumpSegment dumps one .log file and, as asked, its index files.
func dumpSegment(w io.Writer, path string, o Options) error {
	starts, err := dumpLogStarts(w, path, engine.LogFileSuffix, o)
	if err != nil {
		return err
	}
	if !o.Index && !o.TimeIndex && !o.TxnIndex {
		return nil
	}
	base, err := baseOffsetOf(path, engine.LogFileSuffix)
	if err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("inspect: %w", err)
	}
	prefix := path[:len(path)-len(engine.LogFileSuffix)]
	for _, x := range []struct {
		on  bool
		ext string
	}{{o.Index, engine.IndexFileSuffix}, {o.TimeIndex, engine.TimeIndexFileSuffix}, {o.TxnIndex, engine.TxnIndexFileSuffix}} {
		if !x.on {
			continue
		}
		p := prefix + x.ext
		if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(w, "No %s file for %s\n", x.ext, path)
			continue
		}
		switch x.ext {
		case engine.IndexFileSuffix:
			err = dumpOffsetIndex(w, p, base, starts, st.Size())
		case engine.TimeIndexFileSuffix:
			err = dumpTimeIndex(w, p, base)
		default:
			err = dumpTxnIndex(w, p, base)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// readFile reads a whole file for dump, the error naming it.
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("inspect: %w", err)
	}
	return data, nil
}

// indexCorruption is the corruption error of a bad entry of the index
// file at path (what: "offset index", ...); err is an *engine.IndexError
// or an error of reading it.
func indexCorruption(path, what string, err error) error {
	var ie *engine.IndexError
	if !errors.As(err, &ie) {
		return fmt.Errorf("inspect: %s: %w", path, err)
	}
	return &record.CorruptionError{Path: path, Pos: ie.Pos, Reason: what + ": " + ie.Reason, Err: engine.ErrCorruptIndex}
}

// dumpOffsetIndex prints the entries of a .index file. With the batch
// starts of its .log (starts not nil), each entry must point at a batch
// start within logSize whose base offset is at or below the entry's offset.
func dumpOffsetIndex(w io.Writer, path string, base record.Offset, starts map[engine.FilePos]record.Offset, logSize int64) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Dumping %s\n", path)
	entries, tail, err := engine.DecodeOffsetIndex(data, base)
	if err != nil {
		return indexCorruption(path, "offset index", err)
	}
	for i, e := range entries {
		fmt.Fprintf(w, "offset: %d position: %d\n", e.Offset, e.Pos)
		if starts == nil {
			continue
		}
		bad := func(format string, args ...any) error {
			return indexCorruption(path, "offset index", &engine.IndexError{Pos: int64(i * engine.OffsetIndexEntryBytes), Reason: fmt.Sprintf(format, args...)})
		}
		first, ok := starts[e.Pos]
		switch {
		case int64(e.Pos) >= logSize && !(logSize == 0 && e.Pos == 0):
			return bad("entry (offset %d, position %d) points past the end of the %d-byte log", e.Offset, e.Pos, logSize)
		case !ok:
			return bad("entry (offset %d, position %d) does not point at a batch start", e.Offset, e.Pos)
		case first > e.Offset:
			return bad("entry (offset %d, position %d) points at a batch starting at offset %d", e.Offset, e.Pos, first)
		}
	}
	fmt.Fprintf(w, "%d entries (%d bytes, %d of them a zero-filled preallocated tail)\n", len(entries), len(data), tail*engine.OffsetIndexEntryBytes)
	return nil
}

// dumpTimeIndex prints the entries of a .timeindex file.
func dumpTimeIndex(w io.Writer, path string, base record.Offset) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Dumping %s\n", path)
	entries, tail, err := engine.DecodeTimeIndex(data, base)
	if err != nil {
		return indexCorruption(path, "time index", err)
	}
	for _, e := range entries {
		fmt.Fprintf(w, "timestamp: %d offset: %d\n", e.Timestamp, e.Offset)
	}
	fmt.Fprintf(w, "%d entries (%d bytes, %d of them a zero-filled preallocated tail)\n", len(entries), len(data), tail*engine.TimeIndexEntryBytes)
	return nil
}

// dumpTxnIndex prints the entries of a .txnindex file, in the shape of
// kafka-dump-log's transaction index dump.
func dumpTxnIndex(w io.Writer, path string, base record.Offset) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Dumping %s\n", path)
	entries, err := engine.DecodeTxnIndex(data, base)
	if err != nil {
		return indexCorruption(path, "txn index", err)
	}
	for _, e := range entries {
		fmt.Fprintf(w, "version: %d producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d\n", engine.TxnIndexVersion, e.ProducerID, e.FirstOffset, e.LastOffset, e.LastStableOffset)
	}
	fmt.Fprintf(w, "%d aborted transactions\n", len(entries))
	return nil
}

// checkpointCorruption is the corruption error of a checkpoint file that
// is not in Kafka's format; err is an *engine.CheckpointError.
func checkpointCorruption(path string, err error) error {
	var ce *engine.CheckpointError
	if !errors.As(err, &ce) {
		return fmt.Errorf("inspect: %s: %w", path, err)
	}
	return &record.CorruptionError{Path: path, Pos: ce.Pos, Reason: fmt.Sprintf("line %d: %s", ce.Line, ce.Reason), Err: engine.ErrBadCheckpoint}
}

// writeCheckpointHeader prints the version and entry count of a checkpoint
// file holding n entries, or says that it holds no count line (an empty
// file, or a version line alone), which Kafka reads as no entries.
func writeCheckpointHeader(w io.Writer, data []byte, n int) {
	if lines := strings.Count(strings.TrimSuffix(string(data), "\n"), "\n") + 1; len(data) == 0 || lines < 2 {
		what := "empty file"
		if len(data) > 0 {
			what = "version line only"
		}
		fmt.Fprintf(w, "%s: no entries (Kafka's CheckpointFile reads it as an empty list)\n", what)
		return
	}
	fmt.Fprintf(w, "version: %d entries: %d\n", checkpointVersion, n)
}

// dumpOffsetCheckpoint prints every entry of an offset checkpoint file.
func dumpOffsetCheckpoint(w io.Writer, path string) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Dumping %s\n", path)
	entries, err := engine.DecodeOffsetCheckpoint(path, data)
	if err != nil {
		return checkpointCorruption(path, err)
	}
	writeCheckpointHeader(w, data, len(entries))
	for _, e := range entries {
		fmt.Fprintf(w, "topic: %s partition: %d offset: %d\n", e.Topic, e.Partition, e.Offset)
	}
	return nil
}

// dumpLeaderEpochCheckpoint prints every entry of a leader-epoch-checkpoint.
func dumpLeaderEpochCheckpoint(w io.Writer, path string) error {
	data, err := readFile(path)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Dumping %s\n", path)
	entries, err := engine.DecodeLeaderEpochCheckpoint(path, data)
	if err != nil {
		return checkpointCorruption(path, err)
	}
	writeCheckpointHeader(w, data, len(entries))
	for _, e := range entries {
		fmt.Fprintf(w, "epoch: %d startOffset: %d\n", e.Epoch, e.StartOffset)
	}
	return nil
}

// dumpPartitionCheckpoints prints the partition's entries of the root's
// offset checkpoint files and whether the clean-shutdown marker is there.
func dumpPartitionCheckpoints(w io.Writer, dir string) error {
	tp, err := engine.ParseTopicPartition(filepath.Base(filepath.Clean(dir)))
	if err != nil {
		return fmt.Errorf("inspect: --checkpoints: %w", err)
	}
	root := filepath.Dir(filepath.Clean(dir))
	for _, name := range offsetCheckpointFiles {
		p := filepath.Join(root, name)
		data, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(w, "%s: no entry for %s\n", name, tp)
			continue
		}
		if err != nil {
			return fmt.Errorf("inspect: %w", err)
		}
		entries, err := engine.DecodeOffsetCheckpoint(p, data)
		if err != nil {
			return checkpointCorruption(p, err)
		}
		found := false
		for _, e := range entries {
			if e.Topic == tp.Topic && e.Partition == tp.Partition {
				fmt.Fprintf(w, "%s: %s %d\n", name, tp, e.Offset)
				found = true
			}
		}
		if !found {
			fmt.Fprintf(w, "%s: no entry for %s\n", name, tp)
		}
	}
	_, err = os.Stat(filepath.Join(root, engine.CleanShutdownFile))
	fmt.Fprintf(w, "%s: %t\n", engine.CleanShutdownFile, err == nil)
	return nil
}

// DumpCommand is the dump command: exactly one of dir (Dump) and file
// (DumpFile) printed to w, buffered; indexes sets all of o's index
// options.
func DumpCommand(w io.Writer, dir, file string, indexes bool, o Options) error {
	if (dir == "") == (file == "") {
		return errors.New("dump: give exactly one of --dir or --file")
	}
	if indexes {
		o.Index, o.TimeIndex, o.TxnIndex = true, true, true
	}
	bw := bufio.NewWriter(w)
	var err error
	if file != "" {
		err = DumpFile(bw, file, o)
	} else {
		err = Dump(bw, dir, o)
	}
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = fmt.Errorf("dump: write output: %w", ferr)
	}
	return err
}

// DumpCommandOptions are the dump command's options, as its flags give
// them (DumpCommand's arguments).
type DumpCommandOptions struct {
	Dir, File string
	// Indexes sets all of Options' index options.
	Indexes bool
	Options
}

// DumpFlags are the dump command's flags.
var DumpFlags = settings.MustRegistry(func() DumpCommandOptions { return DumpCommandOptions{} }, []settings.Setting[DumpCommandOptions]{
	settings.Flag("dir", "partition directory (every .log file in offset order) or log directory root (every partition in it)",
		func(o *DumpCommandOptions) settings.Value { return settings.String(&o.Dir) }),
	settings.Flag("file", "one .log, .index, .timeindex, .txnindex or checkpoint file", func(o *DumpCommandOptions) settings.Value { return settings.String(&o.File) }),
	settings.Flag("records", "also print every record (the inner messages of legacy compressed wrappers too)",
		func(o *DumpCommandOptions) settings.Value { return settings.Bool(&o.Records) }),
	settings.Flag("values", "with --records, print value bytes too", func(o *DumpCommandOptions) settings.Value { return settings.Bool(&o.Values) }),
	settings.Flag("index", "print each segment's .index entries, checked against the log", func(o *DumpCommandOptions) settings.Value { return settings.Bool(&o.Index) }),
	settings.Flag("timeindex", "print each segment's .timeindex entries", func(o *DumpCommandOptions) settings.Value { return settings.Bool(&o.TimeIndex) }),
	settings.Flag("txnindex", "print each segment's .txnindex entries (aborted transactions)", func(o *DumpCommandOptions) settings.Value { return settings.Bool(&o.TxnIndex) }),
	settings.Flag("indexes", "all of --index, --timeindex and --txnindex", func(o *DumpCommandOptions) settings.Value { return settings.Bool(&o.Indexes) }),
	settings.Flag("checkpoints", "print the checkpoint files, leader-epoch-checkpoint and the clean-shutdown marker (with --dir)",
		func(o *DumpCommandOptions) settings.Value { return settings.Bool(&o.Checkpoints) }),
})
