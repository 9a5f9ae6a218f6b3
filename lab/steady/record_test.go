package steady

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeInterference stands for the results/interference verdict the caller
// measures around a run.
type fakeInterference struct {
	Verdict string  `json:"verdict"`
	StealPc float64 `json:"steal_pct"`
}

func (f fakeInterference) String() string { return f.Verdict + " (steal 12.5%)" }

// TestRecordInterference: RecordInfo.Interference is run.json's
// stats.interference, as given, and its line is a note of report.md and
// the last line of summary.md; without one neither has it.
func TestRecordInterference(t *testing.T) {
	samples := []*Sample{
		{ElapsedSeconds: 1, ProducerBytes: 1000, LogBytes: 1000},
		{ElapsedSeconds: 2, ProducerBytes: 2000, LogBytes: 2000},
		{ElapsedSeconds: 2.5, Final: true, ProducerBytes: 2500, LogBytes: 2500},
	}
	res := &Result{StartedAt: time.Date(2026, 12, 4, 18, 0, 0, 0, time.UTC), Samples: samples, Summary: Summarize(samples), Verdict: Judge(samples, 0)}
	for _, tc := range []struct {
		name string
		info any
	}{
		{"busy", fakeInterference{Verdict: "busy", StealPc: 12.5}},
		{"none", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, err := WriteRecord(t.TempDir(), res, RecordInfo{Config: map[string]string{"test": t.Name()}, Interference: tc.info})
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(dir, "run.json"))
			if err != nil {
				t.Fatal(err)
			}
			var run struct {
				Stats map[string]json.RawMessage `json:"stats"`
			}
			if err := json.Unmarshal(b, &run); err != nil {
				t.Fatal(err)
			}
			got, ok := run.Stats["interference"]
			if tc.info == nil {
				if ok {
					t.Errorf("run.json stats.interference = %s, want none", got)
				}
			} else {
				var back fakeInterference
				if err := json.Unmarshal(got, &back); err != nil || back != tc.info {
					t.Errorf("run.json stats.interference = %s (%v), want %+v", got, err, tc.info)
				}
			}
			summary, err := os.ReadFile(filepath.Join(dir, SummaryMDFile))
			if err != nil {
				t.Fatal(err)
			}
			report, err := os.ReadFile(filepath.Join(dir, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			const line = "interference: busy (steal 12.5%)"
			lines := strings.Split(strings.TrimRight(string(summary), "\n"), "\n")
			if has := lines[len(lines)-1] == line; has != (tc.info != nil) {
				t.Errorf("summary.md's last line %q; want %q: %v", lines[len(lines)-1], line, tc.info != nil)
			}
			if has := strings.Contains(string(report), line); has != (tc.info != nil) {
				t.Errorf("report.md has %q: %v, want %v", line, has, tc.info != nil)
			}
		})
	}
}
