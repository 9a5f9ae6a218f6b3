package inspect

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/cleanerlab/cleanerlab/engine"
	"github.com/cleanerlab/cleanerlab/engine/record"
)

func TestWriteRecovery(t *testing.T) {
	var b bytes.Buffer
	WriteRecovery(&b, nil)
	if b.Len() != 0 {
		t.Fatalf("nil report wrote %q", b.String())
	}
	tr := engine.Truncation{Path: "t-0/00000000000000000000.log", Pos: 100, BytesCut: 20, Err: &record.CorruptionError{Reason: "short batch", TornTail: true}}
	WriteRecovery(&b, &engine.RecoveryReport{Truncations: []engine.Truncation{tr}, DeletedSegments: []string{"t-0/00000000000000000050.log"}, RemovedOrphans: []string{"t-0/00000000000000000090.index"}})
	want := "recovery: t-0/00000000000000000000.log: torn tail of 20 bytes cut at byte 100 (short batch)\n" +
		"recovery: deleted t-0/00000000000000000050.log (after a torn tail)\n" +
		"recovery: removed orphan index t-0/00000000000000000090.index\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestOnlyRecoveryPending(t *testing.T) {
	pending := fmt.Errorf("t-0: %w", engine.ErrRecoveryPending)
	ok := VerifyResult{Dir: "ok"}
	pend := VerifyResult{Dir: "p", Err: pending, Report: &engine.VerifyReport{}}
	pendWithProblem := VerifyResult{Dir: "pp", Err: pending, Report: &engine.VerifyReport{Problems: []engine.VerifyProblem{{Check: "crc"}}}}
	bad := VerifyResult{Dir: "b", Err: errors.New("crc mismatch")}
	for _, c := range []struct {
		name string
		rs   []VerifyResult
		want bool
	}{
		{"none failed", []VerifyResult{ok}, false},
		{"only pending", []VerifyResult{ok, pend}, true},
		{"pending and a problem", []VerifyResult{pend, bad}, false},
		{"pending with a problem of its own", []VerifyResult{pendWithProblem}, false},
		{"empty", nil, false},
	} {
		if got := OnlyRecoveryPending(c.rs); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
