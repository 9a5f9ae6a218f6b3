package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
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

func newDumpCmd() *cobra.Command {
	var dir, file string
	var records, values bool
	cmd := &cobra.Command{
		Use:   "dump (--dir PARTITION_DIR | --file SEGMENT.log)",
		Short: "Print the batches (and records) of segment files, in the shape of kafka-dump-log",
		Long: `dump prints one line per batch: base and last offset, record count, byte
position and size, magic, codec, attributes, producer id/epoch/sequence, the
stored CRC and whether it verifies. With --records it also prints one line per
record: offset, timestamp, key, value length (or null for a tombstone) and
header count. Nothing is written. A corrupt or truncated batch ends the dump
with an error naming the file and byte position, and a non-zero exit.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if (dir == "") == (file == "") {
				return errors.New("dump: give exactly one of --dir or --file")
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			defer w.Flush()
			files := []string{file}
			if dir != "" {
				var err error
				if files, err = segmentFiles(dir); err != nil {
					return err
				}
			}
			for _, f := range files {
				if err := dumpFile(w, f, records, values); err != nil {
					w.Flush()
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "", "partition directory: dump every .log file in it, in offset order")
	cmd.Flags().StringVar(&file, "file", "", "one .log segment file")
	cmd.Flags().BoolVar(&records, "records", false, "also print every record")
	cmd.Flags().BoolVar(&values, "values", false, "with --records, print value bytes too")
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

func dumpFile(w io.Writer, path string, withRecords, withValues bool) error {
	fmt.Fprintf(w, "Dumping %s\n", path)
	var dec record.Decoder
	var r record.Record
	// The segment's base offset from its name (00000000000000001234.log), when it has one.
	base := record.Offset(-1)
	if name := filepath.Base(path); len(name) == 20+len(engine.LogFileSuffix) && strings.HasSuffix(name, engine.LogFileSuffix) {
		if v, err := strconv.ParseInt(name[:20], 10, 64); err == nil {
			base = record.Offset(v)
		}
	}
	next := base // offsets must not go below the previous batch's next offset
	return engine.ScanFile(nil, path, 0, func(pos engine.FilePos, batch []byte) error {
		magic := int8(batch[record.MagicPos])
		if magic != record.MagicV2 {
			return dumpLegacy(w, path, pos, batch, magic)
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
		if !withRecords {
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
			if withValues && r.Value != nil {
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

// dumpLegacy prints a magic 0/1 message's offset, size and CRC (CRC-32 IEEE
// over the bytes from the magic byte on, as Kafka's LegacyRecord).
func dumpLegacy(w io.Writer, path string, pos engine.FilePos, msg []byte, magic int8) error {
	if magic != 0 && magic != 1 {
		return &record.CorruptionError{Path: path, Pos: int64(pos), Reason: fmt.Sprintf("magic %d", magic), Err: record.ErrBadMagic}
	}
	off := int64(binary.BigEndian.Uint64(msg))
	stored := binary.BigEndian.Uint32(msg[12:])
	valid := crc32.ChecksumIEEE(msg[16:]) == stored
	attrs := msg[17]
	fmt.Fprintf(w, "offset: %d position: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t (legacy message)\n",
		off, pos, len(msg), magic, record.Codec(attrs&0x07), stored, valid)
	if !valid {
		return &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "legacy message CRC", Err: record.ErrCRCMismatch}
	}
	return nil
}
