package lab

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/cleanerlab/cleanerlab/results"
)

// WriteKafkaLines writes KafkaLine of every clean of run (Stats), in order:
// what Kafka's cleaner logs after each clean, in Kafka's arithmetic.
func WriteKafkaLines(w io.Writer, run *results.Run) {
	for _, st := range Stats(run) {
		fmt.Fprint(w, KafkaLine(st))
	}
}

// WriteRunPaths writes where a run left its files: "record: " and the run
// record's directory, then "data: " and "uncleaned data: " for the data
// directories kept (Options.Keep), each only when set.
func WriteRunPaths(w io.Writer, run *results.Run) {
	fmt.Fprintf(w, "record: %s\n", run.Path)
	if run.DataDir != "" {
		fmt.Fprintf(w, "data: %s\n", run.DataDir)
	}
	if run.UncleanedDir != "" {
		fmt.Fprintf(w, "uncleaned data: %s\n", run.UncleanedDir)
	}
}

// NewReportDir returns the default directory of "cleanerlab report" made
// at now: report-<UTC time as 20060102-150405>, or with -2, -3 ...
// appended when that path exists, so that a report never writes over an
// earlier one of the same second. It creates nothing.
func NewReportDir(now time.Time) string {
	base := "report-" + now.UTC().Format("20060102-150405")
	out := base
	for i := 2; ; i++ {
		if _, err := os.Stat(out); os.IsNotExist(err) {
			return out
		}
		out = fmt.Sprintf("%s-%d", base, i)
	}
}
