package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// dumpOptions choose what dump prints.
type dumpOptions struct {
	records, values            bool
	index, timeIndex, txnIndex bool
	checkpoints                bool
}

func newDumpCmd() *cobra.Command {
	var dir, file string
	var o dumpOptions
	var indexes bool
	cmd := &cobra.Command{
		Use:   "dump (--dir PARTITION_DIR | --file SEGMENT_FILE)",
		Short: "Print segment files (batches, records, indexes, txn index), in the shape of kafka-dump-log",
		Long: `dump prints one line per batch: base and last offset, record count, byte
position and size, magic, codec, attributes, producer id/epoch/sequence, the
stored CRC and whether it verifies. With --records it also prints one line per
record: offset, timestamp, key, value length (or null for a tombstone) and
header count; magic 0/1 messages are printed as stored, and with --records the
inner messages of a compressed wrapper with their absolute offsets.

--index, --timeindex and --txnindex (or --indexes for all three) print each
segment's .index, .timeindex and .txnindex entries after its batches, and
check each offset-index entry against the log: it must point at a batch start
(within the file) whose base offset is at or below the entry's offset. --file
also takes one .index, .timeindex or .txnindex file (checked against its .log
when that exists). --checkpoints prints the partition's entries of the
checkpoint files in the parent directory and whether it holds the
clean-shutdown marker.

Nothing is written. A corrupt or truncated batch, or an index entry that does
not match the log, ends the dump with an error naming the file and byte
position, and a non-zero exit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (dir == "") == (file == "") {
				return errors.New("dump: give exactly one of --dir or --file")
			}
			if indexes {
				o.index, o.timeIndex, o.txnIndex = true, true, true
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			if file != "" {
				err := dumpAnyFile(w, file, &o)
				w.Flush()
				return err
			}
			files, err := segmentFiles(dir)
			if err != nil {
				return err
			}
			if o.checkpoints {
				if err := dumpCheckpoints(w, dir); err != nil {
					w.Flush()
					return err
				}
			}
			for _, f := range files {
				if err := dumpSegment(w, f, &o); err != nil {
					w.Flush()
					return err
				}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "partition directory: dump every .log file in it, in offset order")
	f.StringVar(&file, "file", "", "one .log, .index, .timeindex or .txnindex file")
	f.BoolVar(&o.records, "records", false, "also print every record (the inner messages of legacy compressed wrappers too)")
	f.BoolVar(&o.values, "values", false, "with --records, print value bytes too")
	f.BoolVar(&o.index, "index", false, "print each segment's .index entries, checked against the log")
	f.BoolVar(&o.timeIndex, "timeindex", false, "print each segment's .timeindex entries")
	f.BoolVar(&o.txnIndex, "txnindex", false, "print each segment's .txnindex entries (aborted transactions)")
	f.BoolVar(&indexes, "indexes", false, "all of --index, --timeindex and --txnindex")
	f.BoolVar(&o.checkpoints, "checkpoints", false, "print the partition's checkpoint entries and the clean-shutdown marker (with --dir)")
	return cmd
}

// segmentFiles lists dir's .log files named by a 20-digit base offset, in order.
func segmentFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("dump: %w", err)
	}
	var out []string
	for _, e := range entries {
		n := e.Name()
		if !e.IsDir() && strings.HasSuffix(n, engine.LogFileSuffix) && len(n) == 20+len(engine.LogFileSuffix) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("dump: %w: %s holds no *.log segment file", engine.ErrNotLogDir, dir)
	}
	sort.Strings(out)
	return out, nil
}

// dumpAnyFile dumps a .log file or one index file, by its extension.
func dumpAnyFile(w io.Writer, path string, o *dumpOptions) error {
	for _, ext := range []string{engine.IndexFileSuffix, engine.TimeIndexFileSuffix, engine.TxnIndexFileSuffix} {
		if strings.HasSuffix(path, ext) {
			base, err := baseOffsetOf(path, ext)
			if err != nil {
				return err
			}
			logPath := strings.TrimSuffix(path, ext) + engine.LogFileSuffix
			var starts map[engine.FilePos]record.Offset
			var size int64 = -1
			if ext == engine.IndexFileSuffix {
				if st, err := os.Stat(logPath); err == nil {
					size = st.Size()
					if starts, err = batchStarts(logPath); err != nil {
						return err
					}
				}
			}
			return dumpIndexFile(w, path, ext, base, starts, size)
		}
	}
	o2 := *o
	o2.index, o2.timeIndex, o2.txnIndex = false, false, false
	return dumpSegment(w, path, &o2)
}

func baseOffsetOf(path, ext string) (record.Offset, error) {
	name := strings.TrimSuffix(filepath.Base(path), ext)
	var v int64
	if len(name) != 20 {
		return 0, fmt.Errorf("dump: %s is not named by a 20-digit base offset", path)
	}
	if _, err := fmt.Sscan(name, &v); err != nil {
		return 0, fmt.Errorf("dump: %s is not named by a 20-digit base offset", path)
	}
	return record.Offset(v), nil
}

// batchStarts maps each batch position of a .log file to its base offset.
func batchStarts(logPath string) (map[engine.FilePos]record.Offset, error) {
	starts := map[engine.FilePos]record.Offset{}
	err := engine.ScanFile(nil, logPath, 0, func(pos engine.FilePos, batch []byte) error {
		starts[pos] = firstOffsetOf(batch)
		return nil
	})
	return starts, err
}

// firstOffsetOf is the base offset of a v2 batch, or the offset of a legacy
// message (its last inner offset, for a compressed wrapper).
func firstOffsetOf(batch []byte) record.Offset {
	return record.Offset(binary.BigEndian.Uint64(batch))
}

// dumpSegment dumps one .log file and, as asked, its index files.
func dumpSegment(w io.Writer, path string, o *dumpOptions) error {
	starts := map[engine.FilePos]record.Offset{}
	if err := dumpLog(w, path, o, starts); err != nil {
		return err
	}
	if !o.index && !o.timeIndex && !o.txnIndex {
		return nil
	}
	base, err := baseOffsetOf(path, engine.LogFileSuffix)
	if err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	prefix := strings.TrimSuffix(path, engine.LogFileSuffix)
	for _, x := range []struct {
		on  bool
		ext string
	}{{o.index, engine.IndexFileSuffix}, {o.timeIndex, engine.TimeIndexFileSuffix}, {o.txnIndex, engine.TxnIndexFileSuffix}} {
		if !x.on {
			continue
		}
		if _, err := os.Stat(prefix + x.ext); errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(w, "No %s file for %s\n", x.ext, path)
			continue
		}
		if err := dumpIndexFile(w, prefix+x.ext, x.ext, base, starts, st.Size()); err != nil {
			return err
		}
	}
	return nil
}

// dumpIndexFile prints the entries of one index file. With the batch starts
// of its .log (starts not nil), each offset-index entry must point at a batch
// start within logSize whose base offset is at or below the entry's offset.
func dumpIndexFile(w io.Writer, path, ext string, base record.Offset, starts map[engine.FilePos]record.Offset, logSize int64) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("dump: %w", err)
	}
	fmt.Fprintf(w, "Dumping %s\n", path)
	corrupt := func(pos int64, reason string, err error) error {
		return &record.CorruptionError{Path: path, Pos: pos, Reason: reason, Err: err}
	}
	switch ext {
	case engine.IndexFileSuffix:
		entries, err := engine.DecodeOffsetIndex(data, base)
		if err != nil {
			return corrupt(0, "offset index", err)
		}
		for i, e := range entries {
			fmt.Fprintf(w, "offset: %d position: %d\n", e.Offset, e.Pos)
			if starts == nil {
				continue
			}
			at := int64(i) * engine.OffsetIndexEntrySize
			first, ok := starts[e.Pos]
			switch {
			case int64(e.Pos) >= logSize && !(logSize == 0 && e.Pos == 0):
				return corrupt(at, fmt.Sprintf("entry (offset %d, position %d) points past the end of the %d-byte log", e.Offset, e.Pos, logSize), engine.ErrCorruptIndex)
			case !ok:
				return corrupt(at, fmt.Sprintf("entry (offset %d, position %d) does not point at a batch start", e.Offset, e.Pos), engine.ErrCorruptIndex)
			case first > e.Offset:
				return corrupt(at, fmt.Sprintf("entry (offset %d, position %d) points at a batch starting at offset %d", e.Offset, e.Pos, first), engine.ErrCorruptIndex)
			}
		}
		fmt.Fprintf(w, "%d entries (%d bytes, %d of them a zero-filled preallocated tail)\n", len(entries), len(data), len(data)-len(entries)*engine.OffsetIndexEntrySize)
	case engine.TimeIndexFileSuffix:
		entries, err := engine.DecodeTimeIndex(data, base)
		if err != nil {
			return corrupt(0, "time index", err)
		}
		for _, e := range entries {
			fmt.Fprintf(w, "timestamp: %d offset: %d\n", e.Timestamp, e.Offset)
		}
		fmt.Fprintf(w, "%d entries (%d bytes, %d of them a zero-filled preallocated tail)\n", len(entries), len(data), len(data)-len(entries)*engine.TimeIndexEntrySize)
	case engine.TxnIndexFileSuffix:
		entries, err := engine.DecodeTxnIndex(data, base)
		if err != nil {
			return corrupt(0, "txn index", err)
		}
		for _, e := range entries {
			fmt.Fprintf(w, "version: 0 producerId: %d firstOffset: %d lastOffset: %d lastStableOffset: %d\n", e.ProducerID, e.FirstOffset, e.LastOffset, e.LastStableOffset)
		}
		fmt.Fprintf(w, "%d aborted transactions\n", len(entries))
	}
	return nil
}

// dumpCheckpoints prints the partition's entries of the root checkpoint
// files and whether the clean-shutdown marker is there.
func dumpCheckpoints(w io.Writer, dir string) error {
	tp, err := engine.ParseTopicPartition(filepath.Base(filepath.Clean(dir)))
	if err != nil {
		return err
	}
	root := filepath.Dir(filepath.Clean(dir))
	for _, name := range []string{engine.CleanerCheckpointFile, engine.RecoveryPointCheckpointFile, engine.LogStartOffsetCheckpointFile} {
		entries, err := engine.ReadCheckpoint(nil, filepath.Join(root, name))
		if err != nil {
			return err
		}
		if off, ok := entries[tp]; ok {
			fmt.Fprintf(w, "%s: %s %d\n", name, tp, off)
		} else {
			fmt.Fprintf(w, "%s: no entry for %s\n", name, tp)
		}
	}
	_, err = os.Stat(filepath.Join(root, engine.CleanShutdownFile))
	fmt.Fprintf(w, "%s: %t\n", engine.CleanShutdownFile, err == nil)
	return nil
}

func dumpLog(w io.Writer, path string, o *dumpOptions, starts map[engine.FilePos]record.Offset) error {
	fmt.Fprintf(w, "Dumping %s\n", path)
	var dec record.Decoder
	var r record.Record
	var legacy []record.LegacyMessage
	// The segment's base offset from its name (00000000000000001234.log), when it has one.
	base := record.Offset(-1)
	if name := filepath.Base(path); len(name) == 20+len(engine.LogFileSuffix) && strings.HasSuffix(name, engine.LogFileSuffix) {
		if v, err := strconv.ParseInt(name[:20], 10, 64); err == nil {
			base = record.Offset(v)
		}
	}
	next := base // offsets must not go below the previous batch's next offset
	return engine.ScanFile(nil, path, 0, func(pos engine.FilePos, batch []byte) error {
		starts[pos] = firstOffsetOf(batch)
		magic := int8(batch[record.MagicPos])
		if magic != record.MagicV2 {
			var err error
			legacy, err = dumpLegacy(w, path, pos, batch, magic, o, &dec, legacy[:0])
			return err
		}
		h, err := record.ParseHeader(batch)
		if err != nil {
			return &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "batch header", Err: err}
		}
		crcErr := record.VerifyCRC(batch)
		lastSeq := h.BaseSequence
		if h.BaseSequence >= 0 {
			lastSeq = h.BaseSequence + h.LastOffsetDelta
		}
		horizon := "none"
		if hz, ok := h.DeleteHorizonMs(); ok {
			horizon = fmt.Sprint(hz)
		}
		tsType := "CreateTime"
		if h.Attributes.LogAppendTime() {
			tsType = "LogAppendTime"
		}
		fmt.Fprintf(w, "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t deleteHorizonMs: %s position: %d %s: %d size: %d magic: %d compresscodec: %s attributes: 0x%02x crc: %d isvalid: %t\n",
			h.BaseOffset, h.LastOffset(), h.RecordCount, h.BaseSequence, lastSeq, h.ProducerID, h.ProducerEpoch, h.PartitionLeaderEpoch,
			h.Attributes.Transactional(), h.Attributes.Control(), horizon, pos, tsType, h.MaxTimestamp, len(batch), h.Magic,
			h.Attributes.Codec(), uint16(h.Attributes), h.CRC, crcErr == nil)
		if crcErr != nil {
			return &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "batch CRC", Err: crcErr}
		}
		// The base offset is outside the CRC: check it against the segment.
		if base >= 0 && (h.BaseOffset < base || h.LastOffset()-base > math.MaxInt32) {
			return &record.CorruptionError{Path: path, Pos: int64(pos), Err: record.ErrBadLength,
				Reason: fmt.Sprintf("batch offsets [%d, %d] outside the segment's range [%d, %d]", h.BaseOffset, h.LastOffset(), base, int64(base)+math.MaxInt32)}
		}
		if h.BaseOffset < next {
			return &record.CorruptionError{Path: path, Pos: int64(pos), Err: record.ErrBadLength,
				Reason: fmt.Sprintf("batch base offset %d below the previous batch's next offset %d", h.BaseOffset, next)}
		}
		next = h.NextOffset()
		if !o.records {
			return nil
		}
		_, it, err := dec.Records(batch)
		if err != nil {
			return &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "batch records", Err: err}
		}
		for {
			ok, err := it.Next(&r)
			if err != nil {
				return &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "record", Err: err}
			}
			if !ok {
				return nil
			}
			valueSize := "null"
			if r.Value != nil {
				valueSize = fmt.Sprint(len(r.Value))
			}
			fmt.Fprintf(w, "| offset: %d %s: %d keySize: %d valueSize: %s headerCount: %d", r.Offset(&h), tsType, r.Timestamp(&h), keySize(r.Key), valueSize, r.HeaderCount)
			if h.Attributes.Control() {
				if t, err := record.ParseControlKey(r.Key); err == nil {
					fmt.Fprintf(w, " controlType: %s", t)
					if t == record.ControlAbort || t == record.ControlCommit {
						if epoch, err := record.ParseEndTxnMarkerValue(r.Value); err == nil {
							fmt.Fprintf(w, " coordinatorEpoch: %d", epoch)
						}
					}
				}
			} else if r.Key != nil {
				fmt.Fprintf(w, " key: %s", printable(r.Key))
			}
			if o.values && r.Value != nil {
				fmt.Fprintf(w, " payload: %s", printable(r.Value))
			}
			fmt.Fprintln(w)
		}
	})
}

func keySize(k []byte) int {
	if k == nil {
		return -1
	}
	return len(k)
}

// printable shows valid UTF-8 without control characters as text, anything
// else as 0x-prefixed hex; both cut at 64 bytes.
func printable(b []byte) string {
	cut := ""
	if len(b) > 64 {
		b, cut = b[:64], "..."
	}
	if utf8.Valid(b) && !strings.ContainsFunc(string(b), func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return string(b) + cut
	}
	return fmt.Sprintf("0x%x%s", b, cut)
}

// dumpLegacy prints a magic 0/1 message as stored (offset, size, codec,
// CRC-32 IEEE over the bytes from the magic byte on, as Kafka's
// LegacyRecord) and, with --records, its records: itself, or the inner
// messages of a compressed wrapper with their absolute offsets.
func dumpLegacy(w io.Writer, path string, pos engine.FilePos, msg []byte, magic int8, o *dumpOptions, dec *record.Decoder, scratch []record.LegacyMessage) ([]record.LegacyMessage, error) {
	if magic != 0 && magic != 1 {
		return scratch, &record.CorruptionError{Path: path, Pos: int64(pos), Reason: fmt.Sprintf("magic %d", magic), Err: record.ErrBadMagic}
	}
	m, err := record.ParseLegacyMessage(msg)
	if err != nil {
		return scratch, &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "legacy message", Err: err}
	}
	crcErr := record.VerifyLegacyCRC(msg)
	ts := ""
	if magic == 1 {
		typ := "CreateTime"
		if m.LogAppendTime() {
			typ = "LogAppendTime"
		}
		ts = fmt.Sprintf(" %s: %d", typ, m.Timestamp)
	}
	fmt.Fprintf(w, "offset: %d position: %d%s size: %d magic: %d compresscodec: %s crc: %d isvalid: %t (legacy message)\n",
		m.Offset, pos, ts, len(msg), magic, m.Codec(), m.CRC, crcErr == nil)
	if crcErr != nil {
		return scratch, &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "legacy message CRC", Err: crcErr}
	}
	if !o.records {
		return scratch, nil
	}
	recs, err := dec.LegacyRecords(msg, scratch)
	if err != nil {
		return scratch, &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "legacy message records", Err: err}
	}
	for _, r := range recs {
		valueSize := "null"
		if r.Value != nil {
			valueSize = fmt.Sprint(len(r.Value))
		}
		fmt.Fprintf(w, "| offset: %d timestamp: %d keySize: %d valueSize: %s magic: %d", r.Offset, r.Timestamp, keySize(r.Key), valueSize, r.Magic)
		if r.Key != nil {
			fmt.Fprintf(w, " key: %s", printable(r.Key))
		}
		if o.values && r.Value != nil {
			fmt.Fprintf(w, " payload: %s", printable(r.Value))
		}
		fmt.Fprintln(w)
	}
	return recs[:0], nil
}
