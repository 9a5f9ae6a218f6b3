package main

import (
	"strings"
	"testing"
)

// TestBaselineBadCounts: --runs, --file-bytes, --block-bytes and
// --mem-bytes given as 0 (or --runs negative) are refused, naming the
// flag, before anything is measured; they used to be taken silently as the
// defaults (3 runs, 1 GiB, 1 MiB, 256 MiB) while the header printed
// "0 runs".
func TestBaselineBadCounts(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flag, value string
	}{{"--runs", "0"}, {"--runs", "-3"}, {"--file-bytes", "0"}, {"--block-bytes", "0"}, {"--mem-bytes", "0"}} {
		out, err := cli(t, "baseline", "--dir", dir, "--out", t.TempDir(), c.flag, c.value)
		if err == nil || !strings.Contains(err.Error(), c.flag+" "+c.value) {
			t.Errorf("baseline %s %s: %v, want an error naming the flag", c.flag, c.value, err)
		}
		if strings.Contains(out, "measuring") {
			t.Errorf("baseline %s %s measured:\n%s", c.flag, c.value, out)
		}
	}
}
