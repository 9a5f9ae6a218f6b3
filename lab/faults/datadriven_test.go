package faults

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestSchedules runs testdata/schedules: each case is a schedule, one step
// per line (Step.String's form); the output is the trace (the log's end
// and start offsets and the flushed end after each step, worked by hand in
// the file's comments from Kafka's rules) and "ok" or the finding.
func TestSchedules(t *testing.T) {
	datadriven.RunTest(t, "testdata/schedules", func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "schedule":
			var steps []Step
			for _, line := range strings.Split(strings.TrimSpace(d.Input), "\n") {
				s, err := ParseStep(line)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				steps = append(steps, s)
			}
			var b strings.Builder
			f, _, err := runSchedule(t.TempDir(), 1, steps, func(line string) { b.WriteString(line + "\n") })
			if err != nil {
				t.Fatal(err)
			}
			if f != nil {
				fmt.Fprintf(&b, "finding: %s: %s\n", f.Kind, f.Detail)
			} else {
				b.WriteString("ok\n")
			}
			return b.String()
		case "parse":
			s, err := ParseStep(strings.TrimSpace(d.Input))
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			return s.String() + "\n"
		}
		t.Fatalf("unknown command %q", d.Cmd)
		return ""
	})
}
