package lab

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cleanerlab/cleanerlab/results"
)

func TestWriteRunPaths(t *testing.T) {
	var b bytes.Buffer
	WriteRunPaths(&b, &results.Run{Path: "runs/a"})
	if b.String() != "record: runs/a\n" {
		t.Errorf("got %q", b.String())
	}
	b.Reset()
	WriteRunPaths(&b, &results.Run{Path: "runs/a", DataDir: "/d", UncleanedDir: "/d-uncleaned"})
	if want := "record: runs/a\ndata: /d\nuncleaned data: /d-uncleaned\n"; b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

func TestNewReportDir(t *testing.T) {
	wd, _ := os.Getwd()
	dir := t.TempDir()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	// 2026-03-04 05:06:07 at UTC+2 is 03:06:07 UTC.
	now := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 2*3600))
	if got := NewReportDir(now); got != "report-20260304-030607" {
		t.Fatalf("got %q", got)
	}
	for _, d := range []string{"report-20260304-030607", "report-20260304-030607-2"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if got := NewReportDir(now); got != "report-20260304-030607-3" {
		t.Errorf("with two taken: got %q", got)
	}
}
