package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/offsetmap"
	"github.com/cockroachdb/datadriven"
)

// TestCleanerDataDriven runs the cleaner scenarios of testdata/cleaner. The
// language (one log per file section, started by `log`):
//
//	log [segment-bytes=N] [delete-retention-ms=N] [index-interval-bytes=N]
//	    [min-compaction-lag-ms=N] [file-delete-delay-ms=N (default 0)]
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
//	  Runs one clean at time MS (first-dirty: as Kafka's tests pass
//	  LogToClean(firstDirtyOffset); hw: Log.SetHighWatermark first), then
//	  prints its stats, the log, the checkpoint and Verify's verdict.
//	print
//	  Prints every segment (base offset, files, time index entries), its
//	  batches (offsets, record count, base and max timestamp, attributes) and
//	  their records ("offset: K=V @timestamp").
//	reopen
//	  Closes and reopens the log, then prints its log end offset and the log.
func TestCleanerDataDriven(t *testing.T) {
	datadriven.Walk(t, "testdata/cleaner", func(t *testing.T, path string) {
		var h ddHarness
		defer h.close(t)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return h.run(t, d)
		})
	})
}

type ddHarness struct {
	root, dir string
	cfg       LogConfig
	l         *Log
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
	c, err := NewCleaner(cfg, CleanerOptions{Now: fixedClock(nowMs), Map: m})
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Clean(h.l, opts)
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
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
			es, err := DecodeOffsetIndex(data, s.BaseOffset())
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
		if data, err := os.ReadFile(prefix + TimeIndexFileSuffix); err == nil && len(data) > 0 {
			es, err := DecodeTimeIndex(data, s.BaseOffset())
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
