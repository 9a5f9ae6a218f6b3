package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine/record"
)

// An error says where and what once: the path of a missing file appears
// one time in ScanFile's error.
func TestScanFileMissingNamesPathOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "00000000000000000000.log")
	err := ScanFile(nil, path, 0, func(FilePos, []byte) error { return nil })
	if err == nil {
		t.Fatal("ScanFile of a missing file: no error")
	}
	if n := strings.Count(err.Error(), path); n != 1 {
		t.Errorf("error names %s %d times, want once: %v", path, n, err)
	}
}

// A problem's cause in parentheses does not repeat the where (path, byte)
// and the what (the reason, already its Found) the problem says.
func TestVerifyProblemStringSaysCauseOnce(t *testing.T) {
	const p = "/d/t-0/00000000000000000000.log"
	ce := &record.CorruptionError{Path: p, Pos: 61, Reason: "batch CRC", Err: fmt.Errorf("%w: stored 0x1, computed 0x2", record.ErrCRCMismatch)}
	got := VerifyProblem{Check: "open", Path: p, Pos: 61, Expected: "a partition that opens", Found: "batch CRC", Err: ce}.String()
	want := "open: /d/t-0/00000000000000000000.log at byte 61: expected a partition that opens, found batch CRC (record: CRC mismatch: stored 0x1, computed 0x2)"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A torn tail keeps saying so.
	torn := &record.CorruptionError{Path: p, Pos: 0, Reason: "batch of 268 bytes but only 17 bytes left in the file", TornTail: true, Err: record.ErrTruncated}
	got = VerifyProblem{Check: "open", Path: p, Pos: 0, Expected: "a partition that opens", Found: torn.Reason, Err: torn}.String()
	if want := "open: /d/t-0/00000000000000000000.log at byte 0: expected a partition that opens, found batch of 268 bytes but only 17 bytes left in the file (torn tail: " + record.ErrTruncated.Error() + ")"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// A cause that is the Found itself is not repeated.
	got = VerifyProblem{Check: "index", Path: p, Pos: -1, Expected: "x", Found: "y", Err: errors.New("y")}.String()
	if want := "index: /d/t-0/00000000000000000000.log: expected x, found y"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Another file's corruption keeps its where.
	other := &record.CorruptionError{Path: "/d/t-0/00000000000000000000.index", Pos: 8, Reason: "entry", Err: nil}
	got = VerifyProblem{Check: "index", Path: p, Pos: 0, Expected: "x", Found: "y", Err: other}.String()
	if want := "index: /d/t-0/00000000000000000000.log at byte 0: expected x, found y (/d/t-0/00000000000000000000.index: corrupt at byte 8: entry)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
