package record

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// fixturesDir holds segments written by real Kafka brokers (see its README.md
// and each set's PROVENANCE.md).
const fixturesDir = "../../testdata/kafka-real"

// provenanceRow is one line of a PROVENANCE.md "Decoder results" table: what
// an independent decoder found in one .log file.
type provenanceRow struct {
	bytes, batches, records, tombstones int
	commits, aborts, txnBatches         int
	codecs                              map[Codec]int // batches per codec
	firstOffset, lastOffset             Offset
}

// provenanceRowRE matches e.g.
// | `some-topic-0/00000000000000000000.log` | 1989 | 9 | 9 | 0 | 0 (commit 0, abort 0) | 0 | snappy:9 | 0..8 | 0 | 0 | clean |
var provenanceRowRE = regexp.MustCompile("^\\| `([^`]+\\.log)` \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| (\\d+) \\| \\d+ \\(commit (\\d+), abort (\\d+)\\) \\| (\\d+) \\| ([a-z0-9:, ]+) \\| (\\d+)\\.\\.(\\d+) \\|")

func readProvenance(t *testing.T, path string) map[string]provenanceRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]provenanceRow{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := provenanceRowRE.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		atoi := func(s string) int {
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatalf("%s: %q: %v", path, sc.Text(), err)
			}
			return n
		}
		r := provenanceRow{
			bytes: atoi(m[2]), batches: atoi(m[3]), records: atoi(m[4]), tombstones: atoi(m[5]),
			commits: atoi(m[6]), aborts: atoi(m[7]), txnBatches: atoi(m[8]),
			codecs:      map[Codec]int{},
			firstOffset: Offset(atoi(m[10])), lastOffset: Offset(atoi(m[11])),
		}
		for _, part := range strings.Split(m[9], ",") {
			name, n, ok := strings.Cut(strings.TrimSpace(part), ":")
			if !ok {
				t.Fatalf("%s: codec column %q", path, m[9])
			}
			c, err := ParseCodec(name)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			r.codecs[c] = atoi(n)
		}
		rows[m[1]] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestKafkaFixtures decodes every .log file written by a real broker: every
// CRC verifies, every record decodes, the counts match those PROVENANCE.md
// states, uncompressed batches rebuilt with Builder are byte-identical, and
// compressed ones rebuilt with Builder decode to the same records.
func TestKafkaFixtures(t *testing.T) {
	if _, err := os.Stat(fixturesDir); err != nil {
		t.Fatalf("real-Kafka fixtures %s missing (they are in the repository): %v", fixturesDir, err)
	}
	provs, err := filepath.Glob(filepath.Join(fixturesDir, "*", "PROVENANCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]provenanceRow{} // by path relative to fixturesDir
	for _, p := range provs {
		set := filepath.Base(filepath.Dir(p))
		for file, row := range readProvenance(t, p) {
			want[set+"/"+file] = row
		}
	}
	var logs []string
	err = filepath.WalkDir(fixturesDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") {
			logs = append(logs, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) == 0 {
		t.Fatalf("no .log files under %s", fixturesDir)
	}
	checked := 0
	totals := map[Codec]int{}
	for _, path := range logs {
		rel, _ := filepath.Rel(fixturesDir, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got := checkSegment(t, data, totals)
			row, ok := want[rel]
			if !ok {
				t.Logf("no PROVENANCE.md row for %s; counts not compared", rel)
				return
			}
			checked++
			if got.bytes != row.bytes || got.batches != row.batches || got.records != row.records ||
				got.tombstones != row.tombstones || got.commits != row.commits || got.aborts != row.aborts ||
				got.txnBatches != row.txnBatches || got.firstOffset != row.firstOffset || got.lastOffset != row.lastOffset || fmt.Sprint(got.codecs) != fmt.Sprint(row.codecs) {
				t.Errorf("decoded %+v\nPROVENANCE.md says %+v", got, row)
			}
		})
	}
	// The README says there are 73 .log files; all of them should have a row.
	t.Logf("%d .log files decoded, %d compared with PROVENANCE.md; batches per codec %v", len(logs), checked, totals)
	if checked < 70 {
		t.Errorf("only %d of %d .log files matched a PROVENANCE.md row", checked, len(logs))
	}
	if totals[CodecSnappy] == 0 || totals[CodecLZ4] == 0 || totals[CodecNone] == 0 {
		t.Errorf("fixtures lack a codec the README promises: %v", totals)
	}
}

// checkSegment walks the batches of one segment file and checks each.
func checkSegment(t *testing.T, data []byte, totals map[Codec]int) provenanceRow {
	t.Helper()
	got := provenanceRow{bytes: len(data), codecs: map[Codec]int{}, firstOffset: -1, lastOffset: -1}
	var (
		d       Decoder
		b       Builder
		d2      Decoder
		prev    Offset = -1
		pos     int
		rebuilt []byte
	)
	for pos < len(data) {
		size, magic, err := PeekBatch(data[pos:])
		if err != nil {
			t.Fatalf("byte %d: %v", pos, err)
		}
		if magic != MagicV2 {
			t.Fatalf("byte %d: magic %d", pos, magic)
		}
		if size > len(data)-pos {
			t.Fatalf("byte %d: batch of %d bytes runs past the file (%d left)", pos, size, len(data)-pos)
		}
		batch := data[pos : pos+size]
		if err := VerifyCRC(batch); err != nil {
			t.Fatalf("byte %d: %v", pos, err)
		}
		h, it, err := d.Records(batch)
		if err != nil {
			t.Fatalf("byte %d: %v", pos, err)
		}
		if h.BaseOffset <= prev {
			t.Errorf("byte %d: base offset %d after last offset %d", pos, h.BaseOffset, prev)
		}
		prev = h.LastOffset()
		got.batches++
		c := h.Attributes.Codec()
		got.codecs[c]++
		totals[c]++
		if h.Attributes.Transactional() {
			got.txnBatches++
		}
		var recs []Record
		var r Record
		for {
			ok, err := it.Next(&r)
			if err != nil {
				t.Fatalf("byte %d: %v", pos, err)
			}
			if !ok {
				break
			}
			if r.OffsetDelta < 0 || r.OffsetDelta > h.LastOffsetDelta {
				t.Errorf("byte %d: offset delta %d outside [0, %d]", pos, r.OffsetDelta, h.LastOffsetDelta)
			}
			if got.firstOffset < 0 {
				got.firstOffset = r.Offset(&h)
			}
			got.lastOffset = r.Offset(&h)
			if r.IsTombstone() {
				got.tombstones++
			}
			if h.Attributes.Control() {
				ct, err := ParseControlKey(r.Key)
				if err != nil {
					t.Fatalf("byte %d: %v", pos, err)
				}
				switch ct {
				case ControlCommit:
					got.commits++
				case ControlAbort:
					got.aborts++
				}
				if ct.IsTxnMarker() {
					if _, err := ParseEndTxnMarkerValue(r.Value); err != nil {
						t.Errorf("byte %d: %v", pos, err)
					}
				}
			}
			hi := r.HeaderIter()
			var hd Header
			for {
				ok, err := hi.Next(&hd)
				if err != nil {
					t.Fatalf("byte %d: headers: %v", pos, err)
				}
				if !ok {
					break
				}
			}
			recs = append(recs, cloneRecord(r))
		}
		if len(recs) != int(h.RecordCount) {
			t.Fatalf("byte %d: %d records, header says %d", pos, len(recs), h.RecordCount)
		}
		got.records += len(recs)

		// Rebuild the batch from its decoded records.
		b.Reset(h)
		for i := range recs {
			b.Append(&recs[i])
		}
		rebuilt, err = b.Finish(rebuilt[:0])
		if err != nil {
			t.Fatalf("byte %d: rebuild: %v", pos, err)
		}
		if c == CodecNone {
			if !bytes.Equal(rebuilt, batch) {
				t.Errorf("byte %d: rebuilt uncompressed batch differs from the original", pos)
			}
		} else {
			if err := VerifyCRC(rebuilt); err != nil {
				t.Fatalf("byte %d: rebuilt: %v", pos, err)
			}
			h2, it2, err := d2.Records(rebuilt)
			if err != nil {
				t.Fatalf("byte %d: decode rebuilt: %v", pos, err)
			}
			h.Length, h.CRC = h2.Length, h2.CRC
			if h2 != h {
				t.Errorf("byte %d: rebuilt header %+v, want %+v", pos, h2, h)
			}
			compareRecords(t, &it2, recs)
		}
		pos += size
	}
	return got
}

func cloneRecord(r Record) Record {
	c := r
	c.Key = cloneBytes(r.Key)
	c.Value = cloneBytes(r.Value)
	c.Headers = cloneBytes(r.Headers)
	return c
}

func cloneBytes(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

// compareRecords checks that it yields exactly want, null and empty told apart.
func compareRecords(t *testing.T, it *RecordIterator, want []Record) {
	t.Helper()
	var r Record
	for i := 0; ; i++ {
		ok, err := it.Next(&r)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !ok {
			if i != len(want) {
				t.Fatalf("%d records, want %d", i, len(want))
			}
			return
		}
		if i >= len(want) {
			t.Fatalf("more than %d records", len(want))
		}
		if err := sameRecord(&r, &want[i]); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
	}
}

func sameRecord(a, b *Record) error {
	switch {
	case a.Attributes != b.Attributes:
		return fmt.Errorf("attributes %d vs %d", a.Attributes, b.Attributes)
	case a.TimestampDelta != b.TimestampDelta:
		return fmt.Errorf("timestamp delta %d vs %d", a.TimestampDelta, b.TimestampDelta)
	case a.OffsetDelta != b.OffsetDelta:
		return fmt.Errorf("offset delta %d vs %d", a.OffsetDelta, b.OffsetDelta)
	case !sameNullable(a.Key, b.Key):
		return fmt.Errorf("key %q (nil %v) vs %q (nil %v)", a.Key, a.Key == nil, b.Key, b.Key == nil)
	case !sameNullable(a.Value, b.Value):
		return fmt.Errorf("value %q (nil %v) vs %q (nil %v)", a.Value, a.Value == nil, b.Value, b.Value == nil)
	case a.HeaderCount != b.HeaderCount || !bytes.Equal(a.Headers, b.Headers):
		return fmt.Errorf("headers %d %x vs %d %x", a.HeaderCount, a.Headers, b.HeaderCount, b.Headers)
	}
	return nil
}

func sameNullable(a, b []byte) bool {
	return (a == nil) == (b == nil) && bytes.Equal(a, b)
}
