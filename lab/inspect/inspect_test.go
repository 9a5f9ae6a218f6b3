package inspect

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestDatadriven runs the golden files of testdata/dump. Commands:
//
//	file path=REL [text]    writes the input to REL under the test's root: hex
//	                        bytes (whitespace and # comments ignored), or with
//	                        text the input lines, each ended by a newline
//	log path=REL            writes a .log file, one batch per input line:
//	                        "base=N ts=T [producer=P epoch=E seq=S txn]: k=v k2 ..."
//	                        (a key without = is a tombstone) or
//	                        "abort|commit base=N ts=T producer=P epoch=E coordinator=C";
//	                        prints each batch's position, size and CRC-32C,
//	                        computed here with hash/crc32, not by the code under test
//	dump path=REL [file] [records] [values] [indexes] [checkpoints]
//	                        Dump (or with file DumpFile); its output, then the error
//	verify path=REL         Verify; WriteVerifyResult of each partition, then the error
//
// Paths in the output are relative to the test's root.
func TestDatadriven(t *testing.T) {
	datadriven.Walk(t, "testdata/dump", func(t *testing.T, path string) {
		root := t.TempDir()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			rel := ""
			if d.HasArg("path") {
				d.ScanArgs(t, "path", &rel)
			}
			p := filepath.Join(root, rel)
			switch d.Cmd {
			case "file":
				var data []byte
				if d.HasArg("text") {
					data = []byte(d.Input + "\n")
				} else {
					data = parseHex(t, d.Input)
				}
				writeFile(t, p, data)
				return fmt.Sprintf("%d bytes\n", len(data))
			case "log":
				return writeLog(t, p, d.Input)
			case "dump":
				o := Options{Records: d.HasArg("records"), Values: d.HasArg("values"), Checkpoints: d.HasArg("checkpoints")}
				if d.HasArg("indexes") {
					o.Index, o.TimeIndex, o.TxnIndex = true, true, true
				}
				var b bytes.Buffer
				var err error
				if d.HasArg("file") {
					err = DumpFile(&b, p, o)
				} else {
					err = Dump(&b, p, o)
				}
				return relative(root, b.String(), err)
			case "verify":
				var b bytes.Buffer
				res, err := Verify(p, engine.VerifyOptions{})
				for _, r := range res {
					WriteVerifyResult(&b, r)
				}
				return relative(root, b.String(), err)
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
	})
}

func relative(root, out string, err error) string {
	if err != nil {
		out += "error: " + err.Error() + "\n"
	}
	return strings.ReplaceAll(out, root+string(filepath.Separator), "")
}

func writeFile(t *testing.T, p string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func parseHex(t *testing.T, in string) []byte {
	t.Helper()
	var digits strings.Builder
	for _, line := range strings.Split(in, "\n") {
		line, _, _ = strings.Cut(line, "#")
		digits.WriteString(strings.Join(strings.Fields(line), ""))
	}
	b, err := hex.DecodeString(digits.String())
	if err != nil {
		t.Fatalf("hex input: %v", err)
	}
	return b
}

// writeLog builds the batches of the input with engine/record and writes
// them back to back.
func writeLog(t *testing.T, p, in string) string {
	t.Helper()
	var file []byte
	var out strings.Builder
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	for _, line := range strings.Split(in, "\n") {
		head, recs, _ := strings.Cut(line, ":")
		fields := strings.Fields(head)
		h := record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1, PartitionLeaderEpoch: -1}
		control := ""
		if len(fields) > 0 && (fields[0] == "abort" || fields[0] == "commit") {
			control, fields = fields[0], fields[1:]
		}
		coordinator := int32(0)
		for _, f := range fields {
			k, v, _ := strings.Cut(f, "=")
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil && k != "txn" {
				t.Fatalf("%q: %v", f, err)
			}
			switch k {
			case "base":
				h.BaseOffset = record.Offset(n)
			case "ts":
				h.BaseTimestamp, h.MaxTimestamp = n, n
			case "producer":
				h.ProducerID = n
			case "epoch":
				h.ProducerEpoch = int16(n)
			case "seq":
				h.BaseSequence = int32(n)
			case "coordinator":
				coordinator = int32(n)
			case "txn":
				h.Attributes |= record.AttrTransactional
			default:
				t.Fatalf("unknown batch field %q", f)
			}
		}
		var rs []record.Record
		if control != "" {
			typ := record.ControlAbort
			if control == "commit" {
				typ = record.ControlCommit
			}
			h.Attributes |= record.AttrTransactional | record.AttrControl
			rs = append(rs, record.Record{Key: record.AppendControlKey(nil, typ), Value: record.AppendEndTxnMarkerValue(nil, coordinator)})
		} else {
			for i, kv := range strings.Fields(recs) {
				k, v, ok := strings.Cut(kv, "=")
				r := record.Record{Key: []byte(k), OffsetDelta: int32(i)}
				if ok {
					r.Value = []byte(v)
				}
				rs = append(rs, r)
			}
		}
		h.LastOffsetDelta = int32(len(rs) - 1)
		b, err := record.BuildBatch(nil, h, rs)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "batch at %d: %d bytes, crc32c %d\n", len(file), len(b), crc32.Checksum(b[21:], castagnoli))
		file = append(file, b...)
	}
	writeFile(t, p, file)
	return out.String()
}
