package lab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
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

// TestCleanPartitionNotesMissingCheckpoint: a partition directory copied
// without its parent's cleaner-offset-checkpoint (or with a checkpoint that
// has no entry for it) is cleaned from its log start, as Kafka cleans a log
// never cleaned: clean says so, naming the partition and the directory
// where it looked. With the entry, or with --first-dirty-offset, no note.
func TestCleanPartitionNotesMissingCheckpoint(t *testing.T) {
	cfg := engine.DefaultCleanerConfig()
	cfg.DedupeBufferBytes = 1 << 20
	clean := func(root string, o CleanOptions) string {
		t.Helper()
		var out bytes.Buffer
		o.Cleaner, o.Force = cfg, true
		if err := CleanPartition(context.Background(), &out, filepath.Join(root, "cleanerlab-0"), o); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	const note = "note: no cleaner-offset-checkpoint entry for cleanerlab-0 in "

	root, logCfg := generateSmall(t)
	if out := clean(root, CleanOptions{Log: logCfg}); strings.Contains(out, note) {
		t.Errorf("with the generator's checkpoint: note printed:\n%s", out)
	}

	root, logCfg = generateSmall(t)
	if err := os.Remove(filepath.Join(root, engine.CleanerCheckpointFile)); err != nil {
		t.Fatal(err)
	}
	out := clean(root, CleanOptions{Log: logCfg})
	want := note + root + ": the whole log is dirty, as for a log never cleaned"
	if !strings.Contains(out, want) {
		t.Errorf("without the checkpoint: output lacks %q:\n%s", want, out)
	}
	if !strings.Contains(out, "cleanerlab-0: cleaned [0, ") {
		t.Errorf("without the checkpoint: want the clean from offset 0:\n%s", out)
	}

	root, logCfg = generateSmall(t)
	if err := os.Remove(filepath.Join(root, engine.CleanerCheckpointFile)); err != nil {
		t.Fatal(err)
	}
	first := record.Offset(0)
	if out := clean(root, CleanOptions{Log: logCfg, FirstDirty: &first}); strings.Contains(out, note) {
		t.Errorf("with --first-dirty-offset: note printed:\n%s", out)
	}
}
