package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	labcli "github.com/cleanerlab/cleanerlab/lab/cli"
)

// batch builds one uncompressed batch at base: a record k=v per spec.
func batch(t *testing.T, base int64, ts int64, h record.BatchHeader, specs ...string) []byte {
	t.Helper()
	h.BaseOffset = record.Offset(base)
	h.LastOffsetDelta = int32(len(specs) - 1)
	h.BaseTimestamp, h.MaxTimestamp = ts, ts
	var recs []record.Record
	for i, s := range specs {
		k, v, _ := strings.Cut(s, "=")
		r := record.Record{Key: []byte(k), Value: []byte(v), OffsetDelta: int32(i)}
		recs = append(recs, r)
	}
	b, err := record.BuildBatch(nil, h, recs)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var plain = record.BatchHeader{ProducerID: -1, ProducerEpoch: -1, BaseSequence: -1}

func TestDumpIndexesOfAFixture(t *testing.T) {
	needFixtures(t)
	// A cleanly shut down partition: .index of 2 entries, .timeindex of 4.
	dir := filepath.Join(fixtures, "cp-kraft-ksql-txn/__consumer_offsets-29")
	out, err := cli(t, "dump", "--dir", dir, "--indexes")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	idx, _ := os.ReadFile(filepath.Join(dir, "00000000000000000000.index"))
	for i := 0; i+8 <= len(idx); i += 8 {
		line := fmt.Sprintf("offset: %d position: %d\n", binary.BigEndian.Uint32(idx[i:]), binary.BigEndian.Uint32(idx[i+4:]))
		if !strings.Contains(out, line) {
			t.Errorf("dump lacks %q", line)
		}
	}
	ti, _ := os.ReadFile(filepath.Join(dir, "00000000000000000000.timeindex"))
	if n := strings.Count(out, "\ntimestamp: "); n != len(ti)/12 {
		t.Errorf("%d time index lines, want %d", n, len(ti)/12)
	}
	if !strings.Contains(out, "No .txnindex file") {
		t.Error("dump does not say the segment has no .txnindex")
	}
	// One index file on its own.
	out, err = cli(t, "dump", "--file", filepath.Join(dir, "00000000000000000000.index"))
	if err != nil || !strings.Contains(out, "2 entries") {
		t.Errorf("dump --file .index: %v\n%s", err, out)
	}
}

func TestDumpIndexEntryPastTheLog(t *testing.T) {
	needFixtures(t)
	dir := filepath.Join(t.TempDir(), "__consumer_offsets-29")
	copyDir(t, filepath.Join(fixtures, "cp-kraft-ksql-txn/__consumer_offsets-29"), dir)
	idxPath := filepath.Join(dir, "00000000000000000000.index")
	idx, _ := os.ReadFile(idxPath)
	binary.BigEndian.PutUint32(idx[12:], 1<<20) // the second entry's position
	os.WriteFile(idxPath, idx, 0o644)
	_, err := cli(t, "dump", "--dir", dir, "--index")
	var ce *record.CorruptionError
	if !errors.As(err, &ce) || ce.Path != idxPath || ce.Pos != 8 || !errors.Is(err, engine.ErrCorruptIndex) {
		t.Errorf("dump of an index entry past the log: %v", err)
	}
	out, err := cli(t, "verify", "--dir", dir)
	if err == nil || labcli.ExitStatus(err) != 2 || !strings.Contains(out, "PROBLEM index: "+idxPath+" at byte 8") {
		t.Errorf("verify: %v\n%s", err, out)
	}
}

func TestDumpAndVerifyTxnIndex(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "txn-0")
	l, err := engine.Open(dir, engine.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	txn := record.BatchHeader{ProducerID: 1, ProducerEpoch: 0, BaseSequence: 0, Attributes: record.AttrTransactional}
	marker := record.BatchHeader{BaseOffset: 1, ProducerID: 1, ProducerEpoch: 0, BaseSequence: -1, Attributes: record.AttrTransactional | record.AttrControl, MaxTimestamp: 5, BaseTimestamp: 5}
	abort, err := record.BuildBatch(nil, marker, []record.Record{{Key: record.AppendControlKey(nil, record.ControlAbort), Value: record.AppendEndTxnMarkerValue(nil, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{batch(t, 0, 5, txn, "k=v"), abort} {
		if err := l.Append(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := cli(t, "dump", "--dir", dir, "--txnindex", "--records")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "version: 0 producerId: 1 firstOffset: 0 lastOffset: 1 lastStableOffset: 2\n") || !strings.Contains(out, "controlType: ABORT") {
		t.Errorf("dump --txnindex:\n%s", out)
	}
	if out, err := cli(t, "verify", "--dir", dir); err != nil || !strings.Contains(out, "1 txn-index entries") {
		t.Errorf("verify: %v\n%s", err, out)
	}
	// An entry whose last offset is not an ABORT marker.
	// version 0, producer 1, first offset 0, last offset 0, LSO 1 (engine/FORMAT.md)
	bad := binary.BigEndian.AppendUint16(nil, 0)
	for _, v := range []uint64{1, 0, 0, 1} {
		bad = binary.BigEndian.AppendUint64(bad, v)
	}
	os.WriteFile(filepath.Join(dir, "00000000000000000000.txnindex"), bad, 0o644)
	out, err = cli(t, "verify", "--dir", dir)
	if err == nil || !strings.Contains(out, "PROBLEM txnindex:") {
		t.Errorf("verify of a wrong .txnindex: %v\n%s", err, out)
	}
}

// legacyMsg hand-builds a magic 0/1 message (Kafka's LegacyRecord layout).
func legacyMsg(off int64, magic, attrs byte, ts int64, key, value []byte) []byte {
	body := []byte{magic, attrs}
	if magic == 1 {
		body = binary.BigEndian.AppendUint64(body, uint64(ts))
	}
	for _, b := range [][]byte{key, value} {
		if b == nil {
			body = binary.BigEndian.AppendUint32(body, 0xffffffff)
		} else {
			body = append(binary.BigEndian.AppendUint32(body, uint32(len(b))), b...)
		}
	}
	m := binary.BigEndian.AppendUint64(nil, uint64(off))
	m = binary.BigEndian.AppendUint32(m, uint32(4+len(body)))
	m = binary.BigEndian.AppendUint32(m, crc32.ChecksumIEEE(body))
	return append(m, body...)
}

func TestDumpLegacyWrapper(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "legacy-0")
	os.MkdirAll(dir, 0o755)
	inner := append(legacyMsg(0, 1, 0, 5, []byte("a"), []byte("1")), legacyMsg(1, 1, 0, 6, []byte("b"), nil)...)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(inner)
	zw.Close()
	data := append(legacyMsg(10, 0, 0, 0, []byte("x"), []byte("y")), legacyMsg(12, 1, 1, 7, nil, gz.Bytes())...)
	path := filepath.Join(dir, "00000000000000000000.log")
	os.WriteFile(path, data, 0o644)
	out, err := cli(t, "dump", "--file", path, "--records")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"offset: 10 position: 0 size: 28 magic: 0 compresscodec: none",
		"offset: 12 position: 28 CreateTime: 7",
		"compresscodec: gzip",
		"| offset: 11 timestamp: 5 keySize: 1 valueSize: 1 magic: 1 key: a",
		"| offset: 12 timestamp: 6 keySize: 1 valueSize: null magic: 1 key: b",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dump lacks %q:\n%s", want, out)
		}
	}
	// The cleaner refuses them, naming the first one.
	_, err = cli(t, "clean", "--dir", dir, "--roll", "--force")
	var ce *record.CorruptionError
	if !errors.As(err, &ce) || ce.Path != path || ce.Pos != 0 || !errors.Is(err, engine.ErrLegacyFormat) {
		t.Errorf("clean: %v", err)
	}
}

func TestRetentionCommand(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "ret-0")
	l, err := engine.Open(dir, engine.Options{Create: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < 4; i++ {
		if err := l.Append(batch(t, i, 1000*(i+1), plain, "k=v")); err != nil {
			t.Fatal(err)
		}
		if err := l.Roll(); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	// Compact-only (the default here): nothing goes by time.
	out, err := cli(t, "retention", "--dir", dir, "--retention.ms", "1000", "--now-ms", "3500")
	if err != nil || !strings.Contains(out, "0 segments deleted; log start offset 0") {
		t.Fatalf("compact-only: %v\n%s", err, out)
	}
	// cleanup.policy=delete: 3500-1000 and 3500-2000 are more than 1000 ms old.
	out, err = cli(t, "retention", "--dir", dir, "--cleanup.policy", "delete", "--retention.ms", "1000", "--now-ms", "3500", "--file.delete.delay.ms", "0")
	if err != nil || !strings.Contains(out, "deleted segment 0 (offsets [0, 1), ") || !strings.Contains(out, "deleted segment 1 ") ||
		!strings.Contains(out, "2 segments deleted; log start offset 2, log end offset 4, 3 segments left") {
		t.Fatalf("delete policy: %v\n%s", err, out)
	}
	// DeleteRecords past the high watermark fails; below it, the segments
	// before the new log start offset go, whatever the policy.
	if _, err := cli(t, "retention", "--dir", dir, "--delete-records", "9"); !errors.Is(err, engine.ErrOffsetOutOfRange) {
		t.Errorf("delete records past the high watermark: %v", err)
	}
	out, err = cli(t, "retention", "--dir", dir, "--delete-records", "3", "--now-ms", "3500", "--file.delete.delay.ms", "0")
	if err != nil || !strings.Contains(out, "log start offset 2 -> 3") || !strings.Contains(out, "by log start offset") {
		t.Errorf("delete records: %v\n%s", err, out)
	}
	// The log start offset is now the first segment's base: Kafka keeps no
	// entry for it then.
	if out, err := cli(t, "dump", "--dir", dir, "--checkpoints"); err != nil || !strings.Contains(out, "log-start-offset-checkpoint: no entry for ret-0") ||
		!strings.Contains(out, "recovery-point-offset-checkpoint: ret-0 4") || !strings.Contains(out, ".kafka_cleanshutdown: true") {
		t.Errorf("dump --checkpoints: %v\n%s", err, out)
	}
	if out, err := cli(t, "verify", "--dir", dir); err != nil {
		t.Errorf("verify: %v\n%s", err, out)
	}
}

// A torn tail in a fixture copy (no clean-shutdown marker): verify reports
// it and changes nothing; clean cuts it, says how many bytes, and verify
// then passes.
func TestTornTailCommands(t *testing.T) {
	needFixtures(t)
	root := t.TempDir()
	dir := filepath.Join(root, "__consumer_offsets-9")
	copyDir(t, filepath.Join(fixtures, "cp5-connect-lz4/__consumer_offsets-9"), dir)
	path := filepath.Join(dir, "00000000000000000000.log")
	data, _ := os.ReadFile(path)
	last := 0
	for pos := 0; pos < len(data); {
		last = pos
		pos += int(binary.BigEndian.Uint32(data[pos+8:])) + 12
	}
	os.WriteFile(path, data[:last+20], 0o644)
	before := hashTree(t, root)
	out, err := cli(t, "verify", "--dir", dir)
	if err == nil || !strings.Contains(out, fmt.Sprintf("PROBLEM framing: %s at byte %d: expected a whole batch (torn tail)", path, last)) {
		t.Errorf("verify of a torn tail: %v\n%s", err, out)
	}
	if _, err := cli(t, "dump", "--dir", dir); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("torn tail at byte %d", last)) {
		t.Errorf("dump of a torn tail: %v", err)
	}
	after := hashTree(t, root)
	for p, h := range before {
		if after[p] != h {
			t.Errorf("%s changed by verify or dump", p)
		}
	}
	out, err = cli(t, "clean", "--dir", dir, "--roll", "--force")
	if err != nil || !strings.Contains(out, fmt.Sprintf("recovery: %s: torn tail of 20 bytes cut at byte %d", path, last)) {
		t.Errorf("clean: %v\n%s", err, out)
	}
	if out, err := cli(t, "verify", "--dir", dir); err != nil {
		t.Errorf("verify after the cut: %v\n%s", err, out)
	}
}
