package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdviseMatrixFlags: --matrix's refusals name the flag at fault, and a
// bad matrix file is an error naming the file, row and field.
func TestAdviseMatrixFlags(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("rows:\n  - name: a\n    keys: many\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"advise", "--matrix", "default"}, "--matrix needs --validate"},
		{[]string{"advise", "--validate", "--matrix", "default", "--keys", "10"}, "--keys describes one workload"},
		{[]string{"advise", "--validate", "--matrix", "default", "--no-calibration"}, "needs a calibration"},
		{[]string{"advise", "--validate", "--matrix", filepath.Join(t.TempDir(), "none.yaml")}, "none.yaml"},
		{[]string{"advise", "--validate", "--matrix", bad}, "bad.yaml: row 1 (a), field keys (line 3)"},
		{[]string{"advise", "--validate", "--matrix", "default", "--matrix-rows", "nope", "--out", t.TempDir(), "--calibration-log-bytes", "1MiB", "--calibration-runs", "1"}, `no row "nope"`},
	} {
		out, err := cli(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err %v, want one containing %q\n%s", c.args, err, c.want, out)
		}
	}
}
