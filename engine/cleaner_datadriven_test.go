package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cockroachdb/datadriven"
)

// TestCleanerDataDriven runs the cleaner scenarios of testdata/cleaner. The
// language (one log per file section, started by `log`):
//
//	log [segment-bytes=N] [delete-retention-ms=N] [index-interval-bytes=N]
//	    [min-compaction-lag-ms=N] [file-delete-delay-ms=N (default 0)]
//	    [max-message-bytes=N] [producer-id-expiration-ms=N]
//	  Starts an empty partition directory t-0 in a fresh log directory.
//	batch [offset=N] [ts=N] [codec=C] [producer=N] [epoch=N] [seq=N] [txn]
//	      [horizon=N] [control=commit|abort]
//	  Appends one batch; each input line is a record "[O:] K=V" (V null: a
//	  tombstone, "": an empty value, K null: no key), at offset O or the one
//	  after the previous record (the first at the batch's offset, default the
//	  log end offset). Records have timestamp ts (default 0, CreateTime);
//	  horizon=N sets the delete-horizon attribute with BaseTimestamp N.
//	roll
//	  Rolls the active segment (Log.Roll).
//	checkpoint [offset=N]
//	  Writes the partition's cleaner checkpoint entry, then prints it.
//	clean now=MS [first-dirty=N] [map-keys=N (default 1000)] [hw=N] [force=false]
//	      [io-buffer-bytes=N] [cleaned-index=per-append|per-batch] [during-at=K]
//	  Runs one clean at time MS (first-dirty: as Kafka's tests pass
//	  LogToClean(firstDirtyOffset); hw: Log.SetHighWatermark first;
//	  io-buffer-bytes: log.cleaner.io.buffer.size, so the read buffer is
//	  half of it; cleaned-index: CleanerConfig.CleanedIndex), then prints
//	  its stats, the log, the checkpoint and
//	  Verify's verdict. The input, if any, holds commands run while the
//	  clean works, at its K-th read (CheckDone; default 1), one per line:
//	  "roll", "append O: K=V ..." (one batch at the log end offset),
//	  "delete-records N" (Log.DeleteRecords), "retention" (Log.DeleteOldSegments).
//	lso
//	  Prints the last stable offset and the high watermark.
//	index-bytes
//	  Prints the bytes of every inactive segment's .index and .timeindex
//	  file as they are on disk, one entry a line in hex (.index: relative
//	  offset, position; .timeindex: timestamp, relative offset).
//	ls
//	  Lists the files of the partition directory.
//	consume isolation=read_committed|read_uncommitted [from=N]
//	  Reads the log as a consumer (Log.NewConsumer) and prints every record
//	  delivered, then the position reached.
//	print
//	  Prints every segment (base offset, files, time index entries), its
//	  batches (offsets, record count, base and max timestamp, attributes) and
//	  their records ("offset: K=V @timestamp").
//	reopen
//	  Closes and reopens the log, then prints its log end offset and the log.
func TestCleanerDataDriven(t *testing.T) {
	walkDataDriven(t, "testdata/cleaner", func() ddRunner { return &ddHarness{} })
}

type ddHarness struct {
	root, dir string
	cfg       LogConfig
	l         *Log
}

// ddRunner is one datadriven file's harness: run answers a directive,
// close releases what the file opened.
type ddRunner interface {
	run(t *testing.T, d *datadriven.TestData) string
	close(t *testing.T)
}

// walkDataDriven runs every datadriven file under dir, each with a fresh
// harness from newHarness, closed when the file ends.
func walkDataDriven(t *testing.T, dir string, newHarness func() ddRunner) {
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		h := newHarness()
		defer h.close(t)
		datadriven.RunTest(t, path, h.run)
	})
}

func (h *ddHarness) close(t *testing.T) {
	if h.l != nil {
		if err := h.l.Close(); err != nil {
			t.Error(err)
		}
		h.l = nil
	}
}

func (h *ddHarness) run(t *testing.T, d *datadriven.TestData) string {
	if d.Cmd != "log" && h.l == nil {
		d.Fatalf(t, "%s before log", d.Cmd)
	}
	switch d.Cmd {
	case "log":
		h.close(t)
		h.cfg = DefaultLogConfig()
		h.cfg.FileDeleteDelayMs = 0
		for _, arg := range d.CmdArgs {
			v, err := strconv.ParseInt(arg.SingleVal(t), 10, 64)
			if err != nil {
				d.Fatalf(t, "%s: %v", arg.Key, err)
			}
			switch arg.Key {
			case "segment-bytes":
				h.cfg.SegmentBytes = v
			case "delete-retention-ms":
				h.cfg.DeleteRetentionMs = v
			case "index-interval-bytes":
				h.cfg.IndexIntervalBytes = v
			case "min-compaction-lag-ms":
				h.cfg.MinCompactionLagMs = v
			case "file-delete-delay-ms":
				h.cfg.FileDeleteDelayMs = v
			case "max-message-bytes":
				h.cfg.MaxMessageBytes = int(v)
			case "producer-id-expiration-ms":
				h.cfg.ProducerIDExpirationMs = v
			default:
				d.Fatalf(t, "unknown argument %s", arg.Key)
			}
		}
		h.root = t.TempDir()
		h.dir = filepath.Join(h.root, "t-0")
		l, err := Open(h.dir, Options{Config: &h.cfg, Create: true})
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		h.l = l
		return "ok"

	case "batch":
		if err := h.l.Append(h.batch(t, d)); err != nil {
			return "error: " + err.Error()
		}
		return "ok"

	case "roll":
		if err := h.l.Roll(); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("active seg@%d", h.l.ActiveSegment().BaseOffset())

	case "checkpoint":
		if d.HasArg("offset") {
			var off int64
			d.ScanArgs(t, "offset", &off)
			if err := UpdateCheckpoint(nil, CheckpointPath(h.dir), h.l.TopicPartition(), record.Offset(off)); err != nil {
				d.Fatalf(t, "%v", err)
			}
		}
		return h.checkpoint(t)

	case "clean":
		return h.clean(t, d)

	case "print":
		return h.dump(t)

	case "index-bytes":
		return h.indexBytes(t)

	case "ls":
		entries, err := os.ReadDir(h.dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return strings.Join(names, "\n")

	case "lso":
		lso, err := h.l.LastStableOffset()
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("last-stable-offset=%d high-watermark=%d", lso, h.l.HighWatermark())

	case "consume":
		var iso string
		d.ScanArgs(t, "isolation", &iso)
		level, err := ParseIsolationLevel(iso)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		from := int64(-1)
		d.MaybeScanArgs(t, "from", &from)
		c := h.l.NewConsumer(record.Offset(from), level, 0)
		var b strings.Builder
		err = c.ReadAll(func(r *ConsumerRecord) error {
			k := "null"
			if r.Key != nil {
				k = string(r.Key)
			}
			v := "null"
			if r.Value != nil {
				v = string(r.Value)
			}
			fmt.Fprintf(&b, "%d: %s=%s\n", r.Offset, k, v)
			return nil
		})
		if err != nil {
			fmt.Fprintf(&b, "error: %v\n", err)
		}
		fmt.Fprintf(&b, "position=%d", c.Position())
		return b.String()

	case "reopen":
		h.close(t)
		l, err := Open(h.dir, Options{Config: &h.cfg})
		if err != nil {
			return "error: " + err.Error()
		}
		h.l = l
		return fmt.Sprintf("log-end-offset=%d\n%s", l.LogEndOffset(), h.dump(t))
	}
	d.Fatalf(t, "unknown command %s", d.Cmd)
	return ""
}

// batch builds the batch a `batch` command describes.
func (h *ddHarness) batch(t *testing.T, d *datadriven.TestData) []byte {
	hdr := record.BatchHeader{
		BaseOffset:           h.l.LogEndOffset(),
		PartitionLeaderEpoch: 0,
		ProducerID:           record.NoProducerID,
		ProducerEpoch:        record.NoProducerEpoch,
		BaseSequence:         record.NoSequence,
	}
	var ts int64
	control := ""
	for _, arg := range d.CmdArgs {
		val := func() int64 {
			v, err := strconv.ParseInt(arg.SingleVal(t), 10, 64)
			if err != nil {
				d.Fatalf(t, "%s: %v", arg.Key, err)
			}
			return v
		}
		switch arg.Key {
		case "offset":
			hdr.BaseOffset = record.Offset(val())
		case "ts":
			ts = val()
		case "codec":
			c, err := record.ParseCodec(arg.SingleVal(t))
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			hdr.Attributes |= record.Attributes(c)
		case "producer":
			hdr.ProducerID = val()
			hdr.ProducerEpoch = 0
			hdr.BaseSequence = 0
		case "epoch":
			hdr.ProducerEpoch = int16(val())
		case "seq":
			hdr.BaseSequence = int32(val())
		case "txn":
			hdr.Attributes |= record.AttrTransactional
		case "horizon":
			hdr.Attributes |= record.AttrDeleteHorizon
			hdr.BaseTimestamp = val()
		case "control":
			control = arg.SingleVal(t)
			hdr.Attributes |= record.AttrControl | record.AttrTransactional
		default:
			d.Fatalf(t, "unknown argument %s", arg.Key)
		}
	}
	if control != "" && !d.HasArg("seq") {
		hdr.BaseSequence = record.NoSequence // markers carry no sequence
	}
	if !hdr.Attributes.HasDeleteHorizon() {
		hdr.BaseTimestamp = ts
	}
	hdr.MaxTimestamp = ts
	var recs []record.Record
	next := hdr.BaseOffset
	switch control {
	case "":
		for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if o, rest, ok := strings.Cut(line, ":"); ok && !strings.Contains(o, "=") {
				v, err := strconv.ParseInt(strings.TrimSpace(o), 10, 64)
				if err != nil {
					d.Fatalf(t, "record %q: %v", line, err)
				}
				next = record.Offset(v)
				line = strings.TrimSpace(rest)
			}
			r := parseRecordSpec(t, line)
			r.OffsetDelta = int32(next - hdr.BaseOffset)
			recs = append(recs, r)
			next++
		}
	case "commit", "abort":
		typ := record.ControlCommit
		if control == "abort" {
			typ = record.ControlAbort
		}
		recs = []record.Record{{Key: record.AppendControlKey(nil, typ), Value: record.AppendEndTxnMarkerValue(nil, 0)}}
		next++
	default:
		d.Fatalf(t, "control=%s: want commit or abort", control)
	}
	if len(recs) == 0 {
		d.Fatalf(t, "a batch needs records")
	}
	hdr.LastOffsetDelta = int32(next - 1 - hdr.BaseOffset)
	for i := range recs {
		recs[i].TimestampDelta = ts - hdr.BaseTimestamp
	}
	b, err := record.BuildBatch(nil, hdr, recs)
	if err != nil {
		d.Fatalf(t, "%v", err)
	}
	return b
}

func (h *ddHarness) clean(t *testing.T, d *datadriven.TestData) string {
	var nowMs int64
	d.ScanArgs(t, "now", &nowMs)
	mapKeys := 1000
	d.MaybeScanArgs(t, "map-keys", &mapKeys)
	force := true
	d.MaybeScanArgs(t, "force", &force)
	opts := CleanOptions{Force: force}
	if d.HasArg("first-dirty") {
		var fd int64
		d.ScanArgs(t, "first-dirty", &fd)
		opts.OverrideFirstDirty, opts.FirstDirtyOffset = true, record.Offset(fd)
	}
	if d.HasArg("hw") {
		var hw int64
		d.ScanArgs(t, "hw", &hw)
		h.l.SetHighWatermark(record.Offset(hw))
	}
	// An md5 Skimpy map of 2 x map-keys slots at load factor 0.5 holds exactly
	// map-keys keys.
	hasher, err := offsetmap.NewHasher("md5")
	if err != nil {
		t.Fatal(err)
	}
	m, err := offsetmap.NewSkimpy(2*mapKeys*24, hasher)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultCleanerConfig()
	cfg.LoadFactor = 0.5
	if d.HasArg("io-buffer-bytes") {
		var n int64
		d.ScanArgs(t, "io-buffer-bytes", &n)
		cfg.IOBufferBytes = n
	}
	d.MaybeScanArgs(t, "cleaned-index", &cfg.CleanedIndex)
	c, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(nowMs), Map: m})
	if err != nil {
		t.Fatal(err)
	}
	var during strings.Builder
	if in := strings.TrimSpace(d.Input); in != "" {
		at := 1
		d.MaybeScanArgs(t, "during-at", &at)
		calls := 0
		opts.CheckDone = func() error {
			if calls++; calls == at {
				h.during(t, d, in, &during)
			}
			return nil
		}
	}
	st, err := c.Clean(h.l, opts)
	if err != nil {
		msg := strings.ReplaceAll(err.Error(), h.root+string(filepath.Separator), "")
		return during.String() + "error: " + msg + "\n" + h.dump(t) + h.checkpoint(t)
	}
	var b strings.Builder
	b.WriteString(during.String())
	if !st.Cleaned() {
		fmt.Fprintf(&b, "skipped: %s\n", st.Skipped)
	} else {
		full := ""
		if st.MapFull {
			full = " full"
		}
		fmt.Fprintf(&b, "cleaned dirty=[%d, %d) end=%d map=%d/%d%s read=%d written=%d rebuilt=%d dropped=%d empty=%d horizons=%d groups=%d segments=%d\n",
			st.LogToClean.FirstDirtyOffset, st.LogToClean.FirstUncleanableOffset, st.EndOffset,
			st.MapEntries, st.MaxMapEntries, full, st.MessagesRead, st.MessagesWritten,
			st.BatchesRebuilt, st.BatchesDropped, st.EmptyBatchesRetained, st.HorizonsStamped, st.Groups, st.SegmentsCleaned)
		if st.AbortedBatchesDiscarded > 0 || st.MarkersDiscarded > 0 {
			fmt.Fprintf(&b, "transactions: aborted-batches-discarded=%d markers-discarded=%d\n", st.AbortedBatchesDiscarded, st.MarkersDiscarded)
		}
	}
	b.WriteString(h.dump(t))
	b.WriteString(h.checkpoint(t))
	b.WriteString("\n")
	rep, err := Verify(h.dir, VerifyOptions{})
	if err == nil {
		b.WriteString("verify: ok")
	} else {
		fmt.Fprintf(&b, "verify: %v", err)
		for _, p := range rep.Problems {
			fmt.Fprintf(&b, "\n  %s", p)
		}
	}
	return b.String()
}

// during runs the commands of a clean's input while the clean works,
// writing what each did to out.
func (h *ddHarness) during(t *testing.T, d *datadriven.TestData, input string, out *strings.Builder) {
	for _, line := range strings.Split(input, "\n") {
		fields := strings.Fields(line)
		if len(fields) == 0 {
			continue
		}
		fmt.Fprintf(out, "during the clean: %s: ", line)
		switch fields[0] {
		case "roll":
			if err := h.l.Roll(); err != nil {
				fmt.Fprintf(out, "error: %v\n", err)
				continue
			}
			fmt.Fprintf(out, "active seg@%d\n", h.l.ActiveSegment().BaseOffset())
		case "append":
			base := h.l.LogEndOffset()
			if err := h.l.Append(testBatch(t, base, 0, fields[1:]...)); err != nil {
				fmt.Fprintf(out, "error: %v\n", err)
				continue
			}
			fmt.Fprintf(out, "log end offset %d\n", h.l.LogEndOffset())
		case "delete-records":
			off, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				d.Fatalf(t, "%s: %v", line, err)
			}
			lso, err := h.l.DeleteRecords(record.Offset(off))
			if err != nil {
				fmt.Fprintf(out, "error: %v\n", err)
				continue
			}
			fmt.Fprintf(out, "log start offset %d\n", lso)
		case "retention":
			res, err := h.l.DeleteOldSegments(time.UnixMilli(0))
			if err != nil {
				fmt.Fprintf(out, "error: %v\n", err)
				continue
			}
			var deleted []string
			for _, s := range res.Deleted {
				deleted = append(deleted, fmt.Sprintf("seg@%d", s.BaseOffset))
			}
			fmt.Fprintf(out, "deleted [%s]\n", strings.Join(deleted, " "))
		default:
			d.Fatalf(t, "unknown command %q during a clean", line)
		}
	}
}

func (h *ddHarness) checkpoint(t *testing.T) string {
	entries, err := ReadCheckpoint(nil, CheckpointPath(h.dir))
	if err != nil {
		t.Fatal(err)
	}
	if off, ok := entries[h.l.TopicPartition()]; ok {
		return fmt.Sprintf("checkpoint=%d", off)
	}
	return "checkpoint=none"
}

// dump prints the log from the files on disk, decoded without engine code.
func (h *ddHarness) dump(t *testing.T) string {
	var b strings.Builder
	segs := h.l.Segments()
	var dec record.Decoder
	for i, s := range segs {
		prefix := filepath.Join(h.dir, segmentFileName(s.BaseOffset(), ""))
		matches, err := filepath.Glob(prefix + "*")
		if err != nil {
			t.Fatal(err)
		}
		var exts []string
		for _, m := range matches {
			exts = append(exts, strings.TrimPrefix(m, prefix))
		}
		sort.Strings(exts)
		fmt.Fprintf(&b, "seg@%d", s.BaseOffset())
		if i == len(segs)-1 {
			b.WriteString(" active")
		}
		fmt.Fprintf(&b, " files=%s", strings.Join(exts, ","))
		// Decoded as a reader sees them: the zero tail of an active
		// segment's preallocated index is not entries.
		if data, err := os.ReadFile(prefix + IndexFileSuffix); err == nil && len(data) > 0 {
			es, err := decodeOffsetIndex(data, s.BaseOffset())
			if err != nil {
				t.Fatal(err)
			}
			var strs []string
			for _, e := range es {
				strs = append(strs, fmt.Sprintf("%d@%d", e.Offset, e.Pos))
			}
			if len(strs) > 0 {
				fmt.Fprintf(&b, " index=%s", strings.Join(strs, ","))
			}
		}
		if data, err := os.ReadFile(prefix + TxnIndexFileSuffix); err == nil {
			es, err := decodeTxnIndex(data, s.BaseOffset())
			if err != nil {
				t.Fatal(err)
			}
			var strs []string
			for _, e := range es {
				strs = append(strs, fmt.Sprintf("(p%d %d..%d lso %d)", e.ProducerID, e.FirstOffset, e.LastOffset, e.LastStableOffset))
			}
			fmt.Fprintf(&b, " txnindex=[%s]", strings.Join(strs, " "))
		}
		if data, err := os.ReadFile(prefix + TimeIndexFileSuffix); err == nil && len(data) > 0 {
			es, err := decodeTimeIndex(data, s.BaseOffset())
			if err != nil {
				t.Fatal(err)
			}
			var strs []string
			for _, e := range es {
				strs = append(strs, fmt.Sprintf("%d@%d", e.Timestamp, e.Offset))
			}
			if len(strs) > 0 {
				fmt.Fprintf(&b, " timeindex=%s", strings.Join(strs, ","))
			}
		}
		b.WriteString("\n")
		data, err := os.ReadFile(prefix + LogFileSuffix)
		if err != nil {
			t.Fatal(err)
		}
		for pos := 0; pos < len(data); {
			size, _, err := record.PeekBatch(data[pos:])
			if err != nil || size > len(data)-pos {
				t.Fatalf("%s byte %d: %v", prefix, pos, err)
			}
			batch := data[pos : pos+size]
			pos += size
			if err := record.VerifyCRC(batch); err != nil {
				t.Fatalf("%s: %v", prefix, err)
			}
			hd, it, err := dec.Records(batch)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "  batch %d..%d count=%d base-ts=%d max-ts=%d%s\n", hd.BaseOffset, hd.LastOffset(), hd.RecordCount, hd.BaseTimestamp, hd.MaxTimestamp, attrString(&hd))
			var r record.Record
			for {
				more, err := it.Next(&r)
				if err != nil {
					t.Fatal(err)
				}
				if !more {
					break
				}
				fmt.Fprintf(&b, "    %d: %s @%d\n", r.Offset(&hd), recordString(&hd, &r), r.Timestamp(&hd))
			}
		}
	}
	return b.String()
}

func attrString(h *record.BatchHeader) string {
	var parts []string
	a := h.Attributes
	if c := a.Codec(); c != record.CodecNone {
		parts = append(parts, "codec="+c.String())
	}
	if a.LogAppendTime() {
		parts = append(parts, "log-append-time")
	}
	if a.Transactional() {
		parts = append(parts, "txn")
	}
	if a.Control() {
		parts = append(parts, "control")
	}
	if a.HasDeleteHorizon() {
		parts = append(parts, "delete-horizon")
	}
	if h.HasProducerID() {
		parts = append(parts, fmt.Sprintf("producer=%d epoch=%d seq=%d", h.ProducerID, h.ProducerEpoch, h.BaseSequence))
	}
	if len(parts) == 0 {
		return ""
	}
	return " " + strings.Join(parts, " ")
}

func recordString(h *record.BatchHeader, r *record.Record) string {
	if h.Attributes.Control() {
		typ, err := record.ParseControlKey(r.Key)
		if err != nil {
			return "bad control key"
		}
		return typ.String()
	}
	str := func(b []byte) string {
		switch {
		case b == nil:
			return "null"
		case len(b) == 0:
			return `""`
		}
		return string(b)
	}
	s := str(r.Key) + "=" + str(r.Value)
	if r.HeaderCount > 0 {
		s += fmt.Sprintf(" headers=%d", r.HeaderCount)
	}
	return s
}

// indexBytes prints the .index and .timeindex files of the inactive
// segments byte for byte, one entry a line.
func (h *ddHarness) indexBytes(t *testing.T) string {
	var b strings.Builder
	segs := h.l.Segments()
	for _, s := range segs[:len(segs)-1] {
		for _, f := range []struct {
			ext   string
			split int // bytes of the entry's first field
			size  int
		}{{IndexFileSuffix, 4, offsetIndexEntrySize}, {TimeIndexFileSuffix, 8, timeIndexEntrySize}} {
			data, err := os.ReadFile(s.path(f.ext))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s (%d bytes)\n", segmentFileName(s.base, f.ext), len(data))
			for i := 0; i+f.size <= len(data); i += f.size {
				fmt.Fprintf(&b, "  %x %x\n", data[i:i+f.split], data[i+f.split:i+f.size])
			}
			if len(data)%f.size != 0 {
				fmt.Fprintf(&b, "  trailing %x\n", data[len(data)-len(data)%f.size:])
			}
		}
	}
	return b.String()
}
