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
	"github.com/cleanerlab/cleanerlab/vfs"
	"github.com/cleanerlab/cleanerlab/vfs/vfstest"
	"github.com/cockroachdb/datadriven"
)

// TestLogDataDriven runs the store scenarios of testdata/log: crash
// recovery (C13, C14), retention (C20), appends (C21) and the indexes. The
// language is that of TestCleanerDataDriven (log is replaced, batch, roll,
// checkpoint, print and clean are shared) plus:
//
//	log [segment-bytes=N] [segment-index-bytes=N] [index-interval-bytes=N]
//	    [segment-ms=N] [retention-ms=N] [retention-bytes=N]
//	    [file-delete-delay-ms=N (default 0)] [policy=compact|delete|compact,delete]
//	    [delete-retention-ms=N] [producer-id-expiration-ms=N]
//	    [now=MS (the log's clock, default 0)]
//	  Starts an empty partition directory t-0 in a fresh log directory root.
//	ls
//	  Lists the partition directory and the root: name and size of each file.
//	write NAME [from=FILE] [bytes=N]
//	  Writes NAME in the partition directory: the first N bytes of FILE
//	  (default all), or N zero bytes without from.
//	mv FROM TO | rm NAME | cp FROM TO
//	  File operations in the partition directory, behind the log's back.
//	clean now=MS fail=PATTERN [sticky]
//	  As clean, with the first file operation whose description matches
//	  PATTERN (path.Match over "kind base-name [base-name]", e.g.
//	  "rename *.log.swap *.log") failing with EIO; sticky fails every
//	  operation from it on, as a dead disk (so nothing is cleaned up).
//	close
//	  Closes the log (writing indexes, checkpoints and the clean-shutdown
//	  marker) and lists the files.
//	crash
//	  Drops the log without writing anything (as a process crash).
//	reopen
//	  Closes the log (unless crashed) and opens it again; prints what the
//	  open recovered, the files, the log and Verify's verdict.
//	txnindex
//	  Prints each segment's .txnindex as decoded from disk, with its bytes.
//	lso
//	  Prints Log.LastStableOffset and the high watermark.
//	delete-records offset=N
//	  Log.DeleteRecords; prints the log start offset.
//	retention now=MS [hw=N]
//	  Log.DeleteOldSegments at MS; prints what it deleted and the files.
func TestLogDataDriven(t *testing.T) {
	walkDataDriven(t, "testdata/log", func() ddRunner { return &logHarness{} })
}

// switchFS lets a test swap the FS under an open Log.
type switchFS struct{ vfs.FS }

type logHarness struct {
	ddHarness
	sw    *switchFS
	nowMs int64
}

func (h *logHarness) open(t *testing.T) (*Log, error) {
	return Open(h.dir, Options{Config: &h.cfg, FS: h.sw, Create: true, Now: func() time.Time { return time.UnixMilli(h.nowMs) }})
}

func (h *logHarness) run(t *testing.T, d *datadriven.TestData) string {
	if h.l == nil && d.Cmd != "log" && d.Cmd != "reopen" && d.Cmd != "ls" && d.Cmd != "write" && d.Cmd != "mv" && d.Cmd != "cp" && d.Cmd != "rm" {
		d.Fatalf(t, "%s before log", d.Cmd)
	}
	switch d.Cmd {
	case "log":
		h.close(t)
		h.cfg = DefaultLogConfig()
		h.cfg.FileDeleteDelayMs = 0
		h.nowMs = 0
		for _, arg := range d.CmdArgs {
			if arg.Key == "policy" {
				h.cfg.Compact = strings.Contains(arg.SingleVal(t), "compact")
				h.cfg.Delete = strings.Contains(arg.SingleVal(t), "delete")
				continue
			}
			v, err := strconv.ParseInt(arg.SingleVal(t), 10, 64)
			if err != nil {
				d.Fatalf(t, "%s: %v", arg.Key, err)
			}
			switch arg.Key {
			case "segment-bytes":
				h.cfg.SegmentBytes = v
			case "segment-index-bytes":
				h.cfg.SegmentIndexBytes = v
			case "index-interval-bytes":
				h.cfg.IndexIntervalBytes = v
			case "segment-ms":
				h.cfg.SegmentMs = v
			case "retention-ms":
				h.cfg.RetentionMs = v
			case "retention-bytes":
				h.cfg.RetentionBytes = v
			case "file-delete-delay-ms":
				h.cfg.FileDeleteDelayMs = v
			case "delete-retention-ms":
				h.cfg.DeleteRetentionMs = v
			case "producer-id-expiration-ms":
				h.cfg.ProducerIDExpirationMs = v
			case "now":
				h.nowMs = v
			default:
				d.Fatalf(t, "unknown argument %s", arg.Key)
			}
		}
		h.root = t.TempDir()
		h.dir = filepath.Join(h.root, "t-0")
		h.sw = &switchFS{FS: vfs.Default}
		l, err := h.open(t)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		h.l = l
		return "ok"

	case "ls":
		return h.ls(t)

	case "write":
		name := d.CmdArgs[0].Key
		var data []byte
		if d.HasArg("from") {
			var from string
			d.ScanArgs(t, "from", &from)
			b, err := os.ReadFile(filepath.Join(h.dir, from))
			if err != nil {
				d.Fatalf(t, "%v", err)
			}
			data = b
		}
		if d.HasArg("bytes") {
			var n int
			d.ScanArgs(t, "bytes", &n)
			if data == nil {
				data = make([]byte, n)
			} else {
				data = data[:min(n, len(data))]
			}
		}
		if err := os.WriteFile(filepath.Join(h.dir, name), data, 0o644); err != nil {
			d.Fatalf(t, "%v", err)
		}
		return fmt.Sprintf("wrote %s (%d bytes)", name, len(data))

	case "mv", "cp", "rm":
		args := make([]string, len(d.CmdArgs))
		for i, a := range d.CmdArgs {
			args[i] = filepath.Join(h.dir, a.Key)
		}
		var err error
		switch d.Cmd {
		case "mv":
			err = os.Rename(args[0], args[1])
		case "rm":
			err = os.Remove(args[0])
		case "cp":
			var b []byte
			if b, err = os.ReadFile(args[0]); err == nil {
				err = os.WriteFile(args[1], b, 0o644)
			}
		}
		if err != nil {
			return "error: " + err.Error()
		}
		return "ok"

	case "clean":
		if !d.HasArg("fail") {
			return h.ddHarness.clean(t, d)
		}
		var pattern string
		d.ScanArgs(t, "fail", &pattern)
		match := func(op vfstest.Op) bool {
			ok, err := filepath.Match(pattern, op.String())
			if err != nil {
				d.Fatalf(t, "pattern %q: %v", pattern, err)
			}
			return ok
		}
		armed := false
		fault := vfstest.NewFaultFS(vfs.Default, vfstest.Fault{At: 0, Sticky: d.HasArg("sticky"), Count: func(op vfstest.Op) bool {
			if !op.Mutating() {
				return false
			}
			if armed || match(op) {
				armed = true
				return true
			}
			return false
		}})
		h.sw.FS = fault
		var nowMs int64
		d.ScanArgs(t, "now", &nowMs)
		c := testCleaner(t, nowMs)
		_, err := c.Clean(h.l, CleanOptions{Force: true})
		h.sw.FS = vfs.Default
		var b strings.Builder
		if ops := fault.Ops(); len(ops) > 0 {
			fmt.Fprintf(&b, "failed: %s\n", ops[0])
		} else {
			b.WriteString("no operation matched\n")
		}
		if err != nil {
			fmt.Fprintf(&b, "clean error: %v\n", shortErr(h.root, err))
		}
		b.WriteString(h.ls(t))
		return b.String()

	case "close":
		if err := h.l.Close(); err != nil {
			return "close error: " + shortErr(h.root, err)
		}
		h.l = nil
		return h.ls(t)

	case "crash":
		h.l.abandon()
		h.l = nil
		return "crashed"

	case "reopen":
		if h.l != nil {
			if err := h.l.Close(); err != nil {
				return "close error: " + err.Error()
			}
			h.l = nil
		}
		l, err := h.open(t)
		if err != nil {
			return "error: " + shortErr(h.root, err)
		}
		h.l = l
		var b strings.Builder
		b.WriteString(recoveryString(h.dir, l.Recovery()))
		b.WriteString(h.ls(t))
		fmt.Fprintf(&b, "log-start-offset=%d log-end-offset=%d\n", l.LogStartOffset(), l.LogEndOffset())
		b.WriteString(h.dump(t))
		b.WriteString(h.verify())
		return b.String()

	case "delete-records":
		var off int64
		d.ScanArgs(t, "offset", &off)
		lso, err := h.l.DeleteRecords(record.Offset(off))
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("log-start-offset=%d", lso)

	case "retention":
		var nowMs int64
		d.ScanArgs(t, "now", &nowMs)
		if d.HasArg("hw") {
			var hw int64
			d.ScanArgs(t, "hw", &hw)
			h.l.SetHighWatermark(record.Offset(hw))
		}
		h.nowMs = nowMs
		res, err := h.l.DeleteOldSegments(time.UnixMilli(nowMs))
		if err != nil {
			return "error: " + err.Error()
		}
		var b strings.Builder
		if res.Rolled {
			b.WriteString("rolled first\n")
		}
		for _, s := range res.Deleted {
			fmt.Fprintf(&b, "deleted seg@%d [%d, %d) size=%d max-ts=%d by %s\n", s.BaseOffset, s.BaseOffset, s.NextOffset, s.SizeBytes, s.MaxTimestamp, s.Reason)
		}
		fmt.Fprintf(&b, "log-start-offset=%d\n", res.LogStartOffset)
		b.WriteString(h.ls(t))
		return b.String()

	case "txnindex":
		var b strings.Builder
		for _, sg := range h.l.Segments() {
			path := filepath.Join(h.dir, segmentFileName(sg.BaseOffset(), TxnIndexFileSuffix))
			data, err := os.ReadFile(path)
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "seg@%d .txnindex %d bytes\n", sg.BaseOffset(), len(data))
			entries, err := decodeTxnIndex(data, sg.BaseOffset())
			if err != nil {
				fmt.Fprintf(&b, "  error: %v\n", err)
				continue
			}
			for i, e := range entries {
				fmt.Fprintf(&b, "  %s\n  bytes %x\n", e, data[i*txnIndexEntrySize:(i+1)*txnIndexEntrySize])
			}
		}
		return b.String()

	case "lso":
		lso, err := h.l.LastStableOffset()
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("last-stable-offset=%d high-watermark=%d", lso, h.l.HighWatermark())

	case "now":
		d.ScanArgs(t, "ms", &h.nowMs)
		return "ok"
	}
	return h.ddHarness.run(t, d)
}

func (h *logHarness) close(t *testing.T) {
	if h.l != nil {
		if err := h.l.Close(); err != nil {
			t.Error(err)
		}
		h.l = nil
	}
}

// verify runs Verify and prints its verdict and problems.
func (h *logHarness) verify() string {
	rep, err := Verify(h.dir, VerifyOptions{})
	if err == nil {
		return "verify: ok"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "verify: %v", shortErr(h.root, err))
	for _, p := range rep.Problems {
		fmt.Fprintf(&b, "\n  %s", shortErr(h.root, fmt.Errorf("%s", p)))
	}
	return b.String()
}

// ls lists the files of the partition directory, then of the root.
func (h *logHarness) ls(t *testing.T) string {
	var b strings.Builder
	for _, dir := range []string{h.dir, h.root} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, e := range entries {
			if e.IsDir() {
				continue
			}
			info, err := e.Info()
			if err != nil {
				if os.IsNotExist(err) {
					continue
				}
				t.Fatal(err)
			}
			lines = append(lines, fmt.Sprintf("  %s %d", e.Name(), info.Size()))
		}
		sort.Strings(lines)
		rel, _ := filepath.Rel(h.root, dir)
		if rel == "." {
			rel = "root"
		}
		fmt.Fprintf(&b, "%s:\n%s\n", rel, strings.Join(lines, "\n"))
	}
	return b.String()
}

// shortErr is err's message with the temporary root cut from paths.
func shortErr(root string, err error) string {
	return strings.ReplaceAll(err.Error(), root+string(filepath.Separator), "")
}

// recoveryString prints a RecoveryReport with paths relative to dir.
func recoveryString(dir string, r *RecoveryReport) string {
	rel := func(p string) string { return strings.TrimPrefix(p, dir+string(filepath.Separator)) }
	var b strings.Builder
	if r.CleanShutdown {
		b.WriteString("recovery: clean shutdown\n")
	} else {
		fmt.Fprintf(&b, "recovery: unclean shutdown, recovery point %d, recovered %v\n", r.RecoveryPoint, r.RecoveredSegments)
	}
	for _, tr := range r.Truncations {
		fmt.Fprintf(&b, "  truncated %s at byte %d: %d bytes cut (%s)\n", rel(tr.Path), tr.Pos, tr.BytesCut, tr.Err.Reason)
	}
	for _, p := range r.DeletedSegments {
		fmt.Fprintf(&b, "  deleted %s\n", rel(p))
	}
	for _, p := range r.RemovedOrphans {
		fmt.Fprintf(&b, "  removed orphan %s\n", rel(p))
	}
	var rebuilt []string
	for _, p := range r.RebuiltIndexes {
		rebuilt = append(rebuilt, rel(p))
	}
	if len(rebuilt) > 0 {
		fmt.Fprintf(&b, "  rebuilt %s\n", strings.Join(rebuilt, " "))
	}
	return b.String()
}
