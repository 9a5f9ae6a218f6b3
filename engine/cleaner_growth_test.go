package engine

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// TestCleanerBufferGrowth is the buffer part of C17 (KAFKA-6854, KAFKA-5316):
//   - max.message.bytes lowered from 2 MiB to 512 KiB after 1 MiB batches
//     were written: the log opens and the clean succeeds, each such batch
//     read whole after a sanity check of its header, as Kafka's
//     growBuffersOrFail lets the buffer grow past max.message.bytes to the
//     next batch;
//   - a rewrite can make a batch larger than it was (here the delete
//     horizon turns one-byte timestamp deltas into six-byte ones): the
//     output is written whole although it is larger than the write buffer
//     and than max.message.bytes, and the next clean reads it back.
func TestCleanerBufferGrowth(t *testing.T) {
	t.Run("max.message.bytes lowered", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "big-0")
		cfg := DefaultLogConfig()
		cfg.MaxMessageBytes = 2 << 20
		big := strings.Repeat("x", 1<<20)
		var batches [][]byte
		for o := range 4 {
			batches = append(batches, testBatch(t, record.Offset(o), 1000, fmt.Sprintf("k%d=%s%d", o%2, big, o)))
		}
		writeTestLog(t, dir, &cfg, batches, [][]byte{testBatch(t, 4, 1000, "tail=1")})

		cfg.MaxMessageBytes = 512 << 10
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatalf("open with max.message.bytes 512 KiB: %v", err)
		}
		defer l.Close()
		st, err := testCleaner(t, 10_000).Clean(l, CleanOptions{Force: true})
		if err != nil {
			t.Fatalf("clean with max.message.bytes 512 KiB: %v", err)
		}
		if st.MessagesRead != 4 || st.MessagesWritten != 2 || st.EndOffset != 4 {
			t.Errorf("read %d kept %d end %d, want 4, 2, 4", st.MessagesRead, st.MessagesWritten, st.EndOffset)
		}
		_, recs, _ := readPartition(t, dir)
		var offs []record.Offset
		for _, r := range recs {
			offs = append(offs, r.Offset)
		}
		if fmt.Sprint(offs) != "[2 3 4]" {
			t.Errorf("offsets %v, want [2 3 4]", offs)
		}
	})

	t.Run("output larger than input", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "grow-0")
		var specs []string
		for i := range 100 {
			specs = append(specs, fmt.Sprintf("key%03d=null", i))
		}
		in := testBatch(t, 0, 0, specs...)
		cfg := DefaultLogConfig()
		cfg.MaxMessageBytes = len(in)
		writeTestLog(t, dir, &cfg, [][]byte{in}, [][]byte{testBatch(t, 100, 0, "tail=1")})
		l, err := Open(dir, Options{Config: &cfg})
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ccfg := DefaultCleanerConfig()
		ccfg.DedupeBufferBytes = 1 << 20
		ccfg.IOBufferBytes = 512 // read and write buffers of 256 bytes
		now := int64(1_000_000_000_000)
		c, err := NewCleaner(ccfg, CleanerOptions{Now: fixedClock(now)})
		if err != nil {
			t.Fatal(err)
		}
		st, err := c.Clean(l, CleanOptions{Force: true})
		if err != nil {
			t.Fatal(err)
		}
		batches, recs, _ := readPartition(t, dir)
		out := batches[0]
		if out.Size() <= len(in) || out.Size() <= 256 || st.BytesWritten <= int64(len(in)) {
			t.Fatalf("rewritten batch %d bytes (written %d), want more than the input's %d and the 256-byte buffer", out.Size(), st.BytesWritten, len(in))
		}
		if h, ok := out.DeleteHorizonMs(); !ok || h != now+cfg.DeleteRetentionMs {
			t.Errorf("horizon %d %v, want %d", h, ok, now+cfg.DeleteRetentionMs)
		}
		if len(recs) != 101 || recs[0].Timestamp != 0 || recs[99].Value != nil {
			t.Errorf("records after the first clean: %d, first ts %d", len(recs), recs[0].Timestamp)
		}
		// The next clean reads the grown batch (past max.message.bytes and
		// the read buffer) and copies it as it is: the horizon has not passed.
		before := readAllBytes(t, seg(dir, 0, LogFileSuffix))
		if _, err := c.Clean(l, CleanOptions{Force: true, OverrideFirstDirty: true}); err != nil {
			t.Fatalf("second clean: %v", err)
		}
		if after := readAllBytes(t, seg(dir, 0, LogFileSuffix)); !bytes.Equal(before, after) {
			t.Error("the grown batch changed in a clean before its horizon")
		}
		mustVerify(t, dir, VerifyOptions{})
	})
}

func readAllBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
