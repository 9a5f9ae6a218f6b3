package lab

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyTruthUnreadable: verify --truth of a file that is missing, a
// directory, empty or not a ground truth file fails before anything is
// checked or printed (no partition line, no OK), with an error naming the
// --truth flag and the path. It once printed the partition's summary and
// "OK" and then failed on the open with an error that named no flag.
func TestVerifyTruthUnreadable(t *testing.T) {
	root, _ := generateSmall(t)
	dir := t.TempDir()
	empty, other := filepath.Join(dir, "empty.txt"), filepath.Join(dir, "other.txt")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, truth := range []string{filepath.Join(dir, "MISSING"), dir, empty, other} {
		var out bytes.Buffer
		err := VerifyCommand(VerifyCommandOptions{Dir: filepath.Join(root, "cleanerlab-0"), Checkpoint: -1, Truth: truth}, &out)
		if err == nil || !strings.Contains(err.Error(), "--truth") || !strings.Contains(err.Error(), truth) {
			t.Errorf("--truth %s: error %v, want one naming --truth and the path", truth, err)
		}
		if out.Len() != 0 {
			t.Errorf("--truth %s: printed before failing:\n%s", truth, out.String())
		}
	}
}
