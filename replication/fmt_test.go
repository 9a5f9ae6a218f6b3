package replication

import "testing"

func TestFmtMs(t *testing.T) {
	for ms, want := range map[int64]string{0: "0s", 500: "500ms", 3000: "3s", 70000: "1m10s", 60000: "1m", 3600000: "1h", 7200000: "2h", 3660000: "1h1m", 3601000: "1h0m1s", 259470000: "72h4m30s", 86400000: "24h"} {
		if got := fmtMs(ms); got != want {
			t.Errorf("fmtMs(%d) = %q, want %q", ms, got, want)
		}
	}
}
