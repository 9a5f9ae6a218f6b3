package inspect

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// dumpLog prints one .log file (ext: its suffix after the 20 digits).
func dumpLog(w io.Writer, path, ext string, o Options) error {
	_, err := dumpLogStarts(w, path, ext, o)
	return err
}

// batchStarts maps each batch position of a .log file to its first offset.
func batchStarts(logPath string) (map[engine.FilePos]record.Offset, error) {
	starts := map[engine.FilePos]record.Offset{}
	err := engine.ScanFile(nil, logPath, 0, func(pos engine.FilePos, batch []byte) error {
		starts[pos] = firstOffsetOf(batch)
		return nil
	})
	return starts, err
}

// firstOffsetOf is the base offset of a v2 batch, or the offset of a legacy
// message (its last inner offset, for a compressed wrapper): the first 8
// bytes of either (record/FORMAT.md).
func firstOffsetOf(batch []byte) record.Offset {
	return record.Offset(binary.BigEndian.Uint64(batch))
}

// dumpLogStarts prints one .log file: a line per batch or legacy message,
// with o.Records a line per record. It returns the batch starts (position
// -> first offset), for checking the offset index. A batch whose offsets
// fall outside the segment named by its file, or below the previous batch's
// next offset, is corruption (the base offset is outside the CRC).
func dumpLogStarts(w io.Writer, path, ext string, o Options) (map[engine.FilePos]record.Offset, error) {
	fmt.Fprintf(w, "Dumping %s\n", path)
	starts := map[engine.FilePos]record.Offset{}
	var dec record.Decoder
	var r record.Record
	var legacy []record.LegacyMessage
	base := record.Offset(-1) // the segment's base offset from its name, when it has one
	if b, ok := engine.ParseSegmentFileName(filepath.Base(path), ext); ok {
		base = b
	}
	next := base // offsets must not go below the previous batch's next offset
	err := engine.ScanFile(nil, path, 0, func(pos engine.FilePos, batch []byte) error {
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
		if base >= 0 && (h.BaseOffset < base || h.LastOffset()-base > math.MaxInt32) {
			return &record.CorruptionError{Path: path, Pos: int64(pos), Err: record.ErrBadLength,
				Reason: fmt.Sprintf("batch offsets [%d, %d] outside the segment's range [%d, %d]", h.BaseOffset, h.LastOffset(), base, int64(base)+math.MaxInt32)}
		}
		if h.BaseOffset < next {
			return &record.CorruptionError{Path: path, Pos: int64(pos), Err: record.ErrBadLength,
				Reason: fmt.Sprintf("batch base offset %d below the previous batch's next offset %d", h.BaseOffset, next)}
		}
		next = h.NextOffset()
		if !o.Records {
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
			fmt.Fprintf(w, "| offset: %d %s: %d keySize: %d valueSize: %s headerCount: %d", r.Offset(&h), tsType, r.Timestamp(&h), keySize(r.Key), valueSize(r.Value), r.HeaderCount)
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
			if o.Values && r.Value != nil {
				fmt.Fprintf(w, " payload: %s", printable(r.Value))
			}
			fmt.Fprintln(w)
		}
	})
	return starts, err
}

func keySize(k []byte) int {
	if k == nil {
		return -1
	}
	return len(k)
}

func valueSize(v []byte) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprint(len(v))
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
// LegacyRecord) and, with o.Records, its records: itself, or the inner
// messages of a compressed wrapper with their absolute offsets.
func dumpLegacy(w io.Writer, path string, pos engine.FilePos, msg []byte, magic int8, o Options, dec *record.Decoder, scratch []record.LegacyMessage) ([]record.LegacyMessage, error) {
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
	if !o.Records {
		return scratch, nil
	}
	recs, err := dec.LegacyRecords(msg, scratch)
	if err != nil {
		return scratch, &record.CorruptionError{Path: path, Pos: int64(pos), Reason: "legacy message records", Err: err}
	}
	for _, r := range recs {
		fmt.Fprintf(w, "| offset: %d timestamp: %d keySize: %d valueSize: %s magic: %d", r.Offset, r.Timestamp, keySize(r.Key), valueSize(r.Value), r.Magic)
		if r.Key != nil {
			fmt.Fprintf(w, " key: %s", printable(r.Key))
		}
		if o.Values && r.Value != nil {
			fmt.Fprintf(w, " payload: %s", printable(r.Value))
		}
		fmt.Fprintln(w)
	}
	return recs[:0], nil
}
