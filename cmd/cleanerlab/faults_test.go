package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cleanerlab/cleanerlab/lab/faults"
)

// TestFaultsCmd: the campaign command runs the schedules asked for, writes
// its record, and refuses bad flags naming them.
func TestFaultsCmd(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "faults.json")
	out, err := cli(t, "faults", "--schedules", "12", "--steps", "30", "--seed", "40", "--dir", dir, "--json-out", rec)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(out, "12 schedules (seeds 40..51)") || !strings.Contains(out, "0 findings") {
		t.Errorf("summary: %s", out)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	var res faults.Result
	if err := json.Unmarshal(b, &res); err != nil || res.Schedules != 12 || res.FirstSeed != 40 || res.Counts.Steps != 12*30 {
		t.Errorf("record: %+v, %v", res, err)
	}
	for _, bad := range [][]string{{"--schedules", "0"}, {"--steps", "-1"}, {"--fault-rate", "2"}, {"--dir", filepath.Join(dir, "missing")}} {
		if _, err := cli(t, append([]string{"faults"}, bad...)...); err == nil || !strings.Contains(err.Error(), bad[0]) {
			t.Errorf("faults %v: %v, want an error naming %s", bad, err, bad[0])
		}
	}
}
