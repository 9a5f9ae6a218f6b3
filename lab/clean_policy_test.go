package lab

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestCleanPartitionNotCompacted: a partition whose cleanup.policy lacks
// compact is not cleaned, and says so, as the same partition in a log
// directory clean: no error (a broker's cleaner never takes it; nothing is
// wrong with it), nothing changed.
func TestCleanPartitionNotCompacted(t *testing.T) {
	root, logCfg := generateSmall(t)
	logCfg.Compact, logCfg.Delete = false, true
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	var out bytes.Buffer
	err := CleanPartition(context.Background(), &out, filepath.Join(root, "cleanerlab-0"), CleanOptions{Log: logCfg, Cleaner: cfg, Force: true})
	if err != nil {
		t.Fatalf("clean of a delete-only partition: %v, want no error", err)
	}
	want := "cleanerlab-0: not cleaned: cleanup.policy=delete: never compacted (Kafka's cleaner takes only logs whose cleanup.policy contains compact)"
	if !strings.Contains(out.String(), want) {
		t.Errorf("output lacks %q:\n%s", want, out.String())
	}
}
