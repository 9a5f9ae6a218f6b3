package truthfile

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenerateNamesTheFlag: a workload count out of range (--keys -1 and
// generate's other counts, which a flag parses as any integer) and a ratio
// out of range are refused naming the flag that sets them, and --dir is
// not made.
func TestGenerateNamesTheFlag(t *testing.T) {
	for _, c := range []struct {
		flag string
		set  func(o *GenerateCommandOptions)
	}{
		{"--keys", func(o *GenerateCommandOptions) { o.Workload.Keys = -1 }},
		{"--partitions", func(o *GenerateCommandOptions) { o.Workload.Partitions = -1 }},
		{"--records-per-batch", func(o *GenerateCommandOptions) { o.Workload.RecordsPerBatch = -1 }},
		{"--records-per-sec", func(o *GenerateCommandOptions) { o.Workload.RecordsPerSecond = -1 }},
		{"--start-time-ms", func(o *GenerateCommandOptions) { o.Workload.StartTimeMs = -1 }},
		{"--producers", func(o *GenerateCommandOptions) { o.Workload.Txn.Producers = -1 }},
		{"--batches-per-txn", func(o *GenerateCommandOptions) { o.Workload.Txn.BatchesPerTxn = -1 }},
		{"--tombstone-ratio", func(o *GenerateCommandOptions) { o.Workload.TombstoneRatio = -1 }},
	} {
		dir := filepath.Join(t.TempDir(), "logs")
		o := DefaultGenerateCommandOptions()
		o.Dir = dir
		c.set(&o)
		err := GenerateCommand(context.Background(), o, &bytes.Buffer{})
		if err == nil || !strings.HasPrefix(err.Error(), "generate: "+c.flag+": ") {
			t.Errorf("%s -1: %v, want an error starting generate: %s: ", c.flag, err, c.flag)
		}
		if _, err := os.Stat(dir); err == nil {
			t.Errorf("%s -1: %s made", c.flag, dir)
		}
	}
}
