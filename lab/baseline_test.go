package lab

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/iosched"
)

func TestMeasureBaselineRefusesNonDirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	err := MeasureBaseline(t.Context(), &b, file, t.TempDir(), iosched.BaselineOptions{BlockBytes: 1 << 20, Runs: 1, MemBytes: 1 << 20})
	if err == nil || !strings.HasPrefix(err.Error(), "baseline: --dir "+file+": not a directory") {
		t.Fatalf("got %v, want baseline: --dir %s: not a directory", err, file)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q before refusing", b.String())
	}
}

func TestMibSamples(t *testing.T) {
	// 1.5 MiB/s rounds to 2 (half to even), 3.4 MiB/s to 3.
	if got := mibSamples([]float64{1 << 20, 1.5 * (1 << 20), 3.4 * (1 << 20)}); got != "1 2 3" {
		t.Errorf("got %q, want %q", got, "1 2 3")
	}
	if got := mibSamples(nil); got != "" {
		t.Errorf("no samples: got %q", got)
	}
	if deviceOrNone("") != "no block device" || deviceOrNone("sda") != "sda" {
		t.Errorf("deviceOrNone: %q %q", deviceOrNone(""), deviceOrNone("sda"))
	}
}
