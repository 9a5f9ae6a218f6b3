package lab

import (
	"testing"

	"github.com/cleanerlab/cleanerlab/results"
)

// TestExternalRowsNotMeasured: in a run cleaned by an external cleaner
// (kafka-jvm), our cleaner's rows it has no figure for read "n/a", not a
// plausible 0 (a new user read "fsync time 0.000 s", though Kafka flushes
// every cleaned segment); rows of the run itself (log sizes, the machine)
// and Kafka's own rows, appended after, are left as they are.
func TestExternalRowsNotMeasured(t *testing.T) {
	rows := []results.Row{
		{Name: "fsync time", Value: "0.000", Unit: "s"},
		{Name: "process read from storage", Value: "0.0", Unit: "MiB"},
		{Name: "read path", Value: ""},
		{Name: "map: read", Value: "0.0", Unit: "MiB"},
		{Name: "copy: written", Value: "0.0", Unit: "MiB"},
		{Name: "direct write", Value: "0.0", Unit: "KiB"},
		{Name: "log size before", Value: "12.0", Unit: "MiB"},
		{Name: "machine", Value: "others 0.00 cores"},
	}
	got := notMeasuredByExternal(rows, "kafka-jvm")
	for i, r := range got {
		na := i < 6
		if na && (r.Value != "n/a" || r.Unit != "") {
			t.Errorf("row %q: %q %q, want n/a with no unit", r.Name, r.Value, r.Unit)
		}
		if !na && r != rows[i] {
			t.Errorf("row %q changed: %+v", r.Name, r)
		}
	}
}
