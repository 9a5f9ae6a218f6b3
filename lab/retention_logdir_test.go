package lab

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
	"github.com/cleanerlab/cleanerlab/workloads"
)

// TestRetentionLogDir: retention over a log directory root applies
// Kafka's retention to every partition (each with its topic's config):
// with retention.ms 1 and a clock far past every record, every inactive
// segment of each partition goes (the generator leaves an empty active
// segment at the log end, which stays) and its log start offset becomes
// its log end offset; a partition directory
// with no segment file is skipped and said to be; DeleteRecords and a high
// watermark apply to one partition and are refused for a root.
func TestRetentionLogDir(t *testing.T) {
	spec := workloads.DefaultSpec()
	spec.Keys, spec.LogBytes, spec.SegmentBytes, spec.Partitions = 2000, 256<<10, 64<<10, 2
	cfg := engine.DefaultLogConfig()
	root := filepath.Join(t.TempDir(), "logs")
	if _, err := workloads.Generate(root, spec, cfg, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "empty-0"), 0o755); err != nil {
		t.Fatal(err)
	}
	leo := map[string]record.Offset{}
	for _, p := range []string{"cleanerlab-0", "cleanerlab-1"} {
		l, err := engine.Open(filepath.Join(root, p), engine.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		leo[p] = l.LogEndOffset()
		l.Close()
	}
	cfg.Compact, cfg.Delete, cfg.RetentionMs = false, true, 1
	far := time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC)
	var out bytes.Buffer
	if err := RetentionLogDir(&out, root, RetentionOptions{Log: cfg, Now: func() time.Time { return far }}, nil); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for p, end := range leo {
		for _, want := range []string{
			fmt.Sprintf(" segments deleted; log start offset %d, log end offset %d, 1 segments left", end, end),
			p + ": deleted segment 0 ",
		} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("output lacks %q:\n%s", want, out.String())
			}
		}
	}
	if !strings.Contains(out.String(), filepath.Join(root, "empty-0")+": skipped: no segment file") {
		t.Errorf("the empty partition directory is not said to be skipped:\n%s", out.String())
	}
	d := record.Offset(5)
	if err := RetentionLogDir(&out, root, RetentionOptions{Log: cfg, DeleteRecords: &d}, nil); err == nil {
		t.Error("DeleteRecords over a whole root accepted")
	}
}
