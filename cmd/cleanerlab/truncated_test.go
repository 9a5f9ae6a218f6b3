package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
)

// TestCleanRefusesTruncatedSegment: clean refuses a partition whose middle
// segment was emptied (its .log cut to 0 bytes) while its time index still
// names the offsets it held, naming the file, nothing changed (marker
// included); --accept-truncated-segments goes on, and the clean then
// succeeds on what is left. The same holds for a log directory root: the
// partition is reported in the error, the exit status 1.
func TestCleanRefusesTruncatedSegment(t *testing.T) {
	for _, whole := range []bool{false, true} {
		root := t.TempDir()
		part := filepath.Join(root, "t-0")
		dirtyPartition(t, part)
		middle := filepath.Join(part, "00000000000000000008.log")
		if err := os.Truncate(middle, 0); err != nil {
			t.Fatal(err)
		}
		target := part
		if whole {
			target = root
		}
		before := hashTree(t, root)
		out, err := cli(t, "clean", "--dir", target, "--force")
		// A root's error lists each partition's error as text.
		if err == nil || !strings.Contains(err.Error(), middle) || !strings.Contains(err.Error(), engine.ErrTruncatedSegment.Error()) ||
			(!whole && !errors.Is(err, engine.ErrTruncatedSegment)) {
			t.Fatalf("clean --dir %s: %v, want ErrTruncatedSegment naming %s\n%s", target, err, middle, out)
		}
		assertSameTree(t, root, before)
		if _, err := cli(t, "clean", "--dir", target, "--force", "--accept-truncated-segments"); err != nil {
			t.Fatalf("clean --accept-truncated-segments: %v", err)
		}
	}
}
